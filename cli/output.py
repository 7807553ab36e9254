"""One output contract for every command: ``-o table|json|yaml``, errors as JSON under ``-o json``.

Every command that prints data takes ``-o/--output``; the machine formats carry the same data,
YAML never uses anchors or aliases (a plan repeats size lists, and ``&id001`` / ``*id001`` is
unreadable and trips naive YAML readers), and JSON errors are ``{"error": {...}}`` on stdout
next to the usual one line on stderr.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cgconfig.errors import CgConfigError, InputError, did_you_mean

FORMATS = ("table", "json", "yaml")



def compact_json(data: Any) -> str:
    """Indented JSON with number lists kept on one line (plans have long size lists)."""
    import re

    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    # Only a UTF-8 stream takes raw non-ASCII text; elsewhere JSON's \u escapes keep it valid.
    text = json.dumps(data, indent=2, ensure_ascii=encoding not in ("utf8", "utf8sig"),
                      allow_nan=False)
    from cgconfig.terminal import json_text

    # controls, bidi overrides and lone surrogates as \u escapes: still the same JSON
    return json_text(re.sub(r"\[\s+((?:-?\d+,\s+)*-?\d+)\s+\]",
                            lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text))

def pop_output(argv: list[str], allowed: tuple[str, ...] = FORMATS) -> tuple[str, list[str]]:
    """Take ``-o FMT`` / ``--output FMT`` / ``--output=FMT`` / ``-oFMT`` out of ``argv``.

    Returns the format (``table`` when absent) and the remaining arguments. An unknown format
    raises :class:`InputError` with the allowed ones and a did-you-mean.
    """
    fmt, rest, index = "table", [], 0
    while index < len(argv):
        token = argv[index]
        value: str | None = None
        if token in ("-o", "--output"):
            if index + 1 >= len(argv):
                raise InputError(f"{token} needs a value", where="-o", allowed=allowed)
            value, index = argv[index + 1], index + 2
        elif token.startswith("--output="):
            value, index = token.split("=", 1)[1], index + 1
        elif token.startswith("-o") and len(token) > 2 and not token.startswith("--"):
            value, index = token[2:].lstrip("="), index + 1
        else:
            rest.append(token)
            index += 1
            continue
        fmt = check_format(value, allowed)
    return fmt, rest


def check_format(fmt: str, allowed: tuple[str, ...] = FORMATS) -> str:
    """``fmt`` when it is one of ``allowed``, else an :class:`InputError` with a did-you-mean."""
    if fmt not in allowed:
        raise InputError(f"unknown output format {fmt!r}", where="-o", allowed=allowed,
                         suggestion=did_you_mean(fmt, allowed))
    return fmt


def yaml_text(data: Any) -> str:
    """YAML for ``data`` with no anchors or aliases, keys in their given order."""
    import yaml

    class _NoAliases(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return str(yaml.dump(data, Dumper=_NoAliases, sort_keys=False, width=100,
                         allow_unicode=True))


def write_data(data: Any, fmt: str) -> None:
    """Write machine data to stdout as ``json`` (size lists kept on one line) or ``yaml``."""
    if fmt == "yaml":
        sys.stdout.write(yaml_text(data))
        return

    sys.stdout.write(compact_json(data) + "\n")


def fail(error: CgConfigError, fmt: str) -> int:
    """Report ``error`` under the output contract and return its exit code."""
    from cgconfig.cli.errors import report

    return report(error, as_json=fmt == "json")


def asks_json(argv: list[str]) -> bool:
    """True when ``argv`` asks for ``-o json`` in any spelling (to shape an early error)."""
    from itertools import pairwise

    pairs = pairwise(argv)
    return any(a in ("-o", "--output") and b == "json" for a, b in pairs) or any(
        t in ("--output=json", "-o=json", "-ojson") for t in argv)


def usage_error(error: Exception, argv: list[str]) -> int | None:
    """Report a click usage error (raised by typer with ``standalone_mode=False``) in
    cgconfig's one-line style and return its exit code; ``None`` for any other exception.

    Click is found through the exception's class names, so this works with typer's vendored
    click and with the click package alike."""
    names = {cls.__name__ for cls in type(error).__mro__}
    if "ClickException" not in names:
        return None
    ctx = getattr(error, "ctx", None)
    if "NoArgsIsHelpError" in names and ctx is not None:
        sys.stdout.write(ctx.get_help() + "\n")  # `cgconfig`, `cgconfig rules`: help, exit 0
        return 0
    message = error.format_message() if hasattr(error, "format_message") else str(error)
    where = ctx.command_path if ctx is not None else "cgconfig"
    hint = f"see '{where} -h'" if ctx is not None else None
    suggestion, allowed = None, None
    if message.startswith("No such command") and ctx is not None:
        commands = ctx.command.list_commands(ctx)
        typed = next((t for t in argv if t.strip("'") in message), "")
        suggestion, allowed = did_you_mean(typed, commands), commands
        message = message.split(" Did you mean")[0]  # click's own guess; ours is below
    reported = InputError(message.rstrip("."), where=where, hint=hint, suggestion=suggestion,
                          allowed=allowed)
    fail(reported, "json" if asks_json(argv) else "table")
    return int(getattr(error, "exit_code", 2))
