"""How the CLI reports failures: one line on stderr, never a traceback for bad input."""

from __future__ import annotations

import json
import sys

from cgconfig.errors import CgConfigError, one_line


def report(error: CgConfigError, *, as_json: bool = False) -> int:
    """Print ``error`` (as one stderr line, plus a JSON object on stdout under ``-o json``)
    and return its exit code."""
    if as_json:
        from cgconfig.terminal import json_text

        sys.stdout.write(json_text(json.dumps(error.to_dict(), ensure_ascii=False)) + "\n")
    # Every error is one line, whatever text a rule pack or a library put in it.
    sys.stderr.write(f"cgconfig: error: {one_line(str(error))}\n")
    return error.exit_code


def note(kind: str, message: str) -> None:
    """A warning or deprecation on stderr, wrapped at the terminal's width (or ``COLUMNS``)
    with a hanging indent; piped without ``COLUMNS``, one line."""
    from cgconfig.cli.width import width, wrap

    lines = wrap(f"cgconfig: {kind}: {message}", width(None), indent=4)
    sys.stderr.write("".join(line + "\n" for line in lines))
