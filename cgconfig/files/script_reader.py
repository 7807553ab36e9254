"""A script's statements with its own assignments taking effect: ``VAR=value`` alone,
``export``/``local``/``declare``; one inside ``if``/``case``/a loop leaves the variable
unknown after it (the branch may not run), and a name the user ``--set`` keeps its value."""

from __future__ import annotations

from cgconfig.files.expand import UNKNOWN
from cgconfig.files.shell import Scanner, Statement


class ScriptReader(Scanner):
    """A script's statements, with shell assignments (``VAR=value`` alone, ``export``) taking
    effect for the statements after them."""

    def __init__(self, text: str, first_line: int, where: str,
                 variables: dict[str, str], fixed: frozenset[str] = frozenset()) -> None:
        self.variables = dict(variables)
        self.fixed = fixed
        self.assigned: set[str] = set()
        self.depth = 0
        super().__init__(text, first_line, where, self.variables.get)

    def on_statement(self, statement: Statement) -> None:
        words = [w.text for w in statement.words]
        # an assignment inside if/case/a loop may or may not run: its value is unknown after
        while words and words[0] in _OPENERS + _CLOSERS + _BRANCHES:
            self.depth += (words[0] in _OPENERS) - (words[0] in _CLOSERS)
            words = words[1:]
            statement = Statement(statement.words[1:], statement.line, statement.redirects)
        if words and words[0] in ("export", "local", "declare", "readonly"):
            words = [w for w in words[1:] if not w.startswith("-")]
        elif not words or not all(_assignment(w) for w in words):
            return  # a command: its VAR=value prefixes are its own environment
        for word, original in zip(words, statement.words[-len(words):] if words else [],
                                  strict=False):
            parts = _assignment(word)
            if parts is None or parts[0] in self.fixed:
                continue  # --set VAR=VALUE wins over the script's own assignments
            if original.unresolved or self.depth > 0:
                self.variables[parts[0]] = UNKNOWN
            else:
                self.variables[parts[0]] = parts[1]
                self.assigned.add(parts[0])


_OPENERS = ("if", "case", "for", "while", "until", "select")
_CLOSERS = ("fi", "esac", "done")
_BRANCHES = ("then", "else", "elif", "do")


def _assignment(word: str) -> tuple[str, str] | None:
    name, sep, value = word.partition("=")
    if sep and name and (name[0].isalpha() or name[0] == "_") and \
            all(c.isalnum() or c == "_" for c in name) and name.isascii():
        return name, value
    return None


def assignment(word: str) -> tuple[str, str] | None:
    """``(name, value)`` when ``word`` is a shell assignment ``NAME=value``, else ``None``."""
    return _assignment(word)


def read_script(text: str, *, first_line: int, where: str, variables: dict[str, str],
                fixed: frozenset[str] = frozenset()) -> tuple[list[Statement], dict[str, str]]:
    """The statements of ``text`` (its first line is the file's ``first_line``) and the
    variables known at its end (``variables`` plus the script's own assignments, except to
    the ``fixed`` names: those the user set)."""
    reader = ScriptReader(text, first_line, where, variables, fixed)
    found = reader.statements()
    return found, reader.variables
