"""An SGLang spelling on a vLLM or TensorRT-LLM launch line is refused as that engine's parser
refuses any flag it lacks, whichever kind of cgconfig flag it is (a deployment fact such as
``--disable-overlap-schedule`` or ``--tp-size``, a graph key's flag such as
``--cuda-graph-max-bs``, a removed SGLang flag), through the CLI: one line, exit 2. cgconfig's
own flags (``--gpu-memory-gib``, ``--model-arch``, ``--strict``, the platform ``--device``)
stay accepted on every line."""

from __future__ import annotations

import pytest

from cgconfig.cli.main import main
from cgconfig.fields.flags import FACT_FLAGS
from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED, label, newest
from cgconfig.sources.own_flags import is_own_flag

LINES = {"vllm": ["vllm", "serve", "meta-llama/Llama-3.1-8B"],
         "trtllm": ["trtllm-serve", "meta-llama/Llama-3.1-8B"]}

#: SGLang's fact flags that used to be read silently on another engine's line, its graph flags
#: (one crashed), a removed SGLang flag, and the SGLang flag the refusal was written for.
SGLANG_WORDS = [["--disable-overlap-schedule"], ["--enable-mixed-chunk"], ["--enable-pdmux"],
                ["--enable-dp-attention"], ["--page-size", "16"], ["--tp-size", "2"],
                ["--attn-dp-size", "2"], ["--model-path", "m"],
                ["--cuda-graph-max-bs", "8"], ["--cuda-graph-bs-decode", "1", "2"],
                ["--disable-cuda-graph"], ["--enable-torch-compile"],
                ["--enable-piecewise-cuda-graph"], ["--enable-hierarchical-cache"]]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["resolve", "-o", "json", *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("engine", sorted(LINES))
@pytest.mark.parametrize("words", SGLANG_WORDS, ids=lambda w: w[0])
def test_an_sglang_flag_on_another_engines_line_is_one_refusal(
        engine: str, words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run([*LINES[engine], *words], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    name = words[0]
    assert lines[0].startswith(f"cgconfig: error: command line: unknown flag {name}")
    assert f"{name} is a SGLang" in lines[0]
    assert f"not a {load_table(engine).label} one" in lines[0]
    assert "`python -m sglang.launch_server` takes it" in lines[0]


def test_the_engines_own_spelling_is_the_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    _, err = _run([*LINES["vllm"], "--tp-size", "2"], capsys)
    assert "did you mean '--tensor-parallel-size'?" in err
    _, err = _run([*LINES["trtllm"], "--tp-size", "2"], capsys)
    assert "did you mean '--tp_size'?" in err


def test_an_older_vllm_release_refuses_it_naming_that_release(
        capsys: pytest.CaptureFixture[str]) -> None:
    oldest = SUPPORTED["vllm"][0]
    code, err = _run([*LINES["vllm"], "--engine-version", f"vllm=={oldest}",
                      "--disable-overlap-schedule"], capsys)
    assert code == 2 and f"not a {label('vllm', oldest)} one" in err


@pytest.mark.parametrize("engine", sorted(LINES))
def test_cgconfigs_own_flags_stay_accepted_on_every_line(
        engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    own = ["--gpu-memory-gib", "80", "--gpu-sm", "90", "--model-arch", "LlamaForCausalLM",
           "--strict", "--device", "cuda"]
    code, err = _run([*LINES[engine], *own], capsys)
    assert code == 0, err


def test_the_same_flags_are_read_on_an_sglang_line(capsys: pytest.CaptureFixture[str]) -> None:
    words = [w for group in SGLANG_WORDS[:6] for w in group] + ["--chunked-prefill-size", "-1"]
    code, err = _run(["python", "-m", "sglang.launch_server", *words, "--gpu-memory-gib", "80"],
                     capsys)
    assert code == 0, err


def test_own_facts_are_the_machine_and_the_facts_no_sglang_flag_spells() -> None:
    # the split "cgconfig's own (any line)" / "SGLang's" that `resolve --help` shows, and the
    # platform: SGLang has --device, but no engine reads the platform from a flag, and a vLLM
    # line on ROCm says it with --device hip (tests/fidelity/compare_vllm_engine.py)
    table = load_table("sglang", newest("sglang"))
    for flag in FACT_FLAGS:
        own = table.lookup(flag.name) is None or flag.name == "--device"
        assert is_own_flag(flag) == own, flag.name


def test_own_flags_on_another_engines_line_read_no_sglang_table() -> None:
    # the refusal costs nothing on a line that carries none: only the line's own engine table
    from cgconfig.api import resolve_args
    from cgconfig.line import table as table_module

    cache = table_module._load_table
    for line in ([*LINES["vllm"], "--gpu-memory-gib", "80", "--model-arch", "LlamaForCausalLM"],
                 [*LINES["trtllm"], "--gpu-memory-gib", "80", "--strict"]):
        cache.cache_clear()
        resolve_args(line, environ={})
        assert cache.cache_info().currsize == 1, line


def test_ignore_unknown_args_skips_a_graph_flag_and_dynamo_keeps_its_shared_spellings(
        capsys: pytest.CaptureFixture[str]) -> None:
    from cgconfig.api import resolve_args

    # --ignore-unknown-args: an SGLang graph flag is skipped like any other (it crashed)
    code, err = _run([*LINES["vllm"], "--ignore-unknown-args", "--cuda-graph-max-bs", "8"],
                     capsys)
    assert code == 0, err
    plan = resolve_args([*LINES["vllm"], "--ignore-unknown-args", "--cuda-graph-max-bs", "8"],
                        environ={})
    assert "--cuda-graph-max-bs" in plan.ignored_args
    # a Dynamo worker's own --model-path and --disaggregation-mode (Dynamo's argument groups)
    # are SGLang's names with SGLang's meaning: read as before
    plan = resolve_args(["python3", "-m", "dynamo.trtllm", "--model-path", "m",
                         "--disaggregation-mode", "prefill", "--endpoint", "dyn://a.b.c"],
                        environ={})
    assert (plan.facts["model_path"], plan.facts["disaggregation_mode"]) == ("m", "prefill")
