"""The vLLM dialect end to end: flag parsing, JSON + dotted merge, mode mapping, Stage B, sizes."""

from __future__ import annotations

import json

import pytest

from cgconfig import InputError, resolve_args
from cgconfig.sources.command_line import split_command_line

MODES = {
    "NONE": ("disabled", "disabled"),
    "PIECEWISE": ("breakable", "breakable"),
    "FULL": ("full", "full"),
    "FULL_DECODE_ONLY": ("full", "disabled"),
    "FULL_AND_PIECEWISE": ("full", "breakable"),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("spelling", ["json", "dotted", "lower"])
def test_each_mode_maps_to_phase_backends(mode: str, spelling: str) -> None:
    if spelling == "json":
        argv = ["--compilation-config", json.dumps({"cudagraph_mode": mode})]
    elif spelling == "dotted":
        argv = [f"-cc.cudagraph_mode={mode}"]
    else:
        argv = ["-cc.cudagraph_mode", mode.lower()]
    plan = resolve_args(argv)
    assert (plan.backend("decode"), plan.backend("prefill")) == MODES[mode]
    assert {"decode.backend", "prefill.backend"} <= set(plan.locked)
    # the mapping is shown in the provenance
    entry = plan.provenance["decode.backend"][-1]
    assert f"cudagraph_mode={mode}" in entry.source


def test_default_mode_is_full_and_piecewise_and_not_locked() -> None:
    plan = resolve_args(["--max-num-seqs", "128"])
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "breakable")
    assert "decode.backend" not in plan.locked
    assert plan.provenance["decode.backend"][-1].source == "vLLM default"


def test_dotted_keys_win_over_json_and_the_json_value_stays_shadowed() -> None:
    plan = resolve_args(["-cc.cudagraph_mode=PIECEWISE",
                         "--compilation-config", '{"cudagraph_mode": "FULL"}'])
    assert plan.backend("decode") == "breakable"
    sources = [e.source for e in plan.provenance["decode.backend"]]
    assert any("cudagraph_mode=FULL " in s or s.endswith("cudagraph_mode=FULL → decode full, "
                                                         "prefill full)") for s in sources)
    assert "cudagraph_mode=PIECEWISE" in sources[-1]


def test_json_and_dotted_merge_instead_of_dropping_the_json() -> None:
    plan = resolve_args(["--compilation-config", '{"cudagraph_capture_sizes": [1, 2, 4, 8]}',
                         "-cc.cudagraph_mode=FULL_DECODE_ONLY"])
    assert plan.config["decode"]["bs"] == [1, 2, 4, 8]
    assert plan.backend("prefill") == "disabled"


def test_vllm_default_grid_is_used() -> None:
    plan = resolve_args(["--max-num-seqs", "256", "--max-num-batched-tokens", "2048"])
    sizes = plan.config["decode"]["bs"]
    assert len(sizes) == 51 and sizes[:5] == [1, 2, 4, 8, 16] and sizes[-1] == 512


def test_enforce_eager_disables_both_phases() -> None:
    plan = resolve_args(["--enforce-eager", "-cc.cudagraph_mode=FULL"])
    assert plan.capture_sizes("decode") == [] and plan.capture_sizes("prefill") == []


def test_stage_b_downgrade_is_a_recorded_decision() -> None:
    plan = resolve_args(["-cc.cudagraph_mode=FULL", "--vllm-attention-backend", "FLASHINFER"])
    rules = [d.rule for d in plan.decisions]
    assert "vllm.B2" in rules
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "breakable")


def test_spec_decode_rounds_sizes_to_multiples_of_q() -> None:
    plan = resolve_args(["-cc.cudagraph_mode=FULL_DECODE_ONLY", "--vllm-attention-backend",
                         "FLASHMLA", "--num-speculative-tokens", "3",
                         "-cc.cudagraph_capture_sizes=[1,2,5,8,30]"])
    # 5 → 8 and 30 → 32; 32 exceeds the capture maximum (30), so vLLM drops it
    assert plan.config["decode"]["bs"] == [4, 8]
    assert any(d.rule == "vllm.B7" for d in plan.decisions)


def test_never_backend_with_full_is_an_error_like_vllm() -> None:
    with pytest.raises(InputError, match="not supported with CPU_ATTN"):
        resolve_args(["-cc.cudagraph_mode=FULL", "--vllm-attention-backend", "CPU_ATTN"])


def test_mode_typo_gets_a_did_you_mean() -> None:
    with pytest.raises(InputError, match="FULL_DECODE_ONLY"):
        resolve_args(["-cc.cudagraph_mode=FULL_DECODE_ONY"])


def test_unknown_compilation_key_is_an_error_with_suggestion() -> None:
    with pytest.raises(InputError, match="cudagraph_capture_sizes"):
        resolve_args(["-cc.cudagraph_capture_size=[1,2]"])


def test_engine_flag_and_cc_key_are_mutually_exclusive() -> None:
    with pytest.raises(InputError, match="mutually exclusive"):
        resolve_args(["-cc.cudagraph_capture_sizes=[1,2]", "--cudagraph-capture-sizes", "4"])


def test_dialect_detection() -> None:
    assert detect_dialect(["-cc.cudagraph_mode=FULL"]) == "vllm"
    assert detect_dialect(["--enforce-eager"]) == "vllm"
    assert detect_dialect(["--extra-llm-api-options", "x.yaml"]) == "trtllm"
    assert detect_dialect(["--tp-size", "2"]) == "sglang"
    assert detect_dialect(["--dialect", "vllm"]) == "vllm"


def detect_dialect(argv: list[str]) -> str:
    """The dialect the one split of a command line chose."""
    return split_command_line(argv).dialect
