"""Breakable capture: one forward recorded as graph segments, split at functions marked eager.

Some work cannot live in a graph: prefill attention, whose kernel grid follows per-request query
lengths, or anything that reads host-side metadata each step. Decorating such a function with
:func:`eager_on_graph` makes the breakable backend end the current segment when the function is
called during capture, run it for real, and start a new segment after it. Replay alternates:
segment 0, break 0, segment 1, break 1, ... Everything between breaks (projections, norms, MLPs,
the bulk of the launches) still replays as a graph.

Two kinds of memory connect segments and breaks:

* the break's *arguments* were produced inside the previous segment, in the shared graph pool;
  the break keeps weak views of them (:mod:`.weak_tensor`), so they do not pin pool blocks that
  other graphs of the runner may reuse;
* the break's *outputs* are copied into bridge buffers, static tensors owned by a
  :class:`BridgePool` and shared by every graph of the runner (largest graph first, so the first
  bridge at each break position is big enough for all later ones). The next segment was captured
  reading the bridge, so at replay the break copies its fresh output there.

Outside a breakable capture the decorator is a plain call: the same model code runs eagerly, in
a full graph (the marked function is simply recorded) or under ``torch.compile``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, ParamSpec, Protocol, TypeVar

import torch

from .tree import map_tensors, tensors
from .weak_tensor import weak_view

P = ParamSpec("P")
R = TypeVar("R")


class Segment(Protocol):
    """The part of ``torch.cuda.CUDAGraph`` a segment needs (tests substitute a fake)."""

    def capture_begin(self, pool: Any = None) -> None:
        """Start recording on the current stream into ``pool``."""

    def capture_end(self) -> None:
        """Stop recording."""

    def replay(self) -> None:
        """Launch the recorded work."""


SegmentFactory = Callable[[], Segment]

_ACTIVE: ContextVar[_BreakableCapture | None] = ContextVar("cgconfig_breakable_capture",
                                                           default=None)


def eager_on_graph(fn: Callable[P, R]) -> Callable[P, R]:
    """Mark ``fn`` to run eagerly between graph segments under the breakable backend.

    Its tensor outputs (a tensor or tuples/lists/dicts of them) must have the same shapes for a
    given graph size; index tensors it reads must come from static buffers or outside the
    graph, since at capture time values produced by earlier segments are not computed yet.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        # Under torch.compile the marked function is traced like any other code.
        if torch.compiler.is_compiling():
            return fn(*args, **kwargs)
        capture = _ACTIVE.get()
        if capture is None:
            return fn(*args, **kwargs)
        result: R = capture.break_at(fn, args, kwargs)
        return result

    wrapper.__cgconfig_eager_on_graph__ = True  # type: ignore[attr-defined]
    return wrapper


def is_eager_on_graph(fn: Callable[..., Any]) -> bool:
    """True when ``fn`` was decorated with :func:`eager_on_graph`."""
    return bool(getattr(fn, "__cgconfig_eager_on_graph__", False))


def _weak_arg(value: Any) -> Any:
    # Only device tensors: a graph pool keeps their memory alive. A CPU tensor made inside the
    # forward has no such owner, so a weak view of it could outlive its memory.
    return map_tensors(lambda t: weak_view(t) if t.is_cuda else t, value)


class BridgePool:
    """Static tensors that carry break outputs into the next segment, shared across graphs.

    Keyed by (break position, output index). The first tensor seen at a key sets its capacity;
    with largest-first capture it holds every later graph's output as a leading-rows view. An
    output that does not fit (other dtype or trailing shape, or more rows) gets its own buffer.
    """

    def __init__(self) -> None:
        self._buffers: dict[tuple[int, int], torch.Tensor] = {}

    @staticmethod
    def _fits(buf: torch.Tensor, t: torch.Tensor) -> bool:
        if buf.dtype != t.dtype or buf.device != t.device or buf.dim() != t.dim():
            return False
        if t.dim() == 0:
            return True
        return buf.shape[1:] == t.shape[1:] and t.shape[0] <= buf.shape[0]

    def bridge(self, position: int, out: Any) -> Any:
        """Copy ``out``'s tensors into bridge buffers; return the same tree made of bridges."""
        index = itertools.count()

        def to_bridge(t: torch.Tensor) -> torch.Tensor:
            key = (position, next(index))
            buf = self._buffers.get(key)
            if buf is None or not self._fits(buf, t):
                buf = torch.empty(t.shape, dtype=t.dtype, device=t.device)
                if key not in self._buffers:
                    self._buffers[key] = buf
            view = buf if t.dim() == 0 else buf[: t.shape[0]]
            view.copy_(t)
            return view

        return map_tensors(to_bridge, out)

    @property
    def nbytes(self) -> int:
        """Bytes held by the shared bridges."""
        return sum(b.numel() * b.element_size() for b in self._buffers.values())

    def clear(self) -> None:
        """Drop every bridge (graphs reading them must be gone too)."""
        self._buffers.clear()


