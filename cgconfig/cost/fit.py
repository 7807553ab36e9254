"""Fit the cost model's coefficients from measured captures (standard library only).

The model, per class (engine × phase × backend family)::

    memory_mib  = m · graphs ** a · (max_size / 256) ** b · (hidden / 4096) ** c · (layers / 32) ** d
                  + k · max_size · vocab · 2 / 2**20          [k: logits buffers, decode 1, prefill 0]
    seconds     = t0 + t · graphs · (layers / 32) · tp ** e

``hidden`` is per rank; ``layers`` the model's (each layer's activations and, for breakable
graphs, its bridge buffers live in the pool); ``tp`` the tensor-parallel size of a real boot
(every graph then records its all-reduces and the ranks capture in lock step; cgconfig.runtime's
one-GPU measurements of a TP rank have no all-reduce and count as 1).

The exponents ``a, b, c, d`` are each phase's (decode, prefill), shared by its classes
(:func:`fit_exponents`); ``k`` is the number of bf16 logits buffers of the largest size a phase's
pool holds (:data:`LOGITS_BUFFERS`: one for decode, whose graphs end in every row's logits; none
for prefill) — the form chosen by leave-one-model-out cross-validation on the fit data
(``benchmarks/select_memory_model.py``);
``e`` is each class's own (:func:`fit_tp_exponent`);
``m``, ``t0`` and ``t`` per class are medians of the per-sample values, so one odd boot cannot
drag a class. A class's ``spread`` is the 90th
percentile of its fit samples' error ratio (at least :data:`MIN_SPREAD`): the range a
prediction shows is ``mid / spread .. mid × spread``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

# `statistics` is imported inside the fitting functions: every plan imports this module for
# its formulas, and statistics (with decimal and fractions) costs start-up time it never uses.

REFERENCE_LAYERS = 32
MIN_SPREAD = 1.25
"""No class claims to be closer than ±25 % (boots of one model already vary that much)."""
FEW_SPREAD = 2.0
"""The least spread of a class fitted on fewer than :data:`FEW` captures: too few to measure
how far its boots scatter (one boot fits its own line exactly)."""
FEW = 3


class Sample(NamedTuple):
    """One measured capture: the class it belongs to and what was measured."""

    klass: str
    graphs: int
    layers: float
    memory_mib: float | None
    seconds: float | None
    ident: str = ""
    max_size: float = 256.0
    hidden: float = 4096.0
    tp: int = 1
    vocab: float = 128000.0
    """Logit columns a decode graph writes per row (the model's vocabulary; 128000 unknown)."""
    mlp_ratio: float = 3.5
    """MLP width over hidden size (3.5 unknown)."""
    head_dim: float = 128.0
    """Attention head size (128 unknown)."""


REFERENCE_SIZE = 256
REFERENCE_HIDDEN = 4096
REFERENCE_VOCAB = 128000
LOGITS_BUFFERS = {"decode": 1.0, "prefill": 0.0}
"""bf16 logits buffers (largest size × vocabulary) a phase's pool holds besides the power law,
where the engine's decode graphs end in the logits (the fitting script names those engines;
the coefficient file gives each class's number)."""


def logits_mib(max_size: float, vocab: float) -> float:
    """One bf16 logits buffer of ``max_size`` rows, in MiB."""
    return float(max_size * vocab * 2 / 2**20)


def predict_memory(m: float, graphs: float, max_size: float, hidden: float,
                   exps: Sequence[float], layers: float = REFERENCE_LAYERS,
                   vocab: float = REFERENCE_VOCAB, buffers: float = 0.0) -> float:
    """``m · memory_shape(…) + buffers · logits_mib(max_size, vocab)`` (MiB)."""
    return m * memory_shape(graphs, max_size, hidden, exps, layers, vocab) + buffers * logits_mib(
        max_size, vocab)


def _rest(s: Sample, buffers: float) -> float:
    """What a capture's memory leaves for the power law after its logits buffers (at least a
    tenth of the measurement)."""
    mem = float(s.memory_mib or 0.0)
    return max(mem - buffers * logits_mib(s.max_size, s.vocab), 0.1 * mem)


def memory_shape(graphs: float, max_size: float, hidden: float, exps: Sequence[float],
                 layers: float = REFERENCE_LAYERS, vocab: float = REFERENCE_VOCAB) -> float:
    """``graphs ** a · (max_size / 256) ** b · (hidden / 4096) ** c · (layers / 32) ** d ·
    (vocab / 128000) ** v`` (missing trailing exponents are 0)."""
    a, b, c, d, v = [*exps, 0.0, 0.0][:5]
    return float(graphs ** a * (max_size / REFERENCE_SIZE) ** b
                 * (hidden / REFERENCE_HIDDEN) ** c * (layers / REFERENCE_LAYERS) ** d
                 * (vocab / REFERENCE_VOCAB) ** v)


def _class_score(samples: Sequence[Sample], resid: Sequence[float]) -> float:
    """Mean over classes of each class's median |residual − its median|: every class weighs
    the same, so the runtime's many samples do not decide the shape for the engines' few."""
    import statistics
    by_class: dict[str, list[float]] = {}
    for s, r in zip(samples, resid, strict=True):
        by_class.setdefault(s.klass, []).append(r)
    return statistics.fmean(
        statistics.median(abs(r - statistics.median(v)) for r in v) if len(v) > 1 else 0.0
        for v in by_class.values())


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the normal equations are small)."""
    n = len(rhs)
    m = [[*row, r] for row, r in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            raise ValueError("singular")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


RIDGE = 0.05
"""Pull of each exponent toward its prior (1 for graphs, 0 for the rest), per unit weight:
enough to keep an exponent the data cannot see (a phase whose captures all share one graph
count) at its prior, too little to move one the data do determine."""
PRIOR = (1.0, 0.0, 0.0, 0.0, 0.0)


def fit_exponents(samples: Sequence[Sample], buffers: Callable[[str], float] = lambda k: 0.0
                  ) -> dict[str, tuple[float, ...]]:
    """Per phase (``decode``, ``prefill``), ``(a, b, c, d, 0)`` by least squares on the log of
    what each capture's memory leaves after its class's logits buffers (``buffers(class)``),
    with an intercept per class, every class weighing the same in
    total (so the runtime's many captures do not outvote the engines' few boots), and a light
    ridge toward :data:`PRIOR`. The vocabulary enters through the logits buffers, not an
    exponent (the fifth stays 0)."""
    out: dict[str, tuple[float, ...]] = {}
    for phase in ("decode", "prefill"):
        mem = [s for s in samples if s.memory_mib and s.memory_mib > 0 and s.graphs > 0
               and s.klass.split("/")[1] == phase]
        if not mem:
            out[phase] = PRIOR
            continue
        classes = sorted({s.klass for s in mem})
        count = {c: sum(1 for s in mem if s.klass == c) for c in classes}
        n = 4 + len(classes)
        ata = [[0.0] * n for _ in range(n)]
        atb = [0.0] * n
        for s in mem:
            row = [math.log(s.graphs), math.log(s.max_size / REFERENCE_SIZE),
                   math.log(s.hidden / REFERENCE_HIDDEN), math.log(s.layers / REFERENCE_LAYERS)]
            row += [1.0 if s.klass == c else 0.0 for c in classes]
            w = 1.0 / count[s.klass]
            y = math.log(_rest(s, buffers(s.klass)))
            for i in range(n):
                atb[i] += w * row[i] * y
                for j in range(n):
                    ata[i][j] += w * row[i] * row[j]
        for i in range(4):
            ata[i][i] += RIDGE
            atb[i] += RIDGE * PRIOR[i]
        out[phase] = (*(round(x, 3) for x in _solve(ata, atb)[:4]), 0.0)
    return out


def work(s: Sample, tp_exponent: float) -> float:
    """A capture's work in graph·layer units: ``graphs · layers/32 · tp ** e``."""
    return float(s.graphs * s.layers / REFERENCE_LAYERS * max(s.tp, 1) ** tp_exponent)


