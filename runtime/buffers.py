"""Static input buffers: allocated once at the largest size, refilled in place for every batch.

A captured graph reads the addresses it saw at capture, so a new batch cannot be passed in; it
has to be copied into the same memory. Each input is a *slot*: one buffer with room for the
largest bucket, a rows axis (tokens or requests) and a padding policy saying what the rows past
the real batch (up to the bucket size) must hold. Getting that tail wrong is the classic padding
bug: a stale KV write-slot index in a padded row makes the graph overwrite another request's
cache. The policies:

``COPY``
    Copy the real rows; padded rows keep whatever they held (zeros at first, stale real values
    later). For inputs whose padded rows only feed outputs that are sliced away (token ids,
    positions), where any value once valid stays harmless.
``FILL_SENTINEL``
    Copy the real rows, then set padded rows to ``pad_value`` every batch. For values a kernel
    trusts, such as sequence lengths (1 keeps attention on its normal path, 0 may not).
``ZERO``
    ``FILL_SENTINEL`` with 0, named for index slots whose entry 0 is a reserved dummy: KV write
    slots and request-table rows. Padded rows then write only the dummy KV slot.
``FILL_ONCE``
    Fill the whole buffer with ``pad_value`` at allocation (and at capture reset), then copy
    only the real rows. For values where anything ever written stays valid but the initial
    contents must not be zero (encoder lengths).
``KEEP``
    Never written by :meth:`StaticBuffers.fill`: the caller owns the contents and updates the
    buffer in place (a constant table, state the model maintains). Registering it pins its
    address so graphs read the caller's current contents.

:meth:`StaticBuffers.fill` issues one ``torch._foreach_copy_`` per (dtype, source dtype,
source device) group, covering both the real-row copies and the padding resets (which copy
from a constant tensor of pad values), so a batch costs a few launches however many slots there
are. Which views each batch shape writes is worked out once per row counts and kept: a decode
step pays a dictionary lookup, not a ``narrow`` per slot (``benchmarks/runtime_profile.py``
measured the uncached fill at 25 to 50 us of host time per step).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import torch

from cgconfig.constants import MAX_CAPTURE_SIZE

from .devices import as_device
from .slot_names import names_error, slot_map

Scalar = int | float | bool


class Axis(str, Enum):
    """Which count a slot's rows follow."""

    TOKENS = "tokens"
    REQUESTS = "requests"
    NONE = "none"
    """No rows: the slot is copied whole (a per-batch scalar, a small table)."""


class PaddingPolicy(str, Enum):
    """What the padded rows of a slot hold; see the module docstring for each policy's use."""

    KEEP = "keep"
    COPY = "copy"
    FILL_SENTINEL = "fill_sentinel"
    ZERO = "zero"
    FILL_ONCE = "fill_once"


_RESETS_TAIL = (PaddingPolicy.FILL_SENTINEL, PaddingPolicy.ZERO)
_NEEDS_VALUE = (PaddingPolicy.FILL_SENTINEL, PaddingPolicy.FILL_ONCE)


@dataclass(frozen=True)
class Slot:
    """Declaration of one static input.

    ``trailing`` is the shape without the rows dimension; ``dim`` is where the rows dimension
    sits in the full shape (0 for ``[rows, ...]``, 1 for a ``[3, tokens]`` layout).
    """

    name: str
    dtype: torch.dtype
    trailing: tuple[int, ...] = ()
    axis: Axis = Axis.TOKENS
    policy: PaddingPolicy = PaddingPolicy.COPY
    pad_value: Scalar | None = None
    dim: int = 0

    def __post_init__(self) -> None:
        _check_declaration(self)
        if self.policy in _NEEDS_VALUE and self.pad_value is None:
            raise ValueError(f"slot {self.name!r}: {self.policy.value} needs a pad_value")
        if self.policy is PaddingPolicy.ZERO and self.pad_value not in (None, 0):
            raise ValueError(f"slot {self.name!r}: zero policy pads with 0, not {self.pad_value}")
        if self.axis is Axis.NONE:
            if self.policy in _RESETS_TAIL:
                raise ValueError(f"slot {self.name!r} has no rows, so nothing to pad with "
                                 f"{self.policy.value}")
        elif not 0 <= self.dim <= len(self.trailing):
            raise ValueError(f"slot {self.name!r}: rows dim {self.dim} outside shape")

    @property
    def fill_value(self) -> Scalar:
        """The value padded rows are reset to (and the initial contents of the buffer)."""
        return 0 if self.pad_value is None else self.pad_value

    def shape(self, rows: int) -> tuple[int, ...]:
        """Full shape of this slot holding ``rows`` rows."""
        if self.axis is Axis.NONE:
            return self.trailing
        if not self.trailing:  # the usual 1-D slot, checked on every batch
            return (rows,)
        return (*self.trailing[: self.dim], rows, *self.trailing[self.dim:])


