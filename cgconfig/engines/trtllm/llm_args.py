"""trtllm-serve's road from a launch line and its options YAML to the decode CUDA graphs.

Ported from TensorRT-LLM, cited per function: ``tensorrt_llm/commands/serve.py`` at 00209af
(``get_llm_args``: the click defaults; ``serve``: YAML keys win over the flags), and
``tensorrt_llm/llmapi/llm_args.py`` / ``tensorrt_llm/_torch/pyexecutor/model_engine.py`` at
603c8a0a (``TorchLlmArgs.cuda_graph_config`` and its validators,
``BaseLlmArgs.validate_runtime_args`` / ``get_runtime_sizes``, ``PyTorchModelEngine.__init__``).

TensorRT-LLM's config models are pydantic models in lax mode: ``"8"``, ``8.0`` and ``true``
are the int 8, 8 and 1, ``"yes"`` is true. Values already of the field's type are checked
here; any other value goes through pydantic itself (imported only then), so that the
coercion is pydantic's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from cgconfig.engines.trtllm import sizes as trtllm_sizes
from cgconfig.limits import MAX_DECODE_BATCH

#: trtllm-serve's click defaults (``BuildConfig`` fields, TensorRT-LLM 1.x values).
SERVE_DEFAULTS = {"max_batch_size": 2048, "max_num_tokens": 8192}
#: The keys of ``DecodeCudaGraphConfig`` and what ``EncodeCudaGraphConfig`` adds.
DECODE_KEYS = ("batch_sizes", "max_batch_size", "enable_padding", "mode")
ENCODER_KEYS = ("num_tokens", "max_num_token", "seq_lens", "max_seq_len")
#: Field types, as TensorRT-LLM declares them.
_KINDS = {"batch_sizes": "int_list", "max_batch_size": "nonneg", "enable_padding": "bool",
          "num_tokens": "pos_list", "max_num_token": "nonneg", "seq_lens": "pos_list",
          "max_seq_len": "nonneg"}
SOURCE_ARGS = "TensorRT-LLM 603c8a0a tensorrt_llm/llmapi/llm_args.py"
SOURCE_SERVE = "TensorRT-LLM 00209af tensorrt_llm/commands/serve.py"


class ConfigProblem(ValueError):
    """An options value TensorRT-LLM rejects: the message and the YAML path it is at."""

    def __init__(self, message: str, path: tuple[Any, ...], *,
                 allowed: tuple[str, ...] | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.allowed = allowed
        self.key = key


@cache
def _adapter(kind: str) -> Any:
    from typing import Annotated

    from pydantic import Field, TypeAdapter

    types: dict[str, Any] = {
        "int": int, "nonneg": Annotated[int, Field(ge=0)], "bool": bool,
        "int_list": list[int] | None,
        "pos_list": Annotated[list[Annotated[int, Field(gt=0)]], Field(min_length=1)] | None,
        "opt_int": int | None}
    return TypeAdapter(types[kind])


def _strict_ok(value: Any, kind: str) -> bool:
    if kind == "bool":
        return type(value) is bool
    if kind in ("int", "nonneg", "opt_int"):
        return (type(value) is int and (kind != "nonneg" or value >= 0)) or (
            kind == "opt_int" and value is None)
    if value is None:
        return True
    return type(value) is list and all(type(v) is int and (kind != "pos_list" or v > 0)
                                       for v in value) and (kind != "pos_list" or bool(value))


def lax(value: Any, kind: str, path: tuple[Any, ...], read: list[str] | None = None) -> Any:
    """``value`` as a pydantic field of ``kind`` takes it in lax mode; ``ConfigProblem`` with
    pydantic's message when it does not. A value that had to be coerced is recorded in
    ``read`` (``cuda_graph_config.max_batch_size: '8' read as 8``), so it is never silent."""
    if _strict_ok(value, kind):
        return list(value) if isinstance(value, list) else value
    from pydantic import ValidationError

    try:
        coerced = _adapter(kind).validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = path + tuple(first.get("loc", ()))
        raise ConfigProblem(f"{first['msg']}, got {value!r}", where) from None
    if read is not None:
        read.append(f"{'.'.join(map(str, path))}: {value!r} read as {coerced!r}, as "
                    "TensorRT-LLM's pydantic models read it (lax mode)")
    return coerced


@dataclass
class GraphConfig:
    """``cuda_graph_config`` as TensorRT-LLM validates it (``None``: graphs off)."""

    mode: str
    batch_sizes: list[int]
    """Sorted, duplicates and non-positive entries kept (TensorRT-LLM checks neither)."""
    max_batch_size: int
    enable_padding: bool
    given: dict[str, Any] = field(default_factory=dict)
    """The keys the file set, with their (coerced) values."""
    coerced: list[str] = field(default_factory=list)
    """Each value pydantic's lax mode had to convert, in words."""


