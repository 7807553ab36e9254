"""SGLang's per-architecture tables: what its hooks and model overrides do for named
architectures (SGLang 0.5.23). The facts every engine reads from a model's config (MLA,
multimodal, shape, context length) are :mod:`cgconfig.model_archs`'.
"""

from __future__ import annotations

#: Architectures whose model defaults pick trtllm_mla on Blackwell (non-DSA DeepSeek-V3,
#: ``model_overrides/deepseek_v2.py``).
DEEPSEEK_TRTLLM_MLA_ARCHS = ("DeepseekV3ForCausalLM",)
#: ``model_overrides/qwen3_5._qwen3_5_hybrid_overrides``'s architectures.
QWEN3_5_HYBRID_ARCHS = (
    "Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration")
#: ``model_overrides/qwen3_vl._qwen3vl_hopper_serving_overrides``'s architectures, with the
#: Hugging Face ``model_type`` its decode expansion looks for (``_HOPPER_QWEN3_VL_TYPES``).
QWEN3_VL_MODEL_TYPES = {"Qwen3VLForConditionalGeneration": "qwen3_vl",
                        "Qwen3VLMoeForConditionalGeneration": "qwen3_vl_moe"}
QWEN3_VL_ARCHS = tuple(QWEN3_VL_MODEL_TYPES)
#: ``cuda_graph_hook.apply_muse_glimmer_prefill_cuda_graph_max_bs_default``: these
#: architectures get ``--cuda-graph-max-bs-prefill 512`` before the config is parsed.
MUSE_GLIMMER_ARCHS = ("MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration")
