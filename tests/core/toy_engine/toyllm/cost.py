"""ToyLLM's answers to the cost core: no reservation, the whole GPU as its budget."""

from __future__ import annotations

from typing import Any

from cgconfig.cost.engine_part import CostContext, EngineCost


def reservation(phase: str, sizes: tuple[int, ...], ctx: CostContext) -> dict[str, Any] | None:
    return None


COST = EngineCost(reservation=reservation, cuts={"decode": "--max-batch-size"},
                  log_groups={"decode": "decode"})
