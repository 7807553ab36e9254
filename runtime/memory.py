"""Account for the time and device memory a capture costs.

The allocator's cache is emptied before the first reading and after the last one: warm-up runs
leave freed blocks cached outside the graph pool, and without the flush they would be counted
as graph memory (reserved) or hide graph memory already cached from earlier work. Blocks of a
pool that live graphs still use are not released by the flush, so the reserved delta is the
pool plus whatever the capture allocated for good (bridge buffers).

The time runs from the first reading to the moment the device has finished the capture's work
(the synchronize); the flush after it serves the memory reading only, so it is timed apart
(``flush_seconds``) and not charged to the capture, which a hand-made loop would not pay.
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