#: Most elements one slot may allocate (rows included): 2**33, 32 GiB of float32; a declaration
#: past it is a mistake (a trailing dim of 2**40), refused before the allocator sees it.
MAX_SLOT_ELEMENTS = 1 << 33


def _check_declaration(slot: Slot) -> None:
    """Every field of a :class:`Slot` of the right kind and in range: ``ValueError`` otherwise
    (``Slot(axis=3)``, a negative trailing dim, a pad value the dtype cannot hold)."""
    if not isinstance(slot.name, str) or not slot.name:
        raise ValueError(f"slot name must be a non-empty string, got {slot.name!r:.40}")
    if not isinstance(slot.dtype, torch.dtype):
        raise ValueError(f"slot {slot.name!r}: dtype must be a torch.dtype, got {slot.dtype!r:.40}")
    for field_name, kind in (("axis", Axis), ("policy", PaddingPolicy)):
        value = getattr(slot, field_name)
        try:
            object.__setattr__(slot, field_name, kind(value))
        except (ValueError, TypeError):
            allowed = ", ".join(m.value for m in kind)
            raise ValueError(f"slot {slot.name!r}: {field_name} {value!r:.40} is not one of "
                             f"{allowed}") from None
    trailing = slot.trailing
    if not isinstance(trailing, tuple) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in trailing):
        raise ValueError(f"slot {slot.name!r}: trailing must be a tuple of non-negative "
                         f"integers, got {trailing!r:.60}")
    if isinstance(slot.dim, bool) or not isinstance(slot.dim, int):
        raise ValueError(f"slot {slot.name!r}: dim must be an integer, got {slot.dim!r:.40}")
    elements = 1
    for d in trailing:
        elements *= d
        if elements > MAX_SLOT_ELEMENTS:
            raise ValueError(f"slot {slot.name!r}: trailing shape {trailing!r:.60} holds more "
                             f"than {MAX_SLOT_ELEMENTS} elements")
    _check_pad_value(slot)


def _check_pad_value(slot: Slot) -> None:
    value = slot.pad_value
    if value is None:
        return
    if not isinstance(value, (int, float, bool)):
        raise ValueError(f"slot {slot.name!r}: pad_value must be a number, got {value!r:.40}")
    if slot.dtype == torch.bool:
        ok = value in (0, 1)
    elif slot.dtype.is_floating_point or slot.dtype.is_complex:
        # torch.full takes a Python int for a float dtype only within int64 (it converts
        # through a C integer first), so a wider int is refused here, not in the allocator.
        ok = not isinstance(value, int) or -2**63 <= value < 2**64
    else:
        info = torch.iinfo(slot.dtype)
        ok = (float(value).is_integer() if isinstance(value, float) else True) and \
            info.min <= value <= info.max
    if not ok:
        raise ValueError(f"slot {slot.name!r}: pad_value {value!r:.40} does not fit {slot.dtype}")


class RowCounts(NamedTuple):
    """Real and padded row counts of one batch, per axis (a tuple: cheap to build and hash)."""

    tokens: int
    padded_tokens: int
    requests: int
    padded_requests: int

    def real(self, axis: Axis) -> int:
        """Real rows on ``axis``."""
        return self.tokens if axis is Axis.TOKENS else self.requests

    def padded(self, axis: Axis) -> int:
        """Padded rows on ``axis`` (the graph's static row count)."""
        return self.padded_tokens if axis is Axis.TOKENS else self.padded_requests


_PLAN_CACHE_LIMIT = 4096
"""Row-count combinations whose copy plans are kept (decode has at most max_bs of them)."""


class CopyGroup(NamedTuple):
    """One ``_foreach_copy_`` of a fill: the slots copied, their views, the padding resets."""

    names: tuple[str, ...]
    """Slots whose real rows this group copies, in the order of ``dsts``."""
    dsts: list[torch.Tensor]
    """Real-row views of ``names``, then the padded tails to reset."""
    pad_srcs: list[torch.Tensor]
    """Pad-value sources of the tails, in the order of their ``dsts``."""
    dtype: torch.dtype
    device_index: int
    """``get_device()`` of the buffers: the CUDA index, or -1 on the CPU."""


