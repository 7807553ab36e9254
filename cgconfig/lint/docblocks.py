"""Engine launches in the code blocks of documentation: Markdown fences (```` ```bash ````,
``~~~sh``) and reStructuredText directives (``.. code-block:: bash``, ``.. code:: sh``,
``.. prompt:: bash $``, ``::`` literal blocks). Each shell block is read as a script with the
block's own file lines (``cgconfig.files.script``); a ``console`` block keeps only its
``$``/``#`` command lines (and their ``\\`` continuations), not the output printed under them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from cgconfig.errors import InputError
from cgconfig.limits import MAX_LAUNCHES

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch

#: Block languages read as shell (a block without a language too).
SHELL_LANGUAGES = frozenset(("bash", "sh", "shell", "zsh", "console", "shell-session",
                             "shellsession", "terminal", ""))
#: Languages whose rows are commands after a prompt, with output between them.
PROMPTED = frozenset(("console", "shell-session", "shellsession", "terminal"))

Block = tuple[str, int, list[str]]
"""(language, file line of the block's first row, its rows)."""


def markdown_blocks(text: str) -> list[Block]:
    """The fenced code blocks of Markdown text (CommonMark fences: 3+ backticks or tildes)."""
    rows = text.splitlines()
    out: list[Block] = []
    index = 0
    while index < len(rows):
        stripped = rows[index].lstrip()
        fence = stripped[:3]
        index += 1
        if fence not in ("```", "~~~"):
            continue
        marker = fence[0]
        width = len(stripped) - len(stripped.lstrip(marker))
        info = stripped[width:].strip().split()
        language = info[0].strip("{}.").lower() if info else ""
        start = index + 1
        body: list[str] = []
        while index < len(rows):
            row = rows[index].lstrip()
            if row.startswith(marker * width) and not row.strip(marker).strip():
                break
            body.append(rows[index])
            index += 1
        index += 1
        out.append((language, start, body))
    return out


def _rst_directive(stripped: str) -> str | None:
    """A code directive's language, ``""`` for a ``::`` literal block, else ``None``."""
    for name in (".. code-block::", ".. code::", ".. sourcecode::", ".. prompt::"):
        if stripped.startswith(name):
            words = stripped[len(name):].split()
            return words[0].lower() if words else ""
    if stripped.endswith("::") and not stripped.startswith(".."):
        return ""
    return None


def rst_blocks(text: str) -> list[Block]:
    """The code blocks of reStructuredText: a directive (or ``::``), then its indented body;
    the directive's ``:option:`` rows are blanked so file lines stay exact."""
    rows = text.splitlines()
    out: list[Block] = []
    index = 0
    while index < len(rows):
        row = rows[index]
        language = _rst_directive(row.strip())
        indent = len(row) - len(row.lstrip())
        index += 1
        if language is None:
            continue
        start = index + 1
        body: list[str] = []
        options = True
        while index < len(rows):
            current = rows[index]
            if current.strip() and len(current) - len(current.lstrip()) <= indent:
                break
            if options and current.strip().startswith(":"):
                current = ""  # a directive option (:caption:), not code
            elif current.strip():
                options = False
            body.append(current)
            index += 1
        if any(r.strip() for r in body):
            out.append((language, start, body))
    return out


def _commands(language: str, body: list[str]) -> list[str]:
    """A prompted block's command rows (prompt dropped, continuations kept; output rows
    blanked); any other block as it is."""
    if language not in PROMPTED:
        return body
    out, going = [], False
    for row in body:
        stripped = row.lstrip()
        if stripped.startswith(("$ ", "# ")):
            out.append(stripped[2:])
            going = stripped.rstrip().endswith("\\")
        elif going:
            out.append(row)
            going = row.rstrip().endswith("\\")
        else:
            out.append("")
    return out


def launches_in_docs(path: str, text: str, variables: Mapping[str, str]) -> list[Launch]:
    """Every engine launch in the shell code blocks of a Markdown or reStructuredText file
    (kind ``markdown`` / ``rst``)."""
    from cgconfig.files.context import Context
    from cgconfig.files.script import launches_in_script

    rst = path.lower().endswith((".rst", ".rest"))
    kind = "rst" if rst else "markdown"
    found: list[Launch] = []
    for language, start, body in rst_blocks(text) if rst else markdown_blocks(text):
        if language not in SHELL_LANGUAGES:
            continue
        script = "".join(row + "\n" for row in _commands(language, body))
        try:
            launches = launches_in_script(script, start, Context(path, kind), variables)
        except InputError:
            continue  # a block that is not a whole script (a fragment, a template): not a launch
        found += [replace(launch, kind=kind) for launch in launches]
        if len(found) > MAX_LAUNCHES:
            raise InputError(f"file starts more than {MAX_LAUNCHES} engines", where=path)
    return found
