"""``cgconfig resolve``: print the plan (table, JSON or YAML), or engine flags with ``--emit``."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from cgconfig.errors import EXIT_DOWNGRADED, CgConfigError

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch


def run_resolve(argv: list[str], launch: Launch | None = None) -> int:
    """Resolve ``argv`` and print the result; returns the exit code. With ``--from FILE``,
    once per launch of the file (``launch``: the one this call resolves, ``argv`` then holds
    cgconfig's own flags only)."""
    from cgconfig.cli.errors import note, report
    from cgconfig.cli.from_file import labelled, run_each
    from cgconfig.cli.options import HOST_FLAGS, CliOptions, parse_options

    if launch is None:
        each = run_each(argv, lambda words, found: run_resolve(words, found))
        if each is not None:
            return each
    options = CliOptions()
    file_notes: list[str] = []
    try:
        from cgconfig.api import resolve_request
        from cgconfig.sources.command_line import request_from_split, split_command_line

        if launch is None:
            split = split_command_line(argv, HOST_FLAGS, environ=os.environ)
            options = parse_options(split.parts.get(HOST_FLAGS.owner))
            request = request_from_split(split, environ=os.environ)[0]
        else:
            from cgconfig.files.plan import launch_request

            request, split, file_notes = launch_request(launch, argv, host=HOST_FLAGS)
            file_notes = [*launch.notes, *file_notes]
            options = parse_options(split.parts.get(HOST_FLAGS.owner))
        if options.allow:
            _validate_allow(options.allow, request.settings.rule_files)
        plan = resolve_request(request)
    except CgConfigError as error:
        return report(labelled(error, launch), as_json=options.as_json)
    for message in file_notes:
        note("note", message)
    for message in plan.deprecations:
        note("deprecated", message)
    from cgconfig.resolve.model_note import is_unknown_model_note

    for message in plan.notes:
        if not is_unknown_model_note(message):  # the table's one-line hint; explain has it
            note("note", message)
    if not options.table:  # the table lists them itself
        for message in plan.warnings:
            note("warning", message)
    if options.emit:
        from cgconfig.cli.launch_args import user_compilation_config, user_trtllm_options
        from cgconfig.emit import emit_plan

        try:
            user = (user_trtllm_options(split) if options.emit == "trtllm"
                    else user_compilation_config(split))
            text, notes = emit_plan(plan, options.emit, user)
            vllm_notes: list[str] = []
            line_notes: list[str] = []
            if options.emit == "env":  # plus what a launch script hands the server
                from cgconfig.cli.launch_args import launch_env_lines

                lines, vllm_notes, line_notes = launch_env_lines(split, plan)
                text += "".join(line + "\n" for line in lines)
        except CgConfigError as error:
            return report(error, as_json=options.as_json)
        for message in line_notes:
            note("note", message)
        for message in vllm_notes:
            note("not expressible in vllm", message)
        for message in notes:  # env's own notes are about its SGLang variables
            note(f"not expressible in {'sglang' if options.emit == 'env' else options.emit}",
                 message)
        sys.stdout.write(text)
    else:
        from cgconfig.cli.render import render_plan

        render_plan(plan, options.output)
        if options.show == "sizes" and options.output == "table":
            from cgconfig.cli.size_strip import print_plan_sizes

            print_plan_sizes(plan)
    if options.check:
        from cgconfig.check import check_failures, failure_message

        failures = check_failures(plan, options.check, options.allow)
        if failures:
            note("check", failure_message(failures, options.check))
            return EXIT_DOWNGRADED
    return 0


def _validate_allow(allow: tuple[str, ...], rule_files: list[str]) -> None:
    from cgconfig.check import validate_allowed
    from cgconfig.rules.loading import load_rules_for_resolve

    validate_allowed(allow, (r.id for r in load_rules_for_resolve(rule_files).compiled()))
