"""Read a log, resolve its plan, compare: the whole of ``cgconfig verify`` without printing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cgconfig.errors import InputError
from cgconfig.verify.compare import Comparison, Difference, compare, decision_for
from cgconfig.verify.eager import EagerReport, eager_steps
from cgconfig.verify.launch import argv_from_args
from cgconfig.verify.record import LogRecord


@dataclass
class Verdict:
    """What ``cgconfig verify`` found."""

    record: LogRecord
    comparison: Comparison
    eager: list[EagerReport]
    metrics: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)
    cost: list[dict[str, Any]] = field(default_factory=list)
    """cgconfig's start-up prediction against the log (:mod:`cgconfig.cost.compare`)."""

    @property
    def matches(self) -> bool:
        """Whether the log agrees with the plan (capture lines; eager steps are a report)."""
        return self.comparison.matches

    def to_dict(self) -> dict[str, Any]:
        """The ``-o json`` document."""
        c = self.comparison
        return {
            "verdict": "matches" if self.matches else "differs",
            "log": self.record.to_dict(),
            "version_note": c.version_note,
            "launch": {"argv": c.argv, "source": c.argv_source},
            "differences": [d.to_dict() for d in c.differences],
            "plan": {w.group: {"backend": w.backend, "sizes": w.sizes} for w in c.expected},
            "eager": [e.to_dict() for e in self.eager],
            "metrics": self.metrics,
            "notes": [*c.notes, *self.notes],
            "cost": self.cost,
        }


MAX_DROPPED = 8
"""Most printed arguments left out (each one cgconfig refuses) before giving up."""


def _drop_printed(argv: list[str], error: InputError, printed_end: int,
                  source: str) -> tuple[list[str], str] | None:
    """``argv`` without the printed flag ``error`` names (not one the user gave), or ``None``."""
    if not source.startswith("log line") or not error.where:
        return None
    flag = error.where.split(" ", 1)[0].split("=", 1)[0]
    for i, token in enumerate(argv[:printed_end]):
        if token == flag and token.startswith("--"):
            end = i + 1
            while end < printed_end and not argv[end].startswith("--"):
                end += 1
            return [*argv[:i], *argv[end:]], flag
    return None


def has_entry_point(line: list[str]) -> bool:
    """Whether a launch line names an engine (``vllm serve``, ``python -m sglang...``)."""
    from cgconfig.engines import find_entry_point

    return find_entry_point(line) is not None


def launch_for(record: LogRecord, line: list[str]) -> tuple[list[str], str, list[str]]:
    """The argv to resolve, where it came from, and notes about it."""
    notes: list[str] = []
    engine = record.engine or "sglang"
    if record.args is not None and not has_entry_point(line):
        argv, unknown = argv_from_args(engine, record.args)
        if unknown:
            notes.append(f"{len(unknown)} printed argument(s) unknown to cgconfig's "
                         f"{engine} table were left out: {', '.join(unknown[:6])}"
                         + (", …" if len(unknown) > 6 else ""))
        source = f"log line {record.args_line} ({record.args_source})"
        if line:
            source += " + the given line"
        return [*argv, *line], source, notes
    if record.args is not None:
        notes.append(f"the given launch line replaces the arguments printed at log line "
                     f"{record.args_line}")
    if not line:
        from cgconfig.verify.launch import launch_entry

        notes.append("the log prints no launch arguments and no line was given: the plan is "
                     "the engine's defaults")
        return launch_entry(engine), "engine defaults", notes
    return list(line), "the given line", notes


def _check_flag(argv: list[str], flag: str, needed: int, phases: tuple[str, ...],
                environ: Mapping[str, str] | None, log_version: str | None) -> list[str]:
    """Resolve again with ``flag`` appended: does the plan then cover ``needed``?"""
    from cgconfig.api import request_from_argv, resolve_request

    try:
        plan = resolve_request(request_from_argv([*argv, *flag.split()], environ=environ,
                                                 log_version=log_version))
    except InputError as error:
        return [f"cgconfig refuses {flag} on this line: {error.what[:160]}"]
    top = max((max(plan.capture_sizes(p), default=0) for p in phases), default=0)
    if top >= needed:
        return [f"checked: with {flag} the plan's largest size is {top}"]
    return [f"with {flag} the plan's largest size is still {top} (a rule or bound caps it)"]


def verify(record: LogRecord, line: list[str], environ: Mapping[str, str] | None = None,
           metrics: dict[str, float] | None = None) -> Verdict:
    """Resolve the plan for ``record`` (arguments from the log, else ``line``) and compare."""
    from cgconfig.api import request_from_argv, resolve_request

    argv, source, notes = launch_for(record, line)
    plan = None
    for _ in range(MAX_DROPPED):
        try:
            plan = resolve_request(request_from_argv(argv, environ=environ,
                                                     log_version=record.version))
            break
        except InputError as error:
            dropped = _drop_printed(argv, error, len(argv) - len(line), source)
            if dropped is None:
                raise
            argv = dropped[0]
            notes.append(f"left out {dropped[1]} (printed in the log; {error.what[:120]})")
    if plan is None:
        raise InputError("too many printed arguments cgconfig cannot take",
                         where=f"log line {record.args_line}")
    comparison = compare(record, plan, argv, source)
    eager = eager_steps(record, plan)
    for report in eager:
        if report.graph_above_plan:
            count, top = report.graph_above_plan
            phase = "prefill" if report.phase == "mixed" else report.phase
            comparison.differences.append(Difference(
                report.phase, "steps replayed a graph above the plan's largest size",
                f"{count:,} steps up to {top} {report.unit}", f"largest {report.plan_largest}",
                decision_for(plan, f"{phase}.max_bs")))
    for report in eager:
        if report.flag and report.eager_sizes:
            phases = ("decode", "prefill") if report.phase == "mixed" else (report.phase,)
            notes.extend(_check_flag(argv, report.flag, report.eager_sizes[1], phases, environ,
                                     record.version))
    verdict = Verdict(record, comparison, eager, metrics, notes)
    from cgconfig.cost.compare import prediction_errors

    verdict.cost = prediction_errors(plan.cost, record)
    for phase, steps in record.steps.items():
        if steps.out_of_range:
            verdict.notes.append(f"{steps.out_of_range:,} {phase} steps above 1,048,576 "
                                 f"{steps.unit} were not counted by size")
    if record.rank_mismatch:
        verdict.notes.append("ranks disagree: " + "; ".join(record.rank_mismatch[:4]))
    return verdict
