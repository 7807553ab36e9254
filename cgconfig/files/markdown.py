"""Markdown pages (a README, a recipe's docs): each fenced shell block read as a script."""

from __future__ import annotations

from collections.abc import Mapping

from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script import launches_in_script

#: Fence languages read as shell (an unlabelled fence too); ``console`` blocks keep only the
#: lines after a ``$ `` prompt.
SHELL_FENCES = ("", "sh", "bash", "shell", "zsh", "console", "shell-session")


def launches_in_markdown(path: str, text: str, variables: Mapping[str, str]) -> list[Launch]:
    """The launches of every fenced shell block, in page order."""
    out: list[Launch] = []
    rows = text.split("\n")
    i = 0
    while i < len(rows):
        stripped = rows[i].strip()
        if not stripped.startswith(("```", "~~~")):
            i += 1
            continue
        fence = stripped[:3]
        language = stripped[3:].strip().split(" ", 1)[0].lower()
        start = i + 1
        i += 1
        while i < len(rows) and not rows[i].strip().startswith(fence):
            i += 1
        if language in SHELL_FENCES:
            block = rows[start:i]
            if language in ("console", "shell-session"):
                block = _commands(block)
            out += launches_in_script("\n".join(block) + "\n", start + 1,
                                      Context(path, "markdown"), variables)
        i += 1
    return out


def _commands(rows: list[str]) -> list[str]:
    """A console block's command lines: those after a ``$ `` prompt and the ``\\``
    continuations after them; output lines become blank (the lines keep their numbers)."""
    out: list[str] = []
    continued = False
    for row in rows:
        text = row.strip()
        if text.startswith("$ "):
            out.append(text[2:])
        elif continued:
            out.append(row)
        else:
            out.append("")
        continued = out[-1].endswith("\\")
    return out
