"""Capture sizes on a log-scale strip: what is captured, what each range pads, what runs eagerly.

One column covers a range of sizes on a log scale from 1 to the largest size shown. Per list:

* ``┃`` a captured size falls in the column;
* ``░ ▒ ▓`` padding a batch in that range pays to reach its graph (< 10 %, < 30 %, more);
* ``╳`` above the largest graph: those batches run eagerly;

and, with a histogram, bars above the strips show where the steps really are. A 52-number list
becomes one line a person can read.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any

WIDTH = 64
BARS = " ▁▂▃▄▅▆▇█"
BAR_ROWS = 3
LABEL = 9


def _columns(top: int, width: int) -> list[range]:
    """The integer sizes each column covers (empty where the log scale is finer than 1)."""
    span = math.log(top + 1)
    cols = []
    for c in range(width):
        lo = math.ceil(math.exp(span * c / width))
        hi = math.ceil(math.exp(span * (c + 1) / width))
        cols.append(range(lo, min(hi, top + 1)))
    return cols


def _mid(sizes: range) -> int:
    return round(math.sqrt(sizes.start * (sizes.stop - 1)))


def _cell(sizes: range, captured: Sequence[int]) -> tuple[str, str]:
    if not sizes:
        return "─", "dim"
    first = bisect.bisect_left(captured, sizes.start)
    if first < len(captured) and captured[first] < sizes.stop:
        return "┃", "bold green"
    mid = _mid(sizes)
    at = bisect.bisect_left(captured, mid)
    if at == len(captured):
        return "╳", "red"
    pad = (captured[at] - mid) / mid
    if pad < 0.10:
        return "░", "yellow"
    return ("▒", "yellow") if pad < 0.30 else ("▓", "yellow")


def strip_lines(lists: Sequence[tuple[str, Sequence[int]]],
                counts: Mapping[int, int] | None = None, width: int = WIDTH,
                upper: int | None = None) -> list[Any]:
    """Rich ``Text`` lines: histogram bars (if ``counts``), one strip per named list, an axis.

    ``upper`` extends the scale to the largest batch that can occur (the request pool), so the
    eager range above the largest graph shows.
    """
    from rich.text import Text

    top = max([max(sizes, default=1) for _, sizes in lists] + [max(counts or {1: 0})]
              + [upper or 1])
    cols = _columns(top, width)
    lines: list[Any] = []
    if counts:
        per_col = [sum(counts.get(s, 0) for s in col) if len(col) < 4096 else
                   sum(v for k, v in counts.items() if k in col) for col in cols]
        peak = max(per_col) or 1
        levels = [v / peak * BAR_ROWS * (len(BARS) - 1) for v in per_col]
        for row in range(BAR_ROWS - 1, -1, -1):
            text = Text("steps".ljust(LABEL) if row == 0 else " " * LABEL, style="dim")
            for level in levels:
                part = max(0.0, min(len(BARS) - 1, level - row * (len(BARS) - 1)))
                char = BARS[math.ceil(part)] if 0 < part < 1 else BARS[int(part)]
                text.append(char, style="cyan")
            lines.append(text)
    for name, sizes in lists:
        ordered = sorted(set(sizes))
        text = Text(name[: LABEL - 1].ljust(LABEL))
        for col in cols:
            char, style = _cell(col, ordered)
            text.append(char, style=style)
        text.append(f" {len(ordered)} graphs", style="dim")
        lines.append(text)
    axis = [" "] * width
    power = 1
    while power <= top:
        label = str(power)
        at = min(width - len(label), int(math.log(power + 0.5) / math.log(top + 1) * width))
        if all(c == " " for c in axis[max(0, at - 1): at + len(label) + 1]):
            axis[at: at + len(label)] = list(label)
        power *= 4 if power >= 16 else 2
    label = str(top)
    if all(c == " " for c in axis[width - len(label) - 1:]):
        axis[width - len(label):] = list(label)
    lines.append(Text(" " * LABEL + "".join(axis[:width]).rstrip(), style="dim"))
    lines.append(Text(" " * LABEL + "┃ captured  ░▒▓ padding <10%/<30%/more  ╳ eager  "
                      "(log scale)", style="dim"))
    return lines


def print_strip(console: Any, lists: Sequence[tuple[str, Sequence[int]]],
                counts: Mapping[int, int] | None = None, upper: int | None = None) -> None:
    """Print :func:`strip_lines` on ``console``, as wide as it allows (room left for the
    label and `` 256 graphs``), with no trailing spaces."""
    width = max(16, min(WIDTH, int(console.width) - LABEL - len(" 99999 graphs")))
    for line in strip_lines(lists, counts, width=width, upper=upper):
        line.rstrip()
        console.print(line, soft_wrap=True)


def print_plan_sizes(plan: Any) -> None:
    """``resolve --show sizes``: one strip per phase that captures graphs."""
    from cgconfig.cli.render import console as plan_console

    console = plan_console()
    for phase, unit in (("decode", "requests"), ("prefill", "tokens")):
        sizes = plan.capture_sizes(phase)
        if sizes:
            console.print(f"{phase} sizes ({unit}):", markup=False)
            pool = plan.facts.get("max_running_requests") if phase == "decode" else None
            print_strip(console, [(phase, sizes)], upper=pool)
