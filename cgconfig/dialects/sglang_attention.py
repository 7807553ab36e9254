"""The attention backend and KV page size SGLang 0.5.23 resolves when the launch line leaves them
to the engine: pure functions of the deployment facts.

Several of SGLang's start-up refusals read these resolved values rather than the flags
(speculative tree drafts with paged KV, deterministic inference, the page-major KV layout).
Ported from ``python/sglang/srt/arg_groups/model_override_base.py:get_default_attn_backend``,
``overrides.py:_attention_backend_default`` and the page-size post-processes of ``overrides.py``
(``_mla_backend_page_constraints``, ``_fa4_page_constraint``, ``_intel_xpu_page_constraint``,
``_page_size_default``) and ``platform_hook.py:handle_cpu_backends``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cgconfig.facts import Facts

#: ``model_overrides/qwen3_5.py``: hybrid Qwen3.5 models get their own SM100 default.
QWEN3_5_HYBRID_ARCHS = ("Qwen3_5MoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
                        "InternS2PreviewForConditionalGeneration",
                        "InternS2MobiusForConditionalGeneration")
#: SGLang 0.5.23 ``model_overrides/deepseek_v2.py``: DeepSeek-V3 defaults to trtllm_mla on SM100.
DEEPSEEK_V3_ARCHS = ("DeepseekV3ForCausalLM",)


def _no_spec_or_topk_one(facts: Facts) -> bool:
    """``utils/common.py:is_no_spec_infer_or_topk_one`` on the flags as given (the default
    backend is chosen before the speculative hooks fill in their parameters)."""
    topk = facts.speculative_eagle_topk
    return topk is None or (topk == 1 and (facts.page_size or 1) == 1)


def default_attention_backend(facts: Facts) -> str:
    """``get_default_attn_backend``: the backend SGLang picks when none is given.

    On CPU, ``handle_cpu_backends`` sets intel_amx first (torch_native on an arm64 host or a
    CPU without AMX).
    """
    device, sm = facts.device, facts.gpu_sm
    if device == "cpu":
        return "intel_amx"
    if facts.use_mla:
        if device == "cuda" and sm == 90:
            return "fa3"
        if device == "cuda" and sm is not None and sm >= 100:
            return "flashinfer"
        # ROCm: aiter for 16 or 128 heads per rank, else triton (cgconfig takes DeepSeek-V3's
        # 128 attention heads, the MLA model it knows).
        return "aiter" if device == "hip" and 128 // facts.tp_size in (16, 128) else "triton"
    if device == "cuda" and sm == 90 and _no_spec_or_topk_one(facts):
        return "fa3"
    if device == "cuda" and sm in (100, 103) and _no_spec_or_topk_one(facts) and (
            facts.speculative_algorithm is None or facts.speculative_eagle_topk is not None
            or facts.speculative_algorithm == "DFLASH"):
        return "trtllm_mha"
    if device == "hip":
        return "aiter"
    # flashinfer where installed (CUDA builds); XPU builds ship without it.
    return "flashinfer" if device == "cuda" else "triton"


def resolved_attention_backend(facts: Facts) -> str:
    """``ServerArgs.attention_backend`` after SGLang's defaults (``_attention_backend_default``
    and the model overrides that run before it)."""
    if facts.attention_backend is not None:
        return str(facts.attention_backend)
    prefill, decode = facts.prefill_attention_backend, facts.decode_attention_backend
    if prefill is not None and prefill == decode:
        return str(prefill)
    if facts.device == "cpu":
        return "intel_amx"
    if facts.device == "cuda" and facts.gpu_sm in (100, 103) and prefill is None \
            and decode is None:
        if facts.model_arch in DEEPSEEK_V3_ARCHS:
            return "trtllm_mla"
        if facts.model_arch in QWEN3_5_HYBRID_ARCHS:
            # trtllm_mha unless the radix cache runs unpaged (no speculative decoding, and
            # not a decode instance, which disables the radix cache).
            paged = facts.speculative_algorithm is not None or facts.disaggregation_mode == "decode"
            return ("trtllm_mha" if paged and default_attention_backend(facts) == "trtllm_mha"
                    else "triton")
    if facts.enable_deterministic_inference:
        # overrides.py:_deterministic_attention_backend runs before the general default.
        if facts.device == "cuda" and (facts.gpu_sm or 0) >= 100:
            return "triton" if facts.use_mla else "flashinfer"
        return "fa3"
    return default_attention_backend(facts)


def resolved_page_size(facts: Facts, attention_backend: str) -> int:
    """``ServerArgs.page_size`` after the backend page constraints (1 when nothing forces one)."""
    page = facts.page_size or 1
    decode = facts.decode_attention_backend
    prefill = facts.prefill_attention_backend
    uses = {attention_backend, decode, prefill}
    if "flashmla" in (attention_backend, decode):
        page = 64
    if "trtllm_mla" in (attention_backend, decode) and page not in (32, 64):
        page = 64
    if "cutedsl_mla" in uses and page not in (32, 64):
        page = 64
    if "trtllm_mha" in uses and page not in (16, 32, 64, 128):
        page = 64
    if "fa4" in uses and not facts.use_mla and facts.device == "cuda" \
            and facts.gpu_sm in (100, 103) and (facts.speculative_eagle_topk or 0) <= 1:
        page = 128
    if "intel_xpu" in uses and page not in ((64, 128, 16, 32) if facts.use_mla else (64, 128)):
        page = 128
    return page
