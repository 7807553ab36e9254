"""Real Hugging Face architectures for ``capture_cost_bench.py --hf`` (issue #34, third batch).

Each model is ``transformers.AutoModelForCausalLM.from_config`` of the public ``config.json``
values below (the model's own classes: its attention, rotary embedding, norms, MLP, LM head),
with random bf16 weights, nothing downloaded. ``tp > 1`` divides heads, KV heads, MLP width and
vocabulary by ``tp`` (head size kept) to build one tensor-parallel rank's shapes without the
all-reduce, as the hand-built decoders of the first two batches do.

The one change to the model: its attention function is registered under
``transformers.AttentionInterface`` as ``cgconfig_breakable``, a ``scaled_dot_product_attention``
call marked :func:`~cgconfig.runtime.eager_on_graph`, so breakable graphs run attention between
segments (full graphs capture it like everything else). Forwards run without a KV cache
(``use_cache=False``): a decode row is a one-token sequence, a prefill batch one causal sequence
of all its tokens; the pool therefore holds the model's activations, not a KV read. Decode
returns the logits of every row, prefill the last hidden states (engines compute prefill logits
for the last token of each request only).
"""

from __future__ import annotations

from typing import Any

from capture_cost_bench import MODELS


def _shared(name: str, model_type: str) -> tuple[str, dict[str, Any]]:
    """A model the hand-built decoders measured too: its config fields from their table
    (``capture_cost_bench.MODELS``; ``head_dim`` is hidden / heads, transformers' default)."""
    return model_type, dict(MODELS[name])


#: model -> (transformers model_type, config.json fields), from each model's Hugging Face page.
HF_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "Qwen/Qwen3-0.6B": ("qwen3", dict(hidden_size=1024, intermediate_size=3072,
                                      num_hidden_layers=28, num_attention_heads=16,
                                      num_key_value_heads=8, head_dim=128, vocab_size=151936)),
    "Qwen/Qwen3-4B": ("qwen3", dict(hidden_size=2560, intermediate_size=9728,
                                    num_hidden_layers=36, num_attention_heads=32,
                                    num_key_value_heads=8, head_dim=128, vocab_size=151936)),
    "Qwen/Qwen3-8B": ("qwen3", dict(hidden_size=4096, intermediate_size=12288,
                                    num_hidden_layers=36, num_attention_heads=32,
                                    num_key_value_heads=8, head_dim=128, vocab_size=151936)),
    "Qwen/Qwen3-32B": ("qwen3", dict(hidden_size=5120, intermediate_size=25600,
                                     num_hidden_layers=64, num_attention_heads=64,
                                     num_key_value_heads=8, head_dim=128, vocab_size=151936)),
    "meta-llama/Llama-3.1-8B-Instruct": _shared("meta-llama/Llama-3.1-8B-Instruct", "llama"),
    "meta-llama/Llama-3.3-70B-Instruct": _shared("meta-llama/Llama-3.3-70B-Instruct", "llama"),
    "Qwen/Qwen2.5-7B-Instruct": _shared("Qwen/Qwen2.5-7B-Instruct", "qwen2"),
    "mistralai/Mistral-7B-Instruct-v0.3": _shared("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
    "microsoft/Phi-3-mini-4k-instruct": ("phi3", dict(
        hidden_size=3072, intermediate_size=8192, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32, vocab_size=32064)),
}
HF_MODELS.update({
    "Qwen/Qwen3-14B": ("qwen3", dict(hidden_size=5120, intermediate_size=17408,
                                     num_hidden_layers=40, num_attention_heads=40,
                                     num_key_value_heads=8, head_dim=128, vocab_size=151936)),
    "mistralai/Mistral-Nemo-Instruct-2407": ("mistral", dict(
        hidden_size=5120, intermediate_size=14336, num_hidden_layers=40, num_attention_heads=32,
        num_key_value_heads=8, head_dim=128, vocab_size=131072)),
    "Qwen/Qwen2.5-1.5B-Instruct": ("qwen2", dict(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
        num_key_value_heads=2, head_dim=128, vocab_size=151936)),
    "meta-llama/Llama-3.2-3B-Instruct": ("llama", dict(
        hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24,
        num_key_value_heads=8, head_dim=128, vocab_size=128256)),
    "Qwen/Qwen2.5-14B-Instruct": _shared("Qwen/Qwen2.5-14B-Instruct", "qwen2"),
    "microsoft/Phi-3-medium-4k-instruct": ("phi3", dict(
        hidden_size=5120, intermediate_size=17920, num_hidden_layers=40, num_attention_heads=40,
        num_key_value_heads=10, vocab_size=32064)),
})
#: The fourth batch, recorded after the refit (held out whole): models no batch measured
#: before, new size lists; Qwen3-0.6B first only to take the process's first-model costs.
HF_RUNS_4 = [("Qwen/Qwen3-0.6B", 1), ("Qwen/Qwen2.5-1.5B-Instruct", 1),
             ("meta-llama/Llama-3.2-3B-Instruct", 1), ("Qwen/Qwen3-14B", 1),
             ("mistralai/Mistral-Nemo-Instruct-2407", 1), ("microsoft/Phi-3-medium-4k-instruct", 1),
             ("Qwen/Qwen2.5-14B-Instruct", 2)]