class StaticBuffers:
    """The slots of one runner, allocated once at ``max_tokens`` / ``max_requests`` rows."""

    def __init__(self, slots: Iterable[Slot], *, max_tokens: int, max_requests: int,
                 device: torch.device | str) -> None:
        self.slots: dict[str, Slot] = slot_map(slots)
        for name, rows in (("max_tokens", max_tokens), ("max_requests", max_requests)):
            if isinstance(rows, bool) or not isinstance(rows, int) or not \
                    0 <= rows <= MAX_CAPTURE_SIZE:
                raise ValueError(f"{name} must be an integer in 0..{MAX_CAPTURE_SIZE}, got "
                                 f"{rows!r:.40}")
        self.max_tokens = max_tokens
        self.max_requests = max_requests
        self.device = as_device(device)
        for slot in self.slots.values():
            total = 1
            for d in slot.shape(self.capacity(slot.axis)):
                total *= d
            if total > MAX_SLOT_ELEMENTS:
                raise ValueError(f"slot {slot.name!r} would hold {total} elements (at most "
                                 f"{MAX_SLOT_ELEMENTS})")
        self._buffers: dict[str, torch.Tensor] = {}
        # Per-slot tensors full of the pad value: padding resets copy from them, which lets the
        # resets ride in the same foreach launch as the real-row copies.
        self._pad_sources: dict[str, torch.Tensor] = {}
        for slot in self.slots.values():
            shape = slot.shape(self.capacity(slot.axis))
            self._buffers[slot.name] = torch.full(shape, slot.fill_value, dtype=slot.dtype,
                                                  device=self.device)
            if slot.policy in _RESETS_TAIL:
                self._pad_sources[slot.name] = torch.full(shape, slot.fill_value,
                                                          dtype=slot.dtype, device=self.device)
        self._copied = [s for s in self.slots.values() if s.policy is not PaddingPolicy.KEEP]
        self._names = frozenset(s.name for s in self._copied)
        self._view_cache: dict[tuple[int, int], dict[str, torch.Tensor]] = {}
        self._plans: dict[RowCounts, tuple[CopyGroup, ...]] = {}

    def capacity(self, axis: Axis) -> int:
        """Rows allocated on ``axis``."""
        return self.max_requests if axis is Axis.REQUESTS else self.max_tokens

    def __getitem__(self, name: str) -> torch.Tensor:
        """The whole buffer of slot ``name`` (what a ``KEEP`` slot's owner writes into)."""
        return self._buffers[name]

    @property
    def nbytes(self) -> int:
        """Bytes held by the buffers and their pad sources."""
        held = [*self._buffers.values(), *self._pad_sources.values()]
        return sum(t.numel() * t.element_size() for t in held)

    def _rows(self, name: str, start: int, length: int) -> torch.Tensor:
        slot = self.slots[name]
        buf = self._buffers[name]
        return buf if slot.axis is Axis.NONE else buf.narrow(slot.dim, start, length)

    def views(self, padded_tokens: int, padded_requests: int) -> dict[str, torch.Tensor]:
        """Every slot cut to a graph's static row counts; the same tensors for the same counts.

        These are what a forward sees at warm-up and capture, so their data pointers are the
        ones the graph records.
        """
        key = (padded_tokens, padded_requests)
        cached = self._view_cache.get(key)
        if cached is None:
            counts = RowCounts(padded_tokens, padded_tokens, padded_requests, padded_requests)
            cached = {name: self._rows(name, 0, counts.padded(slot.axis))
                      for name, slot in self.slots.items()}
            self._view_cache[key] = cached
        return cached

    def reset(self) -> None:
        """Put every non-``KEEP`` slot back to its pad value (before warm-up and capture).

        Capture really runs the forward, so index slots still holding a live batch's values
        would make the warm-up write real KV slots; resetting points them at the dummy entry.
        """
        for slot in self._copied:
            self._buffers[slot.name].fill_(slot.fill_value)

    def _check(self, name: str, src: torch.Tensor, rows: int) -> None:
        want = self.slots[name].shape(rows)
        if tuple(src.shape) != want:
            raise ValueError(f"slot {name!r}: batch tensor has shape {tuple(src.shape)}, "
                             f"expected {want}")

    def _check_keys(self, batch: Mapping[str, torch.Tensor]) -> None:
        if batch.keys() != self._names:
            raise names_error([s.name for s in self._copied], batch)

    def fill(self, batch: Mapping[str, torch.Tensor], counts: RowCounts, *,
             check_shapes: bool = True) -> int:
        """Copy a batch into the buffers and apply every padding policy; returns launches used.

        Rows past ``counts.padded(axis)`` are not touched: the graph of that size never reads
        them. ``check_shapes=False`` skips the per-slot shape check for a caller that has
        already made it (``PhaseRunner.run`` checks every batch first); slot names are always
        checked.
        """
        self._check_keys(batch)
        plan = self.plan(counts)
        if check_shapes:
            for slot in self._copied:
                rows = 0 if slot.axis is Axis.NONE else counts.real(slot.axis)
                self._check(slot.name, batch[slot.name], rows)
        launches = 0
        for group in plan:
            srcs = [batch[name] for name in group.names]
            same = True
            for src in srcs:  # get_device() is an int (-1 on the CPU): cheaper than .device
                if src.dtype is not group.dtype or src.get_device() != group.device_index:
                    same = False
                    break
            if same:
                torch._foreach_copy_(group.dsts, srcs + group.pad_srcs)
                launches += 1
                continue
            # Sources of another dtype or device: one launch per (source dtype, device).
            split: dict[tuple[torch.dtype, torch.device],
                        tuple[list[torch.Tensor], list[torch.Tensor]]] = {}
            for dst, src in zip(group.dsts, srcs + group.pad_srcs, strict=True):
                dsts, sources = split.setdefault((src.dtype, src.device), ([], []))
                dsts.append(dst)
                sources.append(src)
            for dsts, sources in split.values():
                torch._foreach_copy_(dsts, sources)
            launches += len(split)
        return launches

    def plan(self, counts: RowCounts) -> tuple[CopyGroup, ...]:
        """The destination views of a batch with ``counts``, grouped by dtype; kept for reuse.

        :meth:`fill` copies with it; ``fast_path`` keeps it to fill the same way without the
        per-batch lookups. A count that does not fit the buffers is a ``ValueError``.
        """
        plan = self._plans.get(counts)
        if plan is not None:
            return plan
        groups: dict[torch.dtype, tuple[list[str], list[torch.Tensor], list[torch.Tensor],
                                        list[torch.Tensor]]] = {}
        for slot in self._copied:
            names, dsts, pad_dsts, pad_srcs = groups.setdefault(slot.dtype, ([], [], [], []))
            if slot.axis is Axis.NONE:
                names.append(slot.name)
                dsts.append(self._buffers[slot.name])
                continue
            real, padded = counts.real(slot.axis), counts.padded(slot.axis)
            if padded > self.capacity(slot.axis) or real > padded:
                raise ValueError(f"slot {slot.name!r}: {real} rows padded to {padded} do not fit "
                                 f"{self.capacity(slot.axis)} allocated")
            if real:
                names.append(slot.name)
                dsts.append(self._rows(slot.name, 0, real))
            if slot.policy in _RESETS_TAIL and padded > real:
                pad_dsts.append(self._rows(slot.name, real, padded - real))
                pad_srcs.append(self._pad_sources[slot.name].narrow(slot.dim, real, padded - real))
        # Each group's device is its buffers' own (cuda:0 where the runner said "cuda").
        plan = tuple(CopyGroup(tuple(names), dsts + pad_dsts, pad_srcs, dtype,
                                (dsts + pad_dsts)[0].get_device())
                     for dtype, (names, dsts, pad_dsts, pad_srcs) in groups.items()
                     if dsts or pad_dsts)
        if len(self._plans) >= _PLAN_CACHE_LIMIT:
            self._plans.clear()
        self._plans[counts] = plan
        return plan

    def eager_inputs(self, batch: Mapping[str, torch.Tensor],
                     counts: RowCounts) -> dict[str, torch.Tensor]:
        """Inputs for running the forward directly on a batch, without padding or copies.

        Batch tensors are passed through; ``KEEP`` slots contribute their buffers cut to the
        real rows, since the forward expects every slot by name.
        """
        self._check_keys(batch)
        inputs = dict(batch)
        for name, slot in self.slots.items():
            if slot.policy is PaddingPolicy.KEEP:
                rows = counts.real(slot.axis)
                if slot.axis is not Axis.NONE and rows > self.capacity(slot.axis):
                    raise ValueError(f"keep slot {name!r} holds {self.capacity(slot.axis)} rows; "
                                     f"a batch of {rows} cannot read it")
                inputs[name] = self._rows(name, 0, rows)
        return inputs
