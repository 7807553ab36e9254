"""How wide the CLI writes: one reading of ``COLUMNS`` and the terminal, and prose wrapping.

``COLUMNS`` counts only when it is a positive whole number in ASCII digits: ``COLUMNS=0``,
``COLUMNS=00``, ``COLUMNS=²`` (``str.isdigit`` is true, ``int`` fails) or ``COLUMNS=abc``
are treated as unset, never as a width of 0 or a crash. Help, tables and the plan's prose
lines all ask :func:`width`.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap

#: The narrowest width anything is laid out for (narrower terminals get this and overflow).
MIN_WIDTH = 40


def columns_env() -> int | None:
    """``COLUMNS`` as a width, or ``None`` when unset or not a positive ASCII whole number."""
    raw = os.environ.get("COLUMNS", "").strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 5 or int(raw) <= 0:
        return None
    return int(raw)


def terminal_columns() -> int | None:
    """The width of the terminal on stdout, or ``None`` when stdout is not a terminal."""
    try:
        if not sys.stdout.isatty():
            return None
        found = os.get_terminal_size(sys.stdout.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return None
    return found if found > 0 else None


def width(piped: int | None) -> int | None:
    """The width to lay out for: valid ``COLUMNS``, else the terminal's, else ``piped``
    (``None``: do not wrap)."""
    found = columns_env() or terminal_columns()
    if found is None:
        return piped
    return max(found, MIN_WIDTH)


def clean_environ() -> dict[str, str]:
    """The environment without ``COLUMNS``/``LINES`` for libraries that parse them unguarded
    (rich calls ``int()`` on any ``str.isdigit`` text); the width is passed to them instead."""
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


def wrap(text: str, limit: int | None, indent: int | None = None) -> list[str]:
    """``text`` as lines of at most ``limit`` characters, continuation lines indented under
    the first line's text (``indent``: that many spaces; default: the first line's leading
    spaces plus four). ``limit`` ``None`` keeps the text on one line. Nothing trails."""
    text = text.rstrip()
    if limit is None or len(text) <= limit:
        return [text]
    lead = len(text) - len(text.lstrip(" "))
    hang = " " * (lead + 4 if indent is None else indent)
    wrapper = _PathWrapper(width=limit, initial_indent=" " * lead, subsequent_indent=hang,
                           break_long_words=True, break_on_hyphens=False)
    return [line.rstrip() for line in wrapper.wrap(text.lstrip(" "))] or [""]


class _PathWrapper(textwrap.TextWrapper):
    """Breaks at spaces and after a ``/`` (a long path folds at its folders), never inside
    ``--flag-names``."""

    wordsep_simple_re = re.compile(r"(\s+|(?<=/)(?=[^\s/]))")
