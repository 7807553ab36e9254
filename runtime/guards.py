"""Decide, per batch, whether it can replay a captured graph or must run eagerly, and why.

A graph is a fast path for batches of the shapes and features it was captured with; every
other batch runs eagerly and the reason is counted, so an operator can see *why* a deployment
is slower than expected (batches above the largest bucket, too much padding, a feature the
graphs do not cover).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from .shape_key import pad_to_bucket


class Fallback(str, Enum):
    """Why a batch ran eagerly. ``UNSUPPORTED`` is reported as ``unsupported:<feature>``."""

    DISABLED = "backend_disabled"
    EMPTY = "empty_batch"
    OVER_MAX = "over_max_size"
    OVER_MAX_REQUESTS = "over_max_requests"
    NO_EXACT = "no_exact_size"
    PADDING = "padding_over_factor"
    UNSUPPORTED = "unsupported"


class Route(NamedTuple):
    """Where a batch goes: a padded size to replay, or the reason it runs eagerly."""

    padded: int | None
    reason: str | None


@dataclass(frozen=True)
class Guards:
    """The admission rules of one runner.

    ``sizes`` are the captured sizes, ascending. With ``disable_padding`` only a batch whose
    size was captured exactly replays (SGLang's ``--disable-cuda-graph-padding``).
    ``max_padding_factor`` rejects buckets larger than that many times the batch (SGLang uses 2
    for prefill: past it, the padded tokens cost more than the launches saved).
    ``max_requests`` bounds the request axis when it is not the counted one (prefill).
    """

    sizes: Sequence[int]
    disable_padding: bool = False
    max_padding_factor: float | None = None
    max_requests: int | None = None
    unsupported: frozenset[str] = frozenset()
    disabled: bool = False

    def route(self, size: int, num_requests: int | None = None,
              features: Collection[str] = ()) -> Route:
        """Pick the bucket for a batch of ``size`` (requests or tokens, as the phase counts)."""
        if self.disabled:
            return Route(None, Fallback.DISABLED.value)
        for feature in features:
            if feature in self.unsupported:
                return Route(None, f"{Fallback.UNSUPPORTED.value}:{feature}")
        if size < 1:
            return Route(None, Fallback.EMPTY.value)
        if (self.max_requests is not None and num_requests is not None
                and num_requests > self.max_requests):
            return Route(None, Fallback.OVER_MAX_REQUESTS.value)
        padded = pad_to_bucket(size, self.sizes)
        if padded is None:
            return Route(None, Fallback.OVER_MAX.value)
        if self.disable_padding and padded != size:
            return Route(None, Fallback.NO_EXACT.value)
        if self.max_padding_factor is not None and padded > size * self.max_padding_factor:
            return Route(None, Fallback.PADDING.value)
        return Route(padded, None)
