"""Account for the time and device memory a capture costs.

The allocator's cache is emptied before the first reading and after the last one: warm-up runs
leave freed blocks cached outside the graph pool, and without the flush they would be counted
as graph memory (reserved) or hide graph memory already cached from earlier work. Blocks of a
pool that live graphs still use are not released by the flush, so the reserved delta is the
pool plus whatever the capture allocated for good (bridge buffers).

The time runs from the first reading to the moment the device has finished the capture's work
(the synchronize); the flush after it serves the memory reading only, so it is timed apart
(``flush_seconds``) and not charged to the capture, which a hand-made loop would not pay.

Per-size times come from :class:`SizeClock`, which needs no synchronisation between sizes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch


@dataclass
class CaptureCost:
    """What one capture cost: wall time and allocator deltas in bytes."""

    seconds: float = 0.0
    allocated_bytes: int = 0
    reserved_bytes: int = 0
    flush_seconds: float = 0.0


class CaptureMeter:
    """Measure a capture: ``start()`` before, ``stop()`` after; CPU-only runs measure time only."""

    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"
        self.device = device
        self._t0 = 0.0
        self._alloc0 = 0
        self._res0 = 0

    def _settle(self) -> tuple[int, int]:
        torch.cuda.synchronize(self.device)
        torch.cuda.empty_cache()
        return (torch.cuda.memory_allocated(self.device), torch.cuda.memory_reserved(self.device))

    def start(self) -> None:
        """Take the 'before' readings."""
        if self.cuda:
            self._alloc0, self._res0 = self._settle()
        self._t0 = time.perf_counter()

    def stop(self) -> CaptureCost:
        """Take the 'after' readings and return the deltas."""
        if not self.cuda:
            return CaptureCost(seconds=time.perf_counter() - self._t0)
        torch.cuda.synchronize(self.device)
        done = time.perf_counter()
        alloc1, res1 = self._settle()
        return CaptureCost(seconds=done - self._t0,
                           allocated_bytes=alloc1 - self._alloc0,
                           reserved_bytes=res1 - self._res0,
                           flush_seconds=time.perf_counter() - done)


class SizeClock:
    """Per-size capture times without waiting for the device after each size.

    A size's warm-up runs are asynchronous, so the host can finish a size before the device
    has. Synchronising after every size would time each one exactly but stall the host once per
    size, which a hand-made capture loop does not do. Instead :meth:`done` reads the host's
    clock and records an event on the capture stream when a size's capture returns, and
    :meth:`seconds`, once the device has finished, ends each size at the later of the host
    finishing it and the device reaching its event, counted from the end of the size before.
    The sizes then add up to the loop's own time. Without a stream (the eager stand-ins) the
    host's clock alone is used.
    """

    def __init__(self, stream: torch.cuda.Stream | None = None) -> None:
        self.stream = stream
        self._sizes: list[int] = []
        self._host: list[float] = []
        self._events: list[torch.cuda.Event] = []
        self._start: torch.cuda.Event | None = None
        if stream is not None:
            # The device is idle here (the meter synchronised it): the start event completes
            # at once, so device times from it line up with the host's from _t0.
            self._start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            self._start.record(stream)
        self._t0 = time.perf_counter()

    def done(self, size: int) -> float:
        """Mark ``size`` captured; returns the host's seconds since the previous mark."""
        now = time.perf_counter()
        if self.stream is not None:
            event = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            event.record(self.stream)
            self._events.append(event)
        last = self._host[-1] if self._host else self._t0
        self._sizes.append(size)
        self._host.append(now)
        return now - last

    def seconds(self) -> dict[int, float]:
        """Seconds per size, in capture order; waits for the last size's event."""
        ends = [t - self._t0 for t in self._host]
        if self._start is not None and self._events:
            self._events[-1].synchronize()
            start = self._start
            ends = [max(end, start.elapsed_time(event) / 1e3)
                    for end, event in zip(ends, self._events, strict=True)]
        out: dict[int, float] = {}
        previous = 0.0
        for size, end in zip(self._sizes, ends, strict=True):
            out[size] = end - previous
            previous = end
        return out
