"""The plan's ``cost`` section: per phase the graphs, the engine's reservation and cgconfig's
prediction; the totals; and whether weights, KV reservation and graphs fit the GPU."""

from __future__ import annotations

from typing import Any

from cgconfig.cost import coefficients as co
from cgconfig.cost import reserve
from cgconfig.cost.predict import PhaseInputs, Prediction, predict
from cgconfig.cost.shape import ModelFacts, read_model_facts


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


def _not_predicted(coeffs: co.Coefficients, dialect: str, facts: dict[str, Any],
                   options: dict[str, Any]) -> list[str]:
    out = []
    if dialect == "vllm" or options.get("enable_torch_compile"):
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
              sglang_reserve: dict[str, Any] | None = None,
              model: ModelFacts | None = None,
              coeffs: co.Coefficients | None = None) -> dict[str, Any]:
    """The ``cost`` section for one resolved plan."""
    coeffs = coeffs or co.load()
    model = model or read_model_facts(facts)
    deploy = _deployment(facts, engine)
    tp = max(int(deploy["tp"] or 1), 1)
    hidden = model.hidden / tp if model.hidden else None
    phases: dict[str, Any] = {}
    preds: list[Prediction] = []
    for phase, cap in capture.items():
        sizes = tuple(cap.get("sizes") or ())
        backend = str(cap.get("backend"))
        entry: dict[str, Any] = {"graphs": len(sizes), "backend": backend,
                                 "max_size": max(sizes) if sizes else None}
        if dialect == "sglang" and sglang_reserve is not None:
            entry["engine_reservation"] = reserve.sglang_reserve(
                sglang_reserve["parts"], engine_label, phase, sglang_reserve["why"])
        elif dialect == "vllm" and sizes:
            entry["engine_reservation"] = reserve.vllm_estimate(len(sizes), estimating=True)
        elif dialect == "trtllm" and sizes:
            entry["engine_reservation"] = reserve.trtllm_reserve()
        pred = predict(PhaseInputs(dialect, phase, backend, sizes, model.layers, hidden, tp,
                                   model.vocab),
                       coeffs)
        if pred is not None:
            entry["predicted"] = pred.to_dict()
            preds.append(pred)
        phases[phase] = entry
    weights = model.weights_gib(tp * max(int(deploy["pp"] or 1), 1))
    out: dict[str, Any] = {
        "per_rank": True,
        "model": {**model.to_dict(), "weights_gib_per_rank": None if weights is None
                  else round(weights, 2)},
        "deployment": deploy, "phases": phases,
        "total": {"graph_memory_gib": _sum(preds, "memory_gib"),
                  "capture_seconds": _sum(preds, "seconds")},
        "not_predicted": _not_predicted(coeffs, dialect, facts, options),
        "coefficients": sorted({p.origin for p in preds if p.origin}),
    }
    if sglang_reserve is not None:
        out["engine_reserve"] = {
            "graph_gib": round(sum(sglang_reserve["parts"].values()) / 1024, 6),
            "reserved_gib": round(sglang_reserve["reserved_mib"] / 1024, 6),
            "applied": sglang_reserve["applied"],
            "source": f"{engine_label} arg_groups/memory_hook.py:handle_gpu_memory_settings: "
                      "the memory kept out of the static pool (graph reserve included)"}
    from cgconfig.cost.fit_check import fit_check

    out["fit"] = fit_check(dialect, out, engine, sglang_reserve)
    return out
