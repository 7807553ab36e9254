"""Compare two plan documents (``Plan.to_dict()`` / ``resolve -o json``): the data behind
``cgconfig diff``.

Plain data in, plain data out: scalar keys that changed, size lists as added/removed sizes
(with compact ranges), decisions added/removed/changed, warnings added/removed, and the
deployment facts that differ (shown as context; they do not by themselves make plans differ).
"""

from __future__ import annotations

from typing import Any

#: Plan sections whose differences make two plans different, in display order.
COMPARED = ("config", "capture", "options")


def size_ranges(values: list[int]) -> list[str]:
    """Compress ascending sizes into runs: ``[392, 400, …, 512]`` → ``["392..512 step 8"]``,
    ``[5, 6, 7]`` → ``["5..7"]``; runs shorter than three stay single numbers."""
    out: list[str] = []
    index = 0
    while index < len(values):
        end = index
        if index + 2 < len(values):
            step = values[index + 1] - values[index]
            while end + 1 < len(values) and values[end + 1] - values[end] == step:
                end += 1
            if end - index < 2:
                end = index
        if end == index:
            out.append(str(values[index]))
        else:
            step = values[index + 1] - values[index]
            tail = "" if step == 1 else f" step {step}"
            out.append(f"{values[index]}..{values[end]}{tail}")
        index = end + 1
    return out


def _is_size_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)


def _flatten(data: Any, prefix: str) -> dict[str, Any]:
    """``{"decode": {"max_bs": 8}}`` → ``{"decode.max_bs": 8}``; lists stay whole."""
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def _section_keys(plan: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section in COMPARED:
        prefix = "" if section == "config" else section
        flat.update(_flatten(plan.get(section, {}), prefix))
    return flat


def _compare_values(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[dict[str, Any]],
                                                                    list[dict[str, Any]]]:
    changes: list[dict[str, Any]] = []
    sizes: list[dict[str, Any]] = []
    for key in [*a, *(k for k in b if k not in a)]:
        old, new = a.get(key), b.get(key)
        if old == new:
            continue
        if _is_size_list(old or []) and _is_size_list(new or []) and (
                isinstance(old, list) or isinstance(new, list)):
            before, after = set(old or []), set(new or [])
            added, removed = sorted(after - before), sorted(before - after)
            sizes.append({"key": key, "added": added, "removed": removed,
                          "added_ranges": size_ranges(added),
                          "removed_ranges": size_ranges(removed),
                          "count": [len(before), len(after)]})
        else:
            changes.append({"key": key, "a": old, "b": new})
    return changes, sizes


def _decision_summary(decision: dict[str, Any]) -> dict[str, Any]:
    return {"rule": decision["rule"], "kind": decision.get("kind"),
            "outcome": decision.get("outcome"), "changes": decision.get("changes", [])}


def _compare_decisions(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    by_rule_a = {d["rule"]: d for d in a}
    by_rule_b = {d["rule"]: d for d in b}
    added = [_decision_summary(d) | {"why": d.get("why", "")} for r, d in by_rule_b.items()
             if r not in by_rule_a]
    removed = [_decision_summary(d) | {"why": d.get("why", "")} for r, d in by_rule_a.items()
               if r not in by_rule_b]
    changed = []
    for rule, old in by_rule_a.items():
        new = by_rule_b.get(rule)
        if new is None:
            continue
        old_s, new_s = _decision_summary(old), _decision_summary(new)
        if (old_s["outcome"], old_s["changes"]) != (new_s["outcome"], new_s["changes"]):
            changed.append({"rule": rule, "kind": old_s["kind"], "a": old_s, "b": new_s})
    return {"added": added, "removed": removed, "changed": changed}


def _compare_lists(a: list[str], b: list[str]) -> dict[str, list[str]]:
    return {"added": [w for w in b if w not in a], "removed": [w for w in a if w not in b]}


def diff_plans(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Everything that differs between plan documents ``a`` and ``b``; ``equal`` is True when
    config, capture, options, decisions and warnings all match."""
    changes, sizes = _compare_values(_section_keys(a), _section_keys(b))
    facts, _ = _compare_values(_flatten(a.get("facts", {}), ""), _flatten(b.get("facts", {}), ""))
    decisions = _compare_decisions(a.get("decisions", []), b.get("decisions", []))
    warnings = _compare_lists(a.get("warnings", []), b.get("warnings", []))
    equal = not (changes or sizes or any(decisions.values()) or any(warnings.values()))
    return {"equal": equal, "facts": facts, "config": changes, "sizes": sizes,
            "decisions": decisions, "warnings": warnings}
