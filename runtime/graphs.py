"""The three ways a runner can execute one bucket: a full graph, a breakable one, or eagerly.

Every backend produces objects with ``replay() -> output`` so the runner's fill, replay and
slice path is the same for all three. The eager stand-in runs the forward on the padded static
buffers, which is what makes that path testable on a machine without CUDA.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Protocol

import torch

from .breakable import BreakableGraph, BridgePool, SegmentFactory, capture_breakable
from .weak_tensor import weak_tree

Forward = Callable[[Mapping[str, torch.Tensor]], Any]
_capture_streams: dict[int, torch.cuda.Stream] = {}


class Backend(str, Enum):
    """How a runner executes its buckets."""

    FULL = "full"
    BREAKABLE = "breakable"
    EAGER = "eager"


def tc_piecewise_stand_in(phase: str) -> tuple[Backend, str]:
    """What a runner does with a plan's ``tc_piecewise`` phase, and the one line it logs.

    ``tc_piecewise`` is SGLang 0.5.21's and older releases' torch.compile piecewise graph, which
    this runtime cannot build (it captures whole graphs and breakable segments, with no
    torch.compile piecewise split). Decode runs as ``full``, as those releases' own decode
    runner does (``model_executor/runner/decode_cuda_graph_runner.py``); prefill runs eagerly.
    """
    if phase == "decode":
        return Backend.FULL, ("backend tc_piecewise: SGLang's decode runner runs it as full, and "
                              "so does cgconfig.runtime")
    return Backend.EAGER, ("backend tc_piecewise is a torch.compile piecewise graph, which "
                           "cgconfig.runtime cannot build: prefill buckets run eagerly")


class Replayable(Protocol):
    """One bucket ready to run: ``replay()`` computes on the static buffers, returns the output."""

    def replay(self) -> Any:
        """Run the bucket; the output has the bucket's (padded) row count."""


class FullGraph:
    """One ``torch.cuda.CUDAGraph`` holding the whole forward for one size."""

    def __init__(self, graph: torch.cuda.CUDAGraph, output: Any) -> None:
        self.graph = graph
        self.output = output

    def replay(self) -> Any:
        """Replay the graph; the output tensors are rewritten in place and returned."""
        self.graph.replay()
        return self.output


class EagerGraph:
    """Stand-in for a graph: calls the forward on the padded static buffers each time."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call

    def replay(self) -> Any:
        """Run the forward now; a fresh output each time."""
        return self.call()


def default_compile(forward: Forward) -> Forward:
    """Compile for the plan's compile sizes the way SGLang does before capturing them.

    ``max-autotune-no-cudagraphs``: Inductor must not wrap its own CUDA graphs inside the
    runner's. The recompile limit is raised because every compile size is a new static shape.
    """
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(config, name):
            setattr(config, name, max(getattr(config, name), 64))
    compiled: Forward = torch.compile(forward, mode="max-autotune-no-cudagraphs", dynamic=False)
    return compiled


def capture_stream(device: torch.device) -> torch.cuda.Stream:
    """The side stream every capture on ``device`` uses, created once per process.

    One stream, not one per capture: cuBLAS keeps a workspace per (handle, stream) for the
    life of the process, so a fresh stream per recapture would leak a workspace each time.
    """
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = _capture_streams.get(index)
    if stream is None:
        stream = _capture_streams[index] = torch.cuda.Stream(index)  # type: ignore[no-untyped-call]
    return stream


def capture_full(fn: Callable[[], Any], *, pool: Any) -> FullGraph:
    """Capture ``fn()`` on the current stream into ``pool`` as one graph.

    The output is held through weak views so that its pool blocks can be reused by the graphs
    captured after this one (see :mod:`.weak_tensor`).
    """
    graph = torch.cuda.CUDAGraph()
    graph.capture_begin(pool=pool)
    try:
        out = fn()
    except BaseException:
        # Leave capture mode so the stream stays usable; the forward's error is the real one.
        with contextlib.suppress(Exception):
            graph.capture_end()
        raise
    graph.capture_end()
    return FullGraph(graph, weak_tree(out))


def capture(backend: Backend, fn: Callable[[], Any], *, pool: Any, bridges: BridgePool,
            new_segment: SegmentFactory | None = None) -> Replayable:
    """Capture one bucket with ``backend``.

    The eager stand-in runs ``fn`` once before keeping it, as a real capture does: a forward
    that fails then fails at capture, on every device, not at the first batch.
    """
    if backend is Backend.FULL:
        return capture_full(fn, pool=pool)
    if backend is Backend.BREAKABLE:
        graph: BreakableGraph = capture_breakable(fn, pool=pool, bridges=bridges,
                                                  new_segment=new_segment)
        return graph
    fn()
    return EagerGraph(fn)
