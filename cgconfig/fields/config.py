"""The typed CUDA-graph configuration: phases, backends, per-phase keys and graph options.

One model family, ``extra="forbid"`` everywhere and strict types, so a typo or a string where a
number belongs is an error rather than a silent default. Nothing here fixes one field up from
another: every such decision belongs to the resolver or to a rule, where ``explain`` can see it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PositiveInt
from pydantic_core import PydanticCustomError

from cgconfig.constants import BACKEND_RANK, BACKENDS, PHASES, REMOVED_BACKENDS, REMOVED_KEYS
from cgconfig.fields.spec import EngineKey, FlagSpelling, NotExpressible
from cgconfig.limits import CONTEXT, REQUESTS, TOKENS

Phase = Literal["decode", "prefill"]
BackendName = Literal["full", "breakable", "tc_piecewise", "disabled"]
assert get_args(BackendName) == BACKENDS and get_args(Phase) == PHASES
_PHASE_NAMES: tuple[Phase, ...] = ("decode", "prefill")

from cgconfig.fields.table import all_config_keys, default_value  # noqa: E402  (re-exported)

__all__ = [
    "BACKENDS",
    "BACKEND_RANK",
    "PHASES",
    "REMOVED_BACKENDS",
    "REMOVED_KEYS",
    "CudaGraphConfig",
    "DecodeConfig",
    "GraphOptions",
    "PrefillConfig",
    "all_config_keys",
    "default_value",
]


def _reject_removed_backend(value: Any) -> Any:
    if isinstance(value, str) and value in REMOVED_BACKENDS:
        raise PydanticCustomError("removed_backend", REMOVED_BACKENDS[value])
    return value


Backend = Annotated[BackendName, BeforeValidator(_reject_removed_backend)]
SizeList = Annotated[list[PositiveInt], Field(min_length=1)]

_MODEL_CONFIG = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)

# How the other engines' emitters write the keys that several keys share (``EngineKey.how``).
_MODE = ("one cudagraph_mode for the pair of phase backends; a pair with no mode is noted "
         "[mode] and the closest mode emitted")
_ONE_LIST = ("the union of both phases' lists, in tokens (vLLM has one list; two different "
             "lists are noted [one-list])")
_CEILING = "the largest size of the one list (a max_bs that is not its phase's largest is noted [max-bs])"
_COMPILE = "the decode sizes torch.compile handles, in tokens"
_TRT_DECODE = "the captured decode list, in requests"
_TRT_PREFILL = "the captured prefill list, in tokens"
_EXTRA_VLLM = NotExpressible("vllm", "prefill-extra", "vLLM has no such prefill setting")
_EXTRA_TRTLLM = NotExpressible("trtllm", "prefill-extra", "TensorRT-LLM has no such prefill setting")
_ONLY_VLLM = NotExpressible("vllm", "option", "an SGLang-only graph option")
_ONLY_TRTLLM = NotExpressible("trtllm", "option", "an SGLang-only graph option")
_NO_TRTLLM_OPTION = NotExpressible("trtllm", "option", "TensorRT-LLM has no options-file key")


class DecodeConfig(BaseModel):
    """CUDA-graph settings of the decode phase, where sizes count requests."""

    model_config = _MODEL_CONFIG

    backend: Annotated[Backend, FlagSpelling(
        "--cuda-graph-backend-decode",
        "Backend for the decode phase: full, breakable, tc_piecewise (older releases) "
        "or disabled.",
    ), EngineKey("vllm", "cudagraph_mode", _MODE), EngineKey(
        "trtllm", "cuda_graph_config", "null when no decode graph is captured; a breakable "
        "backend is noted (TensorRT-LLM captures whole decode graphs)")] = "full"
    """How decode steps run: ``full`` (one graph per batch size), ``breakable`` (graph segments
    with attention run eagerly between them), ``tc_piecewise`` (accepted by the older releases
    that have it, whose decode runner runs it as ``full``) or ``disabled`` (eager). Default ``full``."""

    max_bs: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-bs-decode", "Largest decode batch (requests) to capture.",
        aliases=("--cuda-graph-max-bs",)), REQUESTS, EngineKey(
        "vllm", "max_cudagraph_capture_size", _CEILING), EngineKey(
        "trtllm", "cuda_graph_config.batch_sizes", _TRT_DECODE)] = None
    """Largest batch (in requests) to capture. Unset: the GPU-memory tier's default, clamped to
    ``--max-running-requests``. An explicit ``bs`` list sets it to ``max(bs)``."""

    bs: Annotated[SizeList | None, FlagSpelling(
        "--cuda-graph-bs-decode", "Exact decode batch sizes to capture (space-separated).",
        aliases=("--cuda-graph-bs",)), REQUESTS, EngineKey(
        "vllm", "cudagraph_capture_sizes", _ONE_LIST), EngineKey(
        "trtllm", "cuda_graph_config.batch_sizes", _TRT_DECODE)] = None
    """Exact batch sizes to capture. Unset: generated from ``max_bs`` by the decode size grid."""


class PrefillConfig(BaseModel):
    """CUDA-graph settings of the prefill phase, where sizes count tokens."""

    model_config = _MODEL_CONFIG

    backend: Annotated[Backend, FlagSpelling(
        "--cuda-graph-backend-prefill",
        "Backend for the prefill phase: full, breakable, tc_piecewise (older releases) "
        "or disabled.",
    ), EngineKey("vllm", "cudagraph_mode", _MODE), EngineKey(
        "trtllm", "torch_compile_config.enable_piecewise_cuda_graph", "true when prefill graphs "
        "are captured; full prefill graphs are noted (TensorRT-LLM's are piecewise)")
    ] = "breakable"
    """How prefill runs. Default ``breakable`` on CUDA, ``disabled`` on other platforms; ``full``
    is experimental upstream; ``tc_piecewise`` is the torch.compile piecewise graph
    of the older releases that have it."""

    max_bs: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-bs-prefill", "Largest prefill size (tokens) to capture.",
        aliases=("--piecewise-cuda-graph-max-tokens",)), TOKENS, EngineKey(
        "vllm", "max_cudagraph_capture_size", _CEILING), EngineKey(
        "trtllm", "torch_compile_config.capture_num_tokens", _TRT_PREFILL)] = None
    """Largest prefill size in tokens. Unset: the chunked-prefill size."""

    bs: Annotated[SizeList | None, FlagSpelling(
        "--cuda-graph-bs-prefill", "Exact prefill token counts to capture (space-separated).",
        aliases=("--piecewise-cuda-graph-tokens",)), TOKENS, EngineKey(
        "vllm", "cudagraph_capture_sizes", _ONE_LIST), EngineKey(
        "trtllm", "torch_compile_config.capture_num_tokens", _TRT_PREFILL)] = None
    """Exact token counts to capture. Unset: generated from ``max_bs`` by the prefill grid."""

    max_context_size: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-prefill-max-context",
        "Largest context a prefill graph supports (accepts 200k); larger contexts run eager.",
        value="human_int"), CONTEXT, _EXTRA_VLLM, _EXTRA_TRTLLM] = None
    """Largest context a prefill graph admits (DeepSeek-V4 metadata size); longer runs eager."""

    max_seq_len: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-seq-len-prefill",
        "Longest sequence a prefill graph replay admits; longer batches run eager prefill.",
    ), CONTEXT, _EXTRA_VLLM, _EXTRA_TRTLLM] = None
    """Longest sequence a prefill graph replay admits; longer batches run eager prefill."""

    full_prefill_max_req: Annotated[PositiveInt | None, REQUESTS, _EXTRA_VLLM, _EXTRA_TRTLLM] = None
    """Request slots of a ``full`` prefill graph. Unset: chunked-prefill size // 512 (min 1)."""

    full_prefill_prefix_chunk_tokens: Annotated[
        PositiveInt | None, TOKENS, _EXTRA_VLLM, _EXTRA_TRTLLM] = None
    """Prefix-chunk size of ``full`` prefill variants. Unset: the chunked-prefill token budget."""


