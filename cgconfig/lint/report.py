"""The result of one ``cgconfig check`` run, and its machine formats: ``json``, ``github``
(workflow-command annotations) and ``markdown`` (a pull-request comment). SARIF is
:mod:`cgconfig.lint.sarif`; the table is the command line's (``cli/check_render.py``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cgconfig.lint.catalog import BY_ID, SEVERITIES, rank
from cgconfig.lint.finding import Finding


@dataclass
class Report:
    """What one run found."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    launches: int = 0
    suppressed: int = 0
    """Findings an inline comment, the configuration or the baseline accepted."""
    skipped: list[str] = field(default_factory=list)

    def sort(self) -> None:
        """File, line, id order: the same run prints the same report."""
        self.findings.sort(key=lambda f: (f.file, f.line, f.id, f.message))

    def counts(self) -> dict[str, int]:
        """Findings per severity, worst first."""
        seen = Counter(f.severity for f in self.findings)
        return {s: seen.get(s, 0) for s in reversed(SEVERITIES)}

    def failing(self, fail_on: str) -> list[Finding]:
        """The findings at or above ``fail_on``."""
        return [f for f in self.findings if rank(f.severity or "note") >= rank(fail_on)]

    def summary(self) -> str:
        """``3 findings (1 error, 2 warnings) in 12 files, 30 launches checked``."""
        counts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in self.counts().items() if n]
        total = len(self.findings)
        head = f"{total} finding{'s' if total != 1 else ''}"
        if counts:
            head += f" ({', '.join(counts)})"
        tail = f" in {self.files} file{'s' if self.files != 1 else ''}, {self.launches} " \
               f"launch{'es' if self.launches != 1 else ''} checked"
        if self.suppressed:
            tail += f", {self.suppressed} suppressed"
        return head + tail

    def to_dict(self) -> dict[str, Any]:
        """``-o json``."""
        return {"version": 1, "summary": {"files": self.files, "launches": self.launches,
                                          "findings": len(self.findings),
                                          "suppressed": self.suppressed, **self.counts()},
                "findings": [f.to_dict() for f in self.findings],
                "skipped": self.skipped}


def _gh_data(text: str) -> str:
    """A workflow command's message, escaped as the runner reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


_GH_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def github_text(report: Report) -> str:
    """One ``::error file=…,line=…,title=…::message`` line per finding, then the summary."""
    lines = []
    for f in report.findings:
        title = _gh_property(f"{f.id} {f.name}")
        message = f.message + (f" Fix: {f.fix}" if f.fix else "")
        lines.append(f"::{_GH_LEVEL[f.severity or 'note']} file={_gh_property(f.file)},"
                     f"line={f.line},title={title}::{_gh_data(message)}")
    lines.append(report.summary())
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Table-cell text: pipes, backticks and line breaks kept from breaking the table."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")


def markdown_text(report: Report) -> str:
    """A pull-request comment: the summary, then one table per file."""
    out = ["### cgconfig check", "", report.summary(), ""]
    by_file: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_file.setdefault(f.file, []).append(f)
    for path, items in by_file.items():
        out += [f"#### `{_md(path)}`", "", "| line | severity | finding | what | fix |",
                "|---:|---|---|---|---|"]
        for f in items:
            out.append(f"| {f.line} | {f.severity} | {f.id} {f.name} | {_md(f.message)} | "
                       f"{_md(f.fix or '')} |")
        out.append("")
    if not report.findings:
        out.append("No findings.")
        out.append("")
    return "\n".join(out)


def kind_title(kind_id: str) -> str:
    """The catalogue's one-line title of a finding kind."""
    return BY_ID[kind_id].title
