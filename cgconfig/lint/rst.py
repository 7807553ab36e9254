"""Engine launches in reStructuredText code blocks (``.. code-block:: bash``, ``.. code:: sh``,
``.. prompt:: bash $``, and ``::`` literal blocks), read as shell scripts with each block's
own file lines; a ``console`` block keeps only its ``$``/``#`` command lines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from cgconfig.limits import MAX_LAUNCHES

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch

#: The languages whose blocks are read as shell (``console``: commands after a prompt).
SHELL_LANGUAGES = frozenset(("bash", "sh", "shell", "zsh", "console", "shell-session", "none",
                             "text", ""))


def _directive(stripped: str) -> str | None:
    """The language of a code directive line, ``""`` for a bare ``::`` block, else ``None``."""
    for name in (".. code-block::", ".. code::", ".. sourcecode::", ".. prompt::"):
        if stripped.startswith(name):
            words = stripped[len(name):].split()
            return words[0].lower() if words else ""
    if stripped.endswith("::") and not stripped.startswith(".."):
        return ""
    return None


def code_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """Each code block: (language, file line of its first body row, its rows dedented);
    a row outside the block's body becomes an empty row, so file lines stay exact."""
    rows = text.splitlines()
    out: list[tuple[str, int, list[str]]] = []
    index = 0
    while index < len(rows):
        stripped = rows[index].strip()
        language = _directive(stripped)
        indent = len(rows[index]) - len(rows[index].lstrip())
        index += 1
        if language is None:
            continue
        body: list[str] = []
        start = index + 1
        while index < len(rows):
            row = rows[index]
            if row.strip() and len(row) - len(row.lstrip()) <= indent:
                break
            body.append(row)
            index += 1
        lines = [r for r in body if r.strip()]
        if not lines:
            continue
        cut = min(len(r) - len(r.lstrip()) for r in lines)
        body = ["" if r.lstrip().startswith(":") and not out_of_options(body, r) else r[cut:]
                for r in body]
        out.append((language, start, body))
    return out


def out_of_options(body: list[str], row: str) -> bool:
    """Whether ``row`` (``:caption: …``) comes after the block's first code row, so it is code."""
    for other in body:
        if other is row:
            return False
        if other.strip() and not other.lstrip().startswith(":"):
            return True
    return False


def _commands(language: str, body: list[str]) -> list[str]:
    """A console block's command rows (prompt dropped, continuations kept), others as they are."""
    if language not in ("console", "shell-session"):
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


def launches_in_rst(path: str, text: str, variables: Mapping[str, str]) -> list[Launch]:
    """Every engine launch of the shell code blocks of an ``.rst`` file, kind ``rst``."""
    from cgconfig.files.script import Context, launches_in_script

    found: list[Launch] = []
    for language, start, body in code_blocks(text):
        if language not in SHELL_LANGUAGES:
            continue
        script = "\n".join(_commands(language, body))
        for launch in launches_in_script(script, start, Context(path, "rst"), variables):
            found.append(replace(launch, kind="rst"))
        if len(found) > MAX_LAUNCHES:
            from cgconfig.errors import InputError

            raise InputError(f"file starts more than {MAX_LAUNCHES} engines", where=path)
    return found
