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
    """A console for tables: the width of :func:`cgconfig.cli.width.width` (valid ``COLUMNS``,
    else the terminal's); piped without ``COLUMNS``, 160 columns so a plan table is not
    squeezed for a log. rich never reads ``COLUMNS`` itself (it crashes on ``COLUMNS=²``).
    Every text segment passes the one terminal escaper (:mod:`cgconfig.terminal`)."""
    import sys

    from rich.console import Console
    from rich.segment import Segment

    from cgconfig.cli.width import clean_environ, width
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

    return PipeConsole(highlight=False, soft_wrap=False, width=width(160),
                       _environ=clean_environ(), file=unsafe(sys.stdout))


def prose_width() -> int | None:
    """The width prose lines wrap at: the terminal's or ``COLUMNS``; piped without
    ``COLUMNS``, ``None`` (prose stays on one line for logs and ``grep``)."""
    from cgconfig.cli.width import width

    return width(None)


def print_prose(out: Any, text: str, indent: int | None = None, bold: str = "") -> None:
    """Print ``text`` wrapped at :func:`prose_width` with a hanging ``indent``; ``bold``, when
    it occurs on the first line, is printed bold. No markup is read from ``text``."""
    from rich.text import Text

    from cgconfig.cli.width import wrap

    for number, line in enumerate(wrap(text, prose_width(), indent)):
        shown = Text(line)
        if number == 0 and bold and bold in line:
            start = line.index(bold)
            shown.stylize("bold", start, start + len(bold))
        out.print(shown, soft_wrap=True)


def _option_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def locked_line(plan: Plan) -> str:
    """``decode.backend, decode.max_bs ← --cuda-graph-config x.yaml; … ← --tp-size``: the
    locked keys grouped by the input that set them, each source named once."""
    from cgconfig.cli.explain_cmd import USER_LAYERS

    by_source: dict[str, list[str]] = {}
    for key in plan.locked:
        users = [e for e in plan.provenance[key] if e.layer in USER_LAYERS]
        source = users[-1].source if users else "your input"
        # An option's name alone can read as its opposite (TensorRT-LLM's enable_padding: true
        # locks options.disable_padding): show the value it is locked at.
        shown = (f"{key}={_option_value(plan.options[key[8:]])}"
                 if key.startswith("options.") and key[8:] in plan.options else key)
        by_source.setdefault(source, []).append(shown)
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
    label = plan.engine_version.get("label") or "SGLang"
    return f"{label} engine: " + " · ".join(parts)


def version_line(plan: Plan) -> str:
    """``  engine: SGLang 0.5.20 (--engine-version)``; with nothing naming one, the newest
    supported, said so in the same line."""
    chosen = plan.engine_version
    if not chosen:
        return ""
    if chosen["source"].startswith("default"):
        return f"  engine: {chosen['label']} (newest supported; --engine-version to choose)"
    return f"  engine: {chosen['label']} ({chosen['source']})"


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
    arch_unknown = facts.get("model_arch", {}).get("value") is None
    for label, name in (("arch", "model_arch"), ("MLA", "use_mla"),
                        ("multimodal", "is_multimodal"), ("context", "model_context_length")):
        if name not in facts:
            continue
        if arch_unknown and facts[name]["source"] == "default":
            model += f" · {label} unknown"  # nothing said it; the rules read the default
            continue
        model += f" · {label} {_shown(facts[name]['value'], source(name))}"
    lines.append(model)
    if arch_unknown and facts.get("model_path", {}).get("value") and not config:
        from cgconfig.resolve.model_note import is_unknown_model_note

        rules = any(is_unknown_model_note(n) for n in plan.notes)
        lines.append("    no config.json found: give --model-arch NAME, a local model folder, "
                     "or HF_HOME with the model"
                     + ("; `cgconfig explain` names the rules that read it" if rules else ""))
    return lines


def _plan_table(plan: Plan) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    print_prose(out, f"cgconfig plan · tp {plan.facts['tp_size']}", bold="cgconfig plan")
    for line in [version_line(plan), *key_fact_lines(plan)] if plan.engine_version else \
            key_fact_lines(plan):
        print_prose(out, line, indent=len(line) - len(line.lstrip()) + 4)
    table = Table(show_lines=False)
    for column in ("phase", "backend", "max_bs", "configured sizes", "captured sizes"):
        table.add_column(column)
    for phase in ("decode", "prefill"):
        cfg, cap = plan.config[phase], plan.capture[phase]
        backend = cfg["backend"]
        style = ("red" if backend == "disabled"
                 else "yellow" if backend in ("breakable", "tc_piecewise") else "green")
        unit: str = plan.size_unit(phase)
        width = plan.units[phase].get("tokens_per_request", 1)
        # Speculative decoding: say how requests and tokens relate, for tokens only where each
        # captured graph is a whole number of requests (vLLM's piecewise graphs are not).
        if width > 1 and unit != "tokens":
            unit += f" × {width} tokens"
        elif width > 1 and cap["sizes"] and all(s % width == 0 for s in cap["sizes"]):
            unit += f", {width} per request"
        table.add_row(f"{phase} ({unit})", f"[{style}]{escape(str(backend))}[/]",
                      escape(str(cfg["max_bs"] or "—")), short_list(cfg["bs"]),
                      short_list(cap["sizes"]))
    out.print(table)
    if plan.engine:
        print_prose(out, engine_line(plan), indent=4)
    from cgconfig.cli.cost_render import cost_lines

    for line in cost_lines(plan):
        print_prose(out, line, indent=len(line) - len(line.lstrip()) + 4)
    compile_sizes = plan.capture["decode"].get("compile_sizes")
    if compile_sizes:
        print_prose(out, f"torch.compile sizes: {short_list(compile_sizes)}", indent=4)
    if plan.locked:
        print_prose(out, f"Locked by your inputs: {locked_line(plan)}", indent=4,
                    bold="Locked by your inputs:")
    shown = [d for d in plan.decisions if d.kind != "resolver" or d.outcome == "warned"]
    if shown:
        print_prose(out, "Decisions:", bold="Decisions:")
        for d in shown:
            mark = {"applied": "~", "overrode-lock": "~!", "skipped-locked": "!",
                    "warned": "?", "refused": "x", "advised": "+"}[d.outcome]
            changes = "; ".join(f"{c.key} {c.before!r} → {c.after!r}" for c in d.changes)
            print_prose(out, f"  {mark} {d.rule} ({d.kind}, {d.outcome})"
                        + (f": {changes}" if changes else ""), indent=6, bold=d.rule)
            print_prose(out, f"      why: {d.why}", indent=11)
            if d.inputs:
                print_prose(out, f"      your input: {', '.join(d.inputs)}", indent=18)
            if d.hint:
                print_prose(out, f"      override: {d.hint}", indent=16)
    warnings = [w for w in plan.warnings if not redundant_warning(plan, w)]
    if warnings:
        print_prose(out, "Warnings:", bold="Warnings:")
        for w in warnings:
            print_prose(out, f"  - {w}", indent=4)
    if plan.ignored_args:
        print_prose(out, f"Ignored (no effect on CUDA graphs): {' '.join(plan.ignored_args)}",
                    indent=4)
