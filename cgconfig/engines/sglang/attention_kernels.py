"""Which vLLM attention backend runs the same kernels as each SGLang backend, and where cgconfig
deliberately gives an SGLang backend another CUDA-graph support level than vLLM's builder.

``engines/sglang/rules/capabilities.yaml`` (SGLang's backend names, read by the attention rules) takes
its levels from vLLM 0.33.0's builders, whose one home is
``cgconfig.engines.vllm.modes.VLLM_BACKEND_SUPPORT``: an entry's level is that of its vLLM
backend here, unless :data:`DELIBERATE` lists another with the reason
(``tests/rules/test_capabilities_derived.py`` checks the table against both). SGLang backends
with no vLLM counterpart (``torch_native``, ``ascend``, ``intel_xpu``) carry SGLang's own level
in the table and are not listed. Stdlib only, data only.
"""

from __future__ import annotations

#: SGLang backend (``--attention-backend``) → the vLLM backend with the same kernels.
VLLM_KERNELS: dict[str, str] = {
    "fa3": "FLASH_ATTN", "fa4": "FLASH_ATTN", "minicpm_flashattn": "FLASH_ATTN",
    "dual_chunk_flash_attn": "FLASH_ATTN_FA2",
    "triton": "TRITON_ATTN", "flex_attention": "FLEX_ATTENTION",
    "flashinfer": "FLASHINFER", "trtllm_mha": "FLASHINFER", "hpc_ops": "FLASHINFER",
    "minicpm_flashinfer": "FLASHINFER", "llada2_cfg_flashinfer": "FLASHINFER",
    "flashmla": "FLASHMLA", "cutlass_mla": "CUTLASS_MLA",
    "trtllm_mla": "FLASHINFER_MLA", "cutedsl_mla": "FLASHINFER_MLA",
    "tokenspeed_mla": "FLASHINFER_MLA",
    "aiter": "ROCM_AITER_FA", "wave": "ROCM_AITER_FA",
    "nsa": "FLASHMLA_SPARSE", "dsa": "FLASHMLA_SPARSE", "qsa": "FLASHMLA_SPARSE",
    "dsv4": "FLASHMLA_SPARSE", "compressed": "FLASHMLA_SPARSE",
    "hybrid_linear_attn": "GDN_ATTN", "intel_amx": "CPU_ATTN",
}

_TRTLLM_MLA_PREFILL = ("SGLang falls back to FlashAttention for prefill under a captured "
                       "prefill graph (rule attention.deepseek-v3-trtllm-mla-prefill), so full "
                       "prefill graphs are not assumed: the trtllm-gen decode path's "
                       "UNIFORM_BATCH, not FLASHINFER_MLA's ALWAYS")
#: SGLang backend → (the level cgconfig gives it, why it is not its vLLM backend's).
DELIBERATE: dict[str, tuple[str, str]] = {
    "trtllm_mla": ("UNIFORM_BATCH", _TRTLLM_MLA_PREFILL),
    "cutedsl_mla": ("UNIFORM_BATCH", "decode-only CuteDSL MLA; SGLang prefills with trtllm_mla: "
                    + _TRTLLM_MLA_PREFILL),
    "tokenspeed_mla": ("UNIFORM_BATCH", "SGLang's deprecated alias of cutedsl_mla"),
}
