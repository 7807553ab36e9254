"""``cgconfig diff A B``: what changes between two plans.

Each side is a launch line (``--a "…"``, ``--b "…"``, resolved like ``cgconfig resolve``), a
plan file written by ``resolve -o json`` (or ``-o yaml``), or ``-`` for stdin. Exit codes
follow ``diff``: 0 the plans are equal, 1 they differ, 2 bad input.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any

from cgconfig.errors import EXIT_INPUT, CgConfigError, InputError
from cgconfig.line.versions import newest, oldest

EXIT_DIFFERENT = 1

#: The releases the examples name: the oldest and the newest supported SGLang.
_OLDEST, _NEWEST = f"sglang=={oldest('sglang')}", f"sglang=={newest('sglang')}"

HELP = f"""Usage: cgconfig diff [A] [B] [--a "LAUNCH LINE"] [--b "LAUNCH LINE"] [-o table|json|yaml]
       cgconfig diff --a-version ENGINE==V --b-version ENGINE==V LAUNCH LINE…

Compare two plans: configured values, capture sizes (added/removed, as ranges), decisions and
warnings; deployment facts that differ are shown for context.

Each side is a plan file from `cgconfig resolve -o json` (or -o yaml), `-` for stdin (one side
at most), or a launch line given with --a / --b and resolved like `cgconfig resolve`.

  --a LINE, --b LINE     A side as a launch line (quote it; a whole `python -m sglang...` works).
  --a-version V, --b-version V
                         Answer a side as engine version V ({_OLDEST}); with no --a/--b
                         both sides are the one LAUNCH LINE given after the options: what an
                         upgrade changes.
  -o, --output FORMAT    table (default; coloured on a terminal unless NO_COLOR), json or yaml.
  -h, --help             Show this message.

Exit codes: 0 equal, 1 different, 2 bad input.

Examples:
  cgconfig diff --a "--tp-size 8" --b "--tp-size 8 --enable-dp-attention --dp-size 8"
  cgconfig diff --a-version {_OLDEST} --b-version {_NEWEST} --gpu-memory-gib 24
  cgconfig resolve --device cuda -o json > cuda.json; cgconfig diff cuda.json --b "--device hip"
