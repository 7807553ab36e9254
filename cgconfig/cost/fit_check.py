"""Whether weights + KV reservation + predicted graphs fit one GPU, and what to cut if not.

An engine whose memory is budgeted its own way checks it in its ``cost`` part
(:attr:`cgconfig.cost.engine_part.EngineCost.fit_check`: SGLang's static pool). Otherwise the
weights, the predicted graphs and a KV cache must fit in the engine's share of the GPU
(:attr:`~cgconfig.cost.engine_part.EngineCost.budget_fraction`: vLLM's
``--gpu-memory-utilization``, the whole GPU for TensorRT-LLM before its KV cache takes its
fraction): no room left for a KV cache is a failure at start-up.

``tight``: the expected graphs fit, the range's high end does not.
"""

from __future__ import annotations

from typing import Any

from cgconfig.cost.engine_part import CostContext, EngineCost


def _cuts(part: EngineCost, cost: dict[str, Any]) -> list[str]:
    ranked = []
    for phase, entry in cost["phases"].items():
        mem = ((entry.get("predicted") or {}).get("graph_memory_gib") or {}).get("expected")
        if mem:
            ranked.append((mem, f"{phase}: {entry['graphs']} graphs, ~{mem:.2f} GiB: "
                                f"{part.cuts.get(phase, 'fewer sizes')}"))
    for name, pool in (cost.get("pools") or {}).items():
        mem = ((pool.get("predicted") or {}).get("graph_memory_gib") or {}).get("expected")
        if mem:
            flags = "; ".join(f"{p}: {part.cuts.get(p, 'fewer sizes')}" for p in pool["phases"])
            ranked.append((mem, f"{name} ({' + '.join(pool['phases'])}): {pool['graphs']} "
                                f"graphs, ~{mem:.2f} GiB: {flags}"))
    return [text for _, text in sorted(ranked, reverse=True)]


def _generic(part: EngineCost, cost: dict[str, Any]) -> dict[str, Any]:
    gpu = cost["deployment"]["gpu_memory_gib"]
    weights = cost["model"]["weights_gib_per_rank"]
    graphs = cost["total"]["graph_memory_gib"] or {"expected": 0.0, "high": 0.0}
    expected, high = graphs["expected"], graphs["high"]
    budget = gpu * part.budget_fraction
    kv = budget - weights - expected
    breakdown = {"gpu": gpu, "weights": weights, "graphs_expected": expected,
                 "budget": round(budget, 2), "kv_cache": round(kv, 2)}
    status, why = "fits", ""
    if part.budget_source:
        why = f"budget: {part.budget_fraction:g} × GPU ({part.budget_source})"
    if kv <= 0:
        status = "does-not-fit"
        why = (f"weights (~{weights:.1f} GiB) + graphs (~{expected:.2f} GiB) leave no KV "
               f"cache in {budget:.1f} GiB; raise tensor parallelism or cut graphs"
               + (f" [{part.budget_source}]" if part.budget_source else ""))
    elif budget - weights - high <= 0:
        status, why = "tight", f"with the graphs' high estimate ({high:.2f} GiB) no KV cache is left"
    return {"status": status, "why": why, "breakdown_gib": breakdown}


def fit_check(part: EngineCost, cost: dict[str, Any], ctx: CostContext) -> dict[str, Any]:
    """``{"status": fits|tight|does-not-fit|unknown, "why", "cut", "breakdown_gib"}``."""
    if cost["deployment"]["gpu_memory_gib"] is None:
        return {"status": "unknown", "why": "GPU memory unknown (give --gpu-memory-gib)"}
    if cost["model"]["weights_gib_per_rank"] is None:
        missing = ", ".join(cost["model"].get("unknown") or []) or "the model's shapes"
        return {"status": "unknown", "why": f"model weights unknown (not known: {missing})"}
    out = part.fit_check(cost, ctx) or _generic(part, cost)
    out["breakdown_gib"] = {k: round(v, 3) for k, v in out["breakdown_gib"].items()}
    if out["status"] != "fits":
        out["cut"] = _cuts(part, cost)
    return out
