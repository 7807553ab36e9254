"""The verdict of ``cgconfig verify`` and its reasons, the deciding one first.

* ``cannot judge`` (exit 3): the log is of a release cgconfig does not model (its version
  line, its formats), or its release is not shown and the log differs from the newest
  release's plan (the difference may be the release's);
* ``differs`` (exit 1): the capture crashed, the engine skipped graphs, or what was captured
  is not what the plan says;
* ``warn`` (exit 4): nothing contradicts the plan, but the evidence is partial (the log ends
  during capture, it has no capture lines, a capture shows neither sizes nor count, the log
  prints no launch arguments and no line was given) or steps ran without a graph;
* ``matches`` (exit 0).
"""

from __future__ import annotations

from cgconfig.verify.compare import Comparison
from cgconfig.verify.eager import EagerReport
from cgconfig.verify.record import LogRecord
from cgconfig.verify.release import Release

_UNREACHED = "captured nothing"
_PARTIAL_NOTES = ("the log has no capture lines", "neither its sizes nor its graph count")


def decide(record: LogRecord, release: Release | None, comparison: Comparison | None,
           eager: list[EagerReport]) -> tuple[str, list[str]]:
    """The verdict and its reasons for what was read and compared."""
    stopped = [p for p in record.problems if p.kind in ("crash", "skipped")]
    cut = [p for p in record.problems if p.kind == "cut"]
    said = [f"{p.text} (log line {p.line})" for p in (*stopped, *cut)]
    if release is not None and not release.judged:
        return "cannot judge", [f"cannot judge: {release.reason}",
                                *(f"also in the log: {s}" for s in said)]
    if comparison is None:
        return "cannot judge", ["cannot judge: no plan was resolved"]
    reasons = [f"{p.text} (log line {p.line})" for p in stopped]
    differences = comparison.differences
    unreached = [d for d in differences if d.what.startswith(_UNREACHED)] if cut and not stopped \
        else []
    real = [d for d in differences if d not in unreached]
    if real and release is not None and not release.shown:
        return "cannot judge", [f"cannot judge: {release.reason}; the {len(real)} "
                                f"difference(s) below may be the release's", *said]
    if real and not stopped and comparison.argv_source.startswith("engine defaults"):
        return "warn", [f"warn: the log prints no launch arguments and no line was given, so "
                        f"the plan is the engine's defaults; the {len(real)} difference(s) "
                        f"below may be the launch's (give the server's line)", *said]
    if stopped or real:
        if real:
            reasons.append(f"{len(real)} difference(s) from the plan: " + "; ".join(
                f"{d.group} {d.what}" for d in real[:3]))
        return "differs", reasons
    warnings = [f"{p.text} (log line {p.line}): what follows it cannot be checked" for p in cut]
    if unreached:
        warnings.append("not reached before the log ends: " +
                        ", ".join(d.group for d in unreached))
    for report in sorted(eager, key=lambda r: -r.eager_steps):  # the most steps first
        if report.eager_steps:
            sizes = (f" (sizes {report.eager_sizes[0]}..{report.eager_sizes[1]})"
                     if report.eager_sizes else "")
            warnings.append(f"{report.eager_steps:,} {report.phase} steps ran without a "
                            f"graph{sizes}")
    warnings.extend(note for note in comparison.notes
                    if any(part in note for part in _PARTIAL_NOTES))
    if warnings:
        return "warn", [f"warn: {warnings[0]}", *warnings[1:]]
    return "matches", []
