"""``--from FILE``: run a command once per engine launch the file holds.

``cgconfig resolve --from deploy.yaml`` reads the file (``-`` for standard input), finds each
launch (:func:`cgconfig.files.launch.find_launches`), keeps those ``--container NAME`` and
``--role prefill|decode`` pick, and runs the command on each launch's words with cgconfig's
other flags in front, labelled ``FILE:LINE``. ``--set VAR=VALUE`` (repeatable) gives a
variable the file leaves unset. With ``-o json`` the output is one JSON list, an item per
launch: ``{"launch": {...}, "result": ...}``.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping
from contextlib import redirect_stdout
from typing import TYPE_CHECKING, Any, NamedTuple

from cgconfig.errors import EXIT_INPUT, CgConfigError, InputError, did_you_mean

if TYPE_CHECKING:  # every command asks run_each first: a line without --from imports no more
    from cgconfig.files.record import Launch

#: The options ``--from`` brings, each taking one value.
FROM_OPTIONS = ("--from", "--set", "--container", "--role")


class FromArgs(NamedTuple):
    """What ``--from`` and its companions asked for, and the command's other words."""

    path: str
    variables: dict[str, str]
    container: str | None
    role: str | None
    rest: list[str]


def take_from(argv: list[str]) -> FromArgs | None:
    """Take ``--from``, ``--set``, ``--container`` and ``--role`` (``--opt VALUE`` or
    ``--opt=VALUE``) out of ``argv``; ``None`` when ``--from`` is absent (then the companions
    are an error, since they mean nothing without a file)."""
    found: dict[str, list[str]] = {name: [] for name in FROM_OPTIONS}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        name, sep, inline = word.partition("=")
        if name in FROM_OPTIONS:
            if sep:
                found[name].append(inline)
                i += 1
                continue
            if i + 1 >= len(argv):
                raise InputError(f"{name} needs a value", where=name)
            found[name].append(argv[i + 1])
            i += 2
            continue
        rest.append(word)
        i += 1
    if not found["--from"]:
        given = [n for n in FROM_OPTIONS[1:] if found[n]]
        if given:
            raise InputError(f"{given[0]} picks from a file's launches", where=given[0],
                             hint="give the file: --from FILE")
        return None
    if len(found["--from"]) > 1:
        raise InputError("--from names one file", where="--from")
    variables: dict[str, str] = {}
    for item in found["--set"]:
        key, sep, value = item.partition("=")
        from cgconfig.files.expand import is_name

        if not sep or not is_name(key):
            raise InputError(f"expected VAR=VALUE, got {item!r}", where="--set",
                             hint="--set PARALLELISM_SIZE=8")
        variables[key] = value
    from cgconfig.files.roles import ROLES

    role = found["--role"][-1] if found["--role"] else None
    if role is not None and role not in ROLES:
        raise InputError(f"unknown role {role!r}", where="--role", allowed=ROLES,
                         suggestion=did_you_mean(role, ROLES))
    container = found["--container"][-1] if found["--container"] else None
    return FromArgs(found["--from"][0], variables, container, role, rest)


def read_launches(args: FromArgs) -> list[Launch]:
    """The launches of ``args.path`` that ``--container`` and ``--role`` pick (at least one)."""
    from cgconfig.docio import display_name, read_stdin, read_text_file
    from cgconfig.files.launch import find_launches

    text = read_stdin("--from -") if args.path == "-" else read_text_file(args.path, "--from")
    name = "-" if args.path == "-" else display_name(args.path)
    found = find_launches(name, text, variables=args.variables)
    picked = [launch for launch in found
              if (args.container is None or launch.container == args.container)
              and (args.role is None or launch.role == args.role)]
    if not picked:
        names = sorted({str(launch.container) for launch in found})
        what = " and ".join(f"{flag} {value}" for flag, value in
                            (("--container", args.container), ("--role", args.role)) if value)
        raise InputError(f"no launch in {name} matches {what}", where="--from",
                         allowed=", ".join(f"{launch.label} ({launch.container}, "
                                           f"{launch.role or 'no role'})" for launch in found),
                         suggestion=did_you_mean(args.container, names)
                         if args.container else None)
    return picked


def describe(launch: Launch) -> dict[str, object]:
    """A launch's JSON form (the ``launch`` item of ``-o json``)."""
    return {"file": launch.file, "line": launch.line, "label": launch.label,
            "kind": launch.kind, "container": launch.container, "role": launch.role,
            "engine_version": launch.engine_version, "version_origin": launch.version_origin,
            "gpu_count": launch.gpu_count, "gpu_kind": launch.gpu_kind,
            "argv": list(launch.argv), "unresolved": list(launch.unresolved)}


