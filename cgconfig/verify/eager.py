"""What ran without a graph: per-step lines (and a saved ``/metrics`` scrape) against the plan.

A step larger than the plan's largest size runs eagerly by the plan's own decision (its eager
range is ``largest+1`` and up); a step the log marks eager at a size a graph covers ran eagerly
for another reason (the engine's ``can_run_cuda_graph``). The one flag that would cover the
eager sizes is the engine's own bound, in the engine's units: SGLang ``--cuda-graph-max-bs``
(requests) for decode, vLLM ``--max-cudagraph-capture-size`` (tokens).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from cgconfig.errors import InputError
from cgconfig.line.plugins import part
from cgconfig.line.registry import host
from cgconfig.migrate import spelled_for
from cgconfig.plan import Plan
from cgconfig.verify.record import LogRecord
from cgconfig.verify.text import decimal, open_log

_PLAN_PHASE = {"decode": "decode", "prefill": "prefill", "mixed": "prefill"}


@dataclass
class EagerReport:
    """One phase's steps."""

    phase: str
    unit: str
    steps: int
    eager_steps: int
    """Steps the log marks eager, plus unmarked steps above the plan's largest size."""
    above_plan: int
    """Steps larger than the plan's largest size (the plan's eager range)."""
    eager_sizes: tuple[int, int] | None
    plan_largest: int
    flag: str | None
    """The one flag (with its value) that would cover every eager size, when one exists."""
    marked: bool
    """Whether the log says per step whether a graph ran (else sizes alone decide)."""
    lines: int = 0
    """Log lines the steps were read from."""
    weight: int = 1
    """Steps one line stands for (SGLang's ``--decode-log-interval``)."""
    graph_above_plan: tuple[int, int] | None = None
    """(steps, largest size) of steps that replayed a graph above the plan's largest size: the
    server captured more than the plan says."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"phase": self.phase, "unit": self.unit, "steps": self.steps,
                "eager_steps": self.eager_steps, "above_plan_largest": self.above_plan,
                "eager_sizes": list(self.eager_sizes) if self.eager_sizes else None,
                "plan_largest": self.plan_largest, "flag": self.flag, "lines": self.lines,
                "steps_per_line": self.weight,
                "graph_above_plan": list(self.graph_above_plan) if self.graph_above_plan
                else None}


def eager_steps(record: LogRecord, plan: Plan) -> list[EagerReport]:
    """One report per phase that has per-step lines."""
    out: list[EagerReport] = []
    engine = record.engine or host()
    for phase, steps in record.steps.items():
        sizes: list[int] = part(engine, "step_sizes")(plan, _PLAN_PHASE.get(phase, phase))
        largest = max(sizes, default=0)
        eager: Counter[int] = Counter(steps.eager)
        for size, count in steps.unknown.items():
            if size > largest:
                eager[size] += count
        total = sum(steps.total().values())
        above = sum(c for s, c in steps.total().items() if s > largest)
        over = [s for s in eager if s > largest]
        flag_name = part(engine, "eager_flags").get(phase)
        if flag_name:  # as the plan's release spells it (SGLang 0.5.8: --cuda-graph-max-bs)
            flag_name = spelled_for(engine, flag_name, plan.engine_version.get("version"))
        flag = f"{flag_name} {max(over)}" if over and flag_name else None
        replayed = {s: c for s, c in steps.graph.items() if s > largest}
        out.append(EagerReport(
            phase, steps.unit, total, sum(eager.values()), above,
            (min(eager), max(eager)) if eager else None, largest, flag,
            marked=bool(steps.graph or steps.eager), lines=steps.lines, weight=steps.weight,
            graph_above_plan=(sum(replayed.values()), max(replayed)) if replayed else None))
    return out


METRIC_FAMILIES = {"sglang:cuda_graph_passes_total": "mode", "sglang:graph_memory_usage_gb": "phase",
                   "sglang:startup_cuda_graph_time_seconds": "phase"}
"""SGLang 0.5.23 ``observability/metrics_collector.py``: the families read, and their label."""


def read_metrics(path: str) -> dict[str, float]:
    """A saved ``/metrics`` scrape: ``passes decode_none`` (forward passes per mode of
    ``sglang:cuda_graph_passes_total``), ``graph memory GB decode`` and ``capture seconds
    decode`` (per phase), each summed over its other labels (ranks)."""
    where = f"--metrics {path}"
    out: dict[str, float] = {}
    names = {"sglang:cuda_graph_passes_total": "passes", "sglang:graph_memory_usage_gb":
             "graph memory GB", "sglang:startup_cuda_graph_time_seconds": "capture seconds"}
    for line in open_log(path, where):
        family = line.split("{", 1)[0]
        label = METRIC_FAMILIES.get(family)
        if label is None or len(out) >= 256:
            continue
        at = line.find(f'{label}="')
        end = line.find('"', at + len(label) + 2) if at >= 0 else -1
        close = line.rfind("}")
        if at < 0 or end < 0 or close < 0:
            continue
        value, _ = decimal(line[close + 1:].strip())
        if value is not None:
            key = f"{names[family]} {line[at + len(label) + 2:end][:40]}"
            out[key] = out.get(key, 0.0) + value
    if not out:
        raise InputError("no sglang:cuda_graph_passes_total or sglang:graph_memory_usage_gb "
                         "samples", where=where,
                         hint="save the server's /metrics (started with --enable-metrics)")
    return out
