"""vLLM's resolution (the plug-in part ``steps``): its dialect step decides the modes and the
sizes as vLLM's ``VllmConfig`` and the worker's Stage B do; its rules run once that is resolved;
the capture step lists the graphs vLLM's model runner captures from its one size list (FULL
uniform-decode graphs inside the runner's window, mixed-batch graphs:
:mod:`cgconfig.engines.vllm.captured`).
"""

from __future__ import annotations

from cgconfig.engines.vllm.stage_b import RunnerCapture
from cgconfig.resolve.capture import capture_listed
from cgconfig.resolve.pipeline import LISTED_STEPS, Run, Step


def capture_graphs(run: Run) -> None:
    """Step ``capture``: the decode phase from the runner's window (``draft.decode_filter``),
    the prefill phase from its mixed-batch graphs (both from one ``captured_lists``)."""
    draft = run.checked()[0]
    capture = capture_listed(draft)
    window = draft.decode_filter
    lists = window.lists if isinstance(window, RunnerCapture) else None
    if lists is not None and draft.get("prefill.backend") != "disabled":
        mixed = list(lists.mixed)
        capture["prefill"] = {"backend": draft.get("prefill.backend") if mixed else "disabled",
                              "sizes": mixed}
    run.capture = capture


STEPS: tuple[Step, ...] = tuple((name, capture_graphs if name == "capture" else step)
                                for name, step in LISTED_STEPS)
