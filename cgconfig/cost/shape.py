"""The model facts a cost prediction uses, read from the model's ``config.json``.

Layers, hidden size, MLP width, vocabulary, experts and dtype come from the config the
resolver found (the same lookup and reader, through
:func:`cgconfig.sources.model_config.model_config_for`); each fact records where it came from, and
a fact the config does not give is listed in ``unknown`` (the prediction widens its range for
it). The weight size is an estimate from those shapes (dense layers, plus experts when the
config has them), per rank over tensor × pipeline parallelism.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Bytes per weight for the config's dtype (``torch_dtype`` or ``dtype``).
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "fp8": 1}
#: A quantization method's bytes per weight (``quantization_config.quant_method``).
QUANT_BYTES = {"fp8": 1.0, "awq": 0.5, "gptq": 0.5, "mxfp4": 0.5, "nvfp4": 0.5,
               "compressed-tensors": 1.0, "modelopt": 1.0, "bitsandbytes": 0.5}


@dataclass
class ModelFacts:
    """What the prediction knows about the model, each fact with its source."""

    layers: int | None = None
    hidden: int | None = None
    intermediate: int | None = None
    vocab: int | None = None
    experts: int | None = None
    moe_intermediate: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    dtype: str | None = None
    bytes_per_weight: float | None = None
    sources: dict[str, str] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)

    def params(self) -> float | None:
        """Parameter count from the shapes (``None`` without layers, hidden and vocabulary)."""
        if not (self.layers and self.hidden and self.vocab):
            return None
        h = self.hidden
        heads = self.heads or max(1, h // 128)
        head_dim = h // heads
        kv = self.kv_heads or heads
        attention = h * heads * head_dim * 2 + h * kv * head_dim * 2
        if self.experts:
            if not self.moe_intermediate:
                return None  # an expert's width decides most of the weights
            mlp = 3 * h * self.moe_intermediate * self.experts
        else:
            mlp = 3 * h * (self.intermediate or 4 * h)
        return float(self.layers * (attention + mlp) + 2 * self.vocab * h)

    def weights_gib(self, ranks: int) -> float | None:
        """Estimated weight GiB on one rank when the weights are split over ``ranks``."""
        params = self.params()
        if params is None or self.bytes_per_weight is None:
            return None
        return params * self.bytes_per_weight / max(ranks, 1) / 2**30

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the known facts, their sources and the unknown ones."""
        known = {k: getattr(self, k) for k in ("layers", "hidden", "intermediate", "vocab",
                                               "experts", "dtype")
                 if getattr(self, k) is not None}
        return {**known, "sources": dict(self.sources), "unknown": list(self.unknown)}


def _int(body: dict[str, Any], *keys: str) -> tuple[int | None, str | None]:
    for key in keys:
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 31:
            return value, key
    return None, None


def from_config(data: dict[str, Any], where: dict[str, str], shown: str | None) -> ModelFacts:
    """The model facts of one parsed ``config.json`` (``text_config`` for composite models)."""
    body = data.get("text_config") if isinstance(data.get("text_config"), dict) else data
    assert isinstance(body, dict)
    prefix = "text_config." if body is not data else ""
    facts = ModelFacts()
    wanted = {"layers": ("num_hidden_layers", "n_layer", "num_layers"),
              "hidden": ("hidden_size", "n_embd", "d_model"),
              "intermediate": ("intermediate_size", "ffn_hidden_size"),
              "vocab": ("vocab_size",), "experts": ("num_experts", "n_routed_experts",
                                                    "num_local_experts"),
              "moe_intermediate": ("moe_intermediate_size",),
              "heads": ("num_attention_heads",), "kv_heads": ("num_key_value_heads",)}
    for name, keys in wanted.items():
        value, key = _int(body, *keys)
        setattr(facts, name, value)
        if key is not None:
            facts.sources[name] = where.get(prefix + key, where.get(key, shown or "config.json"))
    dtype = body.get("torch_dtype") or body.get("dtype") or data.get("torch_dtype")
    if isinstance(dtype, str):
        facts.dtype = dtype
        facts.bytes_per_weight = DTYPE_BYTES.get(dtype)
        facts.sources["dtype"] = where.get("torch_dtype", where.get("dtype", shown or ""))
    quant = data.get("quantization_config")
    if isinstance(quant, dict) and isinstance(quant.get("quant_method"), str):
        method = quant["quant_method"].lower()
        facts.dtype = f"{facts.dtype or '?'} ({method})"
        facts.bytes_per_weight = QUANT_BYTES.get(method, facts.bytes_per_weight)
        facts.sources["dtype"] = where.get("quantization_config", shown or "")
    for name in ("layers", "hidden", "vocab", "dtype"):
        if getattr(facts, name) is None:
            facts.unknown.append(name)
    if facts.experts and not facts.moe_intermediate:
        facts.unknown.append("moe_intermediate_size (weights)")
    return facts


def read_model_facts(facts: dict[str, Any]) -> ModelFacts:
    """The model facts for a plan's ``facts`` (its ``model_path``), or all unknown."""
    from cgconfig.errors import InputError
    from cgconfig.sources.model_config import model_config_for

    try:
        config = model_config_for(facts)
    except InputError:  # the resolver already read it; a failure here only widens the range
        return ModelFacts(unknown=["model config (unreadable): layers, hidden, vocab, dtype"])
    if config is None:
        return ModelFacts(unknown=["model config (no config.json found): layers, hidden, vocab, "
                                   "dtype"])
    return from_config(config.data, config.where, config.shown)
