"""``cgconfig check``'s table: the findings grouped by file, one table each (line, severity,
finding, what and fix), then the summary line."""

from __future__ import annotations

from cgconfig.lint.finding import Finding
from cgconfig.lint.report import Report

_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def render_table(report: Report) -> None:
    """Print the report for a person."""
    from rich.table import Table
    from rich.text import Text

    from cgconfig.cli.render import console, print_prose

    out = console()
    by_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        by_file.setdefault(finding.file, []).append(finding)
    for path, items in by_file.items():
        out.print(Text(path, style="bold"))
        table = Table(show_lines=True)
        for column, justify in (("line", "right"), ("severity", "left"), ("finding", "left"),
                                ("what", "left")):
            table.add_column(column, justify=justify,  # type: ignore[arg-type]
                             overflow="fold", ratio=3 if column == "what" else None)
        for f in items:
            what = Text(f.message)
            if f.fix:
                what.append("\nfix: ", style="bold")
                what.append(f.fix)
            table.add_row(Text(str(f.line)), Text(f.severity or "", style=_STYLE.get(
                f.severity or "", "")), Text(f"{f.id}\n{f.name}"), what)
        out.print(table)
    for skipped in report.skipped:
        print_prose(out, f"skipped: {skipped}", indent=4)
    print_prose(out, report.summary())
