"""POSIX shell words of a script, with the line each word starts on.

What a launch script needs read, and nothing it would have to run: quoting as POSIX ``sh``
removes it (the same words :func:`shlex.split` gives in POSIX mode with comments), ``\\``-newline
joins, ``#`` comments, statements split on ``;`` ``&&`` ``||`` ``|`` ``&`` and newlines,
redirections dropped, here-documents kept as the text a statement feeds (``cat > F << EOF``
writes ``F``), and expansions (:mod:`cgconfig.files.expand`) from the variables known. A
command substitution is never run: its words stay as written and are named unresolved.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from cgconfig.errors import InputError
from cgconfig.files.arrays import array_value, as_elements
from cgconfig.files.expand import UNKNOWN, Expansion, expand_at, is_name, process_substitution_end
from cgconfig.limits import MAX_SCRIPT_STATEMENTS, MAX_SCRIPT_WORDS

_OPERATOR_CHARS = ";&|()"
#: Runs of characters with no meaning to the scanner, outside and inside double quotes.
_PLAIN = re.compile(r"[^ \t\r\n;&|()<>\\'\"$`]+")
_QUOTED_PLAIN = re.compile(r"[^\"\\$`]+")
_REDIRECT_CHARS = "<>"
_BLANKS = " \t\r"


@dataclass
class Word:
    """One shell word after expansion and quote removal."""

    text: str
    line: int
    """1-based line (of the file) the word starts on."""
    unresolved: tuple[str, ...] = ()
    """Variables (or ``$(command)`` texts) left as written inside this word."""


@dataclass
class _Redirect:
    operator: str
    target: str | None = None
    heredoc: str | None = None


@dataclass
class Statement:
    """One simple command: its words, the line of its first word, and what it writes."""

    words: list[Word]
    line: int
    redirects: list[_Redirect] = field(default_factory=list)

    @property
    def writes(self) -> dict[str, str]:
        """File → text: a here-document the statement redirects into a file
        (``cat > F << EOF``, ``tee F << EOF``)."""
        bodies = [r.heredoc for r in self.redirects if r.heredoc is not None]
        if not bodies or not self.words:
            return {}
        program = self.words[0].text.rsplit("/", 1)[-1]
        files = [r.target for r in self.redirects if r.operator in (">", ">>", ">|") and r.target]
        if program == "tee":
            files += [w.text for w in self.words[1:] if not w.text.startswith("-")]
        elif program != "cat":
            return {}
        return {name: bodies[-1] for name in files}


class Scanner:
    """One pass over the text; ``variables`` is read at each expansion (assignments in the
    script update it between statements through :func:`statements`' caller)."""

    def __init__(self, text: str, first_line: int, where: str,
                 lookup: Callable[[str], str | None]) -> None:
        self.text = text
        self.i = 0
        self.line = first_line
        self.where = where
        self.lookup = lookup
        self.words = 0
        self.pending_heredocs: list[tuple[_Redirect, str, bool, bool]] = []

    def error(self, what: str, line: int | None = None) -> InputError:
        return InputError(what, where=f"{self.where}:{line or self.line}",
                          hint="check the script's quotes and brackets")

    def peek(self, offset: int = 0) -> str:
        at = self.i + offset
        return self.text[at] if at < len(self.text) else ""

    def at(self, chars: str, offset: int = 0) -> bool:
        """Whether the next character (past ``offset``) is one of ``chars`` (never at the end)."""
        char = self.peek(offset)
        return char != "" and char in chars

    def advance(self, count: int = 1) -> str:
        taken = self.text[self.i:self.i + count]
        self.line += taken.count("\n")
        self.i += count
        return taken

    def statements(self) -> list[Statement]:
        """Every simple command, in order; expansions read ``lookup`` as each is met."""
        out: list[Statement] = []
        words: list[Word] = []
        redirects: list[_Redirect] = []
        while True:
            token = self.token(words, redirects)
            if token is None or token in (";", "&&", "||", "|", "&", "\n", "(", ")", ";;"):
                if words or redirects:
                    out.append(_statement(words, redirects))
                    if len(out) > MAX_SCRIPT_STATEMENTS:
                        raise InputError(f"script has more than {MAX_SCRIPT_STATEMENTS} "
                                         "statements", where=self.where)
                    self.on_statement(out[-1])
                words, redirects = [], []
                if token == "\n":
                    self.read_heredocs()
                if token is None:
                    if self.pending_heredocs:
                        self.read_heredocs()
                    return out

    def on_statement(self, statement: Statement) -> None:
        """Hook for the caller: a statement ended (assignments take effect here)."""

    def skip_space(self, blanks: str) -> str:
        """Skip ``blanks``, ``\\``-newline joins and ``#`` comments; the next character
        (``""`` at the end)."""
        while True:
            char = self.peek()
            if char != "" and char in blanks:
                self.advance()
            elif char == "\\" and self.peek(1) == "\n":
                self.advance(2)
            elif char == "#":
                while self.peek() not in ("", "\n"):
                    self.advance()
            else:
                return char

    def token(self, words: list[Word], redirects: list[_Redirect]) -> str | None:
        """Skip blanks and comments; read one word into ``words``, a redirection into
        ``redirects`` (returns ``""``), or return an operator (``None`` at the end)."""
        char = self.skip_space(_BLANKS)
        if char == "":
            return None
        if char == "\n":
            self.advance()
            return "\n"
        if char in _OPERATOR_CHARS:
            two = char + self.peek(1)
            if two in ("&&", "||", ";;"):
                self.advance(2)
                return two
            if two == "&>":
                self.advance(2)
                redirects.append(self.redirect(">"))
                return ""
            self.advance()
            return char
        if char in _REDIRECT_CHARS:
            redirects.append(self.read_redirect(""))
            return ""
        line = self.line
        fields, unresolved, quoted = self.word()
        if len(fields) == 1 and fields[0].isdigit() and not quoted \
                and self.at(_REDIRECT_CHARS):
            redirects.append(self.read_redirect(fields[0]))  # 2>&1, 2> log
            return ""
        self.add_word(words, fields, line, unresolved, quoted)
        return ""

    def add_word(self, words: list[Word], fields: list[str], line: int,
                 unresolved: tuple[str, ...], quoted: bool) -> None:
        for text in fields:
            if text or quoted:
                self.words += 1
                if self.words > MAX_SCRIPT_WORDS:
                    raise InputError(f"script has more than {MAX_SCRIPT_WORDS} words",
                                     where=self.where)
                words.append(Word(text, line, unresolved))

    def read_redirect(self, fd: str) -> _Redirect:
        operator = fd
        while self.at(_REDIRECT_CHARS) or (self.at("&|-") and operator
                                                 and operator[-1] in "<>"):
            operator += self.advance()
            if operator.endswith("<<") and self.peek() == "-":
                operator += self.advance()
                break
        return self.redirect(operator)

    def redirect(self, operator: str) -> _Redirect:
        """The target of a redirection: a word, or for ``<<`` a here-document delimiter whose
        body is read after the line ends."""
        while self.at(_BLANKS):
            self.advance()
        if operator.endswith("&") and (self.peek().isdigit() or self.peek() == "-"):
            self.advance()  # >&2, 2>&1, <&-
            return _Redirect(operator)
        if (end := process_substitution_end(self.text, self.i, self.where)) is not None:
            self.advance(end - self.i)  # `< <(command)`: its output is read, never known here
            return _Redirect(operator)
        if not self.peek() or self.peek() in "\n;&|()<>":
            raise self.error(f"a redirection {operator!r} names no file")
        raw_start = self.i
        heredoc = operator.endswith(("<<", "<<-")) and not operator.endswith("<<<")  # <<< word
        fields, _, quoted = self.word(expand=not heredoc)
        target = "".join(fields)
        found = _Redirect(operator, target)
        if heredoc:
            raw = self.text[raw_start:self.i]
            self.pending_heredocs.append((found, target, quoted or "\\" in raw,
                                          operator.endswith("-")))
        return found

    def read_heredocs(self) -> None:
        """Bodies of the here-documents opened on the line just ended, in order."""
        pending, self.pending_heredocs = self.pending_heredocs, []
        for found, delimiter, literal, strip_tabs in pending:
            start_line = self.line
            body: list[str] = []
            while True:
                if self.i >= len(self.text):
                    raise self.error(f"here-document ended by {delimiter!r} is never closed",
                                     start_line)
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                row = self.text[self.i:end]
                self.advance(end - self.i + (1 if end < len(self.text) else 0))
                if strip_tabs:
                    row = row.lstrip("\t")
                if row == delimiter:
                    break
                body.append(row)
            joined = "".join(row + "\n" for row in body)
            if not literal:
                joined = self.expand_heredoc(joined, start_line)
            found.heredoc = joined

    def expand_heredoc(self, body: str, line: int) -> str:
        """A here-document's body with ``$VAR``, ``${VAR}`` and ``$((...))`` expanded."""
        out: list[str] = []
        i = 0
        while i < len(body):
            char = body[i]
            if char == "\\" and i + 1 < len(body) and body[i + 1] in "$`\\":
                out.append(body[i + 1])
                i += 2
            elif char == "$":
                found = expand_at(body, i, self.lookup, where=f"{self.where}:{line}")
                out.append(found.text if found.resolved else body[i:found.end])
                i = max(found.end, i + 1)
            else:
                out.append(char)
                i += 1
        return "".join(out)

    def word(self, expand: bool = True) -> tuple[list[str], tuple[str, ...], bool]:
        """One word: its fields (an unquoted expansion splits on blanks, as the shell does),
        the names left unresolved, and whether any part was quoted."""
        fields = [""]
        unresolved: list[str] = []
        quoted = False
        start = self.line
        while True:
            char = self.peek()
            if char == "(" and len(fields) == 1 and not quoted and not unresolved \
                    and _array_target(fields[0]) is not None:
                fields[0] = self.array_literal(fields[0], unresolved)
                continue
            if char == "" or char in _BLANKS or char == "\n" or char in _OPERATOR_CHARS \
                    or char in _REDIRECT_CHARS:
                break
            if char == "\\":
                following = self.peek(1)
                if following == "\n":
                    self.advance(2)
                elif following == "":
                    raise self.error("the script ends with a lone backslash")
                else:
                    fields[-1] += self.advance(2)[1]
                quoted = True
            elif char == "'":
                close = self.text.find("'", self.i + 1)
                if close < 0:
                    raise self.error("unbalanced single quote", start)
                fields[-1] += self.advance(close + 1 - self.i)[1:-1]
                quoted = True
            elif char == '"':
                self.double_quoted(fields, unresolved, expand, start)
                quoted = True
            elif char in "$`" and expand:
                self.expansion(fields, unresolved, quoted_context=False)
            else:  # a run of plain characters at once: a long word costs its length once
                found = _PLAIN.match(self.text, self.i)
                fields[-1] += self.advance(found.end() - self.i if found else 1)
        if not fields[-1] and len(fields) > 1:
            fields.pop()
        return fields, tuple(unresolved), quoted

    def array_literal(self, assigned: str, unresolved: list[str]) -> str:
        """``NAME=(words)`` or ``NAME+=(words)`` read from the ``(``: the assignment word with
        the array as its value (:mod:`cgconfig.files.arrays`)."""
        start = self.line
        self.advance()  # the opening bracket
        items: list[str] = []
        while True:
            char = self.skip_space(_BLANKS + "\n")  # an array's words may span lines
            if char == "":
                raise self.error("an array's '(' is never closed", start)
            if char == ")":
                self.advance()
                break
            elif char in _OPERATOR_CHARS or char in _REDIRECT_CHARS:
                raise self.error(f"{char!r} inside an array's brackets", self.line)
            else:
                fields, names, quoted = self.word()
                unresolved.extend(names)
                items += [text for text in fields if text or quoted]
                self.words += len(fields)
                if self.words > MAX_SCRIPT_WORDS:
                    raise InputError(f"script has more than {MAX_SCRIPT_WORDS} words",
                                     where=self.where)
        name = _array_target(assigned) or ""
        if assigned.endswith("+="):  # ARGS+=(more): the elements so far, then these
            before = self.lookup(name)
            if before == UNKNOWN:
                unresolved.append(name)
            items = (as_elements(before) if before and before != UNKNOWN else []) + items
        return f"{name}={array_value(items)}"

    def double_quoted(self, fields: list[str], unresolved: list[str], expand: bool,
                      start: int) -> None:
        self.advance()  # the opening quote
        while True:
            char = self.peek()
            if char == "":
                raise self.error("unbalanced double quote", start)
            if char == '"':
                self.advance()
                return
            if char == "\\" and self.at('$`"\\\n', 1):
                pair = self.advance(2)
                if pair[1] != "\n":
                    fields[-1] += pair[1]
            elif char in "$`" and expand:
                self.expansion(fields, unresolved, quoted_context=True)
            else:
                found = _QUOTED_PLAIN.match(self.text, self.i)
                fields[-1] += self.advance(found.end() - self.i if found else 1)

    def expansion(self, fields: list[str], unresolved: list[str], *, quoted_context: bool) -> None:
        line = self.line
        found: Expansion = expand_at(self.text, self.i, self.lookup,
                                     where=f"{self.where}:{line}")
        raw = self.text[self.i:found.end]
        self.advance(found.end - self.i)
        if not found.resolved:
            unresolved.extend(found.names)
            fields[-1] += raw
            return
        if quoted_context and found.fields is not None:  # "${A[@]}": a word per element
            if found.fields:
                fields[-1] += found.fields[0]
                fields.extend(found.fields[1:])
            return
        if quoted_context:
            fields[-1] += found.text
            return
        pieces = found.text.split()
        if not pieces:
            return
        if found.text[:1] in _BLANKS + "\n" and fields[-1]:
            fields.append("")
        fields[-1] += pieces[0]
        for piece in pieces[1:]:
            fields.append(piece)
        if found.text[-1:] in _BLANKS + "\n":
            fields.append("")


def _array_target(word: str) -> str | None:
    """The name ``NAME=`` or ``NAME+=`` assigns, when ``word`` is exactly that."""
    for ending in ("+=", "="):
        if word.endswith(ending) and is_name(word[:-len(ending)]):
            return word[:-len(ending)]
    return None


def _statement(words: list[Word], redirects: list[_Redirect]) -> Statement:
    return Statement(words, words[0].line if words else 0, redirects)
