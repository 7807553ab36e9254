"""cgconfig's thin torch runtime: capture the graphs a plan asks for, replay them per batch.

Only :mod:`.plan_view` works without torch; the other names load torch on first use, so
``import cgconfig.runtime`` stays cheap and safe on machines that only resolve plans.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .plan_view import PhaseCapture, phase_capture

if TYPE_CHECKING:  # what the lazy names resolve to, for type checkers
    from .breakable import BridgePool, eager_on_graph
    from .buffers import Axis, PaddingPolicy, RowCounts, Slot, StaticBuffers
    from .distributed import CaptureSettingsError, PlanMismatchError
    from .graphs import Backend
    from .guards import Fallback, Guards
    from .runner import PhaseRunner, capture_report
    from .shape_key import GraphRegistry, ShapeKey, pad_to_bucket
    from .stats import RunnerStats, write_histograms
    from .vote import VoteResult

_LAZY = {
    "ShapeKey": "shape_key",
    "GraphRegistry": "shape_key",
    "pad_to_bucket": "shape_key",
    "Axis": "buffers",
    "PaddingPolicy": "buffers",
    "Slot": "buffers",
    "RowCounts": "buffers",
    "StaticBuffers": "buffers",
    "eager_on_graph": "breakable",
    "BridgePool": "breakable",
    "Backend": "graphs",
    "Fallback": "guards",
    "Guards": "guards",
    "RunnerStats": "stats",
    "write_histograms": "stats",
    "PhaseRunner": "runner",
    "capture_report": "runner",
    "CaptureSettingsError": "distributed",
    "PlanMismatchError": "distributed",
    "VoteResult": "vote",
}

__all__ = [
    "Axis",
    "Backend",
    "BridgePool",
    "CaptureSettingsError",
    "Fallback",
    "GraphRegistry",
    "Guards",
    "PaddingPolicy",
    "PhaseCapture",
    "PhaseRunner",
    "PlanMismatchError",
    "RowCounts",
    "RunnerStats",
    "ShapeKey",
    "Slot",
    "StaticBuffers",
    "VoteResult",
    "capture_report",
    "eager_on_graph",
    "pad_to_bucket",
    "phase_capture",
    "write_histograms",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
