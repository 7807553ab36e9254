"""vLLM's splitting-ops fix-up: ``CompilationConfig.set_splitting_ops_for_v1`` (vLLM 0.33.0,
``vllm/config/compilation.py``), cgconfig's rules A19-A22.

It decides whether the compiled graph is split at attention (which Stage B's B2-B4 read) and,
for an explicitly empty ``splitting_ops`` under VLLM_COMPILE, drops the piecewise part of the
mode. Messages keep vLLM's wording.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cgconfig.engines.vllm.modes import CudaGraphMode

__all__ = ["VLLM_ATTENTION_OPS", "SplitFixup", "empty_split_fixup_0_10", "splitting_fixup"]

#: ``CompilationConfig._attention_ops`` of vLLM 0.33.0 (``vllm/config/compilation.py``): the ops
#: an unset ``splitting_ops`` becomes under VLLM_COMPILE. The compiled graph is split at
#: attention only when every one of them is a splitting op (``splitting_ops_contain_attention``).
VLLM_ATTENTION_OPS: tuple[str, ...] = (
    "vllm::unified_attention_with_output", "vllm::unified_mla_attention_with_output",
    "vllm::mamba_mixer2", "vllm::mamba_mixer", "vllm::short_conv",
    "vllm::qwen4_exp_ple_short_conv", "vllm::qwen4_exp_qsa_with_output",
    "vllm::qwen4_exp_qsa_prepare_with_output", "vllm::linear_attention",
    "vllm::qwen_gdn_attention_core", "vllm::qwen_gdn_attention_core_fused_norm_packed",
    "vllm::gdn_attention_core_xpu", "vllm::olmo_hybrid_gdn_full_forward",
    "vllm::sparse_attn_indexer", "vllm::rocm_aiter_sparse_attn_indexer",
    "vllm::deepseek_v4_attention", "vllm::hpc_rope_norm_forward",
)


class SplitFixup(NamedTuple):
    """What ``set_splitting_ops_for_v1`` leaves: the mode, whether the compiled graph is split
    at attention, and the rule and message when it changed the mode."""

    mode: CudaGraphMode
    attention_split: bool
    rule: str = ""
    message: str = ""


def splitting_fixup(mode: CudaGraphMode, splitting_ops: Sequence[str] | None,
                    vllm_compile: bool, *, fuse_attn_quant: bool = False) -> SplitFixup:
    """vLLM 0.33.0's ``CompilationConfig.set_splitting_ops_for_v1`` (cgconfig's rules A19-A22).

    Outside VLLM_COMPILE an unset list becomes ``[]`` and the mode is kept (rule vllm.A19).
    Under it an unset list becomes the attention ops (vllm.A21); an explicit empty list turns
    PIECEWISE into NONE and FULL_AND_PIECEWISE into FULL (vllm.A22). Any other list is kept as
    given. ``pass_config.fuse_attn_quant`` with an unset list (vllm.A20,
    ``set_splitting_ops_for_attn_fusion``) makes it ``[]`` and any piecewise mode FULL.
    DeepEP high-throughput (vllm.A23) is the caller's step.
    """
    if fuse_attn_quant and vllm_compile and splitting_ops is None:
        if mode.requires_piecewise():
            return SplitFixup(CudaGraphMode.FULL, False, "A20", (
                "fuse_attn_quant is incompatible with piecewise cudagraph when "
                "use_inductor_graph_partition is off. In this case, splitting_ops will be set "
                "to empty list, and cudagraph_mode will be set to FULL."))
        return SplitFixup(mode, False)
    if splitting_ops is None:
        return SplitFixup(mode, vllm_compile)
    split = all(op in splitting_ops for op in VLLM_ATTENTION_OPS)
    if not vllm_compile or splitting_ops:
        return SplitFixup(mode, split)
    if mode is CudaGraphMode.PIECEWISE:
        return SplitFixup(CudaGraphMode.NONE, False, "A22", (
            "Piecewise compilation with empty splitting_ops does not contain piecewise "
            "cudagraph. Setting cudagraph_mode to NONE. Hint: If you are using attention "
            "backends that support cudagraph, consider manually setting cudagraph_mode to FULL "
            "or FULL_DECODE_ONLY to enable full cudagraphs."))
    if mode is CudaGraphMode.FULL_AND_PIECEWISE:
        return SplitFixup(CudaGraphMode.FULL, False, "A22", (
            "Piecewise compilation with empty splitting_ops does not contain piecewise "
            "cudagraph. Setting cudagraph_mode to FULL."))
    return SplitFixup(mode, False)


def empty_split_fixup_0_10(mode: CudaGraphMode, splitting_ops: list[str] | None,
                      vllm_compile: bool) -> SplitFixup:
    """vLLM 0.10.2's ``CompilationConfig.set_splitting_ops_for_v1`` (level PIECEWISE only): an
    unset list becomes the attention ops; ``[]`` turns PIECEWISE into FULL and keeps the other
    modes (``compile_changes.EMPTY_SPLIT_PIECEWISE_IS_FULL``)."""
    if not vllm_compile:
        return SplitFixup(mode, False)
    if splitting_ops is None:
        return SplitFixup(mode, True)
    if not splitting_ops and mode is CudaGraphMode.PIECEWISE:
        return SplitFixup(CudaGraphMode.FULL, False, "A22", (
            "When compilation level is piecewise with empty splitting_ops, PIECEWISE "
            "cudagraph_mode will be treated as FULL cudagraph_mode."))
    return SplitFixup(mode, bool(splitting_ops) and all(op in splitting_ops
                                                         for op in VLLM_ATTENTION_OPS))
