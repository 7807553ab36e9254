"""The shortcut :meth:`PhaseRunner.run` takes for a batch shaped like one it already replayed.

Serving repeats a few batch shapes millions of times, and on a host-bound step (a breakable
graph, a small model) every microsecond of the runner's Python shows in the step time. The full
path checks the batch slot by slot, routes it through the guards, looks up the copy plan and
checks each source's dtype and device again before the copy. Once a ``(size, num_requests)``
has replayed, all of that is known except what the batch itself may change: which names it
holds and each tensor's exact type, dtype, shape and device. :class:`FastPath` keeps, per
``(size, num_requests)``, the bucket's ``replay``, the shapes to expect and the copy groups, and
checks only those per batch. Anything else, a missing name, a subclass, another (even lossless)
dtype or device, a vote or features, goes the full way, which accepts or refuses it with the
full messages; so both paths copy the same bytes with the same launches and replay the same
graph. The cache is emptied whenever the runner's guards or graphs change (capture, release).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import torch

from .buffers import Axis, PaddingPolicy, RowCounts, StaticBuffers

_ENTRY_LIMIT = 4096
"""(size, num_requests) pairs kept; past it the cache starts again (decode has max_bs pairs)."""


class FastEntry(NamedTuple):
    """What one ``(size, num_requests)`` replays and how its batch is copied in."""

    replay: Callable[[], Any]
    padded: int
    device_index: int
    """``get_device()`` every source must report (-1 on the CPU)."""
    expect: tuple[tuple[str, torch.dtype, torch.Size], ...]
    """Every copied slot: name, exact dtype, exact shape of the batch's tensor."""
    groups: tuple[tuple[tuple[str, ...], list[torch.Tensor], list[torch.Tensor]], ...]
    """Per ``_foreach_copy_``: the slots copied, destinations, pad sources (the fill's plan)."""


class FastPath:
    """Remembered replays of one runner, keyed by ``(size, num_requests)``."""

    def __init__(self, buffers: StaticBuffers | None) -> None:
        self.buffers = buffers
        self._copied = ([s for s in buffers.slots.values() if s.policy is not PaddingPolicy.KEEP]
                        if buffers is not None else [])
        self._names = frozenset(s.name for s in self._copied)
        self._entries: dict[tuple[int, int | None], FastEntry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry (the runner's graphs or guards changed)."""
        self._entries.clear()

    def remember(self, size: int, num_requests: int | None, replay: Callable[[], Any],
                 padded: int, counts: RowCounts) -> None:
        """Keep what a batch that just replayed through the full path needed."""
        buffers = self.buffers
        if buffers is None or (size, num_requests) in self._entries:
            return
        groups = tuple((g.names, g.dsts, g.pad_srcs) for g in buffers.plan(counts))
        device = buffers[self._copied[0].name].get_device() if self._copied else -1
        expect = tuple((s.name, s.dtype, torch.Size(s.shape(
            0 if s.axis is Axis.NONE else counts.real(s.axis)))) for s in self._copied)
        if len(self._entries) >= _ENTRY_LIMIT:
            self._entries.clear()
        self._entries[(size, num_requests)] = FastEntry(replay, padded, device, expect, groups)

    def fill(self, batch: Mapping[str, torch.Tensor], size: int,
             num_requests: int | None) -> FastEntry | None:
        """Copy ``batch`` in and return its entry, or ``None`` (nothing copied) for the full path."""
        entry = self._entries.get((size, num_requests))
        if entry is None or type(batch) is not dict or batch.keys() != self._names:
            return None
        device = entry.device_index
        for name, dtype, shape in entry.expect:
            value = batch[name]
            if (type(value) is not torch.Tensor or value.dtype is not dtype
                    or value.shape != shape or value.get_device() != device
                    or (device < 0 and value.is_meta)):  # meta reports -1, as the CPU does
                return None
        for names, dsts, pad_srcs in entry.groups:
            torch._foreach_copy_(dsts, [batch[name] for name in names] + pad_srcs)
        return entry
