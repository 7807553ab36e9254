"""Choose capture sizes that minimise the expected cost of a batch-size histogram, exactly.

A batch of ``x`` rows replays the smallest captured size ``>= x`` (padding the difference) and
runs eagerly above the largest. Given the sizes a deployment allows (``candidates``: what survives
alignment and the request pool) and at most ``k`` graphs, the best list only ever uses, for each
observed size, the smallest allowed size that covers it: any other chosen size could move down
to one of those without covering fewer batches. Those useful sizes split the sorted observed
sizes into groups, and the choice is a partition of the groups into contiguous runs, each run
paying for its top size: dynamic programming over (graphs used, last group covered) finds the
optimum; a monotone convex-hull trick makes each layer O(m), so O(k·m) in all. A brute
force over subsets agrees (tests/tune).

Two objectives:

* padded rows (no cost model): minimise padded rows, and every observed size that an allowed
  size can cover must be covered (an eager batch is not "free" just because it pads nothing);
* a step-time model (:class:`StepCost`): a step on a graph of ``g`` rows costs
  ``graph_a + graph_b·g``, an eager step of ``x`` rows ``eager_a + eager_b·x``; the top of the
  range may stay eager when that is cheaper.
"""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

INFINITY = float("inf")
MAX_GRAPHS = 256
"""Most graphs ``cgconfig tune`` chooses: far above any engine's default list (SGLang's longest
has 52), and it bounds the optimiser's work at O(MAX_GRAPHS · distinct sizes)."""


@dataclass(frozen=True)
class StepCost:
    """A linear step-time model, in milliseconds: ``a + b·rows``, for graphs and eager steps."""

    graph_a: float
    graph_b: float
    eager_a: float
    eager_b: float

    def graph(self, size: int) -> float:
        """Cost of one replay of a graph of ``size`` rows."""
        return self.graph_a + self.graph_b * size

    def eager(self, size: int) -> float:
        """Cost of one eager step of ``size`` rows."""
        return self.eager_a + self.eager_b * size


@dataclass(frozen=True)
class Metrics:
    """How a size list serves a histogram."""

    graphs: int
    steps: int
    real_rows: int
    padded_rows: int
    eager_steps: int
    expected_cost: float | None
    """Mean cost per step under the step-time model; ``None`` without one."""

    @property
    def waste(self) -> float:
        """Padded rows over real rows of the batches that replay a graph."""
        replayed = self.real_rows
        return self.padded_rows / replayed if replayed else 0.0

    @property
    def eager_share(self) -> float:
        """Share of steps that run eagerly (above the largest size)."""
        return self.eager_steps / self.steps if self.steps else 0.0


def evaluate(sizes: Sequence[int], counts: Mapping[int, int],
             cost: StepCost | None = None) -> Metrics:
    """Serve ``counts`` (size → steps) with ``sizes`` and measure padding, eager share, cost."""
    ordered = sorted(set(sizes))
    steps = real = padded = eager = 0
    total = 0.0
    for size, count in counts.items():
        steps += count
        at = bisect.bisect_left(ordered, size)
        if at == len(ordered):
            eager += count
            if cost is not None:
                total += count * cost.eager(size)
            continue
        real += count * size
        padded += count * (ordered[at] - size)
        if cost is not None:
            total += count * cost.graph(ordered[at])
    mean = (total / steps if steps else 0.0) if cost is not None else None
    return Metrics(len(ordered), steps, real, padded, eager, mean)


def objective(sizes: Sequence[int], counts: Mapping[int, int],
              cost: StepCost | None = None) -> float:
    """The value :func:`best_sizes` minimises: total padded rows (infinite if a coverable
    batch is left eager), or the total step time under ``cost``."""
    ordered = sorted(set(sizes))
    total = 0.0
    for size, count in counts.items():
        at = bisect.bisect_left(ordered, size)
        if at == len(ordered):
            if cost is None:
                return INFINITY
            total += count * cost.eager(size)
        elif cost is None:
            total += count * (ordered[at] - size)
        else:
            total += count * cost.graph(ordered[at])
    return total


def coverable(counts: Mapping[int, int], candidates: Sequence[int]) -> dict[int, int]:
    """The part of ``counts`` some candidate can cover (the rest runs eagerly whatever we do)."""
    top = max(candidates, default=0)
    return {s: c for s, c in counts.items() if s <= top and c}


@dataclass(frozen=True)
class _Groups:
    tops: list[int]      # the useful candidate of each group, ascending
    steps: list[int]     # prefix sums of steps per group (index 0 = nothing)
    rows: list[int]      # prefix sums of real rows per group


def _groups(counts: Mapping[int, int], candidates: Sequence[int]) -> _Groups:
    allowed = sorted(set(candidates))
    per_top: dict[int, tuple[int, int]] = {}
    for size, count in sorted(counts.items()):
        at = bisect.bisect_left(allowed, size)
        if at == len(allowed) or not count:
            continue
        top = allowed[at]
        n, r = per_top.get(top, (0, 0))
        per_top[top] = (n + count, r + count * size)
    tops = sorted(per_top)
    steps, rows = [0], [0]
    for top in tops:
        n, r = per_top[top]
        steps.append(steps[-1] + n)
        rows.append(rows[-1] + r)
    return _Groups(tops, steps, rows)


def best_sizes_per_count(counts: Mapping[int, int], candidates: Sequence[int], max_graphs: int,
                         cost: StepCost | None = None) -> list[list[int]]:
    """The optimal list with at most ``t`` graphs, for every ``t`` in ``0..max_graphs``.

    Entry ``t`` is the best list of at most ``t`` sizes (fewer when more would not help). Sizes
    come only from ``candidates``; observed sizes above every candidate run eagerly and are left
    out of the optimisation (they cost the same whatever is chosen).
    """
    return list(itertools.islice(optimal_lists(counts, candidates, cost), max_graphs + 1))


