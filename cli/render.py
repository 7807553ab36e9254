"""Render plans and explanations: rich tables for people, JSON/YAML for machines.

rich and yaml are imported only here, and only for the format that needs them.
"""

from __future__ import annotations

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


def render_plan(plan: Plan, fmt: str) -> None:
    """Write a plan to stdout in ``table``, ``json`` or ``yaml``."""
    if fmt in ("json", "yaml"):
        from cgconfig.cli.output import write_data

        write_data(plan.to_dict(), fmt)
        return
    _plan_table(plan)


def console() -> Any:
    """A console for tables: the terminal's width (rich honours ``COLUMNS``); piped without
    ``COLUMNS``, 160 columns so a plan table is not squeezed for a log. Prose is printed with
    ``soft_wrap=True`` and is never hard-wrapped."""
    import os
    import sys

    from rich.console import Console
    from rich.segment import Segment

    from cgconfig.terminal import safe_text, unsafe

    class PipeConsole(Console):
        """rich exits 1 when the reader leaves; the CLI treats that as a quiet success.
        Every text segment passes the one terminal escaper before rich adds its styles."""

        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

        def _render_buffer(self, buffer: Any) -> str:
            return str(super()._render_buffer(
                Segment(safe_text(text, keep_newlines=True), style, control)
                if not control else Segment(text, style, control)
                for text, style, control in buffer))

    stream = unsafe(sys.stdout)
    terminal = PipeConsole(highlight=False, soft_wrap=False, file=stream)
    if not terminal.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        return PipeConsole(highlight=False, soft_wrap=False, width=160, file=stream)
    return terminal


def locked_line(plan: Plan) -> str:
    """``decode.backend, decode.max_bs ← --cuda-graph-config x.yaml; … ← --tp-size``: the
    locked keys grouped by the input that set them, each source named once."""
    from cgconfig.cli.explain_cmd import USER_LAYERS

    by_source: dict[str, list[str]] = {}
    for key in plan.locked:
        users = [e for e in plan.provenance[key] if e.layer in USER_LAYERS]
        source = users[-1].source if users else "your input"
        by_source.setdefault(source, []).append(key)
    return "; ".join(f"{', '.join(keys)} ← {source}" for source, keys in by_source.items())


#: Engine settings shown in the plan table, with their labels.
ENGINE_LABELS = (("attention_backend", "attention"), ("prefill_attention_backend", "prefill attention"),
                 ("decode_attention_backend", "decode attention"),
                 ("chunked_prefill_size", "chunked prefill"),
                 ("mem_fraction_static", "mem_fraction_static"),
                 ("max_running_requests", "max running requests"),
                 ("speculative_num_draft_tokens", "draft tokens"))


def engine_line(plan: Plan) -> str:
    """``SGLang 0.5.23 engine: attention fa3 · chunked prefill 8192 · ...``: the engine block
    in one line (unset settings left out; ``cgconfig explain engine.<name>`` says why)."""
    parts = []
    for name, label in ENGINE_LABELS:
        value = plan.engine.get(name, {}).get("value")
        if value is not None:
            parts.append(f"{label} {value:g}" if isinstance(value, float) else f"{label} {value}")
    return "SGLang 0.5.23 engine: " + " · ".join(parts)


def redundant_warning(plan: Plan, warning: str) -> bool:
    """A warning that only repeats a decision's reason (the table prints the decision)."""
    return any(d.why and d.why in warning for d in plan.decisions
               if d.kind != "resolver" or d.outcome == "warned")


def _shown(value: object, source: str, unit: str = "") -> str:
    """``192 GiB (rocm-smi)``; an unknown value shows only why (``unknown (… not found)``)."""
    if value is None:
        return source if source.startswith("unknown") else f"unknown ({source})"
    text = ("yes" if value is True else "no" if value is False
            else f"{value:g}" if isinstance(value, float) else str(value))
    return f"{text}{unit} ({source})"