def fit_tp_exponent(samples: Sequence[Sample], step: float = 0.1, top: float = 2.0) -> float:
    """One class's ``e`` in 0..``top``: the smallest median log error of its
    :func:`fit_seconds` line (0 unless its captures span TP sizes 4× apart)."""
    import statistics
    timed = [s for s in samples if s.seconds and s.seconds > 0 and s.graphs > 0]
    sizes = [max(s.tp, 1) for s in timed]
    # Two neighbouring TP sizes (1 and 2) measure the noise between two boots, not a power law
    # to extrapolate to 8: the exponent is fitted only over TP sizes 4× apart or more.
    if not sizes or max(sizes) < 4 * min(sizes):
        return 0.0
    best = (math.inf, 0.0)
    for i in range(round(top / step) + 1):
        e = round(i * step, 4)
        line = fit_seconds(timed, e)
        assert line is not None
        score = statistics.median(abs(math.log(s.seconds / (line[0] + line[1] * work(s, e))))  # type: ignore[operator]
                                  for s in timed)
        if score < best[0] - 1e-12:
            best = (score, e)
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


def fit_memory(samples: Sequence[Sample], exps: Sequence[float],
               buffers: float = 0.0) -> tuple[float, float] | None:
    """``(m, spread)`` of one class's memory (``buffers`` logits buffers besides the power
    law), or ``None`` without a memory sample."""
    import statistics
    mem = [s for s in samples if s.memory_mib and s.memory_mib > 0 and s.graphs > 0]
    if not mem:
        return None
    per = [_rest(s, buffers) / memory_shape(s.graphs, s.max_size, s.hidden, exps, s.layers,
                                            s.vocab) for s in mem]
    m = statistics.median(per)
    errors = [ratio_error(predict_memory(m, s.graphs, s.max_size, s.hidden, exps, s.layers,
                                         s.vocab, buffers), float(s.memory_mib or 0.0))
              for s in mem]
    return m, max(MIN_SPREAD if len(per) >= FEW else FEW_SPREAD, percentile(errors, 0.9))


