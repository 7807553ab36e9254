"""Where each value came from: layers, origins, and the per-key chain ``explain`` prints.

A value carries its origin, but configs compare by value alone (ty's ``RangedValue`` idea): two
runs that resolve to the same config are equal whichever flags produced them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple


class Layer(IntEnum):
    """Input layers, lowest precedence first. The order is the precedence, by construction."""

    DEFAULT = 0
    LEGACY = 1
    OFF_SWITCH = 2
    CONVENIENCE = 3
    CONFIG = 4

    @property
    def label(self) -> str:
        """The name used in plans and ``explain`` (``off-switch``, ``config``...)."""
        return self.name.lower().replace("_", "-")


#: The precedence order as data, readable in one place (pydantic-settings' tuple of sources).
PRECEDENCE: tuple[Layer, ...] = tuple(Layer)


class Origin(NamedTuple):
    """Where a value came from: its layer, the flag or file, and a location inside it."""

    layer: Layer
    source: str
    """The flag (``--cuda-graph-max-bs-decode``), ``--cuda-graph-config``, a file, ``default``."""
    at: str | None = None
    """A JSON pointer (``/decode/max_bs``) or ``file:line``, when the source has structure."""
    position: int = 0
    """argv index (or input order), so later occurrences within a layer win, as in argparse."""

    def describe(self) -> str:
        """Human form: ``--cuda-graph-config at /decode/max_bs``."""
        return f"{self.source} at {self.at}" if self.at else self.source


@dataclass(frozen=True)
class Leaf:
    """One explicit value for one dotted key, as one input gave it."""

    key: str
    value: Any = field(compare=True)
    origin: Origin = field(compare=False)


@dataclass
class ChainEntry:
    """One step in a key's history: a default, a user input, the resolver or a rule."""

    source: str
    value: Any
    layer: str
    at: str | None = None
    why: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"source", "layer", "value"}`` plus ``at``/``why`` when present."""
        out: dict[str, Any] = {"source": self.source, "layer": self.layer, "value": self.value}
        if self.at:
            out["at"] = self.at
        if self.why:
            out["why"] = self.why
        return out


def leaf_entry(leaf: Leaf) -> ChainEntry:
    """The chain entry a user leaf contributes."""
    return ChainEntry(
        source=leaf.origin.source, value=leaf.value, layer=leaf.origin.layer.label, at=leaf.origin.at
    )


_RANK = {layer: rank for rank, layer in enumerate(PRECEDENCE)}


def merge_leaves(leaves: list[Leaf]) -> dict[str, list[Leaf]]:
    """Group leaves per key in precedence order (layer by :data:`PRECEDENCE`, then position);
    the last one wins."""
    ordered = sorted(leaves, key=lambda lf: (_RANK[lf.origin.layer], lf.origin.position))
    by_key: dict[str, list[Leaf]] = {}
    for leaf in ordered:
        by_key.setdefault(leaf.key, []).append(leaf)
    return by_key
