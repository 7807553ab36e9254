"""Fit the cost model's coefficients from measured captures (standard library only).

The model, per class (engine × phase × backend family)::

    memory_mib  = m · graphs ** a · (max_size / 256) ** b · (hidden / 4096) ** c
    seconds     = t0 + t · graphs · (layers / 32)

The exponents ``a, b, c`` are shared by every class (:func:`fit_exponents`: a grid search for
the smallest median log error over all fit samples, each class taking its median intercept);
``m``, ``t0`` and ``t`` per class are medians of the per-sample values, so one odd boot cannot
drag a class. A class's ``spread`` is the 90th
percentile of its fit samples' error ratio (at least :data:`MIN_SPREAD`): the range a
prediction shows is ``mid / spread .. mid × spread``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

REFERENCE_LAYERS = 32
MIN_SPREAD = 1.25
"""No class claims to be closer than ±25 % (boots of one model already vary that much)."""


@dataclass(frozen=True)
class Sample:
    """One measured capture: the class it belongs to and what was measured."""

    klass: str
    graphs: int
    layers: float
    memory_mib: float | None
    seconds: float | None
    ident: str = ""
    max_size: float = 256.0
    hidden: float = 4096.0


Exponents = tuple[float, float, float]
REFERENCE_SIZE = 256
REFERENCE_HIDDEN = 4096


def memory_shape(graphs: float, max_size: float, hidden: float, exps: Exponents) -> float:
    """``graphs ** a · (max_size / 256) ** b · (hidden / 4096) ** c``."""
    a, b, c = exps
    return float(graphs ** a * (max_size / REFERENCE_SIZE) ** b
                 * (hidden / REFERENCE_HIDDEN) ** c)


def fit_exponents(samples: Sequence[Sample], step: float = 0.05) -> Exponents:
    """``(a, b, c)`` in 0..1.5 minimising the mean over classes of each class's median |log
    error| around its own intercept."""
    mem = [s for s in samples if s.memory_mib and s.memory_mib > 0 and s.graphs > 0]
    if not mem:
        return (1.0, 0.0, 0.0)
    grid = [round(i * step, 4) for i in range(int(1.5 / step) + 1)]
    best: tuple[float, Exponents] = (math.inf, (1.0, 0.0, 0.0))
    logs = [math.log(s.memory_mib) for s in mem]  # type: ignore[arg-type]
    for a in grid:
        for b in grid:
            for c in grid:
                exps = (a, b, c)
                resid = [y - math.log(memory_shape(s.graphs, s.max_size, s.hidden, exps))
                         for s, y in zip(mem, logs, strict=True)]
                by_class: dict[str, list[float]] = {}
                for s, r in zip(mem, resid, strict=True):
                    by_class.setdefault(s.klass, []).append(r)
                # Every class weighs the same: the runtime's many samples must not decide
                # the exponents for the engines' few.
                score = statistics.fmean(
                    statistics.median(abs(r - statistics.median(v)) for r in v) if len(v) > 1
                    else 0.0 for v in by_class.values())
                if score < best[0] - 1e-12:
                    best = (score, exps)
    return best[1]


def ratio_error(predicted: float, measured: float) -> float:
    """``max(p/m, m/p)``: 1 is exact, 2 is off by 2× either way."""
    if predicted <= 0 or measured <= 0:
        return math.inf
    return max(predicted / measured, measured / predicted)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) by linear interpolation; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def fit_memory(samples: Sequence[Sample], exps: Exponents) -> tuple[float, float] | None:
    """``(m, spread)`` of one class's memory, or ``None`` without a memory sample."""
    per = [s.memory_mib / memory_shape(s.graphs, s.max_size, s.hidden, exps) for s in samples
           if s.memory_mib and s.memory_mib > 0 and s.graphs > 0]
    if not per:
        return None
    m = statistics.median(per)
    errors = [ratio_error(m, p) for p in per]
    return m, max(MIN_SPREAD, percentile(errors, 0.9))


def fit_seconds(samples: Sequence[Sample]) -> tuple[float, float, float] | None:
    """``(t0, t, spread)`` of one class's capture time, or ``None`` without a time sample.

    With two or more distinct graph counts, ``t0`` is the median intercept of the line
    through each sample and the class's smallest capture (≥ 0); otherwise ``t0`` is 0.
    """
    timed = [s for s in samples if s.seconds and s.seconds > 0 and s.graphs > 0]
    if not timed:
        return None
    work = [s.graphs * s.layers / REFERENCE_LAYERS for s in timed]
    t0 = 0.0
    if len({s.graphs for s in timed}) > 1:
        small = min(range(len(timed)), key=lambda i: work[i])
        slopes = [(timed[i].seconds - timed[small].seconds) / (work[i] - work[small])  # type: ignore[operator]
                  for i in range(len(timed)) if work[i] > work[small]]
        slope = max(statistics.median(slopes), 0.0) if slopes else 0.0
        t0 = max(0.0, statistics.median(
            [s.seconds - slope * w for s, w in zip(timed, work, strict=True)]))  # type: ignore[operator]
    per = [max((s.seconds - t0) / w, 1e-6) for s, w in zip(timed, work, strict=True)]  # type: ignore[operator]
    t = statistics.median(per)
    errors = [ratio_error(t0 + t * w, s.seconds) for s, w in zip(timed, work, strict=True)]  # type: ignore[arg-type]
    return t0, t, max(MIN_SPREAD, percentile(errors, 0.9))
