"""Per-batch input checks of :meth:`PhaseRunner.run`: types, dtypes and row counts.

A batch is copied into static buffers with ``torch._foreach_copy_``, which casts silently: floats
into an int64 slot are truncated (6.7 becomes 6) and an int64 ``2**40`` into an int32 slot wraps
to 0, so a graph would compute on values the caller never passed. An eager fallback would pass
the same tensors straight to the forward with no shape check at all. These checks run on every
path before routing, so a bad batch fails the same way whichever path it would take:

* ``size`` (and ``num_requests`` when given) must be non-negative ints (``bool`` is not a
  count): ``TypeError`` / ``ValueError``;
* every batch value must be a tensor of the slot's dtype, or of the same kind (integer, floating,
  complex, bool) and castable to it without loss (a wider-or-equal integer or float type);
  otherwise ``ValueError`` naming the slot;
* its shape must be the slot's shape at the batch's real rows (``size`` tokens or requests,
  ``num_requests`` for a prefill batch's request-axis slots): ``ValueError`` naming the slot.

The checks read dtypes and shapes only, never values, so they never synchronise the device.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import torch

from .buffers import Axis, PaddingPolicy, Slot
from .slot_names import names_error


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "bool"
    if dtype.is_complex:
        return "complex"
    if dtype.is_floating_point:
        return "float"
    return "int"


def _lossless(src: torch.dtype, dst: torch.dtype) -> bool:
    """Whether every value of ``src`` is exactly representable in ``dst``."""
    if src == dst:
        return True
    kind = _kind(src)
    if kind != _kind(dst) or kind == "bool":
        return False
    if kind == "int":
        s, d = torch.iinfo(src), torch.iinfo(dst)
        return d.min <= s.min and s.max <= d.max
    s_f, d_f = torch.finfo(src), torch.finfo(dst)
    # Range and precision must both grow: bf16 -> fp16 loses range, fp16 -> bf16 precision.
    return d_f.max >= s_f.max and d_f.eps <= s_f.eps


def check_count(value: Any, name: str, *, optional: bool = False) -> int | None:
    """``value`` as a non-negative int (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.40}")
    count = operator.index(value)
    if count < 0:
        raise ValueError(f"{name} must be >= 0, got {count}")
    return count


def check_tensor(slot: Slot, value: Any, rows: int) -> None:
    """One batch value against its slot: a tensor with data, a lossless dtype, the real rows'
    shape."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"slot {slot.name!r}: expected a torch.Tensor, got "
                        f"{type(value).__name__}")
    if value.is_meta:  # a shape with no data: copying it raises NotImplementedError deep in torch
        raise ValueError(f"slot {slot.name!r}: batch tensor is on the meta device, which holds "
                         "no data to copy; pass a tensor on the runner's device")
    if value.dtype != slot.dtype and not _lossless(value.dtype, slot.dtype):
        raise ValueError(
            f"slot {slot.name!r}: batch tensor is {value.dtype}, the slot holds {slot.dtype}; "
            f"copying would {'truncate or wrap' if _kind(slot.dtype) == 'int' else 'round'} "
            f"values: pass {slot.dtype} (or a {_kind(slot.dtype)} type it holds exactly)")
    want = slot.shape(rows)
    if value.shape != want:  # torch.Size is a tuple: no conversion needed to compare
        axis = slot.axis.value
        raise ValueError(f"slot {slot.name!r}: batch tensor has shape {tuple(value.shape)}, "
                         f"expected {want} ({rows} {axis} rows)")


def check_batch(slots: Mapping[str, Slot] | None, batch: Any, size: Any, num_requests: Any,
                *, decode: bool) -> tuple[int, int | None]:
    """Check a whole batch; returns ``(size, num_requests)`` as ints.

    ``slots`` is ``None`` for a caller with no slots: only the counts are checked. A runner
    (a disabled phase's too, whose forward receives the batch as given) keeps a
    :class:`BatchCheck` instead, which does the per-slot set-up once.
    """
    return BatchCheck(slots, decode=decode)(batch, size, num_requests)


_NO_ROWS, _TOKEN_ROWS, _REQUEST_ROWS = 0, 1, 2


class BatchCheck:
    """:func:`check_batch` for one runner's slots, with what depends only on them worked out once.

    Every batch of every step passes through here, so the common case (a dict of tensors of
    the slots' own dtypes and shapes, plain int counts) takes no function call per slot and no
    enum lookup; anything else falls through to the full checks and their messages.
    """

    def __init__(self, slots: Mapping[str, Slot] | None, *, decode: bool,
                 check_names: bool = False) -> None:
        self.slots = slots
        self.decode = decode
        # A runner without buffers (a disabled phase) has no buffers to refuse a missing or
        # unexpected name: it checks the names here, as the buffers do.
        self._names = (frozenset(s.name for s in (slots or {}).values()
                                 if s.policy is not PaddingPolicy.KEEP) if check_names else None)
        self._specs: list[tuple[str, torch.dtype, int, bool, Slot]] = []
        for slot in (slots or {}).values():
            if slot.policy is PaddingPolicy.KEEP:
                continue
            kind = (_NO_ROWS if slot.axis is Axis.NONE else
                    _TOKEN_ROWS if slot.axis is Axis.TOKENS else _REQUEST_ROWS)
            flat = slot.axis is not Axis.NONE and not slot.trailing
            self._specs.append((slot.name, slot.dtype, kind, flat, slot))

    def __call__(self, batch: Any, size: Any, num_requests: Any) -> tuple[int, int | None]:
        """Check one batch; returns ``(size, num_requests)`` as ints."""
        size_i = size if type(size) is int and size >= 0 else check_count(size, "size")
        requests_i = (num_requests if num_requests is None or (type(num_requests) is int
                                                               and num_requests >= 0)
                      else check_count(num_requests, "num_requests", optional=True))
        assert size_i is not None
        if type(batch) is not dict and not isinstance(batch, Mapping):
            raise TypeError(f"batch must be a mapping of slot name to tensor, got "
                            f"{type(batch).__name__}")
        if self.slots is None:
            return size_i, requests_i
        if self._names is not None and batch.keys() != self._names:
            raise names_error(sorted(self._names), batch)
        requests = size_i if self.decode else (requests_i or 0)
        for name, dtype, kind, flat, slot in self._specs:
            if name not in batch:
                continue  # missing and unexpected names get the buffers' own KeyError
            rows = size_i if kind == _TOKEN_ROWS else requests if kind == _REQUEST_ROWS else 0
            value = batch[name]
            if (isinstance(value, torch.Tensor) and value.dtype == dtype and not value.is_meta
                    and value.shape == ((rows,) if flat else slot.shape(rows))):
                continue
            check_tensor(slot, value, rows)  # accepts a lossless dtype, or explains the problem
        return size_i, requests_i