"""


def _versions(rest: list[str]) -> tuple[dict[str, str], list[str]]:
    """``--a-version V`` / ``--b-version V`` taken out of ``rest``."""
    versions: dict[str, str] = {}
    kept: list[str] = []
    index = 0
    while index < len(rest):
        name, eq, value = rest[index].partition("=")
        if name not in ("--a-version", "--b-version"):
            kept.append(rest[index])
            index += 1
            continue
        value, index = _value(rest, index, eq, value, "a version", f"{name} {_OLDEST}")
        if name[:3] in versions:
            raise InputError(f"{name} given twice", where="diff")
        versions[name[:3]] = value
        index += 1
    return versions, kept


def _value(rest: list[str], index: int, eq: str, inline: str, what: str,
           hint: str) -> tuple[str, int]:
    """The value of the option at ``rest[index]``: written after ``=``, else the next word
    (``index`` then moves onto it)."""
    if eq:
        return inline, index
    if index + 1 >= len(rest):
        raise InputError(f"{rest[index].partition('=')[0]} needs {what}", where="diff", hint=hint)
    return rest[index + 1], index + 1


def _parse(argv: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """``(format, [(kind, text), (kind, text)])`` with kind ``line``, ``file`` or ``stdin``."""
    from cgconfig.cli.output import pop_output

    fmt, rest = pop_output(argv)
    versions, rest = _versions(rest)
    if versions and not any(t.split("=", 1)[0] in ("--a", "--b") for t in rest):
        # One launch line, answered as two engine versions.
        if not rest:
            raise InputError("--a-version/--b-version need a launch line", where="diff",
                             hint=f"cgconfig diff --a-version {_OLDEST} --b-version "
                                  f"{_NEWEST} python -m sglang.launch_server ...")
        line = rest[0] if len(rest) == 1 else shlex.join(rest)
        return fmt, [("line", _with_version(line, versions.get(side)))
                     for side in ("--a", "--b")]
    fmt, sides = _parse_sides(fmt, rest)
    return fmt, [(kind, _with_version(text, versions.get(side)) if kind == "line" else text)
                 for (kind, text), side in zip(sides, ("--a", "--b"), strict=True)]


def _with_version(line: str, version: str | None) -> str:
    return f"--engine-version {shlex.quote(version)} {line}" if version else line


def _parse_sides(fmt: str, rest: list[str]) -> tuple[str, list[tuple[str, str]]]:
    lines: dict[str, str] = {}
    files: list[str] = []
    index = 0
    while index < len(rest):
        token = rest[index]
        name, eq, value = token.partition("=")
        if name in ("--a", "--b"):
            value, index = _value(rest, index, eq, value, "a launch line",
                                  f'quote it: {name} "--tp-size 8 ..."')
            if name in lines:
                raise InputError(f"{name} given twice", where="diff")
            lines[name] = value
        elif token.startswith("-") and token != "-":
            from cgconfig.errors import did_you_mean

            options = ("--a", "--b", "--a-version", "--b-version", "--output", "-o", "--help",
                       "-h")
            raise InputError(f"unknown option {token!r}", where="diff", allowed=options,
                             suggestion=did_you_mean(token, options),
                             hint='a launch line goes inside --a "..." or --b "..."')
        else:
            files.append(token)
        index += 1
    sides: list[tuple[str, str]] = []
    for name in ("--a", "--b"):
        if name in lines:
            sides.append(("line", lines[name]))
        elif files:
            path = files.pop(0)
            sides.append(("stdin" if path == "-" else "file", path))
    if len(sides) != 2 or files:
        raise InputError(f"diff needs exactly two plans, got {len(sides) + len(files)}",
                         where="diff", hint="give A and B as plan files, '-' for stdin, or "
                                            '--a "LAUNCH LINE" / --b "LAUNCH LINE"')
    if [kind for kind, _ in sides].count("stdin") > 1:
        raise InputError("only one side can read stdin ('-')", where="diff")
    return fmt, sides


def _validated(data: Any, where: str) -> dict[str, Any]:
    """A plan document, checked against the published plan schema."""
    from pydantic import ValidationError

    from cgconfig.docio import pointer
    from cgconfig.plan_schema import PlanDocument

    if isinstance(data, dict) and "error" in data and "schema_version" not in data:
        raise InputError("this is an error report, not a plan", where=where,
                         hint="resolve it successfully first")
    try:
        PlanDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(f"not a cgconfig plan (at {pointer(tuple(first['loc']))}: "
                         f"{first['msg']})", where=where,
                         hint="write one with `cgconfig resolve ... -o json > plan.json`") from None
    assert isinstance(data, dict)
    return data


def load_side(kind: str, text: str, label: str) -> dict[str, Any]:
    """The plan document of one side: resolved from a launch line, or read from a file/stdin."""
    if kind == "line":
        from cgconfig.api import resolve_args

        try:
            argv = shlex.split(text)
        except ValueError as exc:
            raise InputError(f"cannot split the launch line ({exc})", where=label) from None
        try:
            return resolve_args(argv, environ=os.environ).to_dict()
        except CgConfigError as error:
            raise InputError(str(error), where=label) from None
    from cgconfig.docio import load_json_text, load_yaml_text, read_document, read_stdin

    if kind == "stdin":
        body = read_stdin("stdin")
        data = load_json_text(body, "stdin") if body.lstrip().startswith("{") else (
            load_yaml_text(body, "stdin")[0])
        return _validated(data, "stdin")
    data, _, name = read_document(text, label)
    return _validated(data, name)


def _describe(kind: str, text: str) -> str:
    return {"line": f"cgconfig resolve {text}", "stdin": "stdin"}.get(kind, text)


def run_diff(argv: list[str]) -> int:
    """``cgconfig diff``: print what differs; returns 0 equal, 1 different, 2 bad input."""
    from cgconfig.cli.output import asks_json, fail

    if {"-h", "--help"} & set(argv):
        from cgconfig.cli.help import fit_help

        sys.stdout.write(fit_help(HELP))
        return 0
    fmt = "json" if asks_json(argv) else "table"
    try:
        from cgconfig.cli.from_file import launches_to_diff

        from_file = launches_to_diff(argv)
        if from_file is not None:
            fmt, sides, plans = from_file
        else:
            fmt, sides = _parse(argv)
            plans = [load_side(kind, text, label if kind == "line" else "diff")
                     for (kind, text), label in zip(sides, ("--a", "--b"), strict=True)]
    except CgConfigError as error:
        fail(error, fmt)
        return EXIT_INPUT
    from cgconfig.cli.plan_diff import diff_plans

    result = diff_plans(plans[0], plans[1])
    result = {"a": _describe(*sides[0]), "b": _describe(*sides[1]), **result}
    if fmt == "table":
        from cgconfig.cli.diff_render import render_diff
        from cgconfig.terminal import safe_data, unsafe

        # the plans' text is escaped first; the colour codes are diff's own
        text = render_diff(safe_data(result), color=_use_color())  # type: ignore[arg-type]
        unsafe(sys.stdout).write(text)
    else:
        from cgconfig.cli.output import write_data

        write_data(result, fmt)
    return 0 if result["equal"] else EXIT_DIFFERENT


def _use_color() -> bool:
    """Colour on a terminal, never under ``NO_COLOR``; ``FORCE_COLOR`` forces it (as rich)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()
