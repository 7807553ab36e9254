"""``cgconfig tune --max-graph-memory GIB`` without a log: the decode graph count cgconfig's
prediction fits in the budget (the same prediction as the plan's ``cost`` section).

The prediction's expected memory grows as ``graphs ** a`` (the class's exponent) with the
largest size fixed at the plan's decode maximum, so the count is
``floor((budget / (m · (max/256) ** b · (hidden/4096) ** c)) ** (1 / a))`` (the caller caps
it at the optimiser's limit). Where decode shares a graph pool with other phases
(``cost.pools``), the pool's prediction is solved for its whole count and the other phases'
graphs are taken off it.
"""

from __future__ import annotations

import math
from typing import Any

from cgconfig.errors import InputError


def graphs_for_predicted_budget(budget_gib: float, plan: Any) -> tuple[int, str]:
    """The most decode graphs the plan's own prediction fits in ``budget_gib``, and how."""
    from cgconfig.cost import coefficients as co
    from cgconfig.cost import fit
    from cgconfig.cost.fit import (
        REFERENCE_HIDDEN,
        REFERENCE_LAYERS,
        REFERENCE_SIZE,
        REFERENCE_VOCAB,
    )
    from cgconfig.cost.plan_cost import phase_prediction

    entry = (plan.cost.get("phases") or {}).get("decode") or {}
    pool = (plan.cost.get("pools") or {}).get(entry.get("pool") or "") or {}
    others = (pool.get("graphs") or 0) - (entry.get("graphs") or 0) if pool else 0
    pred = phase_prediction(plan.cost, "decode") or {}
    klass = pred.get("class")
    c = co.load().lookup(klass) if klass else None
    if not entry.get("graphs") or c is None or c.memory_mib_per_graph is None:
        raise InputError("cgconfig has no memory prediction for this plan's decode graphs",
                         where="--max-graph-memory",
                         hint="pass the server's start-up log with --memory-log LOG")
    a, b, cexp, dexp, vexp = [*co.load().exponents(str(klass)), 0.0][:5]
    vocab = (plan.cost.get("model") or {}).get("vocab") or REFERENCE_VOCAB
    hidden = (plan.cost.get("model") or {}).get("hidden")
    layers = (plan.cost.get("model") or {}).get("layers") or co.DEFAULT_LAYERS
    tp = max(int((plan.cost.get("deployment") or {}).get("tp") or 1), 1)
    per_rank = hidden / tp if hidden else co.DEFAULT_HIDDEN
    biggest = pool.get("max_size") or entry["max_size"]
    scale = c.memory_mib_per_graph * (biggest / REFERENCE_SIZE) ** b * (
        per_rank / REFERENCE_HIDDEN) ** cexp * (layers / REFERENCE_LAYERS) ** dexp * (
        vocab / REFERENCE_VOCAB) ** vexp
    if a <= 0:
        raise InputError("the coefficients' graph exponent is not positive",
                         where="--max-graph-memory")
    buffers = co.load().buffers(str(klass))
    logits = buffers * fit.logits_mib(biggest, vocab)
    left = budget_gib * 1024 - logits
    graphs = math.floor((left / scale) ** (1 / a)) - others if left > 0 else 0
    if graphs < 1 and left <= 0:
        raise InputError(f"the largest decode graph's logits alone ({logits:.0f} MiB) are "
                         f"predicted above the budget of {budget_gib:g} GiB",
                         where="--max-graph-memory")
    if graphs < 1 and others:
        raise InputError(f"the {others} other graphs of the shared pool ({entry['pool']}) "
                         f"alone are predicted above the budget of {budget_gib:g} GiB",
                         where="--max-graph-memory")
    if graphs < 1:
        raise InputError(f"one decode graph is predicted at {scale:.0f} MiB, above the budget "
                         f"of {budget_gib:g} GiB", where="--max-graph-memory")
    how = (f"cgconfig's prediction ({klass}, {c.origin}): {c.memory_mib_per_graph:g} MiB × "
           f"graphs^{a:g} × ({biggest}/256)^{b:g} × ({per_rank:g}/4096)^{cexp:g} × "
           f"({layers}/32)^{dexp:g} × ({vocab}/128000)^{vexp:g} + {buffers:g} × "
           f"{biggest} × {vocab} × 2 B of logits, expected "
           "value" + (f"; decode shares the pool {entry['pool']} with {others} other graphs"
                      if others else "") + "; no --memory-log given")
    return graphs, how
