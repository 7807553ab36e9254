"""One ``cgconfig check`` run: read each file, check each launch, then apply what the user
accepted (the configuration's ignores and severities, inline comments, the baseline)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cgconfig.errors import InputError
from cgconfig.lint.catalog import BY_ID
from cgconfig.lint.checker import CheckOptions, check_file
from cgconfig.lint.finding import Finding
from cgconfig.lint.report import Report
from cgconfig.lint.suppress import apply_baseline, suppressed_inline
from cgconfig.lint.walk import collect


@dataclass
class RunInput:
    """What to check and what is accepted."""

    paths: list[str]
    options: CheckOptions = field(default_factory=CheckOptions)
    exclude: list[str] = field(default_factory=list)
    gitignore: bool = True
    severity: dict[str, str] = field(default_factory=dict)
    ignore: set[str] = field(default_factory=set)
    select: set[str] = field(default_factory=set)
    """Only these ids (empty: every kind that is not opt-in, plus those asked for)."""
    baseline: Counter[str] | None = None
    stdin_name: str = "-"
    """The name standard input is checked as (its suffix picks the reader)."""


def _read(path: str, stdin_name: str) -> tuple[str, str]:
    from cgconfig.docio import read_stdin, read_text_file

    if path == "-":
        return stdin_name, read_stdin("-")
    return path, read_text_file(path, path)


def run_check(given: RunInput) -> Report:
    """Check every file of ``given.paths``."""
    walk = collect(given.paths, exclude=given.exclude, gitignore=given.gitignore)
    report = Report(skipped=walk.skipped)
    found: list[Finding] = []
    for path in walk.files:
        try:
            name, text = _read(path, given.stdin_name)
        except InputError as error:
            found.append(Finding("CG010", path, 1, str(error), "fix the file, or exclude it",
                                 subject="file"))
            report.files += 1
            continue
        report.files += 1
        findings, launches = check_file(name, text, given.options)
        if path not in walk.named and path != "-" and [f.id for f in findings] == ["CG010"]:
            # a file a folder walk met that the readers cannot read: listed, not a finding
            report.skipped.append(f"{path} (not read: {findings[0].message})")
            continue
        report.launches += launches
        rows = text.splitlines()
        for finding in findings:
            if not _selected(finding, given):
                continue
            if suppressed_inline(finding, rows):
                report.suppressed += 1
                continue
            found.append(finding)
    found = [f.with_severity(given.severity.get(f.id, BY_ID[f.id].severity))  # type: ignore[arg-type]
             for f in found]
    if given.baseline is not None:
        kept = apply_baseline(found, given.baseline)
        report.suppressed += len(found) - len(kept)
        found = kept
    report.findings = found
    report.sort()
    return report


def _selected(finding: Finding, given: RunInput) -> bool:
    if finding.id in given.ignore:
        return False
    if given.select:
        return finding.id in given.select
    return not BY_ID[finding.id].opt_in or (finding.id == "CG009" and given.options.newest)