def heading(launch: Launch) -> str:
    """The line above each launch's table output."""
    parts = [p for p in (launch.kind, launch.container, launch.role) if p]
    return f"== {launch.label} ({', '.join(parts)}) =="


def asks_json(argv: list[str]) -> bool:
    """Whether ``argv`` asks for ``-o json``."""
    from cgconfig.cli.output import asks_json as output_asks_json

    return bool(output_asks_json(argv))


def run_each(argv: list[str], run_one: Callable[[list[str], Launch], int]) -> int | None:
    """Run ``run_one(words, launch)`` per launch of ``--from FILE``; ``None`` when ``argv``
    has no ``--from`` (the command runs as usual). Returns the worst exit code."""
    as_json = asks_json(argv)
    try:
        args = take_from(argv)
        if args is None:
            return None
        launches = read_launches(args)
    except CgConfigError as error:
        from cgconfig.cli.errors import report

        return int(report(error, as_json=as_json))
    codes: list[int] = []
    items: list[dict[str, object]] = []
    for launch in launches:
        if as_json:
            buffer = io.StringIO()
            with redirect_stdout(buffer):
                codes.append(run_one(list(args.rest), launch))
            text = buffer.getvalue().strip()
            try:
                result: object = json.loads(text) if text else None
            except ValueError:
                result = text
            items.append({"launch": describe(launch), "result": result})
        else:
            sys.stdout.write(heading(launch) + "\n")
            sys.stdout.flush()
            codes.append(run_one(list(args.rest), launch))
    if as_json:
        from cgconfig.cli.output import compact_json

        sys.stdout.write(compact_json(items) + "\n")
    return EXIT_INPUT if EXIT_INPUT in codes else max(codes, default=0)


def labelled(error: CgConfigError, launch: Launch | None) -> CgConfigError:
    """``error`` with the launch's ``FILE:LINE`` in front when it does not name the file."""
    if launch is None or not isinstance(error, InputError):
        return error
    if error.where and error.where.startswith(launch.file):
        return error
    where = f"{launch.label} ({error.where})" if error.where else launch.label
    return InputError(error.what, where=where, allowed=error.allowed,
                      suggestion=error.suggestion, hint=error.hint)


def launches_to_diff(argv: list[str]) -> tuple[str, list[tuple[str, str]], list[dict[str, Any]]] | None:
    """``cgconfig diff --from FILE``: the plans of the file's two launches (after
    ``--container``/``--role``) as diff's format, sides and plan documents; ``None`` without
    ``--from``."""
    from cgconfig.cli.output import pop_output
    from cgconfig.files.plan import resolve_launch

    args = take_from(argv)
    if args is None:
        return None
    fmt, options = pop_output(args.rest)
    launches = _exactly(read_launches(args), 2, "diff --from compares two launches",
                        "pick two with --container NAME or --role prefill|decode")
    plans = []
    for found in launches:
        try:
            plans.append(resolve_launch(found, options).to_dict())
        except CgConfigError as error:
            raise labelled(error, found) from None
    return fmt, [("launch", found.label) for found in launches], plans


def verify_line(line: list[str], environ: Mapping[str, str]) -> tuple[list[str], Mapping[str, str]]:
    """``cgconfig verify LOG --from FILE``: the words of the file's one launch (after
    ``--container``/``--role``) with cgconfig's other flags, and the environment it is
    answered with; ``line`` and ``environ`` unchanged without ``--from``."""
    from cgconfig.files.plan import launch_environ, launch_line

    args = take_from(line)
    if args is None:
        return line, environ
    launches = _exactly(read_launches(args), 1, "verify compares a log with one launch",
                        "pick the log's launch with --container NAME or --role ROLE")
    try:
        words, _ = launch_line(launches[0], args.rest)
    except CgConfigError as error:
        raise labelled(error, launches[0]) from None
    return words, launch_environ(environ)


def _exactly(launches: list[Launch], count: int, what: str, hint: str) -> list[Launch]:
    """``launches`` when there are ``count`` of them, else one error line listing them."""
    if len(launches) != count:
        raise InputError(f"{what}; {len(launches)} match", where="--from",
                         allowed=", ".join(heading(found)[3:-3] for found in launches),
                         hint=hint)
    return launches
