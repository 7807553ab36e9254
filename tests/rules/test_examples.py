"""Every shipped rule's examples, run through the whole resolver with every shipped pack."""

from __future__ import annotations

import pytest

from cgconfig.rules.loader import load_rule_set
from cgconfig.rules.schema import Example, Rule

from .helpers import check_example, run_example

RULES = load_rule_set().rules
CASES = [(rule, index, example) for rule in RULES for index, example in enumerate(rule.examples)]


@pytest.mark.parametrize(("rule", "index", "example"), CASES,
                         ids=[f"{rule.id}#{index}" for rule, index, _ in CASES])
def test_rule_example(rule: Rule, index: int, example: Example) -> None:
    check_example(rule, example)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_is_reachable(rule: Rule) -> None:
    """At least one example really fires the rule (a decision, a warning or a refusal)."""
    fired = False
    for example in rule.examples:
        if not example.fires:
            continue
        run = run_example(example)
        if run.refusal is not None:
            fired = fired or f"[rule {rule.id}]" in str(run.refusal)
        else:
            fired = fired or run.decision(rule.id) is not None
    assert fired, f"no example fires {rule.id}"


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_reason_placeholders_are_filled(rule: Rule) -> None:
    """A firing example leaves no ``{…}`` placeholder in the recorded reason or hint."""
    for example in rule.examples:
        run = run_example(example)
        decision = run.decision(rule.id)
        if decision is None:
            continue
        assert "{" not in decision.why, decision.why
        assert decision.hint is None or "{" not in decision.hint, decision.hint


def test_every_rule_documents_itself() -> None:
    for rule in RULES:
        assert rule.hint, f"{rule.id} has no hint"
        assert rule.source.strip(), f"{rule.id} has no source"
        assert len(rule.reason) > 40, f"{rule.id}: the reason is too thin to act on"
