"""Real launch lines from the engines' docs, cookbooks and recipes split cleanly under their tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.errors import InputError
from cgconfig.line import find_entry_point, tokenize
from cgconfig.sources.engine_line import read_engine_line

DATA = Path(__file__).resolve().parent.parent / "data"
LINES = DATA / "launch_lines" / "lines.jsonl"
#: The fixture Hugging Face cache holding the real ``config.json`` of the models the lines name.
HF_HOME = DATA / "hf_cache"
ENTRIES: list[dict[str, Any]] = [json.loads(line) for line in LINES.read_text().splitlines() if line.strip()]


def test_the_corpus_is_large_and_sourced() -> None:
    assert len(ENTRIES) >= 40
    assert {e["engine"] for e in ENTRIES} == {"sglang", "vllm", "trtllm"}
    assert len({e["line"] for e in ENTRIES}) == len(ENTRIES)
    for entry in ENTRIES:
        assert entry["source"].startswith("https://"), entry["id"]


#: What a refusal of the parser itself says (an unknown, ambiguous or stray word).
UNKNOWN = ("unknown flag", "unknown option", "unexpected argument", "ambiguous option",
           "unrecognized")


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_line_splits_with_no_unknown_flag(entry: dict[str, Any]) -> None:
    found = find_entry_point(entry["line"])
    assert found is not None and found.dialect == entry["engine"]
    # Read as cgconfig resolve reads the words after the entry point. A line may still be
    # refused for what it says (an options file it names that is not here, a config key the
    # release lacks), never for a flag the engine's parser knows.
    try:
        read_engine_line(found.dialect, found.argv)
    except InputError as error:
        if entry["id"] == "sglang-37":  # SGLang itself rejects it: see SGLANG_REFUSED
            assert "ambiguous option: --cuda-graph-max-bs could match " \
                   "--cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill" in str(error)
            return
        assert not any(word in str(error) for word in UNKNOWN), str(error)
        return
    assert entry["id"] != "sglang-37"


SGLANG = [e for e in ENTRIES if e["engine"] == "sglang"]

#: SGLang lines whose recorded answer cgconfig does not reproduce, with the reason.
KNOWN_DIFFERENCES = {
    "sglang-13": "SGLang's dLLM algorithm registry fails to load JointThreshold in the CPU oracle "
                 "(RuntimeError: Unknown diffusion LLM algorithm); cgconfig does not model "
                 "--dllm-algorithm",
}




@pytest.mark.parametrize("entry", SGLANG, ids=[e["id"] for e in SGLANG])
def test_sglang_line_has_the_engines_answer(entry: dict[str, Any]) -> None:
    oracle = entry["oracle"]
    answer = oracle["answer"]
    # SGLang's own argparse accepted every recorded line, as cgconfig's reading does.
    assert answer["error_stage"] != "argparse" or entry["id"] in {**KNOWN_DIFFERENCES,
                                                                   **SGLANG_REFUSED}
    assert "--model-arch" in oracle["options"]
    if answer["error"] is None:
        assert answer["decode"]["backend"] in ("full", "breakable", "disabled")
        assert answer["prefill"]["backend"] in ("full", "breakable", "disabled")


#: The model facts cgconfig is given for the oracle's config.json template of each SGLang line
#: (``oracle.options``), and the machine: what SGLang read from the model and the GPU.
TEMPLATE_FACTS = {
    "llama": ["--model-arch", "LlamaForCausalLM"],
    "llama-2": ["--model-arch", "LlamaForCausalLM"],
    "qwen3_moe": ["--model-arch", "Qwen3MoeForCausalLM"],
    "deepseek_v3": ["--model-arch", "DeepseekV3ForCausalLM", "--use-mla"],
    "qwen3_vl": ["--model-arch", "Qwen3VLForConditionalGeneration", "--is-multimodal"],
    "qwen3_5_moe_vl": ["--model-arch", "Qwen3_5MoeForConditionalGeneration", "--is-multimodal"],
}
def machine_facts(entry: dict[str, Any]) -> list[str]:
    """cgconfig flags for the GPU and model the SGLang answer was recorded with."""
    if entry["engine"] != "sglang":
        return []
    options = entry["oracle"]["options"]
    facts = ["--gpu-memory-gib", options[options.index("--gpu-memory-gib") + 1]]
    if "--sm" in options:
        facts += ["--gpu-sm", options[options.index("--sm") + 1]]
    facts += TEMPLATE_FACTS[options[options.index("--model-arch") + 1]]
    if entry.get("platform") == "hip":
        facts += ["--device", "hip"]
    return facts


def real_config_facts(entry: dict[str, Any]) -> list[str]:
    """The machine the line ran on; the model facts come from the fixture cache's config.json."""
    options = entry.get("oracle", {}).get("options", [])
    facts = ["--gpu-memory-gib", options[options.index("--gpu-memory-gib") + 1]] if options else []
    if "--sm" in options:
        facts += ["--gpu-sm", options[options.index("--sm") + 1]]
    if entry["expect"]["platform_from"] == "machine":
        facts += ["--device", entry["expect"]["platform"]]
    return facts


