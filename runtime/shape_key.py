"""Graph keys, the registry of captured graphs, and bucket choice.

A captured graph freezes every shape it touches, so each one is looked up by the padded size it
was captured at plus the variant dimensions that change which kernels it recorded (a second
stream, a LoRA/no-LoRA variant). Bucket choice rounds a live size up to the smallest captured
size; that rule is the only place padding comes from.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

G = TypeVar("G")


@dataclass(frozen=True, order=True)
class ShapeKey:
    """Identity of one captured graph.

    ``size`` counts requests for decode and tokens for prefill. ``stream_idx`` separates graphs
    captured for different streams; ``variant`` separates graphs whose recorded kernels differ
    for the same size (for example ``"lora"``). ``None`` is the default stream and variant.
    """

    size: int
    stream_idx: int | None = None
    variant: str | None = None

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"graph size must be positive, got {self.size}")


def pad_to_bucket(size: int, buckets: Sequence[int]) -> int | None:
    """Smallest bucket ``>= size`` in the ascending ``buckets``, or ``None`` when none fits.

    ``None`` (rather than an index error) lets the caller turn "too large" into a recorded
    eager fallback instead of a crash.
    """
    i = bisect.bisect_left(buckets, size)
    return buckets[i] if i < len(buckets) else None


class GraphRegistry(Generic[G]):
    """Captured graphs by :class:`ShapeKey`, with the ascending size list per (stream, variant).

    The size lists are kept sorted as graphs are added, so bucket choice at replay is one bisect
    over a ready list rather than a sort per batch.
    """

    def __init__(self) -> None:
        self._graphs: dict[ShapeKey, G] = {}
        self._sizes: dict[tuple[int | None, str | None], list[int]] = {}

    def add(self, key: ShapeKey, graph: G) -> None:
        """Register ``graph`` under ``key``; registering a key twice is a bug and raises."""
        if key in self._graphs:
            raise KeyError(f"a graph is already registered for {key}")
        self._graphs[key] = graph
        bisect.insort(self._sizes.setdefault((key.stream_idx, key.variant), []), key.size)

    def get(self, key: ShapeKey) -> G:
        """The graph captured for ``key``; ``KeyError`` names the key when it is missing."""
        try:
            return self._graphs[key]
        except KeyError:
            raise KeyError(f"no graph captured for {key}") from None

    def sizes(self, stream_idx: int | None = None, variant: str | None = None) -> Sequence[int]:
        """Ascending captured sizes for one (stream, variant); empty when none were captured."""
        return self._sizes.get((stream_idx, variant), [])

    def bucket(self, size: int, stream_idx: int | None = None,
               variant: str | None = None) -> ShapeKey | None:
        """Key of the smallest captured graph that fits ``size``, or ``None``."""
        padded = pad_to_bucket(size, self.sizes(stream_idx, variant))
        return None if padded is None else ShapeKey(padded, stream_idx, variant)

    def clear(self) -> None:
        """Forget every graph (the caller releases their memory)."""
        self._graphs.clear()
        self._sizes.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._graphs

    def __len__(self) -> int:
        return len(self._graphs)

    def __iter__(self) -> Iterator[ShapeKey]:
        return iter(self._graphs)

    def items(self) -> Iterator[tuple[ShapeKey, G]]:
        """(key, graph) pairs in registration order."""
        return iter(self._graphs.items())
