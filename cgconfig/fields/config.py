"""The typed CUDA-graph configuration: phases, backends, per-phase keys and graph options.

One model family, ``extra="forbid"`` everywhere and strict types, so a typo or a string where a
number belongs is an error rather than a silent default. Nothing here fixes one field up from
another: every such decision belongs to the resolver or to a rule, where ``explain`` can see it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PositiveInt
from pydantic_core import PydanticCustomError

from cgconfig.fields.constants import BACKEND_RANK, BACKENDS, PHASES, REMOVED_BACKENDS, REMOVED_KEYS
from cgconfig.fields.spec import FlagSpelling

Phase = Literal["decode", "prefill"]
BackendName = Literal["full", "breakable", "disabled"]
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


class DecodeConfig(BaseModel):
    """CUDA-graph settings of the decode phase, where sizes count requests."""

    model_config = _MODEL_CONFIG

    backend: Annotated[Backend, FlagSpelling(
        "--cuda-graph-backend-decode", "Backend for the decode phase: full, breakable or disabled.",
    )] = "full"
    """How decode steps run: ``full`` (one graph per batch size), ``breakable`` (graph segments
    with attention run eagerly between them) or ``disabled`` (eager). Default ``full``."""

    max_bs: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-bs-decode", "Largest decode batch (requests) to capture.",
        aliases=("--cuda-graph-max-bs",))] = None
    """Largest batch (in requests) to capture. Unset: the GPU-memory tier's default, clamped to
    ``--max-running-requests``. An explicit ``bs`` list sets it to ``max(bs)``."""

    bs: Annotated[SizeList | None, FlagSpelling(
        "--cuda-graph-bs-decode", "Exact decode batch sizes to capture (space-separated).",
        aliases=("--cuda-graph-bs",))] = None
    """Exact batch sizes to capture. Unset: generated from ``max_bs`` by the decode size grid."""


class PrefillConfig(BaseModel):
    """CUDA-graph settings of the prefill phase, where sizes count tokens."""

    model_config = _MODEL_CONFIG

    backend: Annotated[Backend, FlagSpelling(
        "--cuda-graph-backend-prefill", "Backend for the prefill phase: full, breakable or disabled.",
    )] = "breakable"
    """How prefill runs. Default ``breakable`` on CUDA, ``disabled`` on other platforms; ``full``
    is experimental upstream."""

    max_bs: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-bs-prefill", "Largest prefill size (tokens) to capture.",
        aliases=("--piecewise-cuda-graph-max-tokens",))] = None
    """Largest prefill size in tokens. Unset: the chunked-prefill size."""

    bs: Annotated[SizeList | None, FlagSpelling(
        "--cuda-graph-bs-prefill", "Exact prefill token counts to capture (space-separated).",
        aliases=("--piecewise-cuda-graph-tokens",))] = None
    """Exact token counts to capture. Unset: generated from ``max_bs`` by the prefill grid."""

    max_context_size: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-prefill-max-context",
        "Largest context a prefill graph supports (accepts 200k); larger contexts run eager.",
        value="human_int")] = None
    """Largest context a prefill graph admits (DeepSeek-V4 metadata size); longer runs eager."""

    max_seq_len: Annotated[PositiveInt | None, FlagSpelling(
        "--cuda-graph-max-seq-len-prefill",
        "Longest sequence a prefill graph replay admits; longer batches run eager prefill.",
    )] = None
    """Longest sequence a prefill graph replay admits; longer batches run eager prefill."""

    full_prefill_max_req: PositiveInt | None = None
    """Request slots of a ``full`` prefill graph. Unset: chunked-prefill size // 512 (min 1)."""

    full_prefill_prefix_chunk_tokens: PositiveInt | None = None
    """Prefix-chunk size of ``full`` prefill variants. Unset: the chunked-prefill token budget."""


class GraphOptions(BaseModel):
    """Graph options that are not per phase (SGLang's other graph flags)."""

    model_config = _MODEL_CONFIG

    disable_padding: Annotated[bool, FlagSpelling(
        "--disable-cuda-graph-padding",
        "Replay only exact sizes (captures every size up to max_bs).")] = False
    """``--disable-cuda-graph-padding``: replay only exact sizes; every size up to max_bs is
    captured instead of a grid."""

    enable_torch_compile: Annotated[bool, FlagSpelling(
        "--enable-torch-compile",
        "torch.compile the decode sizes up to --torch-compile-max-bs.")] = False
    """``--enable-torch-compile``: compile the decode sizes up to ``torch_compile_max_bs``."""

    torch_compile_max_bs: Annotated[PositiveInt, FlagSpelling(
        "--torch-compile-max-bs", "Largest decode size torch.compile handles (default 32).")] = 32
    """``--torch-compile-max-bs``: largest decode size that torch.compile handles. Default 32."""

    enable_cudagraph_gc: Annotated[bool, FlagSpelling(
        "--enable-cudagraph-gc",
        "Keep garbage collection running during capture (frozen by default).")] = False
    """``--enable-cudagraph-gc``: keep Python's GC running during capture (frozen by default)."""

    debug_cuda_graph: Annotated[bool, FlagSpelling(
        "--debug-cuda-graph",
        "Run every op eagerly through the breakable capture/replay path.")] = False
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
