"""The plan's start-up cost in the table (:func:`cost_lines`) and in ``cgconfig explain
cost.<phase>`` / ``cost.fit`` (:func:`explain_lines`)."""

from __future__ import annotations

from typing import Any

from cgconfig.plan import Plan

COST_KEYS = ("cost.decode", "cost.prefill", "cost.fit")


def _range(triple: dict[str, float] | None, unit: str, digits: int) -> str:
    if not triple:
        return "not predicted"
    return (f"~{triple['expected']:.{digits}f} {unit} "
            f"({triple['low']:.{digits}f}–{triple['high']:.{digits}f})")


def _reservation(entry: dict[str, Any]) -> str:
    res = entry.get("engine_reservation")
    if not res:
        return ""
    if res.get("gib") is None:
        return f"; engine estimates at boot (≥ {res.get('floor_gib', 0):.3f} GiB)"
    return f"; engine reserves {res['gib']:.2f} GiB"


def cost_lines(plan: Plan) -> list[str]:
    """``Start-up cost per rank (predicted): decode 36 graphs ~0.95 GiB (…), ~7.2 s (…)``, one
    line per capturing phase, then the fit against the GPU when it is not plain."""
    cost = plan.cost
    if not cost:
        return []
    lines = []
    for phase, entry in cost.get("phases", {}).items():
        pred = entry.get("predicted")
        if entry.get("graphs") and entry.get("pool"):
            lines.append(f"  {phase}: {entry['graphs']} graphs, in the shared pool "
                         f"{entry['pool']}{_reservation(entry)}")
        if not entry.get("graphs") or not pred:
            continue
        lines.append(f"  {phase}: {entry['graphs']} graphs, "
                     f"{_range(pred.get('graph_memory_gib'), 'GiB', 2)}, "
                     f"{_range(pred.get('capture_seconds'), 's', 1)}{_reservation(entry)}")
    for name, pool in cost.get("pools", {}).items():
        pred = pool.get("predicted")
        if pred:
            lines.append(f"  {name} ({' + '.join(pool['phases'])}): {pool['graphs']} graphs, "
                         f"{_range(pred.get('graph_memory_gib'), 'GiB', 2)}, "
                         f"{_range(pred.get('capture_seconds'), 's', 1)}")
    if not lines:
        return []
    out = ["Start-up cost per rank (cgconfig's prediction; `cgconfig explain cost.decode` "
           "says how):", *lines]
    model_unknown = cost.get("model", {}).get("unknown", [])
    # Without a config.json every model fact is unknown: one entry says so.
    unknown = [u for u in model_unknown if u.startswith("model config")] or sorted(
        {u for e in [*cost["phases"].values(), *cost.get("pools", {}).values()]
         for u in (e.get("predicted") or {}).get("unknown", [])} | set(model_unknown))
    if unknown:
        out.append(f"  unknown (range widened): {', '.join(unknown)}")
    for text in cost.get("not_predicted", []):
        out.append(f"  not predicted: {text}")
    fit = cost.get("fit") or {}
    if fit.get("status") in ("does-not-fit", "tight"):
        out.append(f"  {'DOES NOT FIT' if fit['status'] == 'does-not-fit' else 'tight'}: "
                   f"{fit['why']}")
        out.extend(f"    cut {cut}" for cut in fit.get("cut", []))
    return out


def explain_lines(plan: Plan, key: str) -> list[str]:
    """How one phase's cost (or the fit) was computed, line by line."""
    cost = plan.cost
    if key == "cost.fit":
        fit = cost.get("fit") or {}
        lines = [f"cost.fit = {fit.get('status', 'unknown')}"]
        if fit.get("why"):
            lines.append(f"  why: {fit['why']}")
        for name, value in (fit.get("breakdown_gib") or {}).items():
            lines.append(f"  {name}: {value} GiB")
        lines.extend(f"  cut {cut}" for cut in fit.get("cut", []))
        return lines
    phase = key.split(".", 1)[1]
    entry = cost.get("phases", {}).get(phase, {})
    pred = entry.get("predicted") or {}
    lines = [f"{key}: {entry.get('graphs', 0)} graphs ({entry.get('backend')}, largest "
             f"{entry.get('max_size')}), per rank"]
    if not entry.get("graphs"):
        return [*lines, "  no graphs: nothing to capture"]
    pool = cost.get("pools", {}).get(entry.get("pool") or "")
    if pool:
        pred = pool.get("predicted") or {}
        lines.append(f"  in the shared pool {entry['pool']} ({' + '.join(pool['phases'])}: "
                     f"{pool['graphs']} graphs, largest {pool['max_size']}), predicted once: "
                     f"{pool['why']}")
    lines.append(f"  memory {_range(pred.get('graph_memory_gib'), 'GiB', 3)}; "
                 f"seconds {_range(pred.get('capture_seconds'), 's', 2)}")
    lines.extend(f"  how: {h}" for h in pred.get("how", []))
    if pred.get("class"):
        lines.append(f"  class {pred['class']} from {pred.get('coefficients')} "
                     f"(fitted on {pred.get('fitted_on')} captures)")
    res = entry.get("engine_reservation")
    if res:
        shown = "measured at boot" if res.get("gib") is None else f"{res['gib']} GiB"
        lines.append(f"  engine reservation: {shown} — {res.get('how', '')} "
                     f"[{res.get('source', '')}]")
    model = cost.get("model", {})
    facts = {k: model[k] for k in ("layers", "hidden", "intermediate", "vocab", "experts",
                                   "dtype") if k in model}
    facts["weights_gib_per_rank"] = model.get("weights_gib_per_rank")
    deploy = {k: v for k, v in cost.get("deployment", {}).items() if v not in (None, "none")}
    lines.append(f"  facts: {', '.join(f'{k} {v}' for k, v in {**facts, **deploy}.items())}")
    unknown = [*pred.get("unknown", []), *model.get("unknown", [])]
    if unknown:
        lines.append(f"  unknown (range widened): {', '.join(unknown)}")
    lines.extend(f"  not predicted: {t}" for t in cost.get("not_predicted", []))
    return lines
