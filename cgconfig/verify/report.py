"""The text report of ``cgconfig verify``: the verdict, each difference with the plan's decision,
a table per group of graph count, memory and capture time as logged, and what ran eagerly.

Plain text; every piece of log text goes through :func:`~cgconfig.verify.text.shown`, so no
escape sequence in a log reaches the terminal.
"""

from __future__ import annotations

from cgconfig.line.versions import NAMES
from cgconfig.verify.check import Verdict
from cgconfig.verify.text import shown


def _num(value: float | int | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:,}" if isinstance(value, int) else f"{value:.2f}"
    return f"{text}{unit}"


def render(verdict: Verdict) -> str:
    """The whole report as text: the verdict and its deciding reason first."""
    from cgconfig.verify.log_facts import describe

    record, c = verdict.record, verdict.comparison
    engine = NAMES.get(record.engine or "", "?")
    ranks = f" · ranks {shown(', '.join(sorted(record.ranks)[:8]), 80)}" if record.ranks else ""
    version = f" {shown(record.version, 40)}" if record.version else ""
    head = verdict.reasons[0] if verdict.reasons else "the log agrees with the plan"
    out = [f"{verdict.level}: {shown(head.removeprefix(verdict.level + ': '), 300)}",
           f"cgconfig verify · {engine}{version} · format {record.era or 'unknown'} · "
           f"{record.lines:,} lines{ranks}"]
    out.extend(f"  {shown(reason, 300)}" for reason in verdict.reasons[1:])
    if c is not None:
        out.append(c.version_note)
        out.append(f"launch ({shown(c.argv_source, 80)}): {shown(' '.join(c.argv), 300)}")
    for fact in verdict.facts:
        out.append(f"from the log: {shown(describe(fact), 240)}")
    if c is not None and c.differences:
        out.append(f"differences ({len(c.differences)}):")
        for d in c.differences:
            at = f" [log line {d.line}]" if d.line else ""
            out.append(f"  {d.group}: {shown(d.what, 160)}: log {shown(str(d.logged), 200)}; "
                       f"plan {shown(str(d.planned), 200)}{at}")
            out.append(f"    plan's decision: {shown(d.decision, 240)}")
    out.extend(_table(verdict))
    from cgconfig.cost.compare import report_lines

    out.extend(shown(line, 300) for line in report_lines(verdict.cost))
    for report in verdict.eager:
        out.append(_eager_line(report))
    if verdict.metrics:
        parts = ", ".join(f"{shown(k, 40)} {v:,.0f}" for k, v in sorted(verdict.metrics.items()))
        out.append(f"metrics (/metrics scrape): {parts}")
        eager = verdict.metrics.get("passes decode_none")
        total = eager + verdict.metrics.get("passes decode_cuda_graph", 0.0) if eager else 0.0
        if eager and total:
            out.append(f"decode passes without a graph (metrics): {eager:,.0f} of {total:,.0f} "
                       f"({100 * eager / total:.1f} %)")
    for line, text in record.downgrades[:6]:
        out.append(f"engine downgrade [log line {line}]: {shown(text, 200)}")
    for note in [*(c.notes if c else []), *verdict.notes]:
        out.append(f"note: {shown(note, 300)}")
    return "\n".join(out) + "\n"


def _table(verdict: Verdict) -> list[str]:
    record = verdict.record
    rows = [("group", "backend", "graphs", "largest", "memory", "capture time")]
    for capture in record.captures.values():
        rows.append((capture.group, capture.backend or "—", _num(capture.graphs),
                     _num(capture.top), _num(capture.memory_gib, " GB"),
                     _num(capture.seconds, " s")))
    if record.total_memory_gib is not None or record.total_seconds is not None:
        rows.append(("all (engine total)", "", "", "", _num(record.total_memory_gib, " GiB"),
                     _num(record.total_seconds, " s")))
    for name, value in record.estimate_gib.items():
        rows.append((f"estimate: {name}", "", "", "", _num(value, " GiB"), ""))
    if len(rows) == 1:
        return ["captured, as logged: nothing"]
    widths = [max(len(shown(str(r[i]), 40)) for r in rows) for i in range(len(rows[0]))]
    lines = ["captured, as logged:"]
    for row in rows:
        lines.append("  " + "  ".join(shown(str(v), 40).ljust(w) if i == 0 else
                                      shown(str(v), 40).rjust(w)
                                      for i, (v, w) in enumerate(zip(row, widths, strict=False))).rstrip())
    return lines


def _eager_line(report: object) -> str:
    from cgconfig.verify.eager import EagerReport

    assert isinstance(report, EagerReport)
    unit = report.unit
    counted = (f"{report.lines:,} lines x {report.weight} (--decode-log-interval) = "
               f"{report.steps:,} steps" if report.weight > 1 else f"{report.steps:,} steps")
    text = f"steps ({report.phase}, {unit}): {counted}, {report.eager_steps:,} without a graph"
    if report.eager_sizes:
        low, high = report.eager_sizes
        text += f" (sizes {low}..{high})"
    text += f"; {report.above_plan:,} above the plan's largest size {report.plan_largest}"
    if report.flag:
        text += f"; {report.flag} would cover them"
    if not report.marked:
        text += " (the lines do not say whether a graph ran: sizes alone decide)"
    return text