#: The release whose own code answered each engine's lines: they are answered as it.
ANSWERED_BY = {"sglang": "0.5.23", "vllm": "0.33.0"}


def line_argv(entry: dict[str, Any], options_file: Path, real_config: bool = False) -> list[str]:
    """The line's words after the release that answered it and the machine and model facts
    (the oracle template's, or with ``real_config`` only the machine's); an options file named
    by an unset shell variable is ``options_file``."""
    words = [str(options_file) if w.startswith("${") else w for w in tokenize(entry["line"])]
    release = ANSWERED_BY.get(entry["engine"])
    pin = ["--engine-version", f"{entry['engine']}=={release}"] if release else []
    return pin + (real_config_facts(entry) if real_config else machine_facts(entry)) + words


#: vLLM lines from recipes written for a later vLLM, which vLLM 0.33.0 refuses (checked with
#: vllm_engine_oracle.py); cgconfig refuses them with vLLM's reason.
VLLM_REFUSED = {
    "vllm-07": "pass_config.fuse_minimax_qk_norm: vLLM 0.33.0's PassConfig has no such field "
               "(ValidationError: Unexpected keyword argument)",
}


#: SGLang lines from docs written for an older SGLang, which SGLang 0.5.23 refuses (its
#: recorded answer); cgconfig refuses them as that release's parser does.
SGLANG_REFUSED = {
    "sglang-37": "SGLang 0.5.23's argparse rejects --cuda-graph-max-bs (removed in 0.5.20) as an "
                 "ambiguous prefix of --cuda-graph-max-bs-decode and -prefill",
}
REFUSED = {**VLLM_REFUSED, **SGLANG_REFUSED}


@pytest.mark.parametrize("line_id", list(SGLANG_REFUSED))
def test_sglang_line_refused_as_its_release_refuses_it(line_id: str, tmp_path: Path) -> None:
    entry = next(e for e in ENTRIES if e["id"] == line_id)
    assert entry["oracle"]["answer"]["error_stage"] == "argparse"
    argv = line_argv(entry, tmp_path / "x.yaml")  # pinned to the release that answered it
    assert argv[:2] == ["--engine-version", "sglang==0.5.23"]
    with pytest.raises(InputError, match="ambiguous option"):
        request_from_argv(argv, environ={})
    # Naming no release, the line is answered for the releases whose parser accepts it
    # (line/release_from_flags.py), not refused for the newest's.
    chosen = request_from_argv(argv[2:], environ={}).engine_version
    assert chosen is not None and chosen.source == "the line's flags"
    assert chosen.version != "0.5.23" and chosen.note and "parses on" in chosen.note


@pytest.mark.parametrize("line_id", list(VLLM_REFUSED))
def test_vllm_line_refused_as_vllm_refuses_it(line_id: str, tmp_path: Path) -> None:
    entry = next(e for e in ENTRIES if e["id"] == line_id)
    with pytest.raises(InputError, match="Unexpected keyword argument"):
        request_from_argv(line_argv(entry, tmp_path / "x.yaml"), environ={})


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["id"] not in REFUSED],
                         ids=[e["id"] for e in ENTRIES if e["id"] not in REFUSED])
def test_line_resolves_without_ignore_unknown_args(entry: dict[str, Any], tmp_path: Path) -> None:
    options = tmp_path / "extra_llm_api_options.yaml"
    options.write_text("cuda_graph_config:\n  enable_padding: true\n")
    argv = line_argv(entry, options)
    assert "--ignore-unknown-args" not in argv
    request = request_from_argv(argv, environ={})
    assert request.dialect == entry["engine"]
    answer = entry.get("oracle", {}).get("answer")
    if answer is None or entry["id"] in KNOWN_DIFFERENCES:
        resolve_request(request)
        return
    if answer["error"]:
        with pytest.raises(Exception):  # noqa: B017 - SGLang refuses: cgconfig must too
            resolve_request(request)
        return
    plan = resolve_request(request).to_dict()["config"]
    for phase in ("decode", "prefill"):
        want = {k: answer[phase][k] for k in ("backend", "max_bs", "bs")}
        assert {k: plan[phase][k] for k in want} == want, phase


