"""The model's config.json as facts: local folders, the Hugging Face cache, line provenance,
--json-model-override-args, explicit flags winning, bounds and malformed files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.errors import InputError
from cgconfig.hf_cache import find_config, hub_cache
from cgconfig.sources.model_config import key_lines

HF_HOME = Path(__file__).resolve().parents[1] / "data" / "hf_cache"
DEEPSEEK_CONFIG = next((HF_HOME / "hub" / "models--deepseek-ai--DeepSeek-V3" / "snapshots")
                       .glob("*/config.json"))


@pytest.fixture
def hf_home(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    return HF_HOME


def _line_of(path: Path, key: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1)
                if line.strip().startswith(f'"{key}"'))


def test_deepseek_v3_from_the_cache_gets_arch_and_mla_with_lines(hf_home: Path) -> None:
    plan = resolve_args(["--model-path", "deepseek-ai/DeepSeek-V3"])
    assert plan.facts["model_arch"] == "DeepseekV3ForCausalLM"
    assert plan.facts["use_mla"] is True
    assert plan.facts["is_multimodal"] is False
    line = _line_of(DEEPSEEK_CONFIG, "architectures")
    assert plan.fact_sources["model_arch"] == f"{DEEPSEEK_CONFIG}:{line}"
    assert plan.fact_sources["use_mla"].startswith(f"{DEEPSEEK_CONFIG}:{line} (")
    assert plan.key_facts["model_arch"] == {"value": "DeepseekV3ForCausalLM",
                                            "source": f"{DEEPSEEK_CONFIG}:{line}"}


@pytest.mark.parametrize("extra", [
    ["--attention-backend", "trtllm_mla"],
    ["--gpu-sm", "100", "--gpu-memory-gib", "180"],
    ["--gpu-memory-gib", "80", "--tp", "8"],
])
def test_cached_deepseek_plans_like_model_arch_given(hf_home: Path, extra: list[str]) -> None:
    from_cache = resolve_args(["--model-path", "deepseek-ai/DeepSeek-V3", *extra]).to_dict()
    given = resolve_args(["--model-path", "no/such-model", "--model-arch",
                          "DeepseekV3ForCausalLM", *extra]).to_dict()
    for part in ("config", "capture", "locked", "decisions", "warnings"):
        assert from_cache[part] == given[part], part
    assert from_cache["facts"]["use_mla"] is given["facts"]["use_mla"] is True


def test_the_issue_line_turns_prefill_off_once_the_model_is_read(hf_home: Path) -> None:
    argv = ["--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend", "trtllm_mla"]
    assert resolve_args(argv).backend("prefill") == "disabled"


@pytest.mark.parametrize(("repo", "arch", "mla", "multimodal"), [
    ("meta-llama/Llama-3.1-8B-Instruct", "LlamaForCausalLM", False, False),
    ("Qwen/Qwen3-235B-A22B", "Qwen3MoeForCausalLM", False, False),
    ("Qwen/Qwen2.5-VL-7B-Instruct", "Qwen2_5_VLForConditionalGeneration", False, True),
    ("openai/gpt-oss-120b", "GptOssForCausalLM", False, False),
])
def test_fixture_models(hf_home: Path, repo: str, arch: str, mla: bool, multimodal: bool) -> None:
    facts = resolve_args(["--model-path", repo]).facts
    assert (facts["model_arch"], facts["use_mla"], facts["is_multimodal"]) == (arch, mla,
                                                                              multimodal)


def test_hf_hub_cache_wins_over_hf_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(HF_HOME / "hub"))
    assert hub_cache({"HF_HOME": "/x", "HF_HUB_CACHE": "/y"}) == Path("/y")
    assert hub_cache({"HF_HOME": "/x"}) == Path("/x/hub")
    assert hub_cache({"XDG_CACHE_HOME": "/c"}) == Path("/c/huggingface/hub")
    assert resolve_args(["--model-path", "deepseek-ai/DeepSeek-V3"]).facts["use_mla"] is True


def test_local_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "kimi_vl", "architectures": ["KimiVLForConditionalGeneration"],
         "text_config": {"kv_lora_rank": 512}}, indent=1))
    plan = resolve_args(["--model-path", str(tmp_path)])
    assert plan.facts["model_arch"] == "KimiVLForConditionalGeneration"
    assert plan.facts["use_mla"] is True and plan.facts["is_multimodal"] is True
    assert plan.fact_sources["model_arch"] == f"{tmp_path / 'config.json'}:3"


def test_snapshot_without_refs_main_takes_the_newest(tmp_path: Path) -> None:
    repo = tmp_path / "hub" / "models--org--m" / "snapshots"
    for name, arch in (("aaa", "LlamaForCausalLM"), ("bbb", "MistralForCausalLM")):
        (repo / name).mkdir(parents=True)
        (repo / name / "config.json").write_text(json.dumps({"architectures": [arch]}))
    import os

    os.utime(repo / "aaa" / "config.json", (1, 1))
    os.utime(repo / "aaa", (2**31, 2**31))
    found = find_config("org/m", {"HF_HOME": str(tmp_path)}).path
    assert found == repo / "aaa" / "config.json"


def test_explicit_flags_win_over_the_file(hf_home: Path) -> None:
    plan = resolve_args(["--model-path", "deepseek-ai/DeepSeek-V3", "--model-arch",
                         "LlamaForCausalLM"])
    assert plan.facts["model_arch"] == "LlamaForCausalLM"
    assert plan.fact_sources["model_arch"] == "--model-arch"
    assert plan.facts["use_mla"] is False  # derived from the architecture given
    plan = resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--use-mla"])
    assert plan.facts["use_mla"] is True and plan.fact_sources["use_mla"] == "--use-mla"


def test_model_arch_alone_derives_mla_and_multimodal() -> None:
    facts = resolve_args(["--model-arch", "DeepseekV3ForCausalLM"]).facts
    assert facts["use_mla"] is True
    facts = resolve_args(["--model-arch", "Qwen3VLForConditionalGeneration"]).facts
    assert facts["is_multimodal"] is True and facts["use_mla"] is False


def test_override_args_apply_over_the_file_with_their_provenance(hf_home: Path) -> None:
    plan = resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                         "--json-model-override-args",
                         '{"architectures": ["DeepseekV3ForCausalLM"]}'])
    assert plan.facts["model_arch"] == "DeepseekV3ForCausalLM"
    assert plan.fact_sources["model_arch"] == "--json-model-override-args"
    assert plan.facts["use_mla"] is True
    plan = resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--model-arch",
                         "LlamaForCausalLM", "--json-model-override-args",
                         '{"architectures": ["DeepseekV3ForCausalLM"]}'])
    assert plan.facts["model_arch"] == "LlamaForCausalLM"


def test_override_merges_into_a_subconfig(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(
        {"architectures": ["PixtralForConditionalGeneration"], "text_config": {"a": 1}}))
    argv = ["--model-path", str(tmp_path)]
    assert resolve_args(argv).facts["use_mla"] is False
    plan = resolve_args([*argv, "--json-model-override-args",
                         '{"text_config": {"kv_lora_rank": 512}}'])
    assert plan.facts["use_mla"] is True
    assert plan.fact_sources["use_mla"].startswith("--json-model-override-args")


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"architectures": "LlamaForCausalLM"}', "architectures must be a list of names"),
    ("[" * 200 + "]" * 200, "nest"),
])
def test_malformed_config_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(InputError) as err:
        resolve_args(["--model-path", str(tmp_path)])
    assert message in str(err.value) and "\n" not in str(err.value)
    assert str(tmp_path) in str(err.value)


def test_malformed_config_exits_2_on_the_cli(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from cgconfig.cli.main import main

    (tmp_path / "config.json").write_text("{")
    assert main(["resolve", "--model-path", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.json" in err and "Traceback" not in err


def test_oversized_config_is_refused(tmp_path: Path) -> None:
    from cgconfig.limits import MAX_FILE_BYTES

    (tmp_path / "config.json").write_text('{"x": "' + "a" * MAX_FILE_BYTES + '"}')
    with pytest.raises(InputError, match=r"too large|bytes"):
        resolve_args(["--model-path", str(tmp_path)])


def test_bad_override_args() -> None:
    with pytest.raises(InputError, match="--json-model-override-args"):
        resolve_args(["--json-model-override-args", "[1]", "--model-arch", "LlamaForCausalLM"])
    with pytest.raises(InputError, match="--json-model-override-args"):
        resolve_args(["--json-model-override-args", "{", "--model-path", "x/y"])


@pytest.mark.parametrize("path", ["../etc/passwd", "a/../b", "org/name/extra", "org/.hidden",
                                  "", "x\0y"])
def test_paths_that_are_not_repo_ids_are_not_looked_up(path: str) -> None:
    assert find_config(path, {"HF_HOME": str(HF_HOME)}).path is None


def test_key_lines_follow_nesting_and_skip_arrays() -> None:
    text = '{\n "a": 1,\n "b": {\n  "c": [ {"d": 2} ],\n  "e": "x:y"\n },\n "f\\"g": 3\n}'
    assert key_lines(text) == {("a",): 2, ("b",): 3, ("b", "c"): 4, ("b", "e"): 5,
                               ('f"g',): 7}


def test_a_real_cache_layout_with_blob_symlinks(tmp_path: Path) -> None:
    """huggingface_hub stores files as blobs; snapshots hold symlinks to them."""
    repo = tmp_path / "hub" / "models--org--m"
    (repo / "blobs").mkdir(parents=True)
    (repo / "blobs" / "0123abcd").write_text('{"architectures": ["DeepseekV3ForCausalLM"]}')
    (repo / "snapshots" / "c0ffee1").mkdir(parents=True)
    (repo / "snapshots" / "c0ffee1" / "config.json").symlink_to("../../blobs/0123abcd")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("c0ffee1")
    found = find_config("org/m", {"HF_HUB_CACHE": str(tmp_path / "hub")}).path
    assert found == repo / "snapshots" / "c0ffee1" / "config.json"


def test_a_fifo_as_refs_main_cannot_hang_the_lookup(tmp_path: Path) -> None:
    import os

    repo = tmp_path / "hub" / "models--org--m"
    (repo / "refs").mkdir(parents=True)
    os.mkfifo(repo / "refs" / "main")
    (repo / "snapshots" / "abc").mkdir(parents=True)
    (repo / "snapshots" / "abc" / "config.json").write_text("{}")
    assert find_config("org/m", {"HF_HUB_CACHE": str(tmp_path / "hub")}).path == (
        repo / "snapshots" / "abc" / "config.json")


def test_python_api_reads_the_model_too(hf_home: Path) -> None:
    from cgconfig import resolve_dict

    plan = resolve_dict(None, {"model_path": "deepseek-ai/DeepSeek-V3",
                               "attention_backend": "trtllm_mla"})
    assert plan.facts["use_mla"] is True and plan.backend("prefill") == "disabled"
    assert resolve_dict(None, {"attention_backend": "aiter"}).facts["device"] == "hip"


def test_unknown_model_folder_note_says_the_folder_has_no_config(tmp_path: Path) -> None:
    (note,) = resolve_args(["--model-path", str(tmp_path)]).notes
    assert f"the folder {tmp_path} has no config.json" in note


@pytest.mark.parametrize(("repo", "length"), [
    ("deepseek-ai/DeepSeek-V3", 163840),  # yarn factor 40 ignored: original_max_position_embeddings
    ("meta-llama/Llama-3.1-8B-Instruct", 131072),  # rope_type llama3: factor ignored
    ("Qwen/Qwen3-235B-A22B", 40960),
    ("Qwen/Qwen2.5-VL-7B-Instruct", 128000),
])
def test_model_context_length_as_sglang_derives_it(hf_home: Path, repo: str,
                                                   length: int) -> None:
    plan = resolve_args(["--model-path", repo])
    assert plan.facts["model_context_length"] == length
    assert plan.fact_sources["model_context_length"].endswith(
        f":{_line_of(find_config(repo).path, 'max_position_embeddings')}")  # type: ignore[arg-type]


def test_model_context_length_with_a_rope_factor_and_the_default(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(
        {"architectures": ["Qwen2ForCausalLM"], "max_position_embeddings": 32768,
         "rope_scaling": {"factor": 4.0, "type": "yarn"}}))
    plan = resolve_args(["--model-path", str(tmp_path)])
    assert plan.facts["model_context_length"] == 131072
    assert plan.fact_sources["model_context_length"].endswith(
        "(max_position_embeddings 32768 × rope_scaling.factor 4)")
    (tmp_path / "config.json").write_text('{"architectures": ["X"]}')
    assert resolve_args(["--model-path", str(tmp_path)]).facts["model_context_length"] == 2048


def test_context_length_above_the_models_is_refused(hf_home: Path) -> None:
    from cgconfig.errors import CgConfigError

    with pytest.raises(CgConfigError, match="refuses --context-length 262144"):
        resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length",
                      "262144"])
    resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "8192"])


def test_bad_rope_factor_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(
        {"max_position_embeddings": 4096, "rope_scaling": {"factor": "big"}}, indent=1))
    with pytest.raises(InputError, match=r"rope_scaling.factor must be a number") as err:
        resolve_args(["--model-path", str(tmp_path)])
    assert "config.json:3" in str(err.value)


def test_absurd_context_length_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"max_position_embeddings": 100000000000000}')
    with pytest.raises(InputError, match="tokens of context"):
        resolve_args(["--model-path", str(tmp_path)])


def test_config_without_architectures_says_so_in_the_note(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"max_position_embeddings": 4096}')
    plan = resolve_args(["--model-path", str(tmp_path)])
    assert plan.facts["model_arch"] is None and plan.facts["model_context_length"] == 4096
    (note,) = plan.notes
    assert f"{tmp_path / 'config.json'} names no architectures" in note
