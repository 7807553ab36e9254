"""The bugs issue #8 names, each fixed where the redesign removed its cause."""

from __future__ import annotations

import json

import pytest

from cgconfig import resolve_args
from cgconfig.cli.main import main
from cgconfig.errors import InputError

VLLM_LINE = ["-cc", '{"cudagraph_mode":"FULL"}', "--gpu-memory-gib", "80"]


@pytest.mark.parametrize("name", ["vllm", "llama"])
def test_an_argument_equal_to_vllm_is_not_dropped(name: str) -> None:
    # The old vLLM path filtered every token equal to "vllm" out of the line.
    plan = resolve_args([*VLLM_LINE, "--served-model-name", name, "--tp", "2"])
    assert plan.facts["tp_size"] == 2


@pytest.mark.parametrize("spelling", [["--emit", "vllm"], ["--emit=vllm"]])
def test_emit_vllm_with_a_space_or_an_equals_sign(spelling: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", *VLLM_LINE, *spelling]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--compilation-config ")
    assert '"cudagraph_mode":"FULL"' in out


def test_vllm_truncation_is_a_note_not_a_deprecation(capsys: pytest.CaptureFixture[str]) -> None:
    plan = resolve_args(["-cc.max_cudagraph_capture_size=300", "--gpu-memory-gib", "80"])
    assert plan.deprecations == []
    assert plan.notes == ["Truncating max_cudagraph_capture_size to 288"]
    assert main(["resolve", "-cc.max_cudagraph_capture_size=300", "--gpu-memory-gib", "80",
                 "-o", "json"]) == 0
    captured = capsys.readouterr()
    assert "note: Truncating max_cudagraph_capture_size to 288" in captured.err
    assert "deprecated" not in captured.err
    assert json.loads(captured.out)["notes"] == plan.notes


@pytest.mark.parametrize("argv", [
    ["-cc.max_cudagraph_capture_size=0.2505k"],
    ["--cuda-graph-prefill-max-context", "0.2505k"],
])
def test_one_human_int_parser_for_every_dialect(argv: list[str]) -> None:
    with pytest.raises(InputError, match="whole number"):
        resolve_args(argv)


def test_cli_flags_are_not_core_flags() -> None:
    with pytest.raises(InputError, match="unknown flag -o"):
        resolve_args(["-o", "json"])


def test_emit_without_a_value_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", *VLLM_LINE, "--emit"]) == 2
    err = capsys.readouterr().err
    assert "--emit expects a value" in err and "sglang, vllm, trtllm, env" in err
