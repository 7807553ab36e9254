"""Read a log, resolve its plan, compare: the whole of ``cgconfig verify`` without printing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cgconfig.errors import InputError
from cgconfig.line.registry import host
from cgconfig.line.versions import NAMES, EngineVersion
from cgconfig.plan import Plan
from cgconfig.verify.compare import Comparison, Difference, compare, decision_for
from cgconfig.verify.eager import EagerReport, eager_steps
from cgconfig.verify.launch import argv_from_args
from cgconfig.verify.log_facts import applied, for_display
from cgconfig.verify.record import Fact, LogRecord
from cgconfig.verify.release import Release, judge_release
from cgconfig.verify.verdict import decide

#: Verdict → exit status of ``cgconfig verify`` (2 is bad input, an error, not a verdict).
EXIT = {"matches": 0, "differs": 1, "cannot judge": 3, "warn": 4}


@dataclass
class Verdict:
    """What ``cgconfig verify`` found."""

    record: LogRecord
    comparison: Comparison | None
    """``None`` when the release cannot be judged (no plan was resolved)."""
    eager: list[EagerReport]
    metrics: dict[str, float] | None = None
    notes: list[str] = field(default_factory=list)
    release: Release | None = None
    facts: list[Fact] = field(default_factory=list)
    """The log's facts the plan was resolved with."""
    reasons: list[str] = field(default_factory=list)
    """Why the verdict is what it is, the deciding reason first."""
    level: str = "matches"
    """``matches``, ``differs``, ``warn`` (nothing contradicts the plan, but part of the
    evidence is missing or steps ran without a graph) or ``cannot judge``."""
    cost: list[dict[str, Any]] = field(default_factory=list)
    """cgconfig's start-up prediction against the log (:mod:`cgconfig.cost.compare`)."""

    @property
    def matches(self) -> bool:
        """Whether the log agrees with the plan."""
        return self.level == "matches"

    @property
    def exit_code(self) -> int:
        """The exit status for this verdict (:data:`EXIT`)."""
        return EXIT[self.level]

    def to_dict(self) -> dict[str, Any]:
        """The ``-o json`` document."""
        c = self.comparison
        release = self.release
        return {
            "verdict": self.level,
            "reasons": self.reasons,
            "log": self.record.to_dict(),
            "release": None if release is None else {
                "engine": release.engine, "judged": release.judged, "known": release.shown,
                "version": release.chosen.version if release.chosen else None,
                "source": release.chosen.source if release.chosen else None,
                "reason": release.reason or None},
            "facts_used": [{"name": f.name, "value": f.value, "log_line": f.line}
                           for f in self.facts],
            "version_note": c.version_note if c else None,
            "launch": {"argv": c.argv, "source": c.argv_source} if c else None,
            "differences": [d.to_dict() for d in c.differences] if c else [],
            "plan": {w.group: {"backend": w.backend, "sizes": w.sizes} for w in c.expected}
            if c else None,
            "eager": [e.to_dict() for e in self.eager],
            "metrics": self.metrics,
            "notes": [*(c.notes if c else []), *self.notes],
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
        # ``--tp-size=-x``: a value that looks like an option is written inline.
        if token.split("=", 1)[0] == flag and token.startswith("--"):
            end = i + 1
            while end < printed_end and not argv[end].startswith("--"):
                end += 1
            return [*argv[:i], *argv[end:]], flag
    return None


def has_entry_point(line: list[str]) -> bool:
    """Whether a launch line names an engine (``vllm serve``, ``python -m sglang...``)."""
    from cgconfig.line import find_entry_point

    return find_entry_point(line) is not None


def launch_for(record: LogRecord, line: list[str],
               release: str) -> tuple[list[str], str, list[str]]:
    """The argv to resolve (the printed arguments read with ``release``'s table), where it
    came from, and notes about it."""
    notes: list[str] = []
    engine = record.engine or host()
    if record.args is not None and not has_entry_point(line):
        argv, unknown = argv_from_args(engine, release, record.args)
        if unknown:
            notes.append(f"{len(unknown)} printed argument(s) unknown to cgconfig's "
                         f"{engine} {release} table were left out: {', '.join(unknown[:6])}"
                         + (", …" if len(unknown) > 6 else ""))
        source = f"log line {record.args_line} ({record.args_source})"
        if line:
            source += " + the given line"
        return [*argv, *line], source, notes
    if record.args is not None:
        notes.append(f"the given launch line replaces the arguments printed at log line "
                     f"{record.args_line}")
    from cgconfig.verify.launch import launch_entry

    if not line:
        notes.append("the log prints no launch arguments and no line was given: the plan is "
                     "the engine's defaults")
        return launch_entry(engine), "engine defaults", notes
    if not has_entry_point(line):
        # cgconfig flags alone (``--gpu-memory-gib 45``): the log's engine starts the line.
        return [*launch_entry(engine), *line], "engine defaults + the given line", notes
    return list(line), "the given line", notes


def _check_flag(argv: list[str], flag: str, needed: int, phases: tuple[str, ...],
                environ: Mapping[str, str] | None,
                engine_version: EngineVersion | None) -> list[str]:
    """Resolve again with ``flag`` appended: does the plan then cover ``needed``?"""
    from cgconfig.api import request_from_argv, resolve_request

    try:
        plan = resolve_request(request_from_argv([*argv, *flag.split()], environ=environ,
                                                 engine_version=engine_version))
    except InputError as error:
        return [f"cgconfig refuses {flag} on this line: {error.what[:160]}"]
    top = max((max(plan.capture_sizes(p), default=0) for p in phases), default=0)
    if top >= needed:
        return [f"checked: with {flag} the plan's largest size is {top}"]
    return [f"with {flag} the plan's largest size is still {top} (a rule or bound caps it)"]


def verify(record: LogRecord, line: list[str], environ: Mapping[str, str] | None = None,
           metrics: dict[str, float] | None = None,
           engine_version: str | None = None) -> Verdict:
    """Judge ``record``: the release it is of (``engine_version``: ``--engine-version``'s
    text), the plan for its launch (arguments from the log, else ``line``) with the facts it
    prints, the comparison, and the verdict (:func:`cgconfig.verify.verdict.decide`)."""
    release = judge_release(record, engine_version)
    if not release.judged:
        verdict = Verdict(record, None, [], metrics, release=release)
        verdict.level, verdict.reasons = decide(record, release, None, [])
        return verdict
    assert release.chosen is not None  # judged
    argv, source, notes = launch_for(record, line, release.chosen.version)
    with applied(record, argv) as (argv, facts):
        plan, argv = _resolve(record, argv, line, source, notes, environ, release)
        flag_argv = list(argv)
    argv = for_display(argv)
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
            notes.extend(_check_flag(flag_argv, report.flag, report.eager_sizes[1], phases, environ,
                                     release.chosen))
    verdict = Verdict(record, comparison, eager, metrics, notes, release=release, facts=facts)
    from cgconfig.cost.compare import prediction_errors

    verdict.cost = prediction_errors(plan.cost, record)
    for phase, steps in record.steps.items():
        if steps.out_of_range:
            verdict.notes.append(f"{steps.out_of_range:,} {phase} steps above 1,048,576 "
                                 f"{steps.unit} were not counted by size")
    if record.rank_mismatch:
        verdict.notes.append("ranks disagree: " + "; ".join(record.rank_mismatch[:4]))
    if not release.shown:
        verdict.notes.append(release.reason)
    verdict.level, verdict.reasons = decide(record, release, comparison, eager)
    return verdict


def _resolve(record: LogRecord, argv: list[str], line: list[str], source: str,
             notes: list[str], environ: Mapping[str, str] | None,
             release: Release) -> tuple[Plan, list[str]]:
    """The plan for ``argv``, leaving out printed arguments cgconfig refuses (each noted)."""
    from cgconfig.api import request_from_argv, resolve_request
    from cgconfig.line import find_entry_point

    entry = find_entry_point(argv)
    if entry is not None and entry.dialect != release.engine:
        raise InputError(f"the launch line starts {entry.program!r} but the log is "
                         f"{NAMES[release.engine]}'s", where="the given line",
                         hint="give the line of the server that wrote the log")
    for _ in range(MAX_DROPPED):
        try:
            return resolve_request(request_from_argv(argv, environ=environ,
                                                     engine_version=release.chosen)), argv
        except InputError as error:
            dropped = _drop_printed(argv, error, len(argv) - len(line), source)
            if dropped is None:
                raise
            argv = dropped[0]
            notes.append(f"left out {dropped[1]} (printed in the log; {error.what[:120]})")
    raise InputError("too many printed arguments cgconfig cannot take",
                     where=f"log line {record.args_line}")
