"""Emitters: SGLang flags reproduce the plan exactly; vLLM and env forms are well-formed."""

from __future__ import annotations

import json
import os
import shlex
import subprocess

import pytest

from cgconfig import resolve_args
from cgconfig.emit import emit_plan, env_lines
from cgconfig.emit_units import decode_sizes_as
from cgconfig.engines.sglang.emit import sglang_args, sglang_config
from cgconfig.engines.vllm.emit import VLLM_INEXPRESSIBLE, vllm_args
from cgconfig.engines.vllm.splitting_ops import VLLM_ATTENTION_OPS
from cgconfig.errors import InputError
from tests.bounds import HANG_S

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


def test_sglang_emit_pins_every_key_of_both_phases() -> None:
    """SGLang derives an unset prefill max_bs from the chunked-prefill size: it is emitted."""
    plan = resolve_args(["--disaggregation-mode", "decode", "--cuda-graph-bs-prefill", "4", "8"])
    config = sglang_config(plan)
    assert config["prefill"] == {"backend": "disabled", "max_bs": plan.config["prefill"]["max_bs"],
                                 "bs": [4, 8]}
    assert config["decode"]["max_bs"] == plan.config["decode"]["max_bs"]


def test_vllm_emit_is_json_and_lists_what_is_lost() -> None:
    plan = resolve_args(["--disable-cuda-graph-padding", "--cuda-graph-backend-prefill", "full"])
    args, notes = vllm_args(plan)
    config = json.loads(args[1])
    assert args[0] == "--compilation-config"
    assert config["cudagraph_mode"] == "FULL"
    assert any("disable-cuda-graph-padding" in n for n in notes)


#: One line per item vLLM cannot express, and the tag its note carries.
INEXPRESSIBLE = {
    "mode": ["--cuda-graph-backend-decode", "breakable", "--cuda-graph-backend-prefill", "full"],
    "one-list": [],
    "max-bs": ["--cuda-graph-config", '{"prefill":{"max_bs":9000,"bs":[4,8]}}'],
    "padding": ["--disable-cuda-graph-padding"],
    "option": ["--enable-cudagraph-gc"],
    "prefill-extra": ["--cuda-graph-config", '{"prefill":{"max_seq_len":4096}}'],
    "compile-mode": ["--dialect", "vllm", "-cc", json.dumps(
        {"mode": 2, "cudagraph_mode": "FULL", "splitting_ops": list(VLLM_ATTENTION_OPS)}),
        "--cudagraph-support", "UNIFORM_BATCH"],
    "empty-sizes": ["--dialect", "vllm", "-cc", '{"cudagraph_capture_sizes":[64]}',
                    "--max-num-batched-tokens", "16", "--max-num-seqs", "16"],
}


def test_every_inexpressible_item_is_named_by_a_note() -> None:
    assert set(INEXPRESSIBLE) == set(VLLM_INEXPRESSIBLE)
    for tag, argv in INEXPRESSIBLE.items():
        from cgconfig.cli.launch_args import user_compilation_config

        _, notes = vllm_args(resolve_args(argv), user_compilation_config(argv))
        assert any(n.startswith(f"[{tag}] ") for n in notes), (tag, notes)


def test_vllm_emit_of_a_vllm_line_keeps_the_users_other_keys_and_names_nothing() -> None:
    argv = ["--dialect", "vllm", "-cc", '{"mode":3,"custom_ops":["none"],"cudagraph_mode":"FULL"}',
            "--cudagraph-support", "ALWAYS"]
    out = subprocess.run(["cgconfig", "resolve", "--emit", "vllm", *argv], capture_output=True,
                         text=True, timeout=HANG_S)
    assert out.returncode == 0 and "not expressible" not in out.stderr, out.stderr
    config = json.loads(shlex.split(out.stdout)[1])
    assert config["mode"] == 3 and config["custom_ops"] == ["none"]
    assert config["cudagraph_mode"] == "FULL"


# --- units ------------------------------------------------------------------------------------

VLLM_SPECULATIVE = ["--dialect", "vllm", "--num-speculative-tokens", "3", "--max-num-seqs", "8",
             "--cudagraph-support", "UNIFORM_BATCH"]
SGLANG_SPECULATIVE = ["--speculative-algorithm", "EAGLE", "--speculative-num-draft-tokens", "4",
               "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
               "--cuda-graph-bs-decode", "1", "2", "8"]


