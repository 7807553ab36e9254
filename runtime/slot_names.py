"""The one check of a batch's slot names: exactly the runner's non-``KEEP`` slots, no other."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, Protocol, TypeVar


class _Named(Protocol):
    @property
    def name(self) -> str: ...


NamedT = TypeVar("NamedT", bound=_Named)


def slot_map(slots: Iterable[NamedT]) -> dict[str, NamedT]:
    """Slots by name, in order; a name given twice is a ``ValueError``."""
    out: dict[str, NamedT] = {}
    for slot in slots:
        if slot.name in out:
            raise ValueError(f"slot {slot.name!r} registered twice")
        out[slot.name] = slot
    return out


def names_error(expected: Collection[str], batch: Mapping[str, Any]) -> KeyError:
    """The error for a batch whose names are not ``expected`` (the non-``KEEP`` slots)."""
    missing = sorted(name for name in expected if name not in batch)
    unknown = sorted(str(name) for name in set(batch) - set(expected))
    return KeyError(f"batch does not match the slots: missing {missing}, unexpected {unknown} "
                    "(keep slots are written in place, not passed in the batch)")
