"""The plan's ``cost`` section: per phase the graphs, the engine's reservation and cgconfig's
prediction; the graph pools phases share; the totals; and whether weights, KV reservation and
graphs fit the GPU.

What differs between engines comes from the engine's plug-in part ``cost``
(:class:`cgconfig.cost.engine_part.EngineCost`). Where the engine captures its phases into one
pool (:class:`~cgconfig.cost.engine_part.SharedPool`), the phases carry their graphs and
``"pool": NAME``, and ``cost.pools.NAME`` carries the one prediction for all of them (the
engine logs one figure for the pool, and its boots are fitted on that figure), so the total
counts each graph once.
"""

from __future__ import annotations

from typing import Any

from cgconfig.cost import coefficients as co
from cgconfig.cost.engine_part import CostContext, EngineCost
from cgconfig.cost.predict import PhaseInputs, Prediction, predict
from cgconfig.cost.shape import ModelFacts, read_model_facts


def engine_cost(dialect: str) -> EngineCost:
    """The engine's ``cost`` part."""
    from cgconfig.line.plugins import part

    found = part(dialect, "cost")
    assert isinstance(found, EngineCost), f"{dialect}: cost.COST is not an EngineCost"
    return found


def _deployment(facts: dict[str, Any], engine: dict[str, Any]) -> dict[str, Any]:
    attention = (engine.get("attention_backend") or {}).get("value") or facts.get(
        "attention_backend")
    return {"tp": facts.get("tp_size", 1), "pp": facts.get("pp_size", 1),
            "dp": facts.get("dp_size", 1), "attn_dp": facts.get("attn_dp_size", 1),
            "moe_a2a_backend": facts.get("moe_a2a_backend"), "attention_backend": attention,
            "speculative_algorithm": facts.get("speculative_algorithm"),
            "gpu_memory_gib": facts.get("gpu_memory_gib") or (facts.get("derived") or {}).get(
                "gpu_memory_gib"),
            "gpu_sm": facts.get("gpu_sm")}


def _not_predicted(coeffs: co.Coefficients, part: EngineCost, facts: dict[str, Any],
                   options: dict[str, Any]) -> list[str]:
    out = []
    if part.compiles(options):
        out.append(coeffs.not_predicted.get("torch_compile", "torch.compile time: not predicted"))
    if facts.get("speculative_algorithm"):
        out.append(coeffs.not_predicted.get("speculative_draft", "draft graphs: not predicted"))
    if facts.get("moe_a2a_backend") == "deepep" or (facts.get("attn_dp_size") or 1) > 1:
        out.append(coeffs.not_predicted.get("deepep", "DeepEP / DP attention: not predicted"))
    return out


def _sum(preds: list[Prediction], attr: str) -> dict[str, float] | None:
    values = [getattr(p, attr) for p in preds if getattr(p, attr) is not None]
    if not values:
        return None
    digits = 3 if attr == "memory_gib" else 2
    return {k: round(sum(v[i] for v in values), digits)
            for i, k in enumerate(("low", "expected", "high"))}


def plan_cost(*, dialect: str, capture: dict[str, dict[str, Any]], facts: dict[str, Any],
              engine: dict[str, Any], engine_label: str, options: dict[str, Any],
              engine_reserve: dict[str, Any] | None = None,
              model: ModelFacts | None = None,
              coeffs: co.Coefficients | None = None) -> dict[str, Any]:
    """The ``cost`` section for one resolved plan (``engine_reserve``: what the engine's
    pipeline computed of its own reservation, for its ``cost`` part)."""
    coeffs = coeffs or co.load()
    model = model or read_model_facts(facts)
    part = engine_cost(dialect)
    ctx = CostContext(engine_label, facts, engine, options, engine_reserve)
    deploy = _deployment(facts, engine)
    tp = max(int(deploy["tp"] or 1), 1)
    hidden = model.hidden / tp if model.hidden else None

    def inputs(phase: str, backend: str, sizes: tuple[int, ...]) -> PhaseInputs:
        return PhaseInputs(dialect, phase, backend, sizes, model.layers, hidden, tp, model.vocab)

    pool = part.shared_pool
    phases: dict[str, Any] = {}
    preds: list[Prediction] = []
    pooled: list[str] = []
    pooled_sizes: list[int] = []
    for phase, cap in capture.items():
        sizes = tuple(cap.get("sizes") or ())
        backend = str(cap.get("backend"))
        entry: dict[str, Any] = {"graphs": len(sizes), "backend": backend,
                                 "max_size": max(sizes) if sizes else None}
        reservation = part.reservation(phase, sizes, ctx)
        if reservation is not None:
            entry["engine_reservation"] = reservation
        if pool is not None and sizes:
            entry["pool"] = pool.name
            pooled.append(phase)
            pooled_sizes.extend(sizes)
        else:
            pred = predict(inputs(phase, backend, sizes), coeffs)
            if pred is not None:
                entry["predicted"] = pred.to_dict()
                preds.append(pred)
        phases[phase] = entry
    pools: dict[str, Any] = {}
    if pool is not None and pooled:
        pred = predict(inputs(pool.phase, pool.backend, tuple(pooled_sizes)), coeffs)
        body: dict[str, Any] = {"phases": pooled, "graphs": len(pooled_sizes),
                                "max_size": max(pooled_sizes), "why": pool.why}
        if pred is not None:
            body["predicted"] = pred.to_dict()
            preds.append(pred)
        pools[pool.name] = body
    weights = model.weights_gib(tp * max(int(deploy["pp"] or 1), 1))
    out: dict[str, Any] = {
        "per_rank": True, "engine": dialect,
        "model": {**model.to_dict(), "weights_gib_per_rank": None if weights is None
                  else round(weights, 2)},
        "deployment": deploy, "phases": phases, "pools": pools,
        "total": {"graph_memory_gib": _sum(preds, "memory_gib"),
                  "capture_seconds": _sum(preds, "seconds")},
        "not_predicted": _not_predicted(coeffs, part, facts, options),
        "coefficients": sorted({p.origin for p in preds if p.origin}),
    }
    reserve = part.engine_reserve(ctx)
    if reserve is not None:
        out["engine_reserve"] = reserve
    from cgconfig.cost.fit_check import fit_check

    out["fit"] = fit_check(part, out, ctx)
    return out


def phase_prediction(cost: dict[str, Any], phase: str) -> dict[str, Any] | None:
    """The prediction that covers ``phase``: its own, or its pool's."""
    entry = (cost.get("phases") or {}).get(phase) or {}
    if entry.get("pool"):
        return ((cost.get("pools") or {}).get(entry["pool"]) or {}).get("predicted")
    return entry.get("predicted")
