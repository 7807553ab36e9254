"""The shared vocabulary: phases, backends and their rank, capability levels, attention backends.

Standard library only, so every part of cgconfig imports it at no cost: the pydantic models, the
start-up parsers, the rule engine, the vLLM dialect and the torch runtime.
"""

from __future__ import annotations

PHASES: tuple[str, ...] = ("decode", "prefill")
BACKENDS: tuple[str, ...] = ("full", "breakable", "tc_piecewise", "disabled")
"""``tc_piecewise`` is SGLang's torch.compile piecewise graph (up to 0.5.21; the release that
removed it refuses it, ``engines/sglang/release_checks.py``)."""

#: Backends ordered from most to least capable. Rules may only move a backend down this order,
#: which is what makes repeated rule application terminate. ``tc_piecewise`` sits below
#: ``breakable``: SGLang 0.5.19-0.5.21 move a breakable prefill to it (multimodal archs) and
#: from it to ``disabled`` (``arg_groups/cuda_graph_hook.py:apply_cuda_graph_compatibility``).
BACKEND_RANK: dict[str, int] = {"full": 3, "breakable": 2, "tc_piecewise": 1, "disabled": 0}

#: Names removed upstream, with what to use instead (every supported release rejects them).
REMOVED_BACKENDS: dict[str, str] = {
    "piecewise": "piecewise (tc_piecewise) was removed; select breakable, full, or disabled",
}
REMOVED_KEYS: dict[str, str] = {
    "tc_compiler": "tc_compiler was removed together with tc_piecewise; drop the key",
}

#: Attention-backend CUDA-graph support levels, weakest first (vLLM's ``AttentionCGSupport``
#: order, which the rule packs' ``capability`` conditions also use).
CAPABILITY_LEVELS: tuple[str, ...] = (
    "NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS",
)

#: Attention backends SGLang accepts (``--attention-backend`` choices). The capability table in
#: ``engines/sglang/rules/capabilities.yaml`` is checked against this list by a test.
ATTENTION_BACKENDS: tuple[str, ...] = (
    "aiter", "ascend", "compressed", "cutedsl_mla", "cutlass_mla", "dsa", "dsv4",
    "dual_chunk_flash_attn", "fa3", "fa4", "flashinfer", "flashmla", "flex_attention",
    "hpc_ops", "hybrid_linear_attn", "intel_amx", "intel_xpu", "llada2_cfg_flashinfer",
    "minicpm_flashattn", "minicpm_flashinfer", "nsa", "qsa", "tokenspeed_mla", "torch_native",
    "triton", "trtllm_mha", "trtllm_mla", "wave",
)
"""SGLang 0.5.23's ``arg_groups/choices.py:ATTENTION_BACKEND_CHOICES`` plus three it no longer
accepts (cutlass_mla, dual_chunk_flash_attn, hybrid_linear_attn), kept for other dialects and
refused for SGLang input by rule refuse.attention-backend-not-in-sglang."""

def unknown_attention_backend(value: str) -> str | None:
    """The one-line complaint for an attention backend SGLang does not know, or ``None``."""
    if value in ATTENTION_BACKENDS:
        return None
    from cgconfig.errors import did_you_mean

    hint = did_you_mean(value, ATTENTION_BACKENDS)
    extra = f" (did you mean {hint!r}?)" if hint else ""
    return f"unknown attention backend {value!r}{extra}"

#: Largest capture size (a batch of requests or a prefill of tokens) any plan can hold: the
#: prefill token bound of :mod:`cgconfig.limits`, here so the runtime (which imports only this
#: module) checks the same number before it allocates anything.
MAX_CAPTURE_SIZE = 4_194_304