@pytest.mark.parametrize("line_id", list(KNOWN_DIFFERENCES))
def test_known_differences_are_still_different(line_id: str) -> None:
    entry = next(e for e in ENTRIES if e["id"] == line_id)
    plan = resolve_request(request_from_argv(line_argv(entry, Path("x")), environ={}))
    answer = entry["oracle"]["answer"]
    # SGLang refuses these lines; cgconfig plans them (fix one: drop it from the list).
    assert answer["error"] and plan.to_dict()["config"]["decode"]["backend"] != "disabled"


MODEL_FACTS = ("model_arch", "use_mla", "is_multimodal", "model_context_length")
WITH_CONFIG = [e for e in ENTRIES if e["expect"]["model"] is not None]


def test_every_line_has_an_expectation() -> None:
    for entry in ENTRIES:
        expect = entry["expect"]
        assert expect["platform"] == entry["platform"], entry["id"]
        assert expect["platform_from"] in ("line", "machine"), entry["id"]
        assert expect["model"] is None or set(expect["model"]) == set(MODEL_FACTS), entry["id"]
    assert len(WITH_CONFIG) >= 40


def cache_path(model: str) -> Path:
    return HF_HOME / "hub" / ("models--" + model.replace("/", "--"))


ACCEPTED = [e for e in ENTRIES if e["id"] not in REFUSED]


@pytest.mark.parametrize("entry", ACCEPTED, ids=[e["id"] for e in ACCEPTED])
def test_line_resolves_to_the_expected_platform_and_model(
        entry: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    options = tmp_path / "extra_llm_api_options.yaml"
    options.write_text("cuda_graph_config:\n  enable_padding: true\n")
    # The line's own VAR=value prefixes count (sglang-22 sets
    # SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to run past the config's context length).
    request = request_from_argv(line_argv(entry, options, real_config=True), environ={})
    model = request.facts.get("model_path")
    expect = entry["expect"]
    # A model with no config in the fixture cache has no expected facts, and the other way round.
    assert (expect["model"] is not None) == (model is not None and cache_path(model).is_dir())
    facts = resolve_request(request).to_dict()["key_facts"]
    assert facts["device"]["value"] == expect["platform"]
    if expect["platform_from"] == "line":
        assert facts["device"]["source"] != "--device"
    if expect["model"] is None:
        assert facts["model_arch"] == {"value": None, "source": "unknown"}
        return
    assert {k: facts[k]["value"] for k in MODEL_FACTS} == expect["model"]
    for name in MODEL_FACTS:
        assert str(cache_path(model)) in facts[name]["source"], name


SGLANG_WITH_CONFIG = [e for e in WITH_CONFIG if e["engine"] == "sglang"
                      and e["id"] not in KNOWN_DIFFERENCES and e["id"] not in REFUSED]


@pytest.mark.parametrize("entry", SGLANG_WITH_CONFIG, ids=[e["id"] for e in SGLANG_WITH_CONFIG])
def test_sglang_plan_from_the_real_config_is_the_engines(
        entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the oracle's template agrees with the real config on MLA and multimodal, the plan
    read from the real config.json is SGLang's recorded answer."""
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    answer = entry["oracle"]["answer"]
    options = entry["oracle"]["options"]
    template = TEMPLATE_FACTS[options[options.index("--model-arch") + 1]]
    assert ("--use-mla" in template) == entry["expect"]["model"]["use_mla"]
    assert ("--is-multimodal" in template) == entry["expect"]["model"]["is_multimodal"]
    plan = resolve_request(request_from_argv(line_argv(entry, Path("x"), real_config=True),
                                             environ={})).to_dict()["config"]
    for phase in ("decode", "prefill"):
        want = {k: answer[phase][k] for k in ("backend", "max_bs", "bs")}
        assert {k: plan[phase][k] for k in want} == want, phase


@pytest.mark.parametrize("environ, prefix, refused", [
    ({}, "", True),
    ({"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}, "", False),
    ({}, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 ", False),
    ({"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=0 ",
     True),
])
def test_context_length_above_the_config_needs_sglangs_variable(
        environ: dict[str, str], prefix: str, refused: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang 0.5.23 takes a --context-length above the config's only under
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN (the line's prefix winning over the environment)."""
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    line = (f"{prefix}python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct "
            "--context-length 32768")
    request = request_from_argv(["--gpu-memory-gib", "80", *tokenize(line)], environ=environ)
    if refused:
        with pytest.raises(Exception, match="refuses --context-length 32768"):
            resolve_request(request)
        return
    facts = resolve_request(request).to_dict()["key_facts"]
    assert facts["model_context_length"]["value"] == 8192