def infer_mode(block: dict[Any, Any]) -> str:
    """``TorchLlmArgs.infer_cuda_graph_config_mode``: encode when an encoder key is set to
    something other than ``None``/0, else decode."""
    return "encode" if any(k in block and block[k] not in (None, 0)
                           for k in ENCODER_KEYS) else "decode"


def graph_config(block: dict[Any, Any]) -> GraphConfig:
    """``DecodeCudaGraphConfig`` / ``EncodeCudaGraphConfig`` validation of a mapping: the
    discriminator, extra keys forbidden (``StrictBaseModel``), the field types, then
    ``validate_base_cuda_graph_config`` and the encoder validator's consistency checks."""
    at = ("cuda_graph_config",)
    mode = block.get("mode", infer_mode(block))
    if mode not in ("decode", "encode") or not isinstance(mode, str):
        raise ConfigProblem(f"mode must be 'decode' or 'encode', got {mode!r}", (*at, "mode"))
    allowed = DECODE_KEYS + (ENCODER_KEYS if mode == "encode" else ())
    for key in block:
        if key not in allowed:
            where = "" if mode == "encode" else " (the encoder keys need mode: encode)" \
                if key in ENCODER_KEYS else ""
            raise ConfigProblem(f"unknown key {key!r}{where}", (*at, key), allowed=allowed,
                                key=str(key))
    read: list[str] = []
    given = {k: lax(v, _KINDS[k], (*at, k), read) for k, v in block.items() if k != "mode"}
    for many, most in (("num_tokens", "max_num_token"), ("seq_lens", "max_seq_len")):
        if given.get(many) and given.get(most, 0) not in (0, max(given[many])):
            raise ConfigProblem(f"CudaGraphConfig.{most} is incompatible with "
                                f"CudaGraphConfig.{many}. When both are provided, {most} must "
                                f"equal max({many}).", (*at, most))
    padding = given.get("enable_padding", False)
    sizes = given.get("batch_sizes")
    for size in [*(sizes or []), given.get("max_batch_size", 0)]:
        if size > MAX_DECODE_BATCH:
            raise ConfigProblem(f"{size} is above the limit of {MAX_DECODE_BATCH} requests per "
                                "decode batch", (*at, "batch_sizes"))
    try:
        if sizes:  # validate_base_cuda_graph_config: a list wins, sorted as given
            ordered = sorted(sizes)
            chosen = given.get("max_batch_size", 0) or ordered[-1]
            if chosen != ordered[-1]:
                trtllm_sizes.validate(ordered, chosen, padding,
                                    variant=trtllm_sizes.RELEASE_VARIANT)  # TensorRT-LLM refuses
        else:
            ordered, chosen = trtllm_sizes.validate(None, given.get("max_batch_size", 0), padding,
                                                   variant=trtllm_sizes.RELEASE_VARIANT)
    except ValueError as exc:
        raise ConfigProblem(str(exc).replace("\n", " "), at) from None
    return GraphConfig(mode, ordered, chosen, padding, given, read)