def fit_seconds(samples: Sequence[Sample],
                tp_exponent: float = 0.0) -> tuple[float, float, float] | None:
    """``(t0, t, spread)`` of one class's capture time, or ``None`` without a time sample.

    With three or more captures of two or more graph counts, and seconds that grow with the
    work, ``t0`` is the
    median intercept of the line through each sample and the class's smallest capture (≥ 0);
    otherwise ``t0`` is 0.
    """
    import statistics
    timed = [s for s in samples if s.seconds and s.seconds > 0 and s.graphs > 0]
    if not timed:
        return None
    units = [work(s, tp_exponent) for s in timed]
    t0 = 0.0
    # A line needs a third capture to be tested by: through two it always fits exactly.
    if len({s.graphs for s in timed}) > 1 and len(timed) >= 3:
        small = min(range(len(timed)), key=lambda i: units[i])
        slopes = [(timed[i].seconds - timed[small].seconds) / (units[i] - units[small])  # type: ignore[operator]
                  for i in range(len(timed)) if units[i] > units[small]]
        slope = statistics.median(slopes) if slopes else 0.0
        # A class whose seconds do not grow with its work has no line to fit: capture time is
        # then taken as proportional to the work (t0 = 0), never as a flat constant.
        if slope > 0:
            t0 = max(0.0, statistics.median(
                [s.seconds - slope * w for s, w in zip(timed, units, strict=True)]))  # type: ignore[operator]
    per = [max((s.seconds - t0) / w, 1e-6) for s, w in zip(timed, units, strict=True)]  # type: ignore[operator]
    t = statistics.median(per)
    errors = [ratio_error(t0 + t * w, s.seconds) for s, w in zip(timed, units, strict=True)]  # type: ignore[arg-type]
    return t0, t, max(MIN_SPREAD if len(timed) >= FEW else FEW_SPREAD, percentile(errors, 0.9))
