"""SGLang 0.5.23's static memory fraction (``mem_fraction_static``), ported as pure functions.

``memory_hook.handle_gpu_memory_settings`` sets it from the GPU memory, the chunked-prefill
size and the CUDA-graph config as they stand when it runs; each function names the upstream
function it ports (SGLang 0.5.23, ``python/sglang/srt/arg_groups/memory_hook.py``). Memory is in
MiB, as upstream compares it. Standard library only.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.sglang.engine_settings import ModelShape

#: ``handle_attention_backend_compatibility``: aiter with a context above this scales the
#: static memory fraction by :data:`AITER_LONG_CONTEXT_FACTOR`.
AITER_LONG_CONTEXT = 8192
AITER_LONG_CONTEXT_FACTOR = 0.85


class MemoryInputs(NamedTuple):
    """What ``handle_gpu_memory_settings`` reads when it sets ``mem_fraction_static``: the
    config as it stands at that point of SGLang's pipeline (before the attention backend and
    later hooks disable any phase)."""

    gpu_memory_mib: float | None
    chunked_prefill_size: int
    max_prefill_tokens: int
    tp_size: int
    pp_size: int
    disaggregation_mode: str
    max_running_requests: int | None
    speculative_num_draft_tokens: int | None
    decode_enabled: bool
    decode_max_bs: int
    prefill_enabled: bool
    prefill_breakable: bool
    prefill_sizes: int
    """How many prefill sizes are configured (each reserves 8 MiB)."""
    attn_dp_size: int
    """Attention data-parallel size (1 without DP attention)."""
    use_mla: bool
    deepep: bool
    is_xpu: bool


def graph_reserve_parts(m: MemoryInputs) -> dict[str, float]:
    """``memory_hook.reserve_for_graph_mb`` (SGLang 0.5.23) by phase, in MiB: ``decode`` (2 MiB
    per max_bs, DP attention's 3 MiB (+1.5 above 300) per max_bs and DP rank) and ``prefill``
    (1.5 GiB with MLA, else 8 MiB per size, +1 GiB for breakable graphs with DeepEP)."""
    decode = prefill = 0.0
    if m.disaggregation_mode != "prefill" and m.decode_enabled:
        decode += m.decode_max_bs * 2
    if m.attn_dp_size > 1 and m.disaggregation_mode != "prefill":
        decode += m.decode_max_bs * m.attn_dp_size * 3
        if m.decode_max_bs > 300:
            decode += m.decode_max_bs * m.attn_dp_size * 1.5
    if m.disaggregation_mode != "decode" and m.prefill_enabled:
        prefill += 1.5 * 1024 if m.use_mla else m.prefill_sizes * 8
        if m.prefill_breakable and m.deepep:
            prefill += 1024
    return {"decode": decode, "prefill": prefill}


def graph_reserve_mib(m: MemoryInputs) -> float:
    """``memory_hook.reserve_for_graph_mb`` (SGLang 0.5.23): CUDA-graph buffers, in MiB."""
    return sum(graph_reserve_parts(m).values())


def activation_tokens(m: MemoryInputs) -> int:
    """Tokens the activation working set scales with (``handle_gpu_memory_settings``)."""
    if m.disaggregation_mode == "decode":
        running = m.max_running_requests or m.decode_max_bs or 1
        return max(running * (m.speculative_num_draft_tokens or 1), 2048)
    if m.chunked_prefill_size > 0:
        return max(m.chunked_prefill_size, 2048)
    return max(m.max_prefill_tokens, 2048)


def reserved_memory_mib(m: MemoryInputs) -> float:
    """The memory ``handle_gpu_memory_settings`` keeps out of the static pool, in MiB: 512 of
    metadata, 1.5 MiB per activation token, 1 GiB per 8 ranks, the graph buffers, a 10 GiB
    floor above 60 GiB, DeepEP's 2 GiB and XPU's 2 GiB of oneDNN scratch."""
    reserve = 512 + activation_tokens(m) * 1.5
    reserve += m.tp_size * m.pp_size / 8 * 1024
    reserve += graph_reserve_mib(m)
    if m.gpu_memory_mib is not None and m.gpu_memory_mib > 60 * 1024:
        reserve = max(reserve, 10 * 1024)
    if m.deepep and m.disaggregation_mode != "prefill" and m.decode_enabled:
        reserve += 2 * 1024
    if m.is_xpu:
        reserve += 2 * 1024
    return reserve


def vlm_memory_factor(model: ModelShape) -> float:
    """``memory_hook.adjust_mem_fraction_for_vlm`` (SGLang 0.5.23): 0.95, scaled by the vision
    encoder's size against ViT-L/14 (24 layers × 1024), 10 % per doubling, within 0.8–1.05.
    Unknown sizes take ViT-L/14's, as upstream's ``getattr`` defaults do."""
    layers = model.vision_layers or 24
    hidden = model.vision_hidden_size or 1024
    ratio = layers * hidden ** 2 / (24 * 1024 ** 2)
    return 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))


def mem_fraction_static(m: MemoryInputs, model: ModelShape, *, is_vlm: bool,
                        attention_backend: str) -> tuple[float, str]:
    """``mem_fraction_static`` as SGLang 0.5.23 sets it when it is not given, with the reason:
    ``round((memory - reserved) / memory, 3)`` (0.95 when the memory is unknown), the VLM
    reduction, and aiter's ×0.85 for contexts above 8192 tokens
    (``attention_hook.handle_attention_backend_compatibility``)."""
    reserve = reserved_memory_mib(m)
    if m.gpu_memory_mib is None:
        value, why = 0.95, "GPU memory unknown: 0.95"
    else:
        value = round((m.gpu_memory_mib - reserve) / m.gpu_memory_mib, 3)
        why = (f"(memory {m.gpu_memory_mib:g} MiB − reserved {reserve:g} MiB) / memory, "
               f"graph buffers {graph_reserve_mib(m):g} MiB of it")
    if is_vlm:
        value *= vlm_memory_factor(model)
        why += "; × the multimodal vision-encoder factor"
    if attention_backend == "aiter" and (model.context_len or 0) > AITER_LONG_CONTEXT:
        value *= AITER_LONG_CONTEXT_FACTOR
        why += f"; × {AITER_LONG_CONTEXT_FACTOR} for aiter above {AITER_LONG_CONTEXT} tokens"
    return value, why