@dataclass
class EngineLimits:
    """What bounds the captured list: the engine's max batch size, ``max_num_tokens`` and
    the draft tokens each decode step carries, each with where it came from."""

    max_batch_size: int
    max_batch_size_from: str
    max_num_tokens: int
    max_num_tokens_from: str
    draft_tokens: int = 0
    draft_from: str = ""
    warnings: list[str] = field(default_factory=list)
    """TensorRT-LLM's own warnings (``validate_runtime_args``)."""
    coerced: list[str] = field(default_factory=list)
    """Each value pydantic's lax mode had to convert, in words."""

    @property
    def bound(self) -> int:
        """``_filter_cuda_graph_batch_sizes``'s ``max_cuda_graph_bs``."""
        return trtllm_sizes.graph_batch_bound(self.max_batch_size, self.max_num_tokens,
                                              self.draft_tokens)

    def chain(self) -> str:
        """The clamp in words: ``min(max_batch_size 4 (--max_batch_size), int(...)) = 4``."""
        per_step = f"(1 + {self.draft_tokens} draft tokens: {self.draft_from})" \
            if self.draft_tokens else "1"
        return (f"min(max_batch_size {self.max_batch_size} ({self.max_batch_size_from}), "
                f"int(max_num_tokens {self.max_num_tokens} ({self.max_num_tokens_from}) / "
                f"{per_step})) = {self.bound}")


def _draft_tokens(spec: Any, read: list[str]) -> tuple[int, str]:
    """``spec_config.tokens_per_gen_step - 1``: ``max_total_draft_tokens``, else
    ``max_draft_len``, else MTP's ``num_nextn_predict_layers``."""
    if spec is None:
        return 0, ""
    at = ("speculative_config",)
    if not isinstance(spec, dict):
        raise ConfigProblem(f"speculative_config must be a mapping or null, got {spec!r}", at)
    draft_len, name = spec.get("max_draft_len"), "max_draft_len"
    if draft_len is None:
        draft_len, name = spec.get("num_nextn_predict_layers", 0) or 0, "num_nextn_predict_layers"
    draft_len = lax(draft_len, "int", (*at, name), read)
    total = spec.get("max_total_draft_tokens")
    if total is not None:
        return lax(total, "int", (*at, "max_total_draft_tokens"), read), \
            "speculative_config.max_total_draft_tokens"
    return draft_len, f"speculative_config.{name}"


def engine_limits(cli: dict[str, int], data: dict[Any, Any], file_label: str) -> EngineLimits:
    """``get_llm_args`` (the flags, or trtllm-serve's defaults), the YAML merge (top-level
    ``max_batch_size`` / ``max_num_tokens`` win over the flags), ``validate_runtime_args``'s
    warning and the draft tokens of ``speculative_config``."""
    values: dict[str, tuple[int, str]] = {}
    read: list[str] = []
    for name, default in SERVE_DEFAULTS.items():
        if name in data:
            value = data[name]
            if value is None:
                raise ConfigProblem(f"{name}: null leaves the engine without a {name} "
                                    "(TensorRT-LLM's filter compares against it)", (name,))
            values[name] = (lax(value, "int", (name,), read), f"{file_label} {name}")
        elif name in cli:
            values[name] = (cli[name], f"--{name}")
        else:
            values[name] = (default, "trtllm-serve default")
    draft, draft_from = _draft_tokens(data.get("speculative_config"), read)
    limits = EngineLimits(*values["max_batch_size"], *values["max_num_tokens"], draft, draft_from,
                          coerced=read)
    if limits.max_batch_size > limits.max_num_tokens:
        limits.warnings.append(
            f"max_batch_size [{limits.max_batch_size}] should be less than or equal to "
            f"max_num_tokens [{limits.max_num_tokens}]")
    return limits
