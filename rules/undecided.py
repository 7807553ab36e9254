"""Which rules an unknown fact keeps undecided: their condition is neither true nor false until
the fact is known.

A rule's ``when`` is evaluated in three values: an atom that reads one of the unknown paths is
"unknown", ``all``/``any``/``not`` combine as in Kleene's logic, and every other atom is
evaluated on the draft as usual. A rule whose condition comes out unknown could apply once the
fact is given (the plan's note for an unknown model architecture names them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cgconfig.draft import Draft
from cgconfig.rules.evaluate import evaluate

if TYPE_CHECKING:
    from cgconfig.rules.apply import RulesView


def _reads(cond: dict[str, Any], unknown: frozenset[str]) -> bool:
    (_, body), = cond.items()
    return isinstance(body, dict) and (body.get("path") in unknown or body.get("ref") in unknown)


def evaluate3(cond: dict[str, Any], draft: Draft, levels: dict[str, str],
              unknown: frozenset[str]) -> bool | None:
    """The condition's value, or ``None`` when it depends on a path in ``unknown``."""
    (op, body), = cond.items()
    if op in ("all", "any"):
        values = [evaluate3(c, draft, levels, unknown) for c in body]
        decisive = op == "any"  # any: one True decides; all: one False decides
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if op == "not":
        inner = evaluate3(body, draft, levels, unknown)
        return None if inner is None else not inner
    if _reads(cond, unknown):
        return None
    return evaluate(cond, draft, levels, [])


def undecided_rules(rule_set: RulesView, draft: Draft, unknown: frozenset[str],
                    disabled: list[str]) -> list[str]:
    """Ids of the active, non-advice rules whose condition depends on the ``unknown`` paths."""
    levels = rule_set.levels()
    return [r.id for r in rule_set.compiled()
            if r.id not in disabled and r.origin != "advice"
            and evaluate3(r.when, draft, levels, unknown) is None]