class GraphOptions(BaseModel):
    """Graph options that are not per phase (SGLang's other graph flags)."""

    model_config = _MODEL_CONFIG

    disable_padding: Annotated[bool, FlagSpelling(
        "--disable-cuda-graph-padding",
        "Replay only exact sizes (captures every size up to max_bs)."), NotExpressible(
        "vllm", "padding", "vLLM always pads a batch up to a captured size",
        note="--disable-cuda-graph-padding has no vLLM equivalent (vLLM always pads)"),
        EngineKey("trtllm", "cuda_graph_config.enable_padding", "its negation")] = False
    """``--disable-cuda-graph-padding``: replay only exact sizes; every size up to max_bs is
    captured instead of a grid."""

    enable_torch_compile: Annotated[bool, FlagSpelling(
        "--enable-torch-compile",
        "torch.compile the decode sizes up to --torch-compile-max-bs."), EngineKey(
        "vllm", "compile_sizes", _COMPILE), _NO_TRTLLM_OPTION] = False
    """``--enable-torch-compile``: compile the decode sizes up to ``torch_compile_max_bs``."""

    torch_compile_max_bs: Annotated[PositiveInt, FlagSpelling(
        "--torch-compile-max-bs", "Largest decode size torch.compile handles (default 32)."),
        REQUESTS, EngineKey("vllm", "compile_sizes", _COMPILE), _NO_TRTLLM_OPTION] = 32
    """``--torch-compile-max-bs``: largest decode size that torch.compile handles. Default 32."""

    enable_cudagraph_gc: Annotated[bool, FlagSpelling(
        "--enable-cudagraph-gc",
        "Keep garbage collection running during capture (frozen by default).",
        graph_effect=False), _ONLY_VLLM, _ONLY_TRTLLM] = False
    """``--enable-cudagraph-gc``: keep Python's GC running during capture (frozen by default)."""

    debug_cuda_graph: Annotated[bool, FlagSpelling(
        "--debug-cuda-graph",
        "Run every op eagerly through the breakable capture/replay path."),
        _ONLY_VLLM, _ONLY_TRTLLM] = False
    """``--debug-cuda-graph``: run every op eagerly through the breakable capture/replay path."""


