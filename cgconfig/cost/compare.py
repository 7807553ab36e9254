"""Set cgconfig's prediction beside what a server log measured (``cgconfig verify``).

One row per logged capture group whose phase cgconfig predicts on its own (the engine's
``cost`` part maps its log's groups to phases,
:attr:`~cgconfig.cost.engine_part.EngineCost.log_groups`); the error is the ratio
``predicted / measured`` and whether the measurement fell in the predicted range. A log's
whole-capture total (one engine logs its one graph pool: ``Graph capturing finished ..., took
X GiB``) is compared with the plan's total, which for phases that share a pool is the pool's
one prediction. Draft graphs are not predicted and have no row.
"""

from __future__ import annotations

from typing import Any


def _row(what: str, measured: float | None, predicted: dict[str, float] | None,
         unit: str) -> dict[str, Any] | None:
    if measured is None or measured <= 0 or not predicted:
        return None
    expected = predicted["expected"]
    return {"what": what, "unit": unit, "measured": measured, "predicted": expected,
            "low": predicted["low"], "high": predicted["high"],
            "error_pct": round(100 * (expected - measured) / measured, 1),
            "in_range": predicted["low"] <= measured <= predicted["high"]}


def prediction_errors(cost: dict[str, Any], record: Any) -> list[dict[str, Any]]:
    """Rows comparing the plan's ``cost`` with the log's measured captures."""
    from cgconfig.cost.plan_cost import engine_cost

    rows: list[dict[str, Any] | None] = []
    phases = cost.get("phases") or {}
    groups = engine_cost(cost["engine"]).log_groups if cost.get("engine") else {}
    for group, capture in record.captures.items():
        phase = groups.get(group)
        pred = (phases.get(phase) or {}).get("predicted") if phase else None
        if not pred:
            continue
        rows.append(_row(f"{group} memory", capture.memory_gib, pred.get("graph_memory_gib"),
                         "GiB"))
        rows.append(_row(f"{group} seconds", capture.seconds, pred.get("capture_seconds"), "s"))
    total = cost.get("total") or {}
    rows.append(_row("total memory", record.total_memory_gib, total.get("graph_memory_gib"),
                     "GiB"))
    rows.append(_row("total seconds", record.total_seconds, total.get("capture_seconds"), "s"))
    return [r for r in rows if r is not None]


def report_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The text report's lines for :func:`prediction_errors`' rows."""
    if not rows:
        return []
    out = ["cgconfig's start-up prediction against the log:"]
    for r in rows:
        mark = "in range" if r["in_range"] else "outside the range"
        out.append(f"  {r['what']}: log {r['measured']:.2f} {r['unit']}, predicted "
                   f"{r['predicted']:.2f} ({r['low']:.2f}–{r['high']:.2f}), error "
                   f"{r['error_pct']:+.0f} % ({mark})")
    return out
