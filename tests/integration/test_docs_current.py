"""Checked-in JSON Schemas match what the code produces, and real plans validate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.cli.main import main

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schema"


@pytest.mark.parametrize("what", ["config", "deployment", "plan", "rules"])
def test_checked_in_schema_is_current(what: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", what]) == 0
    produced = json.loads(capsys.readouterr().out)
    checked_in = json.loads((SCHEMAS / f"{what}.schema.json").read_text())
    assert produced == checked_in, f"regenerate: cgconfig schema {what} > docs/schema/{what}.schema.json"


@pytest.mark.parametrize("argv", [
    [], ["--disaggregation-mode", "prefill", "--cuda-graph-backend-decode", "full"],
    ["--max-running-requests", "700", "--tp-size", "8", "--gpu-memory-gib", "141"],
    ["--enable-torch-compile", "--device", "cpu"],
])
def test_real_plans_validate_against_the_plan_schema(argv: list[str]) -> None:
    from cgconfig.plan_schema import PlanDocument

    PlanDocument.model_validate(resolve_args(argv).to_dict())
