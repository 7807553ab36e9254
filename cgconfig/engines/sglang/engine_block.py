"""Step ``engine``: SGLang's graph-dependent engine settings for the plan's ``engine`` block.

The values come from :mod:`cgconfig.engines.sglang.engine_settings` (SGLang 0.5.23's own logic). The
memory heuristic reads the CUDA-graph config as it stands when SGLang's
``memory_hook.handle_gpu_memory_settings`` runs: the pipeline takes that view once, when the
stage ends (:func:`memory_view`); the stages after it (the attention backend's, DP
attention's, the runtime's) change only the final draft.
"""

from __future__ import annotations

import copy
from typing import Any

from cgconfig.draft import Draft
from cgconfig.engines.sglang import attention as sa
from cgconfig.engines.sglang import engine_settings as se
from cgconfig.engines.sglang import memory as sm
from cgconfig.engines.sglang import sizes as ss
from cgconfig.engines.sglang.derived import prefill_cp_breakable_supported, speculative_block_size
from cgconfig.facts import Facts
from cgconfig.line.versions import newest

#: SGLang 0.5.23 ``fields/schedule.py``: ``--max-prefill-tokens`` default.
DEFAULT_MAX_PREFILL_TOKENS = 16384


def memory_view(draft: Draft) -> Draft:
    """The draft as it stands now, frozen for the memory heuristic: later stages change the
    draft's values, never this copy's."""
    view = copy.copy(draft)
    view.values = dict(draft.values)
    return view


def _entry(value: se.EngineValue) -> dict[str, Any]:
    return {"value": value.value, "source": value.source, "why": value.why}


def memory_inputs(draft: Draft, facts: Facts, attn_dp_size: int) -> sm.MemoryInputs:
    """The config the memory hook reads, from the draft at that point
    (:func:`memory_view`)."""
    derived = draft.derived
    gib = derived["gpu_memory_gib"]
    prefill_bs = draft.values["prefill.bs"] or []
    prefill_backend = draft.values["prefill.backend"]
    if facts.attn_cp_size > 1 and "prefill.backend" not in draft.locked \
            and not prefill_cp_breakable_supported(
                facts, facts.prefill_attention_backend or facts.attention_backend):
        # cuda_graph_hook.apply_cuda_graph_compatibility checks prefill-CP support before the
        # attention backend resolves (unresolved: unsupported) and turns prefill off; only
        # apply_prefill_cp_cuda_graph_default, after the memory hook, turns it back on.
        prefill_backend = "disabled"
    return sm.MemoryInputs(
        gpu_memory_mib=None if gib is None else gib * 1024,
        chunked_prefill_size=derived["chunked_prefill_size"],
        max_prefill_tokens=facts.max_prefill_tokens or DEFAULT_MAX_PREFILL_TOKENS,
        tp_size=facts.tp_size,
        pp_size=facts.pp_size, disaggregation_mode=facts.disaggregation_mode,
        max_running_requests=facts.max_running_requests,
        speculative_num_draft_tokens=facts.speculative_num_draft_tokens,
        decode_enabled=draft.values["decode.backend"] != "disabled",
        decode_max_bs=draft.values["decode.max_bs"] or 0,
        prefill_enabled=prefill_backend != "disabled",
        prefill_breakable=prefill_backend == "breakable",
        prefill_sizes=len(prefill_bs), attn_dp_size=attn_dp_size, use_mla=facts.use_mla,
        deepep=facts.moe_a2a_backend == "deepep", is_xpu=facts.device == "xpu")


def graph_reserve(draft: Draft, facts: Facts, memory_draft: Draft) -> dict[str, Any] | None:
    """SGLang's graph reserve per phase (MiB) and its whole reserve, from the config as the
    memory hook sees it (:func:`memory_view`); ``None`` for other dialects. ``applied`` is false
    when ``--mem-fraction-static`` was given (the hook then reserves nothing)."""
    if draft.derived.get("dialect") != "sglang":
        return None
    attn_dp_size = facts.dp_size if draft.derived["attn_dp_enabled"] else 1
    memory = memory_inputs(memory_draft, facts, attn_dp_size)
    parts = sm.graph_reserve_parts(memory)
    applied = facts.mem_fraction_static is None
    note = "" if applied else "; not applied: --mem-fraction-static was given"
    why = {"decode": f"max_bs {memory.decode_max_bs} × 2 MiB"
                     + (f" + DP attention {attn_dp_size} × 3 MiB per max_bs" if attn_dp_size > 1
                        else "") + note if parts["decode"] else "decode graphs off" + note,
           "prefill": ("MLA: 1.5 GiB" if memory.use_mla else f"{memory.prefill_sizes} sizes × 8 MiB")
                      + (" + 1 GiB (breakable with DeepEP)" if memory.prefill_breakable
                         and memory.deepep else "") + note if parts["prefill"]
                      else "prefill graphs off" + note}
    return {"parts": parts, "reserved_mib": sm.reserved_memory_mib(memory), "why": why,
            "applied": applied}


