"""SGLang's derived facts: what SGLang 0.5.23 computes from the deployment before its hooks
run (memory tier, chunked-prefill budget, the attention backend it resolves, the speculative
width, the DeepEP v2 budgets), for the rules of SGLang's packs and SGLang's sizing steps.

Every ``derived.*`` path is declared once, SGLang's in
:data:`cgconfig.engines.sglang.stages.DERIVED_TYPES` (the engine-neutral ones in
:data:`cgconfig.derived.DERIVED_TYPES`); the
engine-neutral ones are computed there (:func:`cgconfig.derived.common_derived`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from cgconfig.derived import common_derived
from cgconfig.engines.release_change import ReleaseChange, holds_in
from cgconfig.engines.sglang import attention as sa
from cgconfig.engines.sglang import deterministic as det
from cgconfig.engines.sglang import grid as sz
from cgconfig.engines.sglang import sizes as ss
from cgconfig.engines.sglang.cp_layout import attn_cp_layout_valid

if TYPE_CHECKING:
    from cgconfig.facts import Facts


def prefill_cp_breakable_supported(facts: Facts, prefill_attention: str | None) -> bool:
    """SGLang 0.5.23 ``layers/cp/bcg/__init__.py:supports_prefill_cp_bcg``.

    Prefill CP on (``--enable-prefill-cp``), no PP, attn_cp_size == tp_size, and a supported
    (strategy, prefill attention) pair: zigzag with trtllm_mha, or interleave with dsa on
    GLM-5 Next without DP (its ``supports``; the EP size is taken as 1).
    """
    if not (facts.enable_prefill_cp and facts.pp_size == 1 and facts.attn_cp_size == facts.tp_size):
        return False
    if facts.cp_strategy == "zigzag":
        return prefill_attention == "trtllm_mha"
    if facts.cp_strategy == "interleave":
        return (prefill_attention in ("dsa", "nsa") and facts.dp_size == 1
                and facts.attn_cp_size > 1
                and facts.model_arch == "Glm5NextForConditionalGeneration")
    return False


def speculative_block_size(facts: Facts) -> int | None:
    """The draft's block size SGLang 0.5.23 reads for the line's algorithm (DFLASH's verify
    block, DSPARK's gamma), ``None`` for the others."""
    size: int | None = None
    if facts.speculative_algorithm == "DFLASH":
        size = facts.speculative_dflash_block_size
    elif facts.speculative_algorithm == "DSPARK":
        size = facts.speculative_dspark_block_size
    return size


def _speculative_params(facts: Facts) -> ss.SpeculativeParams:
    """The speculative parameters SGLang 0.5.23 resolves (``speculative_hook``: NGRAM 12 draft
    tokens with top-k 10, the EAGLE family's auto parameters); as given without speculative
    decoding or for an incomplete EAGLE set (rule refuse.speculative-incomplete-parameters
    refuses that with the engine's reason)."""
    given = ss.SpeculativeParams(facts.speculative_num_steps, facts.speculative_eagle_topk,
                                 facts.speculative_num_draft_tokens)
    if not facts.speculative_algorithm:
        return given
    return ss.speculative_draft_params(
        facts.speculative_algorithm, model_arch=facts.model_arch,
        num_steps=facts.speculative_num_steps, eagle_topk=facts.speculative_eagle_topk,
        num_draft_tokens=facts.speculative_num_draft_tokens,
        block_size=speculative_block_size(facts))


def _sglang_moe_a2a_backend(facts: Facts) -> str:
    """The MoE all-to-all backend SGLang 0.5.23 runs with: MLA prefill CP sets deepep
    (``model_overrides/deepseek_v2.py``); ``ascend_tp`` becomes ``none``
    (``moe_hook.py:handle_a2a_moe``)."""
    if facts.use_mla and facts.enable_prefill_cp:
        return "deepep"
    return "none" if facts.moe_a2a_backend == "ascend_tp" else facts.moe_a2a_backend


#: SGLang 0.5.23 ``fields/schedule.py``: ``--max-prefill-tokens`` default.
_MAX_PREFILL_TOKENS = 16384


#: SGLang 0.5.23 ``environ.py``: ``SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK`` default.
DEEPEP_V2_DISPATCH_CAPACITY = 128


def _attn_dp_size(facts: Facts) -> int:
    size: int = facts.dp_size if facts.enable_dp_attention and facts.dp_size > 1 else 1
    return size


def _deepep_v2_prefill_tokens(facts: Facts, per_dp_chunk: int) -> int:
    """SGLang 0.5.23 ``moe_hook.required_deepep_v2_prefill_tokens_per_rank``: the prefill
    buffer's ceiling (the per-DP chunk, else ``--max-prefill-tokens``) scattered over the
    ``tp_size // attn_dp_size`` ranks of a DP group (no registered model sizes it otherwise)."""
    ceiling: int = per_dp_chunk if per_dp_chunk > 0 else (facts.max_prefill_tokens
                                                         or _MAX_PREFILL_TOKENS)
    scatter: int = max(1, facts.tp_size // _attn_dp_size(facts))
    return -(-ceiling // scatter)


#: From 0.5.23 the prefill-CP breakable check is made again once the attention backend is
#: resolved (``cuda_graph_hook.apply_prefill_cp_cuda_graph_default``, after the CP hook), so
#: SGLang's own pick counts; before, only ``apply_cuda_graph_compatibility``'s check runs, on
#: the backend the line gives (none given: unsupported, the breakable prefill is turned off).
PREFILL_CP_BCG_RESOLVED_BACKEND: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.23", None, "breakable prefill under prefill CP reads the resolved "
                  "attention backend",
                  "python/sglang/srt/arg_groups/cuda_graph_hook.py:"
                  "apply_prefill_cp_cuda_graph_default"),
)


#: The SGLang flag of ``derived.kv_cache_sharding``: no fact (cgconfig lists it among the
#: ignored engine flags), read by ``kv_shard_hook.handle_kv_cache_sharding`` (0.5.22+).
KV_CACHE_SHARDING_FLAG = "--enable-kv-cache-sharding"


def derive_facts(facts: Facts, memory_gib: float | None,
                 memory_source: str, release: str,
                 ignored: Iterable[str] = ()) -> dict[str, Any]:
    """Every ``derived.*`` value of an SGLang line (the engine-neutral ones and SGLang's own);
    ``release`` is the release the line is answered for, ``ignored`` the engine flags
    of the line cgconfig lists as ignored (``--enable-kv-cache-sharding``)."""
    tier = sz.memory_tier(memory_gib, facts.device, release)
    chunked = facts.chunked_prefill_size
    chunked_source = "--chunked-prefill-size"
    if chunked is None:
        chunked, chunked_source = tier.chunked_prefill_size, f"memory tier {tier.label}"
    effective = chunked
    if facts.enable_dp_attention and chunked > 0:
        # SGLang divides the chunked-prefill budget among DP-attention ranks.
        effective = chunked // facts.dp_size
    speculative = _speculative_params(facts)
    # Tokens per request in a captured decode step: the resolved draft width, 1 without
    # speculative decoding.
    width = (speculative.num_draft_tokens or 1) if facts.speculative_algorithm else 1
    engine_attention = sa.resolved_attention_backend(facts, memory_gib, release)
    page_size = sa.resolved_page_size(facts, engine_attention, release)
    return {
        **common_derived(facts, memory_gib, memory_source, "sglang"),
        "memory_tier": tier.label,
        "chunked_prefill_size": chunked,
        "chunked_prefill_source": chunked_source,
        "effective_chunked_prefill_size": effective,
        "request_width": width,
        "attn_cp_layout_valid": attn_cp_layout_valid(facts, release),
        # With no prefill backend given, SGLang's own pick (trtllm_mha on SM100) decides from
        # 0.5.23 (PREFILL_CP_BCG_RESOLVED_BACKEND); before, the line's backend only.
        "prefill_cp_breakable_supported": prefill_cp_breakable_supported(
            facts, facts.prefill_attention_backend or (
                engine_attention if holds_in(PREFILL_CP_BCG_RESOLVED_BACKEND, release)
                else facts.attention_backend)),
        # What SGLang 0.5.23 resolves when the line leaves them to the engine.
        "sglang_attention_backend": engine_attention,
        # SGLang 0.5.23 attention_backends_of: each phase's own flag, else the resolved one.
        "sglang_prefill_attention_backend": facts.prefill_attention_backend or engine_attention,
        "sglang_decode_attention_backend": facts.decode_attention_backend or engine_attention,
        "sglang_page_size": page_size,
        # The release's deterministic-inference check refuses that backend (rule
        # refuse.deterministic-attention-backend); the backends it accepts.
        "sglang_deterministic_backend_refused": facts.enable_deterministic_inference
        and not det.backend_supported(engine_attention, facts.model_arch, facts.gpu_sm, release),
        "sglang_deterministic_backends": ", ".join(det.allowed(facts.model_arch, release)),
        # validation_hook.check_server_args: the per-rank chunked-prefill size (after the DP
        # split) is a multiple of the page size, unless chunked prefill is off.
        "chunked_prefill_page_aligned": effective <= 0 or effective % page_size == 0,
        "speculative_eagle_topk": speculative.eagle_topk,
        # SGLang 0.5.23 model_overrides/deepseek_v2.py: MLA prefill CP sets the deepep a2a.
        "sglang_moe_a2a_backend": _sglang_moe_a2a_backend(facts),
        # SGLang 0.5.23 parallel_hook.handle_data_parallelism: tp_size % attn_dp_size == 0;
        # MLA prefill CP runs the --dp-size groups as attention DP without
        # --enable-dp-attention (model_overrides/deepseek_v2.py, model_override_base.py:
        # context_parallel_attn_dp_size; 0.5.19 sets enable_dp_attention there).
        "attn_dp_divides_tp": not (facts.enable_dp_attention
                                   or (facts.use_mla and facts.enable_prefill_cp))
        or facts.tp_size % facts.dp_size == 0,
        # attention_hook._check_xpu_dcp: --dcp-size must divide --tp-size.
        "dcp_divides_tp": facts.tp_size % facts.dcp_size == 0,
        # ServerArgs._handle_context_parallelism (0.5.9 on): --moe-dp-size must divide --tp-size.
        "moe_dp_divides_tp": facts.tp_size % facts.moe_dp_size == 0,
        # ... and from 0.5.11, above 1, equal --attn-cp-size.
        "moe_dp_matches_attn_cp": facts.moe_dp_size == facts.attn_cp_size,
        # ModelConfig.context_len: --context-length when given, else the model's own.
        "sglang_context_length": facts.context_length or facts.model_context_length,
        "deepep_v2_prefill_tokens": _deepep_v2_prefill_tokens(facts, effective),
        # moe_hook._decode_graph_dispatch_tokens_per_rank: the largest decode graph that fits
        # the 128-token capacity at this width, and the per-rank request pool that bounds it.
        "deepep_v2_decode_max_bs": DEEPEP_V2_DISPATCH_CAPACITY // width,
        "deepep_v2_pool_bs": (max(1, facts.max_running_requests // _attn_dp_size(facts))
                              if facts.max_running_requests else DEEPEP_V2_DISPATCH_CAPACITY + 1),
        # kv_shard_hook.handle_kv_cache_sharding reads --enable-kv-cache-sharding (an
        # ignored flag: it changes nothing else cgconfig plans).
        "kv_cache_sharding": KV_CACHE_SHARDING_FLAG in ignored,
    }