def optimal_lists(counts: Mapping[int, int], candidates: Sequence[int],
                  cost: StepCost | None = None) -> Iterator[list[int]]:
    """The optimal list of at most 0, 1, 2, … graphs, one DP layer per item (unbounded: once
    more graphs cannot help, the last list repeats)."""
    g = _groups(counts, candidates)
    m = len(g.tops)
    # Cost of groups i+1..j served by tops[j-1], as coef_j·steps - weight·rows over the run.
    coef: list[float]
    if cost is None:  # integers: padded rows are compared exactly
        coef, weight = list(g.tops), 1
    else:
        coef, weight = [cost.graph(t) for t in g.tops], 0

    def tail(j: int) -> float:
        """Groups j+1..m left eager."""
        if j == m:
            return 0.0
        if cost is None:
            return INFINITY
        return cost.eager_a * (g.steps[m] - g.steps[j]) + cost.eager_b * (g.rows[m] - g.rows[j])

    # prev[j]: best cost of covering groups 1..j with the graphs used so far, group j's top
    # being the largest chosen size; back[t][j] is the group before it.
    prev: list[float] = [0] + [INFINITY] * m
    back: list[list[int]] = [[0] * (m + 1)]
    best = (tail(0), 0, 0)          # (cost, graphs, last group): zero graphs, all eager
    last = _trace(back, best, g.tops)
    yield last
    for t in itertools.count(1):
        if t > m:  # more graphs than useful sizes cannot help
            yield last
            continue
        cur, arg = _layer(prev, t, m, coef, weight, g)
        prev = cur
        back.append(arg)
        for j in range(t, m + 1):
            value = cur[j] + tail(j)
            # Strictly better only: ties keep fewer graphs, then the smaller top.
            if value < best[0] - 1e-9 * max(1.0, abs(value)):
                best = (value, t, j)
        last = _trace(back, best, g.tops)
        yield last


def _layer(prev: list[float], t: int, m: int, coef: Sequence[float], weight: float,
           g: _Groups) -> tuple[list[float], list[int]]:
    """One DP layer: ``cur[j] = c_j·N_j - w·R_j + min_{i<j} (prev[i] + w·R_i - c_j·N_i)``.

    The minimum is over lines ``y = base_i - N_i·x`` queried at ``x = c_j``: slopes fall as ``i``
    grows (``N`` is strictly increasing, every group has steps) and queries rise with ``j``
    (``c_j`` is the top size, or ``a + b·top`` with ``b >= 0``), so a monotone lower envelope
    (the convex-hull trick) finds each minimum in amortised O(1): O(m) per layer instead of
    O(m²), exactly (integer arithmetic for padded rows).
    """
    cur: list[float] = [INFINITY] * (m + 1)
    arg = [0] * (m + 1)
    hull: deque[int] = deque()
    steps, rows = g.steps, g.rows
    base = [p + weight * r for p, r in zip(prev, rows, strict=True)]
    for j in range(t, m + 1):
        i = j - 1
        if prev[i] < INFINITY:
            # Drop the last line while it can never be the lowest once line i is in: where i
            # overtakes the one before it comes no later than where the last one does.
            bi, si = base[i], steps[i]
            while len(hull) >= 2:
                a, b = hull[-2], hull[-1]
                ba, sa = base[a], steps[a]
                if (bi - ba) * (steps[b] - sa) <= (base[b] - ba) * (si - sa):
                    hull.pop()
                else:
                    break
            hull.append(i)
        if not hull:
            continue
        x = coef[j - 1]
        first = hull[0]
        low = base[first] - x * steps[first]
        while len(hull) >= 2:
            second = hull[1]
            value = base[second] - x * steps[second]
            if value > low:
                break
            hull.popleft()
            first, low = second, value
        cur[j] = low + x * steps[j] - weight * rows[j]
        arg[j] = first
    return cur, arg


def _trace(back: list[list[int]], best: tuple[float, int, int], tops: list[int]) -> list[int]:
    _, graphs, j = best
    chosen: list[int] = []
    for t in range(graphs, 0, -1):
        chosen.append(tops[j - 1])
        j = back[t][j]
    return sorted(chosen)


def best_sizes(counts: Mapping[int, int], candidates: Sequence[int], max_graphs: int,
               cost: StepCost | None = None) -> list[int]:
    """The size list of at most ``max_graphs`` sizes from ``candidates`` minimising
    :func:`objective` over ``counts``."""
    return best_sizes_per_count(counts, candidates, max_graphs, cost)[-1]


def fewest_for_waste(counts: Mapping[int, int], candidates: Sequence[int], max_waste: float,
                     limit: int | None = None) -> list[int] | None:
    """The fewest graphs whose padding waste is at most ``max_waste`` (a fraction), as the
    padded-rows optimum of that count; ``None`` when even one graph per useful size (or
    ``limit`` graphs) cannot reach it.

    Minimising padded rows at a given count minimises waste at that count (real rows are
    fixed once every coverable batch is covered), so the first count that meets the bound is
    the fewest.
    """
    useful = len(_groups(counts, candidates).tops)
    top = useful if limit is None else min(limit, useful)
    servable = coverable(counts, candidates)
    for sizes in itertools.islice(optimal_lists(counts, candidates), top + 1):
        if objective(sizes, servable) < INFINITY and \
                evaluate(sizes, servable).waste <= max_waste + 1e-12:
            return sizes
    return None
