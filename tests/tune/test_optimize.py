"""The exact optimiser: equal to brute force, never worse than the default, waste bound minimal."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from cgconfig.engines.sglang.grid import decode_sizes
from cgconfig.tune.optimize import (
    INFINITY,
    StepCost,
    best_sizes,
    best_sizes_per_count,
    coverable,
    evaluate,
    fewest_for_waste,
    objective,
)

histograms = st.dictionaries(st.integers(1, 40), st.integers(1, 50), max_size=8)
candidate_sets = st.lists(st.integers(1, 40), min_size=1, max_size=9, unique=True).map(sorted)
costs = st.one_of(st.none(), st.builds(
    StepCost, st.floats(0, 5), st.floats(0, 1), st.floats(0, 20), st.floats(0, 1)))


def brute_force(counts: dict[int, int], candidates: list[int], k: int,
                cost: StepCost | None) -> float:
    target = counts if cost is not None else coverable(counts, candidates)
    return min(objective(list(c), target, cost)
               for r in range(k + 1) for c in itertools.combinations(candidates, r))


def close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-7 * max(1.0, abs(a), abs(b))


@settings(max_examples=400, deadline=None)
@given(histograms, candidate_sets, st.integers(0, 5), costs)
def test_dp_equals_brute_force(counts, candidates, k, cost) -> None:
    chosen = best_sizes(counts, candidates, k, cost)
    assert len(chosen) <= k
    assert set(chosen) <= set(candidates)
    assert chosen == sorted(set(chosen))
    target = counts if cost is not None else coverable(counts, candidates)
    assert close(objective(chosen, target, cost), brute_force(counts, candidates, k, cost))


@settings(max_examples=150, deadline=None)
@given(histograms, candidate_sets, st.integers(1, 6))
def test_every_count_is_optimal_at_that_count(counts, candidates, k) -> None:
    per_count = best_sizes_per_count(counts, candidates, k)
    for t, chosen in enumerate(per_count):
        assert len(chosen) <= t
        assert close(objective(chosen, coverable(counts, candidates)),
                     brute_force(counts, candidates, t, None))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(1, 256), st.integers(1, 1000), min_size=1, max_size=40),
       st.integers(1, 256), costs)
def test_never_worse_than_the_default_list_of_the_same_count(counts, max_bs, cost) -> None:
    default = decode_sizes(max_bs)
    allowed = list(range(1, max_bs + 1))
    tuned = best_sizes(counts, allowed, len(default), cost)
    target = counts if cost is not None else coverable(counts, allowed)
    default_value = objective(default, target, cost)
    # Exact for padded rows (integers); float step times tie within rounding.
    assert objective(tuned, target, cost) <= default_value + 1e-9 * max(1.0, default_value)
    if cost is None:
        assert evaluate(tuned, target).waste <= evaluate(default, target).waste + 1e-12


@settings(max_examples=150, deadline=None)
@given(histograms, candidate_sets, st.sampled_from([0.0, 0.01, 0.05, 0.2, 1.0]))
def test_fewest_graphs_for_a_waste_bound(counts, candidates, bound) -> None:
    chosen = fewest_for_waste(counts, candidates, bound)
    servable = coverable(counts, candidates)
    if chosen is None:
        assert evaluate(candidates, servable).waste > bound
        return
    assert evaluate(chosen, servable).waste <= bound + 1e-12
    assert objective(chosen, servable) < INFINITY
    # No list with one graph fewer meets the bound.
    for combo in itertools.combinations(candidates, max(len(chosen) - 1, 0)):
        if objective(list(combo), servable) < INFINITY:
            assert evaluate(list(combo), servable).waste > bound or not servable


def test_padded_rows_covers_every_coverable_batch() -> None:
    counts = {1: 1000, 50: 1}
    assert best_sizes(counts, [1, 8, 50, 64], 1) == [50]
    assert best_sizes(counts, [1, 8, 50, 64], 2) == [1, 50]


def test_a_cost_model_may_leave_the_rare_top_eager() -> None:
    counts = {4: 1000, 200: 1}
    # A 256 graph costs 2 + 0.1·256 = 27.6 per step: the 4s would pay that padding.
    cost = StepCost(graph_a=2, graph_b=0.1, eager_a=10, eager_b=0.0)
    assert best_sizes(counts, [4, 256], 1, cost) == [4]
    metrics = evaluate([4], counts, cost)
    assert metrics.eager_steps == 1 and metrics.expected_cost is not None


def test_metrics_of_a_known_case() -> None:
    m = evaluate([4, 8], {3: 2, 8: 1, 9: 1})
    assert (m.graphs, m.steps, m.real_rows, m.padded_rows, m.eager_steps) == (2, 4, 14, 2, 1)
    assert m.waste == 2 / 14 and m.eager_share == 0.25
