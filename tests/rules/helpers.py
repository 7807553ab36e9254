"""Shared helpers for the rule-pack tests: run an example, read a plan's values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cgconfig import resolve_args
from cgconfig.errors import RuleRefusal
from cgconfig.plan import Decision, Plan
from cgconfig.rules.schema import Example, Rule


@dataclass
class ExampleRun:
    """What running one example gave: a plan, or the refusal it raised."""

    plan: Plan | None
    refusal: RuleRefusal | None

    def decision(self, rule_id: str) -> Decision | None:
        """The decision the rule left in the plan, if any."""
        if self.plan is None:
            return None
        return next((d for d in self.plan.decisions if d.rule == rule_id), None)


def run_example(example: Example) -> ExampleRun:
    """Resolve the example's command line through the whole resolver and every shipped pack."""
    try:
        return ExampleRun(resolve_args(list(example.args)), None)
    except RuleRefusal as exc:
        return ExampleRun(None, exc)


def final_value(plan: Plan, key: str) -> Any:
    """A dotted key's final value: ``decode.backend`` or ``options.debug_cuda_graph``."""
    group, name = key.split(".", 1)
    if group == "options":
        return plan.options[name]
    return plan.config[group][name]


def check_example(rule: Rule, example: Example) -> None:
    """Assert the example behaves as it says: fires or not, outcome, final values."""
    run = run_example(example)
    refused_here = run.refusal is not None and f"[rule {rule.id}]" in str(run.refusal)
    if example.outcome == "refused" or (example.fires and refused_here):
        assert refused_here, f"{rule.id}: expected a refusal from this rule, got {run.refusal!r}"
        return
    assert run.refusal is None, f"{rule.id}: unexpected refusal {run.refusal}"
    assert run.plan is not None
    decision = run.decision(rule.id)
    if example.fires:
        assert decision is not None, (
            f"{rule.id} did not fire for {example.args}; decisions: "
            f"{[d.rule for d in run.plan.decisions]}")
        if example.outcome is not None:
            assert decision.outcome == example.outcome, (
                f"{rule.id}: outcome {decision.outcome!r}, expected {example.outcome!r}")
    else:
        assert decision is None, (
            f"{rule.id} fired ({decision.outcome if decision else ''}) for {example.args}")
    for key, expected in example.expect.items():
        actual = final_value(run.plan, key)
        assert actual == expected, f"{rule.id}: {key} is {actual!r}, expected {expected!r}"