class BreakableGraph:
    """A captured forward: segments to replay with eager breaks between them."""

    def __init__(self, segments: list[Segment], breaks: list[Callable[[], None]],
                 output: Any) -> None:
        if len(segments) != len(breaks) + 1:
            raise ValueError(f"{len(segments)} segments cannot surround {len(breaks)} breaks")
        self.segments = segments
        self.breaks = breaks
        self.output = output
        # Replay order flattened once: segment 0, break 0, segment 1, ..., last segment.
        self._steps: list[Callable[[], None]] = []
        for segment, brk in zip(segments, breaks, strict=False):
            self._steps += [segment.replay, brk]
        self._steps.append(segments[-1].replay)

    @property
    def num_breaks(self) -> int:
        """How many eager calls run between the segments."""
        return len(self.breaks)

    def replay(self) -> Any:
        """Replay every segment, running each break in between; returns the static output."""
        for step in self._steps:
            step()
        return self.output


class _BreakableCapture:
    """Bookkeeping while one forward is being captured in segments."""

    def __init__(self, pool: Any, bridges: BridgePool, new_segment: SegmentFactory) -> None:
        self.pool = pool
        self.bridges = bridges
        self.new_segment = new_segment
        self.segments: list[Segment] = []
        self.breaks: list[Callable[[], None]] = []
        self.current: Segment | None = None

    def begin(self) -> None:
        """Open a new segment on the current stream, in the shared pool."""
        segment = self.new_segment()
        segment.capture_begin(pool=self.pool)
        self.current = segment

    def end(self) -> None:
        """Close the open segment and keep it."""
        assert self.current is not None, "no segment is being captured"
        with warnings.catch_warnings():
            # Two breaks in a row leave an empty segment; it replays as a no-op, so torch's
            # warning about capturing an empty graph is noise here.
            warnings.filterwarnings("ignore", message=".*empty.*", category=UserWarning)
            self.current.capture_end()
        self.segments.append(self.current)
        self.current = None

    def break_at(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> Any:
        """Run ``fn`` between two segments now, and record how to rerun it at replay."""
        self.end()
        out = fn(*args, **kwargs)
        bridged = self.bridges.bridge(len(self.breaks), out)
        targets = tensors(bridged)
        weak_args = _weak_arg(args)
        weak_kwargs = _weak_arg(kwargs)
        name = getattr(fn, "__qualname__", repr(fn))
        call = functools.partial(fn, *weak_args, **weak_kwargs)  # bound once, called per step

        def replay_break() -> None:
            fresh = tensors(call())
            if len(fresh) != len(targets):
                raise RuntimeError(f"eager function {name} returned {len(fresh)} tensors at "
                                   f"replay but {len(targets)} at capture")
            if targets:
                torch._foreach_copy_(targets, fresh)

        if isinstance(out, torch.Tensor):
            # The common case (attention returns one tensor) runs once per layer per step:
            # skip the tree walk and the list-based foreach dispatch.
            target = bridged

            def replay_one() -> None:
                fresh = call()
                if not isinstance(fresh, torch.Tensor):
                    raise RuntimeError(f"eager function {name} returned {type(fresh).__name__} "
                                       "at replay but a tensor at capture")
                target.copy_(fresh)

            self.breaks.append(replay_one)
        else:
            self.breaks.append(replay_break)
        self.begin()
        return bridged


def capture_breakable(fn: Callable[[], Any], *, pool: Any, bridges: BridgePool,
                      new_segment: SegmentFactory | None = None) -> BreakableGraph:
    """Capture ``fn()`` on the current stream as segments split at :func:`eager_on_graph` calls.

    ``new_segment`` builds each segment (``torch.cuda.CUDAGraph`` by default). The output is
    kept as weak views: it lives in the pool, and the graph's segments keep the pool alive.
    """
    capture = _BreakableCapture(pool, bridges, new_segment or torch.cuda.CUDAGraph)
    token = _ACTIVE.set(capture)
    try:
        capture.begin()
        try:
            out = fn()
        except BaseException:
            # Close the open segment so the stream leaves capture mode; if that fails too, the
            # forward's own error is the one worth reporting.
            if capture.current is not None:
                with contextlib.suppress(Exception):
                    capture.end()
            raise
        capture.end()
    finally:
        _ACTIVE.reset(token)
    # Outputs that are bridges or static inputs are owned elsewhere; only device tensors made
    # inside a segment come from the pool, and _weak_arg's rule covers both cases.
    return BreakableGraph(capture.segments, capture.breaks, _weak_arg(out))
