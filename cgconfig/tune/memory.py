"""How many graphs fit a memory budget, with the memory per graph taken from a server's log.

Two estimates, the log's own numbers only (``cgconfig verify``'s readers):

* vLLM 0.33.0 logs, at DEBUG, its per-mode profile (``v1/worker/gpu_model_runner.py``):
  ``Estimated FULL CUDA graph memory: F MiB first-capture + (N-1) × P MiB per-graph``; ``k``
  graphs then take ``F + (k-1)·P``, so ``k = 1 + floor((budget - F) / P)``;
* otherwise the logged total over the logged count: SGLang's decode ``mem usage`` over its
  ``bs=[...]`` length, or vLLM's ``Graph capturing finished ..., took X GiB`` over the graphs
  captured; ``k = floor(budget / (total / count))``.

The result is an upper bound on the graph count handed to the optimiser (``--max-graphs``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cgconfig.errors import InputError
from cgconfig.tune.optimize import MAX_GRAPHS


@dataclass(frozen=True)
class GraphBudget:
    """The graph count a budget allows and how the memory per graph was estimated."""

    budget_gib: float
    graphs: int
    how: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``tune.memory_budget``)."""
        return {"max_graph_memory_gib": self.budget_gib, "graphs": self.graphs,
                "estimate": self.how}


def graphs_for_budget(budget_gib: float, log: str) -> GraphBudget:
    """The most graphs within ``budget_gib``, from the log at ``log``."""
    from cgconfig.verify.read import read_log

    where = f"--memory-log {log}"
    record = read_log(log, flag="--memory-log")
    first = record.estimate_gib.get("FULL first graph")
    per = record.estimate_gib.get("FULL per further graph")
    if first is not None and per is not None and per > 0:
        if budget_gib < first:
            raise InputError(f"the first FULL graph alone takes {first:.2f} GiB, above the "
                             f"budget of {budget_gib:g} GiB", where="--max-graph-memory")
        graphs = 1 + math.floor((budget_gib - first) / per)
        how = (f"vLLM's profile (log): {first * 1024:.0f} MiB for the first FULL graph + "
               f"{per * 1024:.2f} MiB per further graph")
        return GraphBudget(budget_gib, min(graphs, MAX_GRAPHS), how)
    total, count, what = _total_and_count(record)
    if total is None or not count:
        raise InputError("the log gives no graph memory with a graph count", where=where,
                         hint="pass the server's start-up log: SGLang's 'Capture ... CUDA graph "
                              "end' lines, or vLLM's 'Graph capturing finished' with its capture "
                              "bars (or DEBUG 'Estimated FULL CUDA graph memory')")
    each = total / count
    if each <= 0:
        raise InputError(f"the log's graph memory is {total:.2f} GiB", where=where)
    graphs = math.floor(budget_gib / each)
    if graphs < 1:
        raise InputError(f"one graph takes about {each:.3f} GiB, above the budget of "
                         f"{budget_gib:g} GiB", where="--max-graph-memory")
    how = f"{what}: {total:.2f} GiB over {count} graphs = {each * 1024:.1f} MiB per graph"
    return GraphBudget(budget_gib, min(graphs, MAX_GRAPHS), how)


def _total_and_count(record: Any) -> tuple[float | None, int, str]:
    decode = record.captures.get("decode")
    if decode is not None and decode.memory_gib is not None:  # a reader that logs it per phase
        return decode.memory_gib, decode.graphs or 0, f"{_name(record)} decode capture (log)"
    if record.total_memory_gib is not None:
        count = sum(c.graphs or 0 for g, c in record.captures.items()
                    if not g.startswith("profiled"))
        if not count:
            count = sum(c.graphs or 0 for g, c in record.captures.items())
        return record.total_memory_gib, count, "the logged capture total"
    return None, 0, ""


def _name(record: Any) -> str:
    from cgconfig.line.versions import NAMES

    return NAMES.get(record.engine or "", "the engine's")
