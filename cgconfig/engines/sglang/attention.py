"""The attention backend and KV page size SGLang 0.5.23 resolves when the launch line leaves them
to the engine, as the refusal rules read them: pure functions of the deployment facts. The
backend choice itself has one home, :mod:`cgconfig.engines.sglang.engine_settings`; this module feeds it
the facts and adds the page-size constraints.

Several of SGLang's start-up refusals read these resolved values rather than the flags
(speculative tree drafts with paged KV, deterministic inference, the page-major KV layout).
The page size is ported from the post-processes of SGLang 0.5.23
``python/sglang/srt/arg_groups/overrides.py`` (``_mla_backend_page_constraints``,
``_fa4_page_constraint``, ``_intel_xpu_page_constraint``, ``_page_size_default``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang import deterministic as det
from cgconfig.engines.sglang import engine_settings as se
from cgconfig.engines.sglang.releases import (
    FA4_PAGE_PREFILL_FLAG_ONLY,
    INTEL_XPU_PAGE_ATTENTION_ONLY,
    INTEL_XPU_PAGE_DECODE_ONLY,
    TRTLLM_MHA_PAGE_128,
)

if TYPE_CHECKING:
    from cgconfig.facts import Facts

#: The compute capability the default attention backends are chosen for when neither
#: ``--gpu-sm`` nor a GPU probe gives one: Hopper's. SGLang reads the real one
#: (``get_device_capability``). The refusals that depend on the GPU generation are not
#: guessed from it: they need a known SM (docs/fidelity.md).
ASSUMED_GPU_SM = 90


def gpu_sm(facts: Facts) -> int:
    """The SM the backend choice reads: the known one, else Hopper's."""
    sm: int = facts.gpu_sm or ASSUMED_GPU_SM
    return sm


def attention_choice(facts: Facts, model: se.ModelShape, gpu_memory_gib: float | None,
                     release: str, *, with_fallback: bool = True) -> se.AttentionChoice:
    """SGLang 0.5.23's attention backends for these facts: the one call into the one port of
    its choice (:func:`cgconfig.engines.sglang.engine_settings.resolve_attention_backends`). An unknown
    SM is taken as Hopper's (:data:`ASSUMED_GPU_SM`). ``release``: the deterministic
    fallback's place and architectures (:mod:`.deterministic`)."""
    return se.resolve_attention_backends(
        se.Platform(facts.device, gpu_sm(facts)), model, tp_size=facts.tp_size,
        attention_backend=facts.attention_backend,
        prefill_backend=facts.prefill_attention_backend,
        decode_backend=facts.decode_attention_backend,
        deterministic=facts.enable_deterministic_inference and det.fallback_first(release),
        deterministic_mla=det.absorbed_mla(facts.model_arch, release),
        speculative_algorithm=facts.speculative_algorithm,
        eagle_topk=facts.speculative_eagle_topk, page_size=facts.page_size,
        gpu_memory_mib=None if gpu_memory_gib is None else gpu_memory_gib * 1024,
        # pd_disaggregation_hook.handle_pd_disaggregation: a decode server runs without it.
        radix_cache_off=facts.disaggregation_mode == "decode", with_fallback=with_fallback)


def model_shape(facts: Facts) -> se.ModelShape:
    """What SGLang reads from the model, from the model facts (read once from its config by
    :mod:`cgconfig.sources.model_config`, ``--json-model-override-args`` merged, or given as
    flags): the one shape the backend choice and the memory heuristic both read."""
    return se.ModelShape(
        arch=facts.model_arch, use_mla=facts.use_mla, mla_kv_heads=facts.model_kv_heads,
        context_len=facts.context_length or facts.model_context_length,
        vision_layers=facts.vision_num_layers, vision_hidden_size=facts.vision_hidden_size,
        is_multimodal=facts.is_multimodal)


def resolved_attention_backend(facts: Facts, gpu_memory_gib: float | None, release: str) -> str:
    """``ServerArgs.attention_backend`` after SGLang's defaults, before the platform fallbacks
    (the refusals read the backend as the overrides leave it)."""
    choice = attention_choice(facts, model_shape(facts), gpu_memory_gib, release,
                              with_fallback=False)
    return str(choice.attention_backend.value)


def resolved_page_size(facts: Facts, attention_backend: str, release: str) -> int:
    """``ServerArgs.page_size`` after the backend page constraints (1 when nothing forces one)
    at ``release`` (its fa4 condition: ``releases.FA4_PAGE_PREFILL_FLAG_ONLY``)."""
    page = facts.page_size or 1
    decode = facts.decode_attention_backend
    prefill = facts.prefill_attention_backend
    uses = {attention_backend, decode, prefill}
    if "flashmla" in (attention_backend, decode):
        page = 64
    if "cutlass_mla" in (attention_backend, decode):  # 0.5.18/0.5.19 (later parsers refuse it)
        page = 128
    if "trtllm_mla" in (attention_backend, decode) and page not in (32, 64):
        page = 64
    if "cutedsl_mla" in uses and page not in (32, 64):
        page = 64
    trtllm_pages = (16, 32, 64, 128) if holds_in(TRTLLM_MHA_PAGE_128, release) else (16, 32, 64)
    if "trtllm_mha" in uses and page not in trtllm_pages:
        page = 64
    if holds_in(FA4_PAGE_PREFILL_FLAG_ONLY, release):
        fa4 = prefill == "fa4"
    else:
        fa4 = "fa4" in uses and (facts.speculative_eagle_topk or 0) <= 1
    if fa4 and not facts.use_mla and facts.device == "cuda" and facts.gpu_sm in (100, 103):
        page = 128
    xpu_pages = (64, 128, 16, 32) if facts.use_mla else (64, 128)
    # The XMX fallback runs first in every release (0.5.8-0.5.14 ServerArgs.
    # _handle_attention_backend_compatibility, then overrides._attention_backend_platform_
    # fallbacks before _intel_xpu_page_constraint): --attention-backend intel_xpu on an XPU
    # without XMX (taken as absent: engine_settings.platform_fallback) is triton by then and
    # forces no page size (measured on 0.5.10-0.5.12, 0.5.17, 0.5.19, 0.5.20: --device xpu --attention-backend
    # intel_xpu --chunked-prefill-size 2500 starts with page size 1).
    fallback = se.platform_fallback(se.Platform(facts.device, gpu_sm(facts)), attention_backend)
    if fallback is not None and attention_backend == "intel_xpu":
        attention_backend = str(fallback.value)
    if holds_in(INTEL_XPU_PAGE_ATTENTION_ONLY, release):
        if attention_backend == "intel_xpu" and page not in (32, 64, 128):
            page = 128
    elif holds_in(INTEL_XPU_PAGE_DECODE_ONLY, release):
        if (decode or attention_backend) == "intel_xpu" and page not in xpu_pages:
            page = 128
    elif "intel_xpu" in (prefill or attention_backend, decode or attention_backend) \
            and page not in xpu_pages:
        page = 128
    return page
