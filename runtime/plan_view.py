"""Read one phase's capture instructions out of a resolved plan.

The runtime depends on the plan's JSON form only (``Plan.to_dict()``, docs/plan-format.md), never on the
resolver's classes, so a plan written to disk by ``cgconfig resolve --output json`` on another
machine drives the runtime exactly like an in-process ``Plan``. This module needs no torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from cgconfig.constants import BACKENDS, MAX_CAPTURE_SIZE, PHASES

# Where each graph option may sit: the plan's ``options`` block first, then the SGLang field
# names, in case a plan keeps them inside ``config``.
_OPTION_KEYS = {
    "disable_padding": ("disable_padding", "disable_cuda_graph_padding"),
    "enable_gc": ("enable_cudagraph_gc", "enable_gc"),
    "debug": ("debug_cuda_graph",),
}


class HasToDict(Protocol):
    """Anything that renders itself as the plan's JSON document (the resolver's ``Plan``)."""

    def to_dict(self) -> Mapping[str, Any]:
        """The plan document (docs/plan-format.md) as plain data."""
        ...


@dataclass(frozen=True)
class PhaseCapture:
    """What the runtime must capture for one phase.

    ``sizes`` count requests for decode and tokens for prefill; they are sorted, unique and
    positive. A ``disabled`` phase has no sizes. ``debug`` asks for the capture/replay path to run
    every op eagerly (the plan's ``debug_cuda_graph``), which the runner honours by using its
    eager stand-in graphs.
    """

    phase: str
    backend: str
    sizes: tuple[int, ...]
    compile_sizes: tuple[int, ...] = ()
    disable_padding: bool = False
    enable_gc: bool = False
    debug: bool = False

    def __post_init__(self) -> None:
        if self.phase not in PHASES:
            raise ValueError(f"unknown phase {self.phase!r}; expected one of {PHASES}")
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r} for {self.phase}; "
                             f"expected one of {BACKENDS}")
        for name in ("sizes", "compile_sizes"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in values):
                raise ValueError(f"{self.phase} {name} must be a tuple of integers")
        if any(s > MAX_CAPTURE_SIZE for s in self.sizes):
            raise ValueError(f"{self.phase} sizes go past {MAX_CAPTURE_SIZE} (the largest "
                             "capture size a plan can hold)")
        if list(self.sizes) != sorted(set(self.sizes)) or any(s < 1 for s in self.sizes):
            raise ValueError(f"{self.phase} sizes must be sorted, unique and positive: "
                             f"{list(self.sizes)}")
        stray = sorted(set(self.compile_sizes) - set(self.sizes))
        if stray:
            raise ValueError(f"{self.phase} compile sizes {stray} are not capture sizes")

    @property
    def enabled(self) -> bool:
        """True when the phase captures at least one graph."""
        return self.backend != "disabled" and bool(self.sizes)

    @property
    def max_size(self) -> int:
        """The largest capture size, or 0 for a phase that captures nothing."""
        return self.sizes[-1] if self.sizes else 0


def _as_dict(plan: Mapping[str, Any] | HasToDict) -> Mapping[str, Any]:
    if isinstance(plan, Mapping):
        return plan
    to_dict = getattr(plan, "to_dict", None)
    if not callable(to_dict):
        raise TypeError(f"expected a plan dict or an object with to_dict(), got {type(plan)!r}")
    doc = to_dict()
    if not isinstance(doc, Mapping):
        raise TypeError(f"{type(plan).__name__}.to_dict() returned {type(doc)!r}, not a mapping")
    return doc


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    """A plan section: a mapping, or empty when absent; anything else is a ValueError."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"plan {where} must be a mapping, got {type(value).__name__}")
    return value


def _int_list(values: Iterable[Any], where: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, (list, tuple)):
        raise ValueError(f"{where} must be a list of sizes, got {type(values).__name__}")
    if len(values) > MAX_CAPTURE_SIZE:
        raise ValueError(f"{where} has {len(values)} sizes (at most {MAX_CAPTURE_SIZE})")
    out: list[int] = []
    for v in values:
        # bool is an int subclass; a true/false in a size list is a malformed plan, not 1/0.
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{where} must hold integers, got {v!r:.40}")
        if v < 1:
            raise ValueError(f"{where} must be positive, got {v:.3g}")
        if v > MAX_CAPTURE_SIZE:  # [2**40] must not reach the allocator
            raise ValueError(f"{where}: size {v:.3g} is above {MAX_CAPTURE_SIZE}, the largest "
                             "capture size a plan can hold")
        out.append(v)
    return tuple(sorted(set(out)))


def _option(doc: Mapping[str, Any], name: str) -> bool:
    places = [doc.get("options"), doc.get("config")]
    for place in places:
        if isinstance(place, Mapping):
            for key in _OPTION_KEYS[name]:
                if key in place:
                    value = place[key]
                    # A string "false" is truthy: only real booleans are options.
                    if not isinstance(value, bool):
                        raise ValueError(f"plan option {key} must be true or false, got "
                                         f"{type(value).__name__} {value!r:.40}")
                    return value
    return False


def phase_capture(plan: Mapping[str, Any] | HasToDict, phase: str) -> PhaseCapture:
    """Extract :class:`PhaseCapture` for ``phase`` from a plan dict or a ``Plan`` object.

    The backend is read from ``capture.<phase>.backend`` and, when the capture section leaves it
    out, from ``config.<phase>.backend``. A phase the plan does not mention, or whose backend is
    ``disabled``, comes back disabled with no sizes.
    """
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; expected one of {PHASES}")
    doc = _as_dict(plan)
    version = doc.get("schema_version", 1)
    if version != 1:
        raise ValueError(f"unsupported plan schema_version {version!r}; this runtime reads 1")
    capture = _mapping(doc.get("capture"), "capture")
    config = _mapping(doc.get("config"), "config")
    section = _mapping(capture.get(phase), f"capture.{phase}")
    backend = section.get("backend") or _mapping(config.get(phase), f"config.{phase}").get(
        "backend") or "disabled"
    if not isinstance(backend, str):
        raise ValueError(f"capture.{phase}.backend must be a string, got {backend!r:.40}")
    sizes = _int_list(section.get("sizes") or (), f"capture.{phase}.sizes")
    compile_sizes = _int_list(section.get("compile_sizes") or (), f"capture.{phase}.compile_sizes")
    if backend == "disabled":
        sizes, compile_sizes = (), ()
    return PhaseCapture(
        phase=phase,
        backend=str(backend),
        sizes=sizes,
        compile_sizes=compile_sizes,
        disable_padding=_option(doc, "disable_padding"),
        enable_gc=_option(doc, "enable_gc"),
        debug=_option(doc, "debug"),
    )
