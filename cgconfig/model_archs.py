"""A model's facts from its architecture and ``config.json``, as SGLang 0.5.23 derives them:
MLA, multimodal, the context length and the model's size, as data and small functions. Every
engine's plan reads these facts (``sources/model_config.py`` reads the file once); what one
engine's hooks do per architecture is that engine's table (SGLang's:
``cgconfig/engines/sglang/model_archs.py``; the rules' own architecture lists live in their
packs).

Both read the merged config (``config.json`` with ``--json-model-override-args`` applied) and
the architecture names in it, as ``configs/model_config.py`` does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

#: Architectures SGLang 0.5.23 runs with multi-head latent attention
#: (``configs/model_config.py:ModelConfig._derive_model_shapes``, ``AttentionArch.MLA``).
MLA_ARCHS = frozenset({
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV3ForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "Glm5NextForConditionalGeneration",
    "Glm5NextForConditionalGenerationNextN", "LongcatFlashForCausalLM",
    "LongcatFlashForCausalLMNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "DotsVLMForCausalLM", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "MistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle", "KimiK25ForConditionalGeneration",
    "Eagle3DeepseekV2ForCausalLM", "GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN",
    "MiniCPM3ForCausalLM", "KimiVLForConditionalGeneration", "KimiLinearForCausalLM",
    "KimiK3LinearForCausalLM", "KimiK3ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration", "SarvamMLAForCausalLM",
})
#: MLA only when the (text) config carries ``kv_lora_rank`` (Pixtral on Mistral Large 3, the
#: MLA Bailing drafts).
MLA_IF_KV_LORA_RANK = frozenset({"PixtralForConditionalGeneration", "BailingMoeForCausalLMNextN"})
#: MLA unless the config says ``"use_mla": false``.
MLA_UNLESS_USE_MLA_FALSE = frozenset({"DeepseekVL2ForCausalLM"})

#: SGLang 0.5.23 ``configs/model_config.py:multimodal_model_archs``.
MULTIMODAL_ARCHS = frozenset({
    "CLIPModel", "Cohere2VisionForConditionalGeneration", "Cosmos3EdgeForConditionalGeneration",
    "DeepseekVL2ForCausalLM", "Ernie4_5_VLMoeForConditionalGeneration",
    "MiniMaxM3SparseForConditionalGeneration", "Gemma3ForConditionalGeneration",
    "Gemma3nForConditionalGeneration", "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration",
    "Glm5NextForConditionalGeneration", "GlmOcrForConditionalGeneration",
    "GlmAsrForConditionalGeneration", "GlmImageForConditionalGeneration", "Grok1VForCausalLM",
    "Grok1AForCausalLM", "LlavaLlamaForCausalLM", "Llama4ForConditionalGeneration",
    "LlavaMistralForCausalLM", "LlavaQwenForCausalLM", "LlavaForConditionalGeneration",
    "LlavaVidForCausalLM", "Lfm2VlForConditionalGeneration", "LightOnOCRForConditionalGeneration",
    "MiMoV2ASRForCausalLM", "MiniCPMO", "MiniCPMV", "Mistral3ForConditionalGeneration",
    "MultiModalityCausalLM", "MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
    "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3",
    "MuseGlimmerForConditionalGeneration", "MuseSparkForConditionalGeneration",
    "PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration",
    "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
    "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "Qwen3ASRForConditionalGeneration",
    "Qwen3OmniMoeForConditionalGeneration", "KimiVLForConditionalGeneration",
    "LocateAnythingForConditionalGeneration", "InternVLChatModel",
    "InternS1ForConditionalGeneration", "InternS1ProForConditionalGeneration",
    "Phi4MMForCausalLM", "VoxtralForConditionalGeneration", "WhisperForConditionalGeneration",
    "Step3VLForConditionalGeneration", "POINTSV15ChatModel", "DotsVLMForCausalLM",
    "Dots3NoteForCausalLM", "DotsOCRForCausalLM", "Sarashina2VisionForCausalLM",
    "NVILAForConditionalGeneration", "NVILALiteForConditionalGeneration",
    "DeepseekOCRForCausalLM", "UnlimitedOCRForCausalLM", "JetVLMForConditionalGeneration",
    "PaddleOCRVLForConditionalGeneration", "MiDashengLMModel", "StepVLForConditionalGeneration",
    "Step3p7ForConditionalGeneration", "KimiK25ForConditionalGeneration",
    "BailingMMNativeForConditionalGeneration", "BailingMM2NativeForConditionalGeneration",
    "BailingMoeV3VLForConditionalGeneration",
})
#: Multimodal architectures SGLang serves text-only unless ``--enable-multimodal`` is given
#: (``ModelConfig.__init__``: ``mm_disabled_models``).
MULTIMODAL_OFF_BY_DEFAULT = frozenset({
    "Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
    "Step3VLForConditionalGeneration", "InklingForConditionalGeneration",
})
#: Sub-configs that make a config multimodal: the text model is one part of it
#: (``utils/hf_transformers/common.py:get_hf_text_config``).
TEXT_SUBCONFIGS = ("thinker_config", "llm_config", "language_config", "text_config")


#: The model-shape facts read from the config (:func:`shape`).
SHAPE_KEYS = ("model_kv_heads", "no_vision_config", "vision_num_layers", "vision_hidden_size",
              "model_num_experts", "model_mamba_layers")
#: Config keys that count a model's experts (vLLM's ``ModelArchConfig.num_experts``).
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def shape(config: Mapping[str, Any]) -> dict[str, tuple[str, int | bool]]:
    """What SGLang 0.5.23 reads of the model's size from its config, by fact name, each with
    the dotted config key it came from: the text config's ``num_key_value_heads``
    (``get_hf_text_config``), whether there is no ``vision_config``, and its
    ``num_hidden_layers`` and ``hidden_size`` (``memory_hook.adjust_mem_fraction_for_vlm``), and
    the expert count vLLM's ``ModelConfig.is_moe`` reads.
    A count that is missing or not a positive integer gives nothing (the consumers take
    SGLang's defaults); an empty config gives nothing at all."""
    if not config:
        return {}
    text, text_key = text_config(config)
    vision = config.get("vision_config")
    has_vision = isinstance(vision, dict)
    vision = vision if isinstance(vision, dict) else {}
    found: dict[str, tuple[str, int | bool | None]] = {
        "no_vision_config": ("vision_config", not has_vision),
        "model_kv_heads": (f"{text_key}.num_key_value_heads" if text_key
                           else "num_key_value_heads", _count(text.get("num_key_value_heads"))),
        "vision_num_layers": ("vision_config.num_hidden_layers",
                              _count(vision.get("num_hidden_layers"))),
        "vision_hidden_size": ("vision_config.hidden_size", _count(vision.get("hidden_size"))),
        "model_num_experts": _experts(config, text, text_key),
        # SGLang reads the top-level hf_config.layer_types (GraniteMoeHybrid's branch); only a
        # list naming a mamba layer says so (nothing is given otherwise)
        "model_mamba_layers": ("layer_types", _mamba_layers(config.get("layer_types"))),
    }
    return {name: (place, value) for name, (place, value) in found.items() if value is not None}


def _mamba_layers(layer_types: Any) -> bool | None:
    """True when a ``layer_types`` list names a ``"mamba"`` layer (SGLang: ``any(layer_type ==
    "mamba" for layer_type in getattr(hf_config, "layer_types", []))``), else nothing."""
    if isinstance(layer_types, list) and "mamba" in layer_types:
        return True
    return None


def _experts(config: Mapping[str, Any], text: Mapping[str, Any],
             text_key: str | None) -> tuple[str, int | None]:
    """(dotted key, count) of the first positive expert count in the config, then in its text
    config (``vllm/config/model.py:ModelConfig.is_moe``)."""
    for doc, prefix in ((config, ""), (text, f"{text_key}." if text_key else "")):
        for key in EXPERT_KEYS:
            if _count(doc.get(key)) is not None:
                return prefix + key, _count(doc.get(key))
    return "num_experts", None


def text_config(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], str | None]:
    """The text model's part of a config and the key it sits under (``None``: the top)."""
    for key in TEXT_SUBCONFIGS:
        sub = config.get(key)
        if isinstance(sub, dict):
            return sub, key
    return config, None


