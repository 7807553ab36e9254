"""Advice rules (``origin: advice``): listed in the plan, applied only with --apply-advice."""

from __future__ import annotations

import pytest

from cgconfig import resolve_args
from cgconfig.errors import InputError

ADVICE = "attention.full-prefill-needs-always"
LINE = ["--attention-backend", "flashinfer", "--cuda-graph-backend-prefill", "full"]


def test_advice_is_listed_but_not_applied_by_default() -> None:
    plan = resolve_args(LINE)
    assert plan.config["prefill"]["backend"] == "full"  # what SGLang 0.5.23 does
    decision = next(d for d in plan.decisions if d.rule == ADVICE)
    assert decision.outcome == "advised"
    assert [(c.key, c.after) for c in decision.changes] == [("prefill.backend", "breakable")]
    assert f"--apply-advice {ADVICE}" in (decision.hint or "")


def test_apply_advice_changes_the_plan_and_says_so() -> None:
    plan = resolve_args([*LINE, "--apply-advice", ADVICE])
    assert plan.config["prefill"]["backend"] == "breakable"
    assert any(f"advice {ADVICE} applied" in w for w in plan.warnings)


@pytest.mark.parametrize("rule_id", ["breakable.pipeline-parallel", "no.such-rule"])
def test_apply_advice_names_an_advice_rule(rule_id: str) -> None:
    with pytest.raises(InputError):
        resolve_args([*LINE, "--apply-advice", rule_id])
