"""``cgconfig migrate LINE --to ENGINE==VERSION``: the line in another release's spelling.

The rewritten line goes to stdout (``$(cgconfig migrate ...)`` is the new line); what changed,
what cannot be kept and the plan before and after (``cgconfig diff``'s report) go to stderr,
or all of it to stdout as one JSON object with ``-o json``. Exit codes: 0 migrated, 1 migrated
but the target release refuses the migrated line's plan (said on stderr), 2 bad input.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from cgconfig.errors import CgConfigError, InputError
from cgconfig.line.versions import newest, oldest

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch
    from cgconfig.migrate import Migration

#: The target release refuses the migrated line's plan.
EXIT_REFUSED = 1

HELP = f"""Usage: cgconfig migrate LAUNCH LINE… --to ENGINE==VERSION [-o table|json]
       cgconfig migrate --from FILE --to ENGINE==VERSION [--container NAME] [--role ROLE]

Rewrite a launch line for another release of its engine: flags the target release removed or
renamed are written in its spelling, abbreviations in full; what cannot be kept is dropped,
one line each saying why. The line's own release is found as `cgconfig resolve` finds it
(--engine-version, CGCONFIG_ENGINE_VERSION, an image tag, the installed engine, its flags).

The new line is printed on stdout, so `$(cgconfig migrate ...)` is it; the changes and the
plan before and after (as `cgconfig diff` shows them) go to stderr.

  --to ENGINE==VERSION   The release to write the line for (sglang=={newest('sglang')}; or
                         only the version, for the line's engine).
  --from FILE            Each launch of FILE (a manifest, a script, a Dockerfile...).
  -o, --output FORMAT    table (default) or json: one object with the line, its words, the
                         changes, what was dropped and the plan diff.
  -h, --help             Show this message.

Exit codes: 0 migrated, 1 the target release refuses the migrated line's plan, 2 bad input.

Examples:
  cgconfig migrate python -m sglang.launch_server --model-path M --cuda-graph-max-bs 160 \\
      --to sglang=={newest('sglang')}
  cgconfig migrate "vllm serve M --max-num-partial-prefills 2" --to vllm=={newest('vllm')}
  cgconfig migrate --engine-version sglang=={newest('sglang')} --tp 8 --to {oldest('sglang')}
"""


def _take_to(argv: list[str]) -> tuple[str, list[str]]:
    """``--to ENGINE==RELEASE`` (or ``--to=ENGINE==RELEASE``) taken out of ``argv``: the first
    one, before the line's own words can hold one."""
    rest: list[str] = []
    spec: str | None = None
    at = 0
    while at < len(argv):
        name, eq, inline = argv[at].partition("=")
        if name != "--to":
            rest.append(argv[at])
            at += 1
            continue
        if spec is not None:
            raise InputError("given twice", where="--to", hint="name one release")
        if not eq and at + 1 >= len(argv):
            raise InputError("needs a release", where="--to",
                             hint=f"--to sglang=={newest('sglang')}")
        spec = inline if eq else argv[at + 1]
        at += 1 if eq else 2
    if spec is None:
        raise InputError("needs --to ENGINE==VERSION (the release to write the line for)",
                         where="migrate", hint=f"--to sglang=={newest('sglang')}")
    return spec, rest


def _plan(argv: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """The plan of ``argv`` as a document, or the one line that refuses it."""
    from cgconfig.api import resolve_args

    try:
        return resolve_args(argv, environ=os.environ).to_dict(), None
    except CgConfigError as error:
        return None, str(error)


def _report(migration: Migration, before: dict[str, Any], after: dict[str, Any] | None,
            refused: str | None) -> dict[str, Any]:
    from cgconfig.cli.plan_diff import diff_plans

    body: dict[str, Any] = {
        "line": shlex.join(migration.argv), "argv": migration.argv,
        "from": {"engine": migration.source.engine, "version": migration.source.version,
                 "label": migration.source.label, "source": migration.source.source},
        "to": {"engine": migration.target.engine, "version": migration.target.version,
               "label": migration.target.label},
        "changes": [c.to_dict() for c in migration.changes],
        "dropped": [c.to_dict() for c in migration.dropped],
        "refused": refused,
    }
    if after is not None:
        result = diff_plans(before, after)
        body["diff"] = {"a": f"{migration.source.label} (as written)",
                        "b": f"{migration.target.label} (migrated)", **result}
    return body


def _explain(body: dict[str, Any]) -> None:
    """The changes, what was dropped and the plan diff, on stderr (wrapped at the terminal's
    width, or ``COLUMNS``, with a hanging indent)."""
    from cgconfig.cli.width import width, wrap
    from cgconfig.terminal import safe_data, unsafe

    limit = width(None)
    rows = [f"cgconfig: migrate: {body['from']['label']} ({body['from']['source']}) → "
            f"{body['to']['label']}"]
    for change in body["changes"]:
        rows.append(f"  changed: {shlex.join(change['before'])} → "
                    f"{shlex.join(change['after'])}: {change['why']}")
    for change in body["dropped"]:
        rows.append(f"  cannot keep: {shlex.join(change['before'])}: {change['why']}")
    if not body["changes"] and not body["dropped"]:
        rows.append("  nothing to change: the target release reads every flag as written")
    if body["refused"]:
        rows.append(f"  the target release refuses the migrated line: {body['refused']}")
    sys.stderr.write("".join(line + "\n" for row in rows
                             for line in wrap(row, limit, indent=6 if row[:1] == " " else 4)))
    if "diff" in body:
        from cgconfig.cli.diff_render import render_diff

        unsafe(sys.stderr).write(render_diff(safe_data(body["diff"]), color=False))  # type: ignore[arg-type]


def run_migrate(argv: list[str], launch: Launch | None = None) -> int:
    """``cgconfig migrate``: print the migrated line; returns the exit code."""
    from cgconfig.cli.output import asks_json, fail, pop_output

    if launch is None and {"-h", "--help"} & set(argv):
        from cgconfig.cli.help import fit_help

        sys.stdout.write(fit_help(HELP))
        return 0
    fmt = "json" if asks_json(argv) else "table"
    if launch is None:
        from cgconfig.cli.from_file import run_each

        try:
            each = run_each(argv, lambda words, found: run_migrate(words, found))
        except CgConfigError as error:
            return fail(error, fmt)
        if each is not None:
            return each
    try:
        fmt, rest = pop_output(argv, ("table", "json"))
        spec, rest = _take_to(rest)
        migration, before, options = _migrated(rest, spec, launch)
    except CgConfigError as error:
        from cgconfig.cli.from_file import labelled

        return fail(labelled(error, launch), fmt)
    pinned = [] if "--engine-version" in " ".join(migration.argv) else [
        "--engine-version", f"{migration.target.engine}=={migration.target.version}"]
    after, refused = _plan([*options, *pinned, *migration.argv])
    body = _report(migration, before, after, refused)
    if fmt == "json":
        from cgconfig.cli.output import write_data

        write_data(body, "json")
    else:
        sys.stdout.write(body["line"] + "\n")
        sys.stdout.flush()
        _explain(body)
    return EXIT_REFUSED if refused else 0


def _migrated(rest: list[str], spec: str,
              launch: Launch | None) -> tuple[Migration, dict[str, Any], list[str]]:
    """The migration of the typed line (or of ``launch``, ``rest`` then cgconfig's options),
    the plan of the line as written, and the options both plans are resolved with."""
    from cgconfig.migrate import migrate

    if launch is not None:
        from cgconfig.files.plan import launch_environ, launch_version, resolve_launch

        words = list(launch.argv)
        pinned = launch_version(launch, words, launch_environ())
        before = resolve_launch(launch, rest).to_dict()
        return migrate(words, spec, engine_version=pinned), before, list(rest)
    if not rest:
        raise InputError("needs a launch line", where="migrate",
                         hint=f"cgconfig migrate vllm serve MODEL ... --to vllm=={newest('vllm')}")
    words = rest
    if len(rest) == 1 and " " in rest[0]:
        try:
            words = shlex.split(rest[0])
        except ValueError as exc:
            raise InputError(f"cannot split the launch line ({exc})", where="migrate") from None
    written, refused = _plan(words)
    if written is None:
        raise InputError(f"the line as written is refused: {refused}", where="migrate",
                         hint="migrate reads a line its own release accepts")
    return migrate(words, spec, environ=dict(os.environ)), written, []