#: The fifth batch (issue #34, recorded after the capture-time model was frozen, held out whole):
#: architectures and models no batch measured before (gemma2, granite, olmo2, starcoder2, and
#: llama-class SmolLM2 / Yi), Yi-1.5-34B as a TP-4 rank, new size lists
#: (:data:`CASES_5`); Qwen3-0.6B first only to take the process's first-model costs.
HF_MODELS_5: dict[str, tuple[str, dict[str, Any]]] = {
    "google/gemma-2-2b-it": ("gemma2", dict(
        hidden_size=2304, intermediate_size=9216, num_hidden_layers=26, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, vocab_size=256000)),
    "HuggingFaceTB/SmolLM2-1.7B-Instruct": ("llama", dict(
        hidden_size=2048, intermediate_size=8192, num_hidden_layers=24, num_attention_heads=32,
        num_key_value_heads=32, vocab_size=49152)),
    "Qwen/Qwen2.5-3B-Instruct": ("qwen2", dict(
        hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
        num_key_value_heads=2, head_dim=128, vocab_size=151936)),
    "allenai/OLMo-2-1124-7B-Instruct": ("olmo2", dict(
        hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32, vocab_size=100352)),
    "bigcode/starcoder2-7b": ("starcoder2", dict(
        hidden_size=4608, intermediate_size=18432, num_hidden_layers=32, num_attention_heads=36,
        num_key_value_heads=4, vocab_size=49152)),
    "ibm-granite/granite-3.1-8b-instruct": ("granite", dict(
        hidden_size=4096, intermediate_size=12800, num_hidden_layers=40, num_attention_heads=32,
        num_key_value_heads=8, vocab_size=49155)),
    "01-ai/Yi-1.5-9B-Chat": ("llama", dict(
        hidden_size=4096, intermediate_size=11008, num_hidden_layers=48, num_attention_heads=32,
        num_key_value_heads=4, vocab_size=64000)),
    "01-ai/Yi-1.5-34B-Chat": ("llama", dict(
        hidden_size=7168, intermediate_size=20480, num_hidden_layers=60, num_attention_heads=56,
        num_key_value_heads=8, vocab_size=64000)),
}
HF_MODELS.update(HF_MODELS_5)
HF_RUNS_5 = [("Qwen/Qwen3-0.6B", 1), *((m, 1) for m in HF_MODELS_5 if "34B" not in m),
             ("01-ai/Yi-1.5-34B-Chat", 4)]
#: The sixth batch (issue #34, recorded after the memory form was chosen on runs 1-5 and the
#: coefficients frozen at 707d73c; held out whole): models no batch measured before, four
#: architectures no batch used (gemma3_text, glm4, smollm3, and deepseek-llm's llama class with
#: a 102k vocabulary), new sizes of gemma2 and phi3 (Phi-4 has Phi-3-medium's shapes with a
#: 100k vocabulary, Phi-4-mini a 200k one), Mistral-Small-24B as a TP-2 rank and Qwen2.5-72B as
#: a TP-4 rank, on new size lists (:data:`CASES_6` in ``capture_cost_bench.write_cases``). Values
#: from each model's ``config.json`` on huggingface.co (``<model>/blob/main/config.json``);
#: ``partial_rotary_factor`` kept where the config has one (GLM-4 0.5, Phi-4-mini 0.75).
HF_MODELS_6: dict[str, tuple[str, dict[str, Any]]] = {
    "google/gemma-3-1b-it": ("gemma3_text", dict(
        hidden_size=1152, intermediate_size=6912, num_hidden_layers=26, num_attention_heads=4,
        num_key_value_heads=1, head_dim=256, vocab_size=262144)),
    "HuggingFaceTB/SmolLM3-3B": ("smollm3", dict(
        hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
        num_key_value_heads=4, vocab_size=128256)),
    "microsoft/Phi-4-mini-instruct": ("phi3", dict(
        hidden_size=3072, intermediate_size=8192, num_hidden_layers=32, num_attention_heads=24,
        num_key_value_heads=8, vocab_size=200064, partial_rotary_factor=0.75)),
    "deepseek-ai/deepseek-llm-7b-chat": ("llama", dict(
        hidden_size=4096, intermediate_size=11008, num_hidden_layers=30, num_attention_heads=32,
        num_key_value_heads=32, vocab_size=102400)),
    "THUDM/GLM-4-9B-0414": ("glm4", dict(
        hidden_size=4096, intermediate_size=13696, num_hidden_layers=40, num_attention_heads=32,
        num_key_value_heads=2, head_dim=128, vocab_size=151552, partial_rotary_factor=0.5)),
    "google/gemma-2-9b-it": ("gemma2", dict(
        hidden_size=3584, intermediate_size=14336, num_hidden_layers=42, num_attention_heads=16,
        num_key_value_heads=8, head_dim=256, vocab_size=256000)),
    "microsoft/phi-4": ("phi3", dict(
        hidden_size=5120, intermediate_size=17920, num_hidden_layers=40, num_attention_heads=40,
        num_key_value_heads=10, vocab_size=100352)),
    "mistralai/Mistral-Small-24B-Instruct-2501": ("mistral", dict(
        hidden_size=5120, intermediate_size=32768, num_hidden_layers=40, num_attention_heads=32,
        num_key_value_heads=8, head_dim=128, vocab_size=131072)),
    "Qwen/Qwen2.5-72B-Instruct": ("qwen2", dict(
        hidden_size=8192, intermediate_size=29568, num_hidden_layers=80, num_attention_heads=64,
        num_key_value_heads=8, vocab_size=152064)),
}
HF_MODELS.update(HF_MODELS_6)
HF_RUNS_6 = [("Qwen/Qwen3-0.6B", 1), *((m, 1) for m in list(HF_MODELS_6)[:7]),
             ("mistralai/Mistral-Small-24B-Instruct-2501", 2), ("Qwen/Qwen2.5-72B-Instruct", 4)]
