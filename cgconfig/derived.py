"""Derived facts: values computed from the deployment that rules and sizes read.

Rules refer to them as ``derived.<name>``; every path is declared here once
(:data:`DERIVED_TYPES`). The engine-neutral ones are computed here for every engine; each
engine's pipeline adds its own (SGLang's in ``cgconfig.engines.sglang.derived``; vLLM's
``vllm_tokens_per_request`` from its worker's Stage B).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from cgconfig.facts import Facts

#: Every ``derived.*`` path a rule may read, with its type (rule packs are checked against
#: these at load time). The first ten are computed for every engine (:func:`common_derived`);
#: the others are SGLang's (``cgconfig.engines.sglang.derived``), absent from other engines'
#: plans, where a condition reads one as unset (null: ``eq`` a value and the orderings do not
#: hold, ``ne`` does).
DERIVED_TYPES: dict[str, Any] = {
    "gpu_memory_gib": Optional[float],  # noqa: UP045 - a runtime type object for TypeAdapter
    "gpu_memory_source": str,
    "dialect": str,
    "speculative": bool,
    "prefill_attention_backend": Optional[str],  # noqa: UP045
    "decode_attention_backend": Optional[str],  # noqa: UP045
    "attention_backends": list[str],
    "attn_tp_size": int,
    "is_cuda": bool,
    "attn_dp_enabled": bool,
    # SGLang's (cgconfig.engines.sglang.derived)
    "memory_tier": str,
    "chunked_prefill_size": int,
    "chunked_prefill_source": str,
    "effective_chunked_prefill_size": int,
    "request_width": int,
    "attn_cp_layout_valid": bool,
    "prefill_cp_breakable_supported": bool,
    "sglang_attention_backend": str,
    "sglang_prefill_attention_backend": str,
    "sglang_decode_attention_backend": str,
    "sglang_page_size": int,
    "speculative_eagle_topk": Optional[int],  # noqa: UP045
    "sglang_moe_a2a_backend": str,
    "attn_dp_divides_tp": bool,
    "chunked_prefill_page_aligned": bool,
    "dcp_divides_tp": bool,
    "sglang_context_length": Optional[int],  # noqa: UP045
    "deepep_v2_prefill_tokens": int,
    "deepep_v2_decode_max_bs": int,
    "deepep_v2_pool_bs": int,
    "kv_cache_sharding": bool,
}


def common_derived(facts: Facts, memory_gib: float | None, memory_source: str,
                   dialect: str) -> dict[str, Any]:
    """The derived values every engine's plan carries: the GPU memory and where it came from,
    whether the line decodes speculatively, the attention backends the line names, the
    attention-TP width, the platform, and DP attention."""
    prefill_attention = facts.prefill_attention_backend or facts.attention_backend
    decode_attention = facts.decode_attention_backend or facts.attention_backend
    return {
        "gpu_memory_gib": memory_gib,
        "gpu_memory_source": memory_source,
        "dialect": dialect,
        "speculative": facts.speculative_algorithm is not None,
        "prefill_attention_backend": prefill_attention,
        "decode_attention_backend": decode_attention,
        "attention_backends": sorted({b for b in (prefill_attention, decode_attention) if b}),
        "attn_tp_size": max(1, facts.tp_size // (facts.dp_size if facts.enable_dp_attention
                                                 else 1) // facts.attn_cp_size),
        "is_cuda": facts.device == "cuda",
        # SGLang 0.5.23 attn_dp_enabled_of: --enable-dp-attention with --dp-size > 1.
        "attn_dp_enabled": facts.enable_dp_attention and facts.dp_size > 1,
    }
