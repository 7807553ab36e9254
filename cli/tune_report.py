"""The side-by-side report of ``cgconfig tune``: default list vs tuned list, and the picture."""

from __future__ import annotations

from typing import Any

from cgconfig.tune.optimize import Metrics
from cgconfig.tune.plan_tuner import TuneResult


def _pct(value: float) -> str:
    return f"{100 * value:.2f} %"


def _rows(result: TuneResult) -> list[tuple[str, str, str]]:
    d, t = result.default_metrics, result.tuned_metrics

    def both(fn: Any) -> tuple[str, str]:
        return fn(d), fn(t)

    rows = [("graphs", str(d.graphs), str(t.graphs)),
            ("padding waste (padded ÷ real rows)", *both(lambda m: _pct(m.waste))),
            ("padded rows per step", *both(lambda m: f"{m.padded_rows / max(m.steps, 1):.2f}")),
            ("steps run eagerly", *both(lambda m: _pct(m.eager_share)))]
    if d.expected_cost is not None and t.expected_cost is not None:
        rows.append(("expected step time (cost model)", f"{d.expected_cost:.4f} ms",
                     f"{t.expected_cost:.4f} ms"))
    rows.append(("capture memory vs default (largest size)", "1.00×",
                 f"{result.memory_ratio:.2f}×"))
    return rows


def _sizes(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes)) if sizes else "—"


def print_report(result: TuneResult) -> None:
    """Table, both size lists in full, the strip picture, and how to apply the result."""
    from rich.table import Table

    from cgconfig.cli.render import console as plan_console
    from cgconfig.cli.render import print_prose
    from cgconfig.cli.size_strip import print_strip

    console = plan_console()
    m: Metrics = result.default_metrics
    sizes = sorted(result.counts)
    constraint = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in result.constraint.items())
    print_prose(console, f"cgconfig tune · decode · {m.steps:,} steps, batch sizes "
                f"{sizes[0]}..{sizes[-1]} · objective: {result.objective} · {constraint}",
                indent=4, bold="cgconfig tune")
    print_prose(console, f"histogram: {result.source} · {len(result.allowed)} sizes allowed by "
                f"this deployment (largest {result.allowed[-1]})", indent=4)
    table = Table()
    table.add_column("")
    table.add_column("default", justify="right")
    table.add_column("tuned", justify="right")
    for row in _rows(result):
        table.add_row(*row)
    console.print(table)
    print_prose(console, f"default: {_sizes(result.default_sizes)}", indent=9)
    print_prose(console, f"tuned:   {_sizes(result.tuned_sizes)}", indent=9)
    print_strip(console, [("default", result.default_sizes), ("tuned", result.tuned_sizes)],
                result.counts)
    if result.graphs_for_1pct is not None:
        print_prose(console, f"≤ 1 % padding waste needs {result.graphs_for_1pct} graphs "
                    "(--max-waste 1).", indent=4)
    for warning in result.plan.warnings:
        print_prose(console, f"warning: {warning}", indent=4)
    print_prose(console, "Apply: add --emit sglang (or vllm) to print the flags; -o json for "
                "the plan.", indent=4)
