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


def test_apply_advice_errors_name_the_flag_and_offer_the_advice_ids() -> None:
    with pytest.raises(InputError) as typo:
        resolve_args([*LINE, "--apply-advice", "attention.full-prefill-needs-alway"])
    assert str(typo.value).startswith("--apply-advice: unknown rule")
    assert f"did you mean {ADVICE!r}" in str(typo.value)
    with pytest.raises(InputError) as upstream:
        resolve_args([*LINE, "--apply-advice", "breakable.pipeline-parallel"])
    assert "is not advice (origin: upstream)" in str(upstream.value)


def test_cli_table_lists_advice_and_exits_2_on_a_bad_id(capsys: pytest.CaptureFixture[str]) -> None:
    from cgconfig.cli.main import main

    assert main(["resolve", *LINE]) == 0
    out = capsys.readouterr().out
    assert f"+ {ADVICE} (constraint, advised)" in out
    assert f"apply with --apply-advice {ADVICE}" in out
    assert main(["resolve", *LINE, "--apply-advice", "no.such-rule"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--apply-advice" in err
