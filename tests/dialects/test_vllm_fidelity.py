"""The seven vLLM reproductions of issue #10 (V1-V7), each checked against vLLM 0.33.0's answer.

Expected values come from vLLM 0.33.0's own code (``VllmConfig.__post_init__``,
``_set_cudagraph_sizes``, ``CompilationConfig.set_splitting_ops_for_v1`` and
``resolve_cudagraph_mode_and_sizes``), as the fidelity oracle answers them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig import InputError, resolve_args
from cgconfig.engines.vllm.modes import CudaGraphMode
from cgconfig.engines.vllm.splitting_ops import VLLM_ATTENTION_OPS, splitting_fixup

MODES = {("disabled", "disabled"): "NONE", ("breakable", "breakable"): "PIECEWISE",
         ("full", "full"): "FULL", ("full", "disabled"): "FULL_DECODE_ONLY",
         ("full", "breakable"): "FULL_AND_PIECEWISE"}


def _mode_and_sizes(argv: list[str]) -> tuple[str, list[int]]:
    plan = resolve_args(argv)
    return MODES[(plan.backend("decode"), plan.backend("prefill"))], plan.config["decode"]["bs"]


def _cc(**keys: object) -> list[str]:
    return ["-cc", json.dumps(keys)]


def test_v1_spec_tokens_round_sizes_without_a_capability() -> None:
    mode, sizes = _mode_and_sizes(["--num-speculative-tokens", "5", "--max-num-seqs", "256",
                                   "--max-num-batched-tokens", "2048"])
    assert mode == "FULL_AND_PIECEWISE"
    # vLLM: 48 sizes, 6, 12, 18, 24, …, 468, 480, 498 (all multiples of 1 + 5)
    assert len(sizes) == 48 and sizes[:4] == [6, 12, 18, 24] and sizes[-3:] == [468, 480, 498]
    assert all(s % 6 == 0 for s in sizes)


def test_v1_spec_rounding_raises_like_vllm_when_nothing_fits() -> None:
    with pytest.raises(InputError, match="No valid cudagraph sizes after rounding to multiple "
                                         "of 17"):
        resolve_args([*_cc(cudagraph_capture_sizes=[1, 2, 4, 8]), "--num-speculative-tokens",
                      "16"])


def test_v2_user_sizes_above_max_num_batched_tokens_are_dropped() -> None:
    plan = resolve_args([*_cc(cudagraph_capture_sizes=[128]), "--max-num-seqs", "16",
                         "--max-num-batched-tokens", "16"])
    assert plan.config["decode"]["bs"] == [] and plan.config["prefill"]["bs"] == []
    assert plan.capture_sizes("decode") == []
    assert any(d.rule == "vllm.sizes" for d in plan.decisions)


def test_v2_rounding_uses_the_capped_maximum() -> None:
    # [4, 8, 600] capped at 512 tokens → [4, 8], maximum 8; q = 4 rounds within 8.
    _, sizes = _mode_and_sizes([*_cc(cudagraph_capture_sizes=[3, 8, 600]),
                                "--max-num-batched-tokens", "512",
                                "--num-speculative-tokens", "3"])
    assert sizes == [4, 8]


def test_v3_compilation_mode_none_takes_the_no_split_branch() -> None:
    mode, _ = _mode_and_sizes([*_cc(cudagraph_mode="FULL", mode=0),
                               "--cudagraph-support", "UNIFORM_BATCH"])
    assert mode == "FULL_DECODE_ONLY"
    # under VLLM_COMPILE the unset splitting_ops become the attention ops: FULL_AND_PIECEWISE
    mode, _ = _mode_and_sizes([*_cc(cudagraph_mode="FULL"), "--cudagraph-support",
                               "UNIFORM_BATCH"])
    assert mode == "FULL_AND_PIECEWISE"


def test_v4_empty_splitting_ops_is_honoured() -> None:
    plan = resolve_args(_cc(cudagraph_mode="PIECEWISE", splitting_ops=[]))
    assert MODES[(plan.backend("decode"), plan.backend("prefill"))] == "NONE"
    assert any(d.rule == "vllm.A22" for d in plan.decisions)
    mode, _ = _mode_and_sizes(_cc(cudagraph_mode="FULL_AND_PIECEWISE", splitting_ops=[]))
    assert mode == "FULL"


def test_v4_empty_splitting_ops_then_never_backend_refuses_like_vllm() -> None:
    with pytest.raises(InputError, match="FULL is not supported with the attention backend"):
        resolve_args([*_cc(cudagraph_mode="FULL_AND_PIECEWISE", splitting_ops=[]),
                      "--cudagraph-support", "NEVER"])


def test_v4_splitting_ops_must_be_a_list_of_names() -> None:
    with pytest.raises(InputError, match="list of op names"):
        resolve_args(_cc(splitting_ops="vllm::unified_attention_with_output"))


@pytest.mark.parametrize(("sm", "largest", "count"), [(100, 1024, 83), (103, 1024, 83),
                                                     (90, 512, 51), (120, 512, 51)])
def test_v5_blackwell_default_grid_goes_to_1024(sm: int, largest: int, count: int) -> None:
    _, sizes = _mode_and_sizes(["--gpu-sm", str(sm), "--max-num-seqs", "1024",
                                "--max-num-batched-tokens", "16384"])
    assert sizes[-1] == largest and len(sizes) == count


@pytest.mark.parametrize("off", [_cc(cudagraph_mode="NONE"), ["--enforce-eager"],
                                 _cc(cudagraph_mode="PIECEWISE", mode=0)])
def test_v6_graphs_off_skip_the_size_consistency_check(off: list[str]) -> None:
    inconsistent = _cc(cudagraph_capture_sizes=[1, 2], max_cudagraph_capture_size=64)
    plan = resolve_args([*off, *inconsistent])
    assert plan.capture_sizes("decode") == [] and plan.config["decode"]["bs"] == []
    # with graphs on, vLLM raises
    with pytest.raises(InputError, match="should be consistent with the max value"):
        resolve_args(inconsistent)


@pytest.mark.parametrize(("number", "mode"), [(0, "NONE"), (1, "PIECEWISE"), (2, "FULL")])
def test_v7_integer_modes_are_accepted(number: int, mode: str) -> None:
    assert _mode_and_sizes(_cc(cudagraph_mode=number))[0] == mode


@pytest.mark.parametrize("value", [3, True, 2.0, [2, 1]])
def test_v7_other_mode_values_name_what_is_allowed(value: object) -> None:
    with pytest.raises(InputError, match=r"0 \(NONE\), 1 \(PIECEWISE\), 2 \(FULL\)"):
        resolve_args(_cc(cudagraph_mode=value))


def test_null_cudagraph_mode_is_the_default() -> None:
    plan = resolve_args(_cc(cudagraph_mode=None))
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "breakable")
    assert "decode.backend" not in plan.locked
    # a later null resets an earlier document's value; a dotted key still wins over JSON
    plan = resolve_args([*_cc(cudagraph_mode="FULL"), *_cc(cudagraph_mode=None)])
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "breakable")
    assert "decode.backend" not in plan.locked
    plan = resolve_args(["-cc.cudagraph_mode=FULL", *_cc(cudagraph_mode=None)])
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "full")


def test_messages_without_a_backend_name_read_naturally() -> None:
    plan = resolve_args([*_cc(cudagraph_mode="FULL"), "--cudagraph-support", "UNIFORM_BATCH"])
    why = next(d.why for d in plan.decisions if d.rule == "vllm.B2")
    assert "with the attention backend (support: AttentionCGSupport.UNIFORM_BATCH)" in why
    assert "backend backend" not in why
    plan = resolve_args([*_cc(cudagraph_mode="FULL_DECODE_ONLY"), "--cudagraph-support",
                         "UNIFORM_SINGLE_TOKEN_DECODE", "--num-speculative-tokens", "2"])
    why = next(d.why for d in plan.decisions if d.rule == "vllm.B4")
    assert "with spec-decode for the attention backend (support:" in why


@pytest.mark.parametrize(("mode", "ops", "vllm_compile", "after", "split"), [
    # A21: unset under VLLM_COMPILE → the attention ops, mode kept
    ("FULL_AND_PIECEWISE", None, True, "FULL_AND_PIECEWISE", True),
    # A19: outside VLLM_COMPILE an unset list is [] (no split), mode kept
    ("FULL", None, False, "FULL", False),
    # an explicit attention list outside VLLM_COMPILE still splits (B2/B4 read only the list)
    ("FULL", list(VLLM_ATTENTION_OPS), False, "FULL", True),
    # A22 applies only under VLLM_COMPILE and only to an empty list
    ("PIECEWISE", [], True, "NONE", False),
    ("FULL_AND_PIECEWISE", [], True, "FULL", False),
    ("FULL_DECODE_ONLY", [], True, "FULL_DECODE_ONLY", False),
    ("PIECEWISE", [], False, "PIECEWISE", False),
    # a partial list is kept but does not split at attention
    ("PIECEWISE", ["vllm::unified_attention_with_output"], True, "PIECEWISE", False),
])
def test_splitting_fixup_follows_set_splitting_ops_for_v1(
        mode: str, ops: list[str] | None, vllm_compile: bool, after: str, split: bool) -> None:
    fixup = splitting_fixup(CudaGraphMode[mode], ops, vllm_compile)
    assert (fixup.mode.name, fixup.attention_split) == (after, split)
    assert bool(fixup.rule) == (mode != after)


def test_explicit_attention_ops_outside_vllm_compile_keep_piecewise_mixed_graphs() -> None:
    # vLLM's B2 reads only the list: FULL + UNIFORM_BATCH → FULL_AND_PIECEWISE even at mode 0
    mode, _ = _mode_and_sizes([*_cc(cudagraph_mode="FULL", mode=0,
                                    splitting_ops=list(VLLM_ATTENTION_OPS)),
                               "--cudagraph-support", "UNIFORM_BATCH"])
    assert mode == "FULL_AND_PIECEWISE"


@pytest.mark.parametrize("fact", ['gpu_sm: "100"', 'gpu_memory_gib: "80"'])
def test_badly_typed_facts_from_a_file_are_input_errors(fact: str, tmp_path: Path) -> None:
    deployment = tmp_path / "d.yaml"
    deployment.write_text(fact + "\n")
    with pytest.raises(InputError, match=r"d\.yaml:1: Input should be a valid"):
        resolve_args(["--max-num-seqs", "8", "--deployment", str(deployment)])
