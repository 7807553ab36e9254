"""Derived facts: values computed from the deployment that rules and sizes read.

Rules refer to them as ``derived.<name>``; their types are declared here
(:data:`DERIVED_TYPES`), and rule packs are checked against them at load time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from cgconfig import sizes as sz

if TYPE_CHECKING:
    from cgconfig.facts import Facts

#: Types of the computed facts the resolver provides under ``derived.*``.
DERIVED_TYPES: dict[str, Any] = {
    "gpu_memory_gib": Optional[float],  # noqa: UP045 - a runtime type object for TypeAdapter
    "gpu_memory_source": str,
    "memory_tier": str,
    "chunked_prefill_size": int,
    "chunked_prefill_source": str,
    "effective_chunked_prefill_size": int,
    "speculative": bool,
    "request_width": int,
    "prefill_attention_backend": Optional[str],  # noqa: UP045
    "decode_attention_backend": Optional[str],  # noqa: UP045
    "attention_backends": list[str],
    "attn_tp_size": int,
    "is_cuda": bool,
    "dialect": str,
    "prefill_cp_breakable_supported": bool,
}

#: DeepSeek-V4 architectures (SGLang ``is_deepseek_v4``); the prefill-CP breakable predicate
#: treats them specially.
DEEPSEEK_V4_ARCHS: tuple[str, ...] = (
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
)


def prefill_cp_breakable_supported(facts: Facts, prefill_attention: str | None) -> bool:
    """SGLang ``supports_prefill_cp_bcg``: breakable prefill graphs work with context parallel.

    Upstream also asks for ``--enable-prefill-cp`` and ``--cp-strategy zigzag``; cgconfig does
    not model those flags and takes ``attn_cp_size > 1`` as prefill CP with the zigzag strategy.
    """
    is_dsv4 = facts.model_arch in DEEPSEEK_V4_ARCHS
    topology = facts.dp_size == 1 and (facts.attn_cp_size == facts.tp_size or is_dsv4)
    backend = prefill_attention == "trtllm_mha" or (is_dsv4 and prefill_attention is None)
    return facts.attn_cp_size > 1 and facts.pp_size == 1 and topology and backend


def derive_facts(facts: Facts, memory_gib: float | None,
                 memory_source: str) -> dict[str, Any]:
    """Computed facts that rules and sizes read (``derived.*`` paths)."""
    tier = sz.memory_tier(memory_gib, facts.device)
    chunked = facts.chunked_prefill_size
    chunked_source = "--chunked-prefill-size"
    if chunked is None:
        chunked, chunked_source = tier.chunked_prefill_size, f"memory tier {tier.label}"
    effective = chunked
    if facts.enable_dp_attention and chunked > 0:
        # SGLang divides the chunked-prefill budget among DP-attention ranks.
        effective = chunked // facts.dp_size
    width = facts.speculative_num_draft_tokens or 1 if facts.speculative_algorithm else 1
    prefill_attention = facts.prefill_attention_backend or facts.attention_backend
    decode_attention = facts.decode_attention_backend or facts.attention_backend
    return {
        "gpu_memory_gib": memory_gib,
        "gpu_memory_source": memory_source,
        "memory_tier": tier.label,
        "chunked_prefill_size": chunked,
        "chunked_prefill_source": chunked_source,
        "effective_chunked_prefill_size": effective,
        "speculative": facts.speculative_algorithm is not None,
        "request_width": width,
        "prefill_attention_backend": prefill_attention,
        "decode_attention_backend": decode_attention,
        "attention_backends": sorted({b for b in (prefill_attention, decode_attention) if b}),
        "attn_tp_size": max(1, facts.tp_size // (facts.dp_size if facts.enable_dp_attention
                                                 else 1) // facts.attn_cp_size),
        "is_cuda": facts.device == "cuda",
        "prefill_cp_breakable_supported": prefill_cp_breakable_supported(facts,
                                                                         prefill_attention),
    }
