"""Emitters: SGLang flags reproduce the plan exactly; vLLM and env forms are well-formed."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from cgconfig import resolve_args
from cgconfig.emit import emit_plan, env_lines, sglang_args, vllm_args

SCENARIOS = [
    ["--tp-size", "8", "--gpu-memory-gib", "141"],
    ["--disaggregation-mode", "prefill"],
    ["--cuda-graph-max-bs-decode", "48", "--enable-torch-compile", "--torch-compile-max-bs", "16"],
    ["--max-running-requests", "100", "--enable-dp-attention", "--tp-size", "8", "--dp-size", "2"],
    ["--cuda-graph-bs-decode", "1", "3", "9", "--disable-cuda-graph-padding"],
    ["--speculative-algorithm", "EAGLE", "--speculative-num-draft-tokens", "4",
     "--speculative-num-steps", "3", "--speculative-eagle-topk", "2"],
    ["--device", "hip"],
]
FACT_FLAGS = {"--tp-size", "--gpu-memory-gib", "--disaggregation-mode", "--max-running-requests",
              "--enable-dp-attention", "--dp-size", "--speculative-algorithm",
              "--speculative-num-draft-tokens", "--speculative-num-steps",
              "--speculative-eagle-topk", "--device"}


def _facts(argv: list[str]) -> list[str]:
    out, keep = [], False
    for token in argv:
        if token.startswith("--"):
            keep = token in FACT_FLAGS
        if keep:
            out.append(token)
    return out


@pytest.mark.parametrize("argv", SCENARIOS, ids=lambda a: " ".join(a))
def test_sglang_emit_round_trip(argv: list[str]) -> None:
    plan = resolve_args(argv)
    again = resolve_args(_facts(argv) + sglang_args(plan))
    assert again.config == plan.config
    assert again.capture == plan.capture
    assert again.options == plan.options


def test_vllm_emit_is_json_and_lists_what_is_lost() -> None:
    plan = resolve_args(["--disable-cuda-graph-padding", "--cuda-graph-backend-prefill", "full"])
    args, notes = vllm_args(plan)
    config = json.loads(args[1])
    assert args[0] == "--compilation-config"
    assert config["cudagraph_mode"] == "FULL"
    assert any("disable-cuda-graph-padding" in n for n in notes)


def test_env_lines_eval_in_a_shell() -> None:
    plan = resolve_args(["--disaggregation-mode", "decode"])
    script = "\n".join(env_lines(plan)) + '\necho "$CGCONFIG_PREFILL_BACKEND|$CGCONFIG_DOWNGRADED"'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "disabled|1"


def test_emit_plan_sglang_is_shell_quoted() -> None:
    text, notes = emit_plan(resolve_args([]), "sglang")
    assert shlex.split(text)[0] == "--cuda-graph-config" and notes == []
