"""Counters a runner keeps about the batches it served."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunnerStats:
    """Replays per bucket, padding overhead and eager fallbacks by reason.

    With the eager stand-in backend (no CUDA) a "replay" is an eager call on the padded static
    buffers; it is counted the same way so the bucket statistics mean the same on every device.

    ``batch_sizes`` is the histogram of real batch sizes the runner served (requests for decode,
    tokens for prefill), replayed or eager alike: what ``cgconfig tune`` optimises over.
    Recording it is one counter increment per batch (``benchmarks/tune_bench.py`` measures it).
    """

    phase: str = "decode"
    """The phase the counted sizes belong to (the histogram file's phase key)."""
    replays: Counter[int] = field(default_factory=Counter)
    batch_sizes: Counter[int] = field(default_factory=Counter)
    fallbacks: Counter[str] = field(default_factory=Counter)
    real_rows: int = 0
    padded_rows: int = 0
    eager_rows: int = 0
    fill_launches: int = 0

    def record_replay(self, size: int, padded: int, launches: int) -> None:
        """Count one batch of ``size`` rows that replayed the ``padded`` bucket."""
        self.replays[padded] += 1
        self.batch_sizes[size] += 1
        self.real_rows += size
        self.padded_rows += padded - size
        self.fill_launches += launches

    def record_fallback(self, reason: str, size: int) -> None:
        """Count one batch of ``size`` rows that ran eagerly because of ``reason``."""
        self.fallbacks[reason] += 1
        self.batch_sizes[size] += 1
        self.eager_rows += size

    @property
    def padding_ratio(self) -> float:
        """Padded rows over real rows among replayed batches (0 when nothing replayed)."""
        return self.padded_rows / self.real_rows if self.real_rows else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (JSON-ready, sizes ascending)."""
        return {
            "replays": {str(k): v for k, v in sorted(self.replays.items())},
            "fallbacks": dict(sorted(self.fallbacks.items())),
            "real_rows": self.real_rows,
            "padded_rows": self.padded_rows,
            "eager_rows": self.eager_rows,
            "padding_ratio": round(self.padding_ratio, 4),
            "fill_launches": self.fill_launches,
        }

    def histogram(self) -> dict[int, int]:
        """Steps per real batch size, ascending (empty batches left out)."""
        return {size: count for size, count in sorted(self.batch_sizes.items()) if size > 0}

    def write_histogram(self, path: str | os.PathLike[str]) -> None:
        """Write this phase's batch sizes as a histogram file (docs/histogram-format.md).

        To put several phases in one file, use :func:`write_histograms`.
        """
        write_histograms(path, {self.phase: self})

    def reset(self) -> None:
        """Zero every counter."""
        self.replays.clear()
        self.batch_sizes.clear()
        self.fallbacks.clear()
        self.real_rows = self.padded_rows = self.eager_rows = self.fill_launches = 0


def write_histograms(path: str | os.PathLike[str], stats: dict[str, RunnerStats]) -> None:
    """Write the batch-size histograms of several runners (keyed by phase) to one file."""
    from cgconfig.histogram_file import Histogram, write

    phases = {phase: stat.histogram() for phase, stat in stats.items()}
    write(path, Histogram(phases=phases, source="cgconfig.runtime"))