def key_fact_lines(plan: Plan) -> list[str]:
    """The platform, GPU and model lines of a plan table, each fact with where it came from;
    a ``config.json`` path is printed once and then called ``config.json``."""
    facts = plan.key_facts
    if not facts:
        return []
    derived = plan.facts.get("derived", {})
    gpu = [_shown(derived.get("gpu_memory_gib"),
                  str(derived.get("gpu_memory_source", facts["gpu_memory_gib"]["source"])),
                  " GiB"),
           _shown(facts["gpu_sm"]["value"], facts["gpu_sm"]["source"]),
           _shown(facts["gpu_count"]["value"], facts["gpu_count"]["source"])]
    gpu_line = (f"  GPU: {gpu[0]}" if len(set(gpu)) == 1 else
                f"  GPU: memory {gpu[0]} · SM {gpu[1]} · count {gpu[2]}")
    lines = [f"  platform: {_shown(facts['device']['value'], facts['device']['source'])}",
             gpu_line]
    config = next((f["source"].split(" (")[0].rsplit(":", 1)[0] for f in facts.values()
                   if ".json:" in f["source"]), None)

    def source(name: str) -> str:
        text = str(facts[name]["source"])
        return text.replace(config, "config.json") if config else text

    model = f"  model: {_shown(facts['model_path']['value'], source('model_path'))}"
    if config:
        model += f" · config {config}"
    for label, name in (("arch", "model_arch"), ("MLA", "use_mla"),
                        ("multimodal", "is_multimodal"), ("context", "model_context_length")):
        if name in facts:
            model += f" · {label} {_shown(facts[name]['value'], source(name))}"
    lines.append(model)
    return lines


def _plan_table(plan: Plan) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    out.print(f"[bold]cgconfig plan[/] · tp {escape(str(plan.facts['tp_size']))}")
    for line in key_fact_lines(plan):
        out.print(line, markup=False, soft_wrap=True)
    table = Table(show_lines=False)
    for column in ("phase", "backend", "max_bs", "configured sizes", "captured sizes"):
        table.add_column(column)
    for phase in ("decode", "prefill"):
        cfg, cap = plan.config[phase], plan.capture[phase]
        backend = cfg["backend"]
        style = "red" if backend == "disabled" else ("yellow" if backend == "breakable" else "green")
        unit: str = plan.size_unit(phase)
        width = plan.units[phase].get("tokens_per_request", 1)
        if width > 1:  # speculative decoding: say how requests and tokens relate
            unit += f", {width} per request" if unit == "tokens" else f" × {width} tokens"
        table.add_row(f"{phase} ({unit})", f"[{style}]{escape(str(backend))}[/]",
                      escape(str(cfg["max_bs"] or "—")), short_list(cfg["bs"]),
                      short_list(cap["sizes"]))
    out.print(table)
    if plan.engine:
        out.print(engine_line(plan), markup=False, soft_wrap=True)
    compile_sizes = plan.capture["decode"].get("compile_sizes")
    if compile_sizes:
        out.print(f"torch.compile sizes: {short_list(compile_sizes)}", markup=False)
    if plan.locked:
        out.print("[bold]Locked by your inputs:[/] ", end="")
        out.print(locked_line(plan), markup=False, soft_wrap=True)
    shown = [d for d in plan.decisions if d.kind != "resolver" or d.outcome == "warned"]
    if shown:
        out.print("[bold]Decisions:[/]")
        for d in shown:
            mark = {"applied": "~", "overrode-lock": "~!", "skipped-locked": "!",
                    "warned": "?", "refused": "x", "advised": "+"}[d.outcome]
            changes = "; ".join(f"{c.key} {c.before!r} → {c.after!r}" for c in d.changes)
            out.print(f"  {mark} [bold]{escape(d.rule)}[/] ({d.kind}, {d.outcome})"
                      + (f": {escape(changes)}" if changes else ""), markup=True)
            out.print(f"      why: {d.why}", markup=False, soft_wrap=True)
            if d.inputs:
                out.print(f"      your input: {', '.join(d.inputs)}", markup=False,
                              soft_wrap=True)
            if d.hint:
                out.print(f"      override: {d.hint}", markup=False, soft_wrap=True)
    warnings = [w for w in plan.warnings if not redundant_warning(plan, w)]
    if warnings:
        out.print("[bold]Warnings:[/]")
        for w in warnings:
            out.print(f"  - {w}", markup=False, soft_wrap=True)
    if plan.ignored_args:
        out.print(f"Ignored (no effect on CUDA graphs): {' '.join(plan.ignored_args)}",
                      markup=False, soft_wrap=True)