def mla_reason(archs: list[str], config: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """Why SGLang runs this model with MLA and the deciding config key (``None``: the
    architecture alone), or ``None`` when it does not."""
    text, _ = text_config(config)
    for arch in archs:
        if arch in MLA_ARCHS:
            return f"{arch} is an MLA architecture", None
        if arch in MLA_IF_KV_LORA_RANK and text.get("kv_lora_rank") is not None:
            return f"{arch} with kv_lora_rank", "kv_lora_rank"
        if arch in MLA_UNLESS_USE_MLA_FALSE and text.get("use_mla", True) is not False:
            return f"{arch} without use_mla: false", None
    return None


def multimodal_reason(archs: list[str],
                      config: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """Why SGLang serves this model as multimodal and the deciding config key, or ``None``
    (text-only)."""
    if config.get("language_model_only") is True:
        return None
    if archs and archs[0] in MULTIMODAL_OFF_BY_DEFAULT:
        return None
    for arch in archs:
        if arch in MULTIMODAL_ARCHS:
            return f"{arch} is a multimodal architecture", None
    _, key = text_config(config)
    return (f"the config has a {key}", key) if key else None


#: Keys that give the context length, in SGLang 0.5.23's order of preference
#: (``utils/hf_transformers/common.py:CONTEXT_LENGTH_KEYS``).
CONTEXT_LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
#: SGLang's context length when the config has none of them.
DEFAULT_CONTEXT_LENGTH = 2048


def context_length(config: Mapping[str, Any]) -> tuple[int, str | None, str]:
    """The model's context length as SGLang 0.5.23 ``get_context_length`` derives it from the
    text config, the key it came from (``None``: the default) and how."""
    text, _ = text_config(config)
    rope = text.get("rope_scaling")
    factor: Any = 1
    if isinstance(rope, dict) and rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise ValueError("rope_scaling.factor must be a number")
    for key in CONTEXT_LENGTH_KEYS:
        value = text.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{key} must be a number")
        how = key if factor == 1 else f"{key} {value:g} × rope_scaling.factor {factor:g}"
        product = factor * value
        if not math.isfinite(product):  # 1e300 × 1e10: beyond a float, let alone a context
            raise ValueError(f"{how} is not a finite number")
        return int(product), key, how
    return DEFAULT_CONTEXT_LENGTH, None, f"SGLang's default (none of {', '.join(CONTEXT_LENGTH_KEYS)})"
