"""ToyLLM's side of ``cgconfig verify``: its decode graphs, one group."""

from __future__ import annotations

from typing import Any

from cgconfig.plan import Plan
from cgconfig.verify.compare import Expected

LAUNCH_ENTRY = ("toyllm", "serve")
EAGER_FLAGS: dict[str, str] = {}


def expected_groups(plan: Plan, argv: list[str]) -> list[Expected]:
    del argv
    return [Expected("decode", "decode", plan.backend("decode"), plan.capture_sizes("decode"))]


step_sizes = Plan.capture_sizes


def launch_model(args: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
    del args
    return [], frozenset()


def old_spelling(spelling: str, value: Any) -> None:
    del spelling, value
