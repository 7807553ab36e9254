"""TensorRT-LLM's side of ``cgconfig verify`` (the plug-in parts ``expected_groups``,
``step_sizes``, ``eager_flags``, ``launch_entry``, ``launch_model``, ``old_spelling``): its log
shows the decode graphs (``cuda_graph_config.batch_sizes``); the piecewise prefill graphs print
no capture lines to compare.
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import Plan
from cgconfig.verify.compare import Expected

#: ``trtllm-serve``.
LAUNCH_ENTRY = ("trtllm-serve",)
#: No per-step lines name a bound.
EAGER_FLAGS: dict[str, str] = {}


def expected_groups(plan: Plan, argv: list[str]) -> list[Expected]:
    """The decode graphs, as one group."""
    del argv
    if plan.backend("decode") == "disabled" or not plan.capture_sizes("decode"):
        return []
    return [Expected("decode", "decode", plan.backend("decode"), plan.capture_sizes("decode"))]


#: The capture list a logged step of a phase replays from: that phase's own.
step_sizes = Plan.capture_sizes


def launch_model(args: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
    """The model is not read back from a TensorRT-LLM log."""
    del args
    return [], frozenset()


def old_spelling(spelling: str, value: Any) -> None:
    """An argument the table does not know is listed as unknown, not guessed."""
    del spelling, value