#: (model, tp) pairs of the third batch, smallest first (a smoke of the first one runs alone).
HF_RUNS = [("Qwen/Qwen3-0.6B", 1), ("Qwen/Qwen3-4B", 1), ("microsoft/Phi-3-mini-4k-instruct", 1),
           ("Qwen/Qwen2.5-7B-Instruct", 1), ("mistralai/Mistral-7B-Instruct-v0.3", 1),
           ("meta-llama/Llama-3.1-8B-Instruct", 1), ("Qwen/Qwen3-8B", 1),
           ("Qwen/Qwen3-32B", 1), ("meta-llama/Llama-3.3-70B-Instruct", 4),
           ("Qwen/Qwen3-8B", 2)]
ATTENTION = "cgconfig_breakable"


def _register() -> None:
    """The breakable attention (and a no-mask function: it applies causality itself)."""
    import torch.nn.functional as F
    from transformers import AttentionInterface

    from cgconfig.runtime import eager_on_graph

    @eager_on_graph
    def attend(query: Any, key: Any, value: Any, scaling: float | None) -> Any:
        # [b, h, s, d] in; rows first out ([b*s, h, d]) so bridges are shared across sizes.
        b, h, s, d = query.shape
        out = F.scaled_dot_product_attention(query, key, value, is_causal=s > 1, scale=scaling,
                                             enable_gqa=True)
        return out.transpose(1, 2).reshape(b * s, h, d)

    def attention(module: Any, query: Any, key: Any, value: Any, attention_mask: Any,
                  scaling: float | None = None, dropout: float = 0.0, **_: Any) -> Any:
        b, h, s, d = query.shape
        return attend(query, key, value, scaling).view(b, s, h, d), None

    AttentionInterface.register(ATTENTION, attention)
    try:  # transformers >= 4.53: the mask a custom attention name gets
        from transformers.masking_utils import AttentionMaskInterface

        AttentionMaskInterface.register(ATTENTION, lambda *a, **k: None)
    except ImportError:
        pass


def build_hf(name: str, tp: int, device: str) -> tuple[Any, int]:
    """``(model, parameters per rank)``; ``model.forward_for(decode)`` gives the runner's
    forward, like the hand-built decoders."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    _register()
    model_type, fields = HF_MODELS[name]
    fields = dict(fields)
    fields.setdefault("head_dim", fields["hidden_size"] // fields["num_attention_heads"])
    for key in ("num_attention_heads", "intermediate_size", "vocab_size"):
        fields[key] //= tp
    fields["num_key_value_heads"] = max(1, fields["num_key_value_heads"] // tp)
    # No padding row: a config's pad id (Phi-3's 32000) can exceed one rank's vocabulary.
    cfg = AutoConfig.for_model(model_type, **fields, torch_dtype="bfloat16",
                               tie_word_embeddings=False, use_cache=False, pad_token_id=None)
    cfg._attn_implementation = ATTENTION
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device(device):
            lm = AutoModelForCausalLM.from_config(cfg, attn_implementation=ATTENTION).eval()
    finally:
        torch.set_default_dtype(torch.float32)
    params = sum(p.numel() for p in lm.parameters())

    def forward_for(decode: bool) -> Any:
        def forward(inputs: Any) -> Any:
            ids, pos = inputs["input_ids"], inputs["positions"]
            shape = (ids.shape[0], 1) if decode else (1, ids.shape[0])
            with torch.no_grad():
                if decode:
                    out = lm(input_ids=ids.view(shape), position_ids=pos.view(shape),
                             use_cache=False)
                    return out.logits.view(ids.shape[0], -1)
                out = lm.model(input_ids=ids.view(shape), position_ids=pos.view(shape),
                               use_cache=False)
                return out.last_hidden_state.view(ids.shape[0], -1)
        return forward

    lm.forward_for = forward_for
    return lm, params
