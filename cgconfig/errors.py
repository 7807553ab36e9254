"""Errors that reach users, and the did-you-mean helper they share.

Every error the resolver raises for bad input is a :class:`InputError`: one line that says what
was wrong, where it came from (a flag, a JSON pointer, ``file:line``), what is allowed and, when
a close match exists, a did-you-mean. The CLI prints ``str(error)`` and exits with ``exit_code``;
it never shows a traceback for these.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

EXIT_INPUT = 2
EXIT_STRICT = 3
EXIT_DOWNGRADED = 10
#: Ctrl-C: 128 + SIGINT, as a shell reports a process that SIGINT ended.
EXIT_INTERRUPTED = 130


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """Return the closest candidate to ``word`` when one is close enough, else ``None``."""
    if len(word) > 100:  # difflib is quadratic; nothing that long is a typo of a name
        return None
    pool = list(candidates)
    matches = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if matches:
        return matches[0]
    # Prefix typos ("--cuda-graph-max") read better as a prefix match than as nothing.
    prefixed = sorted(c for c in pool if c.startswith(word) and len(word) >= 4)
    return prefixed[0] if prefixed else None


def format_allowed(values: Iterable[object]) -> str:
    """Render an allowed-values list the same way everywhere: ``a, b, c``."""
    return ", ".join(str(v) for v in values)


#: An error line never grows past this, whatever the input it quotes (see cgconfig.limits).
MAX_MESSAGE_CHARS = 1000


def one_line(text: str) -> str:
    """Line breaks escaped and length bounded: an error is always one readable line."""
    text = text[: 4 * MAX_MESSAGE_CHARS].replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"


class CgConfigError(Exception):
    """Base class of every error cgconfig raises on purpose."""

    exit_code = 1

    def to_dict(self) -> dict[str, object]:
        """The machine form used by ``-o json``: ``{"error": {...}}``."""
        return {"error": {"code": type(self).__name__, "message": str(self)}}


class InputError(CgConfigError):
    """Bad user input: unknown flag or key, wrong type, unreadable file. Exit code 2."""

    exit_code = EXIT_INPUT

    def __init__(
        self,
        what: str,
        *,
        where: str | None = None,
        allowed: Iterable[object] | str | None = None,
        suggestion: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.what = what
        self.where = where
        self.allowed = (
            allowed if isinstance(allowed, str) or allowed is None else format_allowed(allowed)
        )
        self.suggestion = suggestion
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        parts = [f"{self.where}: {self.what}" if self.where else self.what]
        if self.suggestion:
            parts.append(f"did you mean {self.suggestion!r}?")
        if self.allowed:
            parts.append(f"allowed: {self.allowed}")
        if self.hint:
            parts.append(self.hint)
        return one_line("; ".join(parts))

    def to_dict(self) -> dict[str, object]:
        """Machine form with the parts kept apart, so scripts need not parse the message."""
        body: dict[str, object] = {"code": "input", "message": str(self), "what": self.what}
        for name in ("where", "allowed", "suggestion", "hint"):
            value = getattr(self, name)
            if value:
                body[name] = value
        return {"error": body}


class StrictConflictError(CgConfigError):
    """Under ``--strict`` a constraint rule would override a user's explicit key. Exit code 3."""

    exit_code = EXIT_STRICT

    def __init__(self, conflicts: list[str]) -> None:
        self.conflicts = conflicts
        super().__init__(" | ".join(conflicts))

    def to_dict(self) -> dict[str, object]:
        """Machine form listing each conflict."""
        return {"error": {"code": "strict-conflict", "message": str(self),
                          "conflicts": self.conflicts}}


class RuleRefusal(CgConfigError):
    """A rule of kind ``refuse`` matched: the combination cannot run at all. Exit code 2."""

    exit_code = EXIT_INPUT


def unexpanded_variable_hint(text: object) -> str | None:
    """The hint for a value that is a shell or Kubernetes variable nobody expanded
    (``$TP``, ``${TP}``, ``$(TP)``): a line copied out of a script or manifest."""
    if isinstance(text, str) and text.lstrip().startswith("$"):
        return ("it is a variable the shell or the operator expands: give its value, or read "
                "the launch from its file with --from FILE --set VAR=VALUE")
    return None


def refuse_unknown_keys(keys: Iterable[object], allowed: tuple[str, ...], where: str) -> None:
    """One error line for the first key of a document's object that is not ``allowed``."""
    for key in keys:
        if key not in allowed:
            raise InputError(f"unknown key {str(key)!r:.40}", where=where, allowed=allowed,
                             suggestion=did_you_mean(str(key), allowed))