def _mem_fraction(facts: Facts, memory: sm.MemoryInputs, model: se.ModelShape,
                  attention_backend: str) -> se.EngineValue:
    """SGLang's heuristic, unless ``--mem-fraction-static`` was given; the multimodal reduction
    only with a ``vision_config`` (``adjust_mem_fraction_for_vlm`` returns the fraction as it
    is without one). aiter's ×0.85 above 8,192 tokens applies to a given value too
    (``handle_attention_backend_compatibility``)."""
    if facts.mem_fraction_static is None:
        fraction, why = sm.mem_fraction_static(
            memory, model, is_vlm=facts.is_multimodal and facts.disaggregation_mode != "decode"
            and not facts.no_vision_config,
            attention_backend=attention_backend)
        return se.EngineValue(fraction, se.SOURCE_MEMORY, why)
    value = facts.mem_fraction_static
    if attention_backend == "aiter" and (model.context_len or 0) > sm.AITER_LONG_CONTEXT:
        return se.EngineValue(value * sm.AITER_LONG_CONTEXT_FACTOR, se.SOURCE_AITER_MEMORY,
                              f"given {value:g}, × {sm.AITER_LONG_CONTEXT_FACTOR} for aiter above "
                              f"{sm.AITER_LONG_CONTEXT} tokens")
    return se.EngineValue(value, "--mem-fraction-static", "given")


def _draft_tokens(facts: Facts) -> se.EngineValue:
    if not facts.speculative_algorithm:
        return se.EngineValue(None, se.SOURCE_SPECULATIVE_DRAFT, "no speculative decoding")
    if facts.speculative_algorithm.upper() in ss.EAGLE_FAMILY and ss.eagle_params_incomplete(
            facts.speculative_num_steps, facts.speculative_eagle_topk,
            facts.speculative_num_draft_tokens):
        return se.EngineValue(facts.speculative_num_draft_tokens, se.SOURCE_SPECULATIVE_DRAFT,
                              "given: an incomplete EAGLE-family set, which SGLang refuses "
                              "(rule refuse.speculative-incomplete-parameters)")
    params = ss.speculative_draft_params(
        facts.speculative_algorithm, model_arch=facts.model_arch,
        num_steps=facts.speculative_num_steps, eagle_topk=facts.speculative_eagle_topk,
        num_draft_tokens=facts.speculative_num_draft_tokens,
        block_size=speculative_block_size(facts))
    given = facts.speculative_num_draft_tokens
    why = ("given (--speculative-num-draft-tokens)" if given == params.num_draft_tokens
           and given is not None else
           f"derived for {facts.speculative_algorithm}: tokens verified per request")
    return se.EngineValue(params.num_draft_tokens, se.SOURCE_SPECULATIVE_DRAFT, why)


def engine_block(draft: Draft, facts: Facts, memory_draft: Draft) -> dict[str, dict[str, Any]]:
    """The plan's ``engine`` block for SGLang input: each setting with its value, the
    upstream function that set it and why; empty for other dialects (SGLang-only)."""
    derived = draft.derived
    if derived.get("dialect") != "sglang":
        return {}
    platform = se.Platform(facts.device, sa.gpu_sm(facts))
    model = sa.model_shape(facts)
    attention = sa.attention_choice(facts, model, derived["gpu_memory_gib"],
                                    draft.engine_version or newest("sglang"))
    attn_dp_size = facts.dp_size if derived["attn_dp_enabled"] else 1
    memory = memory_inputs(memory_draft, facts, attn_dp_size)
    fraction_value = _mem_fraction(facts, memory, model, str(attention.attention_backend.value))
    chunked = derived["chunked_prefill_size"]
    chunked_value = se.final_chunked_prefill_size(
        chunked, attn_dp_size=attn_dp_size, enable_mis=facts.enable_mis) or se.EngineValue(
        chunked, "--chunked-prefill-size" if facts.chunked_prefill_size is not None
        else se.SOURCE_MEMORY, derived["chunked_prefill_source"])
    running = se.speculative_max_running_requests(
        facts.max_running_requests, bool(derived["speculative"])) or se.EngineValue(
        facts.max_running_requests, "--max-running-requests",
        "given" if facts.max_running_requests is not None else "unset: SGLang sizes it from "
        "the KV cache at start-up")
    draft_tokens = _draft_tokens(facts)
    return {
        "device": _entry(se.EngineValue(platform.engine_device, "--device",
                                        "ROCm runs as SGLang device cuda"
                                        if facts.device == "hip" else "the deployment's device")),
        "attention_backend": _entry(attention.attention_backend),
        "prefill_attention_backend": _entry(attention.prefill_attention_backend),
        "decode_attention_backend": _entry(attention.decode_attention_backend),
        "chunked_prefill_size": _entry(chunked_value),
        "mem_fraction_static": _entry(fraction_value),
        "max_running_requests": _entry(running),
        "speculative_num_draft_tokens": _entry(draft_tokens),
    }
