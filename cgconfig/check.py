"""``resolve --check``: which decisions make a launch script stop (exit 10).

Two levels:

* ``overrides`` (plain ``--check``): a constraint changed a value the user set (outcome
  ``overrode-lock``). Intended policies (a prefill-only server drops its decode graphs, a
  default is derived) and rules that left the user's value alone pass. An engine refusal is
  already exit 2 before any check runs.
* ``any`` (``--check=any``): any rule changed anything from the inputs, user-set or default.

``--allow RULE_ID`` (repeatable) excuses one rule at either level.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from cgconfig.errors import InputError, did_you_mean
from cgconfig.plan import Decision, Plan

CheckLevel = Literal["overrides", "any"]
CHECK_LEVELS: tuple[CheckLevel, ...] = ("overrides", "any")
#: vLLM's own resolution steps, recorded as ``vllm.<step>`` decisions
#: (cgconfig/engines/vllm/stage_b.py): A8, A19-A22, B2-B7 and the size grid.
VLLM_STEP_ID = re.compile(r"vllm\.(A\d+|B\d+|sizes)")


def fires(decision: Decision, level: CheckLevel) -> bool:
    """Whether ``decision`` makes ``--check`` at ``level`` fail."""
    if level == "any":
        return decision.downgraded
    return decision.overrode_input


def check_failures(plan: Plan, level: CheckLevel, allow: Iterable[str] = ()) -> list[Decision]:
    """The decisions that fail the check, minus the rules ``--allow`` excuses."""
    excused = set(allow)
    return [d for d in plan.decisions if fires(d, level) and d.rule not in excused]


def failure_message(failures: list[Decision], level: CheckLevel) -> str:
    """The one ``check:`` line on stderr, naming each rule and how to excuse it."""
    rules = sorted({d.rule for d in failures})
    if level == "any":
        what = f"the configuration was changed from the inputs by {', '.join(rules)}"
    else:
        inputs = sorted({i for d in failures for i in d.inputs}) or ["your input"]
        what = f"{', '.join(rules)} overrode what you set ({', '.join(inputs)})"
    return what + "; to accept it: " + " ".join(f"--allow {rule}" for rule in rules)


def validate_allowed(allow: Iterable[str], rule_ids: Iterable[str]) -> None:
    """Every ``--allow`` id names a rule of the loaded packs or a vLLM step (one line, exit 2)."""
    known = sorted(set(rule_ids))
    for rule_id in allow:
        if rule_id in known or VLLM_STEP_ID.fullmatch(rule_id):
            continue
        raise InputError(f"unknown rule {rule_id!r}", where="--allow",
                         allowed=("a rule id from `cgconfig rules list`", "vllm.A8", "vllm.B3"),
                         suggestion=did_you_mean(rule_id, known))
