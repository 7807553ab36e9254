"""``--check`` levels decide from the plan's decisions alone (cgconfig/check.py)."""

from __future__ import annotations

import pytest

from cgconfig import resolve_args
from cgconfig.check import check_failures, failure_message, fires, validate_allowed
from cgconfig.errors import InputError
from cgconfig.plan import Change, Decision


def _decision(kind: str, outcome: str, changed: bool = True) -> Decision:
    changes = [Change("decode.backend", "full", "breakable")] if changed else []
    return Decision(rule="r.x", kind=kind, outcome=outcome, why="", changes=changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "outcome", "changed", "overrides", "any_change"), [
    ("constraint", "overrode-lock", True, True, True),
    ("constraint", "applied", True, False, True),
    ("policy", "applied", True, False, True),
    ("policy", "skipped-locked", True, False, False),
    ("constraint", "advised", True, False, False),
    ("resolver", "applied", True, False, False),
    ("constraint", "overrode-lock", False, False, False),
    ("constraint", "warned", False, False, False),
])
def test_which_decisions_fail_each_level(kind: str, outcome: str, changed: bool,
                                         overrides: bool, any_change: bool) -> None:
    decision = _decision(kind, outcome, changed)
    assert fires(decision, "overrides") is overrides
    assert fires(decision, "any") is any_change


def test_allow_excuses_a_rule_and_the_message_names_the_users_input() -> None:
    plan = resolve_args(["--attention-backend", "torch_native", "--cuda-graph-backend-decode", "full"])
    failures = check_failures(plan, "overrides")
    assert [d.rule for d in failures] == ["attention.torch-native-eager"]
    assert failure_message(failures, "overrides") == (
        "attention.torch-native-eager overrode what you set (--cuda-graph-backend-decode); "
        "to accept it: --allow attention.torch-native-eager")
    assert check_failures(plan, "overrides", ["attention.torch-native-eager"]) == []


def test_allow_ids_are_rule_ids_or_vllm_steps() -> None:
    validate_allowed(["role.x", "vllm.B3", "vllm.A8", "vllm.sizes"], ["role.x"])
    with pytest.raises(InputError, match=r"did you mean 'role\.x'"):
        validate_allowed(["role.y"], ["role.x"])
    with pytest.raises(InputError):
        validate_allowed(["vllm.B"], ["role.x"])
