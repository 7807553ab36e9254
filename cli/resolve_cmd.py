"""``cgconfig resolve``: print the plan (table, JSON or YAML), or engine flags with ``--emit``."""

from __future__ import annotations

import os
import sys

from cgconfig.errors import EXIT_DOWNGRADED, CgConfigError


def run_resolve(argv: list[str]) -> int:
    """Resolve ``argv`` and print the result; returns the exit code."""
    from cgconfig.cli.errors import note, report
    from cgconfig.cli.options import HOST_FLAGS, CliOptions, parse_options

    options = CliOptions()
    try:
        from cgconfig.api import resolve_request
        from cgconfig.sources.command_line import request_from_split, split_command_line

        split = split_command_line(argv, HOST_FLAGS)
        options = parse_options(split.parts.get(HOST_FLAGS.owner))
        plan = resolve_request(request_from_split(split, environ=os.environ)[0])
    except CgConfigError as error:
        return report(error, as_json=options.as_json)
    for message in plan.deprecations:
        note("deprecated", message)
    for message in plan.notes:
        note("note", message)
    if not options.table:  # the table lists them itself
        for message in plan.warnings:
            note("warning", message)
    if options.emit:
        from cgconfig.emit import emit_plan

        text, notes = emit_plan(plan, options.emit)
        if options.emit == "env":  # plus what a launch script hands the server (cli/launch_args.py)
            from cgconfig.cli.launch_args import launch_env_lines

            lines, vllm_notes, line_notes = launch_env_lines(argv, plan)
            text += "".join(line + "\n" for line in lines)
            for message in vllm_notes:
                note("not expressible in vllm", message)
            for message in line_notes:
                note("note", message)
        for message in notes:
            note(f"not expressible in {options.emit}", message)
        sys.stdout.write(text)
    else:
        from cgconfig.cli.render import render_plan

        render_plan(plan, options.output)
        if options.show == "sizes" and options.output == "table":
            from cgconfig.cli.size_strip import print_plan_sizes

            print_plan_sizes(plan)
    if options.check and plan.downgraded:
        rules = sorted({d.rule for d in plan.decisions if d.downgraded})
        note("check", f"the configuration was downgraded by {', '.join(rules)}")
        return EXIT_DOWNGRADED
    return 0
