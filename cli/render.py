"""Render plans and explanations: rich tables for people, JSON/YAML for machines.

rich and yaml are imported only here, and only for the format that needs them.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cgconfig.plan import Plan


def short_list(values: list[int] | None, limit: int = 8) -> str:
    """``[1, 2, 4, …, 256] (36)``: a long size list kept to one line."""
    if not values:
        return "—"
    if len(values) <= limit:
        return ", ".join(map(str, values))
    head = ", ".join(map(str, values[: limit - 2]))
    return f"{head}, …, {values[-1]}  ({len(values)} sizes)"


def compact_json(data: Any) -> str:
    """Indented JSON with number lists kept on one line (plans have long size lists)."""
    import re

    text = json.dumps(data, indent=2, ensure_ascii=False)
    return re.sub(r"\[\s+((?:-?\d+,\s+)*-?\d+)\s+\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)


def render_plan(plan: Plan, fmt: str) -> None:
    """Write a plan to stdout in ``table``, ``json`` or ``yaml``."""
    if fmt == "json":
        sys.stdout.write(compact_json(plan.to_dict()) + "\n")
        return
    if fmt == "yaml":
        import yaml

        sys.stdout.write(yaml.safe_dump(plan.to_dict(), sort_keys=False, width=100))
        return
    _plan_table(plan)


def console() -> Any:
    """A rich console for tables: 160 columns wide when the output is not a terminal."""
    from rich.console import Console

    terminal = Console(highlight=False, soft_wrap=False)
    if not terminal.is_terminal:
        # Piped output is read by people in logs and CI, not by an 80-column terminal.
        return Console(highlight=False, soft_wrap=False, width=160)
    return terminal


def _plan_table(plan: Plan) -> None:
    from rich.table import Table

    out = console()
    facts = plan.facts
    derived = facts.get("derived", {})
    memory = derived.get("gpu_memory_gib")
    mem = f"{memory:g} GiB" if memory is not None else "unknown"
    out.print(f"[bold]cgconfig plan[/] · device {facts['device']} · GPU memory {mem} "
                  f"({derived.get('gpu_memory_source')}) · tp {facts['tp_size']}")
    table = Table(show_lines=False)
    for column in ("phase", "backend", "max_bs", "configured sizes", "captured sizes"):
        table.add_column(column)
    for phase in ("decode", "prefill"):
        cfg, cap = plan.config[phase], plan.capture[phase]
        backend = cfg["backend"]
        style = "red" if backend == "disabled" else ("yellow" if backend == "breakable" else "green")
        unit = "requests" if phase == "decode" else "tokens"
        table.add_row(f"{phase} ({unit})", f"[{style}]{backend}[/]", str(cfg["max_bs"] or "—"),
                      short_list(cfg["bs"]), short_list(cap["sizes"]))
    out.print(table)
    compile_sizes = plan.capture["decode"].get("compile_sizes")
    if compile_sizes:
        out.print(f"torch.compile sizes: {short_list(compile_sizes)}")
    if plan.locked:
        out.print("[bold]Locked by your inputs:[/] " + ", ".join(
            f"{k} ← {plan.provenance[k][-1].source}" if plan.provenance[k][-1].layer not in
            ("rule", "resolver", "rule-skipped") else k for k in plan.locked))
    shown = [d for d in plan.decisions if d.kind != "resolver" or d.outcome == "warned"]
    if shown:
        out.print("[bold]Decisions:[/]")
        for d in shown:
            mark = {"applied": "~", "overrode-lock": "~!", "skipped-locked": "!",
                    "warned": "?", "refused": "x"}[d.outcome]
            changes = "; ".join(f"{c.key} {c.before!r} → {c.after!r}" for c in d.changes)
            out.print(f"  {mark} [bold]{d.rule}[/] ({d.kind}, {d.outcome})"
                          + (f": {changes}" if changes else ""), markup=True)
            out.print(f"      why: {d.why}", markup=False)
            if d.inputs:
                out.print(f"      your input: {', '.join(d.inputs)}", markup=False)
            if d.hint:
                out.print(f"      override: {d.hint}", markup=False)
    if plan.warnings:
        out.print("[bold]Warnings:[/]")
        for w in plan.warnings:
            out.print(f"  - {w}", markup=False)
    if plan.ignored_args:
        out.print(f"Ignored (no effect on CUDA graphs): {' '.join(plan.ignored_args)}",
                      markup=False)
