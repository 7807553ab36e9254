"""``cgconfig resolve``: print the plan (table, JSON or YAML), or engine flags with ``--emit``."""

from __future__ import annotations

import sys

from cgconfig.errors import EXIT_DOWNGRADED, CgConfigError


def _wants_json(argv: list[str]) -> bool:
    for i, token in enumerate(argv):
        if token in ("-o", "--output") and i + 1 < len(argv) and argv[i + 1] == "json":
            return True
        if token in ("--output=json", "-o=json", "-ojson"):
            return True
    return False


def run_resolve(argv: list[str]) -> int:
    """Resolve ``argv`` and print the result; returns the exit code."""
    from cgconfig.cli.errors import note, report

    as_json = _wants_json(argv)
    try:
        from cgconfig.api import request_and_meta
        from cgconfig.resolve import resolve

        request, parsed = request_and_meta(argv)
        plan = resolve(request)
    except CgConfigError as error:
        return report(error, as_json=as_json)
    meta = parsed.meta
    table = not meta.get("emit") and (meta.get("output") or "table") == "table"
    for message in plan.deprecations:
        note("deprecated", message)
    if not table:  # the table lists them itself
        for message in plan.warnings:
            note("warning", message)
    emit = meta.get("emit")
    if emit:
        from cgconfig.emit import emit_plan

        text, notes = emit_plan(plan, emit)
        if emit == "env":  # plus what a launch script hands the server (cli/launch_args.py)
            from cgconfig.cli.launch_args import launch_env_lines

            lines, vllm_notes = launch_env_lines(argv, plan)
            text += "".join(line + "\n" for line in lines)
            for message in vllm_notes:
                note("not expressible in vllm", message)
        for message in notes:
            note(f"not expressible in {emit}", message)
        sys.stdout.write(text)
    else:
        fmt = meta.get("output") or "table"
        from cgconfig.cli.render import render_plan

        render_plan(plan, fmt)
        if meta.get("show") == "sizes" and fmt == "table":
            from cgconfig.cli.size_strip import print_plan_sizes

            print_plan_sizes(plan)
    if meta.get("check") and plan.downgraded:
        rules = sorted({d.rule for d in plan.decisions if d.downgraded})
        note("check", f"the configuration was downgraded by {', '.join(rules)}")
        return EXIT_DOWNGRADED
    return 0
