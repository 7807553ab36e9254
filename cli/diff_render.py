"""Text form of ``cgconfig diff``, coloured like ``git diff --stat`` on a terminal.

Plain ANSI codes rather than rich: the output is line-oriented, and a launch script that
diffs two plans should not pay for rich's import.
"""

from __future__ import annotations

import json
from typing import Any

_GREEN, _RED, _BOLD, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[1m", "\x1b[0m"
_BAR = 20  # widest +/- bar, as git's --stat scales its own


def _value(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


class _Out:
    def __init__(self, color: bool) -> None:
        self.color = color
        self.lines: list[str] = []

    def paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color and text else text

    def add(self, text: str = "") -> None:
        self.lines.append(text)

    def head(self, text: str) -> None:
        self.add(self.paint(text, _BOLD))

    def prose(self, text: str, code: str, indent: int) -> None:
        """``text`` wrapped at the terminal's width (or ``COLUMNS``) with a hanging
        ``indent``, each line painted."""
        from cgconfig.cli.width import width, wrap

        for line in wrap(text, width(None), indent):
            self.add(self.paint(line, code))


def _bar(added: int, removed: int, widest: int, out: _Out) -> str:
    scale = min(1.0, _BAR / widest) if widest else 1.0
    plus = max(1, round(added * scale)) if added else 0
    minus = max(1, round(removed * scale)) if removed else 0
    return out.paint("+" * plus, _GREEN) + out.paint("-" * minus, _RED)


def _changes(changes: list[dict[str, Any]]) -> str:
    return "; ".join(f"{c['key']} {_value(c['from'])} → {_value(c['to'])}" for c in changes)


def _section_values(title: str, rows: list[dict[str, Any]], out: _Out) -> None:
    if not rows:
        return
    out.head(title)
    width = max(len(r["key"]) for r in rows)
    for row in rows:
        out.add(f"  {row['key']:<{width}}  {out.paint(_value(row['a']), _RED)} → "
                f"{out.paint(_value(row['b']), _GREEN)}")


def _section_sizes(rows: list[dict[str, Any]], out: _Out) -> None:
    if not rows:
        return
    out.head("sizes")
    width = max(len(r["key"]) for r in rows)
    widest = max(len(r["added"]) + len(r["removed"]) for r in rows)
    for row in rows:
        added, removed = len(row["added"]), len(row["removed"])
        before, after = row["count"]
        counts = f"{out.paint(f'+{added}', _GREEN)} {out.paint(f'-{removed}', _RED)}"
        out.add(f"  {row['key']:<{width}}  {before} → {after} sizes  {counts}  "
                f"{_bar(added, removed, widest, out)}")
        if row["added_ranges"]:
            out.prose("    + " + ", ".join(row["added_ranges"]), _GREEN, 6)
        if row["removed_ranges"]:
            out.prose("    - " + ", ".join(row["removed_ranges"]), _RED, 6)


def _section_decisions(decisions: dict[str, list[dict[str, Any]]], out: _Out) -> None:
    if not any(decisions.values()):
        return
    out.head("decisions")
    for mark, code, key in (("+", _GREEN, "added"), ("-", _RED, "removed")):
        for d in decisions[key]:
            tail = f": {_changes(d['changes'])}" if d["changes"] else ""
            out.prose(f"  {mark} {d['rule']} ({d['kind']}, {d['outcome']}){tail}", code, 6)
    for d in decisions["changed"]:
        out.add(f"  ~ {d['rule']} ({d['kind']})")
        out.prose(f"      a: {_outcome(d['a'])}", _RED, 9)
        out.prose(f"      b: {_outcome(d['b'])}", _GREEN, 9)


def _outcome(decision: dict[str, Any]) -> str:
    changes = _changes(decision["changes"])
    return f"{decision['outcome']}: {changes}" if changes else str(decision["outcome"])


def _section_warnings(warnings: dict[str, list[str]], out: _Out) -> None:
    if not any(warnings.values()):
        return
    out.head("warnings")
    for w in warnings["added"]:
        out.prose(f"  + {w}", _GREEN, 4)
    for w in warnings["removed"]:
        out.prose(f"  - {w}", _RED, 4)


def summary(result: dict[str, Any]) -> str:
    """The closing line: ``2 values, 1 size list (+8 -0), 1 decision, 0 warnings differ``."""
    if result["equal"]:
        return "plans are equal" + (" (deployment facts differ)" if result["facts"] else "")
    sizes = result["sizes"]
    added = sum(len(r["added"]) for r in sizes)
    removed = sum(len(r["removed"]) for r in sizes)
    decisions = sum(len(v) for v in result["decisions"].values())
    warnings = sum(len(v) for v in result["warnings"].values())

    def count(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    return (f"{count(len(result['config']), 'value')}, {count(len(sizes), 'size list')} "
            f"(+{added} -{removed}), {count(decisions, 'decision')}, "
            f"{count(warnings, 'warning')} differ")


def render_diff(result: dict[str, Any], *, color: bool) -> str:
    """The whole text report for a :func:`cgconfig.cli.plan_diff.diff_plans` result."""
    out = _Out(color)
    out.prose(f"--- a: {result['a']}", _RED, 7)
    out.prose(f"+++ b: {result['b']}", _GREEN, 7)
    _section_values("facts", result["facts"], out)
    _section_values("config", result["config"], out)
    _section_sizes(result["sizes"], out)
    _section_decisions(result["decisions"], out)
    _section_warnings(result["warnings"], out)
    out.add(summary(result))
    return "\n".join(out.lines) + "\n"
