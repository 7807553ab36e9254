"""ToyLLM's sizes count requests."""

from __future__ import annotations

from typing import Any

from cgconfig.plan import phase_units


def units(derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return phase_units("requests", 1)