def test_each_phase_says_what_its_sizes_count() -> None:
    assert resolve_args([]).to_dict()["units"] == {
        "decode": {"counts": "requests", "tokens_per_request": 1}, "prefill": {"counts": "tokens"}}
    assert resolve_args(SGLANG_SPECULATIVE).units["decode"] == {"counts": "requests",
                                                        "tokens_per_request": 4}
    vllm = resolve_args(VLLM_SPECULATIVE)
    assert vllm.units["decode"] == {"counts": "tokens", "tokens_per_request": 4}
    assert vllm.size_unit("decode") == "tokens" and vllm.size_unit("prefill") == "tokens"


def test_vllm_token_sizes_become_sglang_request_counts() -> None:
    plan = resolve_args(VLLM_SPECULATIVE)
    tokens = plan.config["decode"]["bs"]
    assert all(size % 4 == 0 for size in tokens)  # vLLM's B7 rounding
    decode = sglang_config(plan)["decode"]
    assert decode["bs"] == [size // 4 for size in tokens]
    assert decode["max_bs"] == plan.config["decode"]["max_bs"] // 4
    assert sglang_config(plan)["prefill"]["bs"] == plan.config["prefill"]["bs"]  # tokens both


def test_token_sizes_that_are_not_whole_requests_are_refused_naming_the_phase() -> None:
    argv = [*VLLM_SPECULATIVE[:-2], "-cc", '{"cudagraph_mode":"PIECEWISE"}']
    plan = resolve_args(argv)
    with pytest.raises(InputError, match="cannot convert the decode phase"):
        sglang_args(plan)
    out = subprocess.run(["cgconfig", "resolve", "--emit", "sglang", *argv], capture_output=True,
                         text=True, timeout=HANG_S)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "--emit sglang: cannot convert the decode phase" in out.stderr
    env = subprocess.run(["cgconfig", "resolve", "--emit", "env", *argv], capture_output=True,
                         text=True, timeout=HANG_S)  # a vLLM launch script still gets its variables
    assert env.returncode == 0 and "export CGCONFIG_SGLANG_ARGS=''" in env.stdout
    assert "export CGCONFIG_DECODE_UNIT=tokens" in env.stdout
    assert "not expressible in sglang: CGCONFIG_SGLANG_ARGS" in env.stderr


def test_sglang_request_counts_become_vllm_tokens() -> None:
    plan = resolve_args([*SGLANG_SPECULATIVE, "--cuda-graph-backend-prefill", "disabled"])
    config = json.loads(vllm_args(plan)[0][1])
    assert config["cudagraph_capture_sizes"] == [4, 8, 32]
    assert decode_sizes_as(plan, [1, 2, 8], "requests", "vllm") == [1, 2, 8]


def test_the_table_header_names_the_units() -> None:
    wide = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(["cgconfig", "resolve", *VLLM_SPECULATIVE], capture_output=True, text=True,
                         timeout=HANG_S, env=wide)
    assert "decode (tokens, 4 per request)" in out.stdout and "prefill (tokens)" in out.stdout
    out = subprocess.run(["cgconfig", "resolve", *SGLANG_SPECULATIVE], capture_output=True, text=True,
                         timeout=HANG_S, env=wide)
    assert "decode (requests × 4 tokens)" in out.stdout


def test_env_lines_eval_in_a_shell() -> None:
    plan = resolve_args(["--disaggregation-mode", "decode"])
    script = "\n".join(env_lines(plan)) + '\necho "$CGCONFIG_PREFILL_BACKEND|$CGCONFIG_DOWNGRADED"'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "disabled|1"


def test_emit_plan_sglang_is_shell_quoted() -> None:
    text, notes = emit_plan(resolve_args([]), "sglang")
    assert shlex.split(text)[0] == "--cuda-graph-config" and notes == []


def test_an_empty_decode_list_is_emitted_disabled_with_a_note() -> None:
    """SGLang 0.5.23 takes max() of an explicit decode list: [] would crash it."""
    plan = resolve_args(["--dialect", "vllm", "-cc",
                         '{"cudagraph_mode":"PIECEWISE","cudagraph_capture_sizes":[64]}',
                         "--max-num-batched-tokens", "16", "--max-num-seqs", "16"])
    assert plan.config["decode"]["bs"] == []
    text, notes = emit_plan(plan, "sglang")
    assert json.loads(shlex.split(text)[1])["decode"] == {"backend": "disabled"}
    assert notes and "cannot take an empty decode list" in notes[0]


def test_the_table_header_says_per_request_only_for_whole_requests() -> None:
    """PIECEWISE decode replays the mixed graphs (1, 2, 4, … tokens), not N requests × 4."""
    wide = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(["cgconfig", "resolve", *VLLM_SPECULATIVE, "-cc.cudagraph_mode=PIECEWISE"],
                         capture_output=True, text=True, timeout=60, env=wide)
    assert "decode (tokens)" in out.stdout and "per request" not in out.stdout
