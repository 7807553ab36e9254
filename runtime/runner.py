"""One runner per phase: capture the plan's sizes, then serve batches through them.

Per batch: the guards pick the smallest captured size that fits (or an eager fallback with a
reason), the static buffers are filled with the batch and their padding policies applied, the
bucket's graph replays, and the output is sliced back to the real rows. Capture runs the sizes
largest first into one memory pool with the garbage collector frozen, after warm-up runs that
keep one-time work (cuBLAS handles, kernel autotuning, lazy allocations) out of the graphs.

Without CUDA the same path runs with eager stand-ins for the graphs: buckets, fills, guards,
slicing and counters all behave as on a GPU, and the runner records (and logs once) why it is
not capturing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import torch

from . import distributed
from .breakable import BridgePool, SegmentFactory
from .buffers import Axis, RowCounts, Slot, StaticBuffers
from .checks import BatchCheck
from .devices import as_device
from .fast_path import FastPath
from .gc_freeze import frozen_gc
from .graphs import Backend, Forward, Replayable, capture, capture_stream, default_compile
from .guards import Guards, Route
from .memory import CaptureCost, CaptureMeter, SizeClock
from .plan_view import PhaseCapture
from .progress import CaptureProgress
from .shape_key import GraphRegistry, ShapeKey
from .slot_names import slot_map
from .stats import RunnerStats
from .tree import slice_rows
from .vote import Voter, VoteResult, cast_vote
from .weak_tensor import weak_views_supported

logger = logging.getLogger("cgconfig.runtime")
_logged: set[str] = set()

# SGLang's _MAX_PREFILL_CUDA_GRAPH_PADDING_FACTOR: past 2x, padded tokens cost more than the
# launch overhead a prefill graph saves.
PREFILL_MAX_PADDING_FACTOR = 2.0
_DEFAULT: Any = object()


def _log_once(message: str) -> None:
    if message not in _logged:
        _logged.add(message)
        logger.warning(message)


class PhaseRunner:
    """Captures and replays one phase's graphs.

    ``forward(inputs)`` receives a mapping from slot name to tensor. During capture and replay
    the tensors are the static buffers cut to the bucket's rows; on an eager fallback they are
    the batch's own tensors (plus ``KEEP`` slots cut to the real rows). The forward must return
    a tensor, or tuples/lists/dicts of tensors, whose dim 0 has the phase's count (requests for
    decode, tokens for prefill).

    Outputs of a replay live in graph memory and are overwritten by the next run of this
    runner: consume or ``clone()`` them first.
    """

    def __init__(
        self,
        plan: PhaseCapture,
        forward: Forward,
        slots: Sequence[Slot],
        *,
        device: torch.device | str | None = None,
        max_requests: int | None = None,
        max_padding_factor: float | None = _DEFAULT,
        unsupported_features: Collection[str] = (),
        pool: Any = None,
        warmup_iters: int = 2,
        prepare_capture: Callable[[ShapeKey], None] | None = None,
        compile_forward: Callable[[Forward], Forward] | None = None,
        new_segment: SegmentFactory | None = None,
        group: Any = None,
        progress: bool = True,
    ) -> None:
        self.plan = plan
        self.forward = forward
        self.device = as_device(device if device is not None else
                                ("cuda" if torch.cuda.is_available() else "cpu"))
        self.decode = plan.phase == "decode"
        if max_padding_factor is _DEFAULT:
            max_padding_factor = None if self.decode else PREFILL_MAX_PADDING_FACTOR
        # Decode counts requests, one token each, so both axes follow the bucket. Prefill graphs
        # hold a fixed number of request rows; unused rows take their slot's padding policy.
        self.max_requests = plan.max_size if self.decode else (max_requests or 0)
        if warmup_iters < 1:
            # The first run on the capture stream creates its cuBLAS workspace; inside a
            # capture that allocation would land in the graph pool.
            raise ValueError("warmup_iters must be at least 1")
        self.warmup_iters = warmup_iters
        self.prepare_capture = prepare_capture
        self.compile_forward = compile_forward or default_compile
        self.new_segment = new_segment
        self._pool_arg = pool
        self.backend, self.eager_reason = self._choose_backend()
        if self.eager_reason:
            _log_once(f"cgconfig.runtime {plan.phase}: {self.eager_reason}")
        has_request_slots = any(s.axis is Axis.REQUESTS for s in slots)
        if has_request_slots and not self.decode and not max_requests:
            raise ValueError("prefill slots on the requests axis need max_requests")
        self.buffers: StaticBuffers | None = None
        if plan.enabled:
            self.buffers = StaticBuffers(slots, max_tokens=plan.max_size,
                                         max_requests=max(self.max_requests, 1),
                                         device=self.device)
        # A disabled phase checks its batches as the others do (docs/runtime.md "Input checks").
        self._check = BatchCheck(self.buffers.slots if self.buffers else slot_map(slots),
                                 decode=self.decode, check_names=self.buffers is None)
        self.guards = Guards(
            sizes=(),
            disable_padding=plan.disable_padding,
            max_padding_factor=max_padding_factor,
            max_requests=None if self.decode or not has_request_slots else self.max_requests,
            unsupported=frozenset(unsupported_features),
            disabled=not plan.enabled,
        )
        self.graphs: GraphRegistry[Replayable] = GraphRegistry()
        # The default-key graphs by size: what run() looks up every batch (no key object).
        self._by_size: dict[int, Replayable] = {}
        self._fast = FastPath(self.buffers)
        self.bridges = BridgePool()
        self.stats = RunnerStats(phase=plan.phase)
        self.cost: CaptureCost | None = None
        self._compiled: Forward | None = None
        self._pool: Any = None
        # Tensor/data parallelism: the ranks of ``group`` capture the same plan in lockstep.
        self.group = group
        self.progress = progress
        self.size_seconds: dict[int, float] = {}
        self._voters: dict[int, Voter] = {}

    # -- setup ---------------------------------------------------------------------------

    def _choose_backend(self) -> tuple[Backend | None, str | None]:
        plan = self.plan
        if not plan.enabled:
            return None, f"the plan disables {plan.phase} graphs: every batch runs eagerly"
        if self.device.type != "cuda":
            why = ("torch.cuda.is_available() is False" if not torch.cuda.is_available()
                   else f"device is {self.device}")
            return Backend.EAGER, (f"{why}: no CUDA graphs captured; {plan.backend} buckets run "
                                   "eagerly on the padded static buffers")
        if plan.debug:
            return Backend.EAGER, ("debug_cuda_graph is set: buckets run eagerly through the "
                                   "capture/replay path")
        if plan.backend == "tc_piecewise":  # SGLang <= 0.5.21's torch.compile piecewise graph
            from .graphs import tc_piecewise_stand_in

            backend, said = tc_piecewise_stand_in(plan.phase)
            if backend is not Backend.EAGER:
                _log_once(f"cgconfig.runtime {plan.phase}: {said}")
            return backend, said if backend is Backend.EAGER else None
        return Backend(plan.backend), None

    def request_rows(self, size: int) -> int:
        """Request rows a graph of ``size`` holds (the size itself for decode)."""
        return size if self.decode else max(self.max_requests, 1)

    def _forward_for(self, size: int) -> Forward:
        if self.backend is Backend.FULL and size in self.plan.compile_sizes:
            if self._compiled is None:
                self._compiled = self.compile_forward(self.forward)
            return self._compiled
        return self.forward

    @property
    def sizes(self) -> Sequence[int]:
        """Captured sizes, ascending (the eager stand-ins count as captured)."""
        return self.graphs.sizes()

    # -- capture -------------------------------------------------------------------------

    def capture(self) -> dict[str, Any]:
        """Capture every planned size, largest first; returns :meth:`report`.

        Capture order matters for memory: the largest graph carves the pool first, and each
        smaller graph then reuses blocks the larger ones freed.
        """
        if len(self.graphs):
            raise RuntimeError(f"{self.plan.phase} graphs are already captured; "
                               "call recapture() to redo them")
        if self.group is not None:  # before any early return: a disabled rank must agree too
            self._agree_with_group()
        if self.buffers is None or self.backend is None:
            return self.report()
        buffers = self.buffers
        meter = CaptureMeter(self.device)
        meter.start()
        with frozen_gc(self.plan.enable_gc), torch.no_grad():
            # Capture really runs the forward: point index slots at their dummy entries first.
            buffers.reset()
            if self.backend is Backend.EAGER:
                clock = self._capture_sizes()
            else:
                self._pool = self._pool_arg or torch.cuda.graph_pool_handle()
                current = torch.cuda.current_stream(self.device)
                stream = capture_stream(self.device)
                stream.wait_stream(current)
                with torch.cuda.stream(stream):
                    clock = self._capture_sizes(stream)
                current.wait_stream(stream)
        self.cost = meter.stop()
        self.size_seconds = clock.seconds()
        self.guards = dataclasses.replace(self.guards, sizes=tuple(self.graphs.sizes()))
        self._fast.clear()
        return self.report()

    def _agree_with_group(self) -> None:
        """Settings, plan digest and a barrier, so every rank captures the same sizes in order."""
        problem = None
        if self.backend in (Backend.FULL, Backend.BREAKABLE):
            problem = distributed.capture_settings_problem(self.group, self.device)
        digest = distributed.plan_digest(
            self.plan, runtime_backend=self.backend.value if self.backend else "disabled",
            max_requests=self.max_requests, unsupported=self.guards.unsupported)
        distributed.agree(self.group, self.plan.phase, digest, problem)
        distributed.barrier(self.group, self.device)

    def _capture_sizes(self, stream: torch.cuda.Stream | None = None) -> SizeClock:
        """Capture every size largest first, timing each one and showing progress.

        No synchronisation between sizes (see :class:`SizeClock`): the progress line shows the
        host's time for a size; ``size_seconds`` is filled once the device has finished.
        """
        self.size_seconds = {}
        sizes = list(reversed(self.plan.sizes))
        show = self.progress and distributed.is_reporting_rank()
        clock = SizeClock(stream)
        with CaptureProgress(self.plan.phase, len(sizes), enabled=show) as progress:
            for size in sizes:
                self._capture_one(size)
                progress.advance(size, clock.done(size))
        return clock

    def _capture_one(self, size: int) -> None:
        assert self.buffers is not None and self.backend is not None
        key = ShapeKey(size)
        views = self.buffers.views(size, self.request_rows(size))
        call = functools.partial(self._forward_for(size), views)
        if self.backend is not Backend.EAGER:
            if self.prepare_capture is not None:
                self.prepare_capture(key)
            for _ in range(self.warmup_iters):
                call()
        graph = capture(self.backend, call, pool=self._pool, bridges=self.bridges,
                        new_segment=self.new_segment)
        self.graphs.add(key, graph)
        self._by_size[size] = graph

    def release(self) -> None:
        """Drop every graph and bridge and hand their memory back to the device."""
        self.graphs.clear()
        self._by_size.clear()
        self._fast.clear()
        self.bridges.clear()
        self._pool = None
        self.guards = dataclasses.replace(self.guards, sizes=())
        if self.device.type == "cuda":
            gc.collect()
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()

    def recapture(self) -> dict[str, Any]:
        """Release and capture again (after a change that invalidates the graphs)."""
        self.release()
        return self.capture()

    # -- serving -------------------------------------------------------------------------

    def can_run(self, size: int, *, num_requests: int | None = None,
                features: Collection[str] = ()) -> str | None:
        """``None`` when a batch would replay a graph, else the reason it would run eagerly.

        Schedulers that must agree across ranks (data-parallel attention) vote with this before
        building the batch.
        """
        return self.guards.route(size, num_requests, features).reason

    def vote(self, size: int, group: Any, *, num_requests: int | None = None,
             features: Collection[str] = ()) -> VoteResult:
        """Agree with every rank of ``group`` on one path for this step; pass it to :meth:`run`.

        Every rank of the group must call this once per step (with its own size, 0 for an idle
        rank). One ``all_reduce`` combines (size, request count, unsupported-feature flags); the
        bucket is that of the largest size, and when any rank cannot replay, every rank runs
        eagerly with the reason counted (``peer_…`` on the ranks that could have replayed).
        """
        key = id(group)
        voter = self._voters.get(key)
        if voter is None:
            voter = self._voters[key] = Voter(group, self.device)
        requests = size if self.decode else (num_requests or 0)
        return cast_vote(voter, self.guards, sorted(self.guards.unsupported), size, requests,
                         features)

    def _route(self, size: int, requests: int, features: Collection[str],
               vote: VoteResult | None) -> Route:
        if vote is None:
            return self.guards.route(size, requests, features)
        if vote.size != size:
            raise ValueError(f"the vote was cast for size {vote.size}, not {size}")
        return vote.route

    def run(self, batch: Mapping[str, torch.Tensor], size: int, *,
            num_requests: int | None = None, features: Collection[str] = (),
            vote: VoteResult | None = None) -> Any:
        """Serve one batch of ``size`` (requests for decode, tokens for prefill).

        ``batch`` maps each non-``KEEP`` slot name to a tensor holding the real rows.
        ``num_requests`` is needed for prefill batches that fill request-axis slots.
        ``features`` names what the batch uses; any the runner was told its graphs do not
        support sends the batch eagerly. ``vote`` (from :meth:`vote`) replaces this rank's own
        routing with the group's decision.
        """
        if (vote is None and not features and type(size) is int
                and not torch.is_grad_enabled()):  # a shape replayed before: see fast_path
            entry = self._fast.fill(batch, size, num_requests)
            if entry is not None:
                out = entry.replay()
                self.stats.record_replay(size, entry.padded, len(entry.groups))
                return slice_rows(out, size)
        size, num_requests = self._check(batch, size, num_requests)
        requests = size if self.decode else (num_requests or 0)
        if self.backend is not None and not self._by_size:
            raise RuntimeError(f"{self.plan.phase} runner used before capture()")
        route = self._route(size, requests, features, vote)
        # A serving loop usually runs without autograd already; entering no_grad costs ~1 us.
        with torch.no_grad() if torch.is_grad_enabled() else contextlib.nullcontext():
            if route.reason is not None:
                self.stats.record_fallback(route.reason, size)
                if self.buffers is None:
                    return self.forward(batch)
                real = RowCounts(size, size, requests, requests)
                return self.forward(self.buffers.eager_inputs(batch, real))
            assert self.buffers is not None and route.padded is not None
            padded = route.padded
            counts = RowCounts(size, padded, requests, self.request_rows(padded))
            # self._check has checked every shape already.
            launches = self.buffers.fill(batch, counts, check_shapes=False)
            graph = self._by_size[padded]
            out = graph.replay()
            self.stats.record_replay(size, padded, launches)
            if vote is None and not features:
                self._fast.remember(size, num_requests, graph.replay, padded, counts)
            # Always fresh views (and containers): a caller that pops from a dict output or
            # reshapes a tensor in place must not change what the next replay returns.
            return slice_rows(out, size)

    # -- reporting -----------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Capture summary shaped like one phase of the plan's ``capture`` section."""
        cost = self.cost or CaptureCost()
        compile_sizes = [s for s in self.plan.compile_sizes
                         if self.backend is Backend.FULL and s in self.graphs.sizes()]
        return {
            "backend": self.plan.backend,
            "runtime_backend": self.backend.value if self.backend else "disabled",
            "sizes": list(self.graphs.sizes()),
            "compile_sizes": compile_sizes,
            "eager_reason": self.eager_reason,
            "capture_seconds": round(cost.seconds, 4),
            # The plan's cost units (cgconfig.cost): graphs and GiB per rank, for calibrate.
            "graphs": len(self.graphs.sizes()),
            "graph_memory_gib": round(cost.reserved_bytes / 2**30, 4),
            "flush_seconds": round(cost.flush_seconds, 4),
            "capture_seconds_by_size": {str(s): round(t, 4)
                                        for s, t in sorted(self.size_seconds.items())},
            "group_size": (torch.distributed.get_world_size(self.group)
                           if self.group is not None else 1),
            "allocated_bytes": cost.allocated_bytes,
            "reserved_bytes": cost.reserved_bytes,
            "static_buffer_bytes": self.buffers.nbytes if self.buffers else 0,
            "bridge_bytes": self.bridges.nbytes,
            "weak_views": weak_views_supported(),
        }


def capture_report(runners: Mapping[str, PhaseRunner]) -> dict[str, dict[str, Any]]:
    """Reports of several runners keyed by phase, like the plan's ``capture`` section."""
    return {phase: runner.report() for phase, runner in runners.items()}