class CudaGraphConfig(BaseModel):
    """The per-phase CUDA-graph configuration, the object ``--cuda-graph-config`` describes.

    Passed from Python, only the fields the caller set are explicit (and so locked); the rest
    keep the platform's defaults.
    """

    model_config = _MODEL_CONFIG

    decode: DecodeConfig = Field(default_factory=DecodeConfig)
    """Decode-phase settings."""

    prefill: PrefillConfig = Field(default_factory=PrefillConfig)
    """Prefill-phase settings."""

    def phase(self, name: Phase) -> DecodeConfig | PrefillConfig:
        """Return the settings of one phase by name."""
        return self.decode if name == "decode" else self.prefill

    def to_dict(self, baseline: CudaGraphConfig | None = None) -> dict[str, dict[str, Any]]:
        """Diff-only form: per phase, the keys whose value differs from ``baseline``.

        ``baseline`` defaults to the model defaults; pass the platform's defaults to get what a
        deployment would need to write down.
        """
        base = baseline or CudaGraphConfig()
        out: dict[str, dict[str, Any]] = {}
        for name in _PHASE_NAMES:
            mine, theirs = self.phase(name), base.phase(name)
            diff = {
                key: getattr(mine, key)
                for key in type(mine).model_fields
                if getattr(mine, key) != getattr(theirs, key)
            }
            if diff:
                out[name] = diff
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CudaGraphConfig:
        """Inverse of :meth:`to_dict` (with the default baseline); validates every value."""
        return cls.model_validate(data)

    def explicit_keys(self) -> list[str]:
        """Dotted keys the caller set on this object (``decode.max_bs``, ...), in model order."""
        keys: list[str] = []
        for name in _PHASE_NAMES:
            # A field assigned on a default phase object (cfg.decode.max_bs = 8) counts too.
            sub = self.phase(name)
            keys.extend(f"{name}.{k}" for k in type(sub).model_fields if k in sub.model_fields_set)
        return keys


PHASE_MODELS: dict[str, type[BaseModel]] = {"decode": DecodeConfig, "prefill": PrefillConfig}

def field_info(key: str) -> Any:
    """The pydantic ``FieldInfo`` behind a dotted key (``decode.max_bs``, ``options.x``)."""
    group, name = key.split(".", 1)
    model = GraphOptions if group == "options" else PHASE_MODELS[group]
    return model.model_fields[name]
