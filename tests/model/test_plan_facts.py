"""Every plan shows the platform, the GPU and the model facts with their sources (table and
JSON), and one note when a named model's architecture is unknown but rules read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.cli.main import main
from cgconfig.facts import SHOWN_FACTS

HF_HOME = Path(__file__).resolve().parents[1] / "data" / "hf_cache"


def test_json_always_has_the_key_facts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "-o", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["key_facts"]
    assert list(facts) == list(SHOWN_FACTS)
    assert facts["device"] == {"value": "cuda", "source": "default"}
    assert facts["gpu_memory_gib"] == {"value": None,
                                       "source": "unknown (CGCONFIG_NO_GPU_PROBE is set)"}
    assert facts["model_arch"] == {"value": None, "source": "unknown"}
    assert facts["use_mla"] == {"value": False, "source": "default"}


def test_vllm_plans_show_them_too() -> None:
    assert list(resolve_args(["--dialect", "vllm"]).key_facts) == list(SHOWN_FACTS)


def test_table_shows_platform_gpu_and_model_with_sources(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    assert main(["resolve", "--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend",
                 "aiter", "--gpu-memory-gib", "192", "--gpu-sm", "94"]) == 0
    out = capsys.readouterr().out
    assert "platform: hip (inferred from --attention-backend aiter)" in out
    assert "GPU: memory 192 GiB (--gpu-memory-gib) · SM 94 (--gpu-sm) · count unknown" in out
    assert "model: deepseek-ai/DeepSeek-V3 (--model-path) · config " in out
    assert "models--deepseek-ai--DeepSeek-V3" in out
    assert "arch DeepseekV3ForCausalLM (config.json:" in out
    assert "MLA yes (config.json:" in out and "multimodal no (config.json:" in out


def test_one_note_names_the_rules_and_how_to_give_the_architecture(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``explain`` prints the note; the ``resolve`` table shows the facts as unknown with one
    short hint instead of the rule list."""
    line = ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "trtllm_mla"]
    assert main(["explain", *line]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "note:" in line]
    assert len(notes) == 1
    assert "attention.deepseek-v3-trtllm-mla-prefill" in notes[0]
    assert "--model-arch NAME" in notes[0] and "Hugging Face cache" in notes[0]
    assert main(["resolve", *line]) == 0
    captured = capsys.readouterr()
    assert "note:" not in captured.err
    assert "arch unknown · MLA unknown · multimodal unknown" in captured.out
    assert [ln for ln in captured.out.splitlines() if "--model-arch NAME" in ln] == [
        "    no config.json found: give --model-arch NAME, a local model folder, or HF_HOME with "
        "the model; `cgconfig explain` names the rules that read it"]


def test_no_note_when_the_architecture_is_known_or_no_model_is_named() -> None:
    assert resolve_args(["--model-path", "x/y", "--model-arch", "LlamaForCausalLM"]).notes == []
    assert resolve_args(["--attention-backend", "trtllm_mla"]).notes == []


def test_the_note_lists_only_rules_the_rest_of_the_line_leaves_open() -> None:
    plan = resolve_args(["--model-path", "x/y", "--attention-backend", "fa3",
                         "--cuda-graph-backend-prefill", "disabled"])
    (note,) = plan.notes
    # prefill is off, so the DeepSeek trtllm_mla rule cannot apply whatever the model is.
    assert "attention.deepseek-v3-trtllm-mla-prefill" not in note
    assert "model.hrm-text-prefix-lm" in note


def test_a_disabled_rule_is_not_named() -> None:
    plan = resolve_args(["--model-path", "x/y", "--disable-rule", "model.glm5-next-prefill-max-bs"])
    assert "model.glm5-next-prefill-max-bs" not in plan.notes[0]


def test_undecided_is_three_valued() -> None:
    from cgconfig.draft import Draft
    from cgconfig.rules.undecided import evaluate3

    draft = Draft(values={}, chains={}, locked=frozenset(), leaves={},
                  facts={"model_arch": None, "tp_size": 8})
    unknown = frozenset({"facts.model_arch"})
    arch = {"eq": {"path": "facts.model_arch", "value": "X"}}
    tp8 = {"eq": {"path": "facts.tp_size", "value": 8}}
    tp1 = {"eq": {"path": "facts.tp_size", "value": 1}}
    assert evaluate3(arch, draft, {}, unknown) is None
    assert evaluate3({"all": [arch, tp1]}, draft, {}, unknown) is False
    assert evaluate3({"all": [arch, tp8]}, draft, {}, unknown) is None
    assert evaluate3({"any": [arch, tp8]}, draft, {}, unknown) is True
    assert evaluate3({"any": [arch, tp1]}, draft, {}, unknown) is None
    assert evaluate3({"not": arch}, draft, {}, unknown) is None
    assert evaluate3({"not": tp1}, draft, {}, unknown) is True


def test_launch_scripts_do_not_pass_cgconfig_only_facts(capsys: pytest.CaptureFixture[str]) -> None:
    """--gpu-sm, --gpu-count and --model-context-length are cgconfig's (the engines learn them
    from the GPU and the config); --json-model-override-args is SGLang's own flag."""
    assert main(["resolve", "--tp", "8", "--gpu-sm", "90", "--gpu-count", "8",
                 "--model-context-length", "4096", "--json-model-override-args", "{}",
                 "--emit", "env"]) == 0
    server = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("export CGCONFIG_SERVER_ARGS="))
    assert "--json-model-override-args" in server and "--tp 8" in server
    for flag in ("--gpu-sm", "--gpu-count", "--model-context-length"):
        assert flag not in server
