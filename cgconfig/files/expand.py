"""Shell and Kubernetes expansions, read from known variables and never run.

``$VAR``, ``${VAR}``, ``${VAR:-default}`` (and ``-``, ``:=``, ``=``, ``:+``, ``+``), ``$(VAR)``
(Kubernetes' own substitution in ``command``/``args``, and the form an operator's variables
take), ``$((A * B))`` (integer arithmetic with bash's operators and precedence, comparisons
and ``?:`` included: :mod:`cgconfig.files.arithmetic`). A command substitution
(``$(hostname)``, backquotes) and the positional or special parameters (``$1``, ``$@``) stay
unresolved and are named.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from cgconfig.errors import InputError
from cgconfig.files import arithmetic
from cgconfig.files.arrays import as_elements, scalar
from cgconfig.limits import MAX_QUOTE_CHARS, short

#: Longest ``$((...))`` expression evaluated (far above any launch script's).
MAX_ARITHMETIC_CHARS = 1_000

Lookup = Callable[[str], "str | None"]

#: The value of a variable that is set but whose value the file does not say (a Kubernetes
#: ``valueFrom``, a variable an operator injects): no default applies, it stays unresolved.
UNKNOWN = "\0unknown"


def _known(value: str | None) -> bool:
    return value is not None and value != UNKNOWN


class Expansion(NamedTuple):
    """One expansion starting at a ``$`` or backquote."""

    text: str
    """Its value when resolved."""
    end: int
    """Index just past it in the text."""
    resolved: bool
    names: tuple[str, ...] = ()
    """What is unknown when not resolved: variable names, or ``$(command)`` as written."""
    fields: tuple[str, ...] | None = None
    """``${A[@]}``: the array's elements, each its own word even inside double quotes."""


def is_name(text: str) -> bool:
    """Whether ``text`` is a shell variable name."""
    return bool(text) and text.isascii() and (text[0].isalpha() or text[0] == "_") and \
        all(c.isalnum() or c == "_" for c in text)


def process_substitution_end(text: str, at: int, where: str) -> int | None:
    """The index just past ``<(command)`` or ``>(command)`` starting at ``at`` (bash's process
    substitution, never run: ``done < <(pgrep -P "$pid")`` reads a loop's input from it), or
    ``None`` when none starts there."""
    if not text.startswith(("<(", ">("), at):
        return None
    return _closing(text, at + 2, "(", ")", where) + 1


def _closing(text: str, start: int, opening: str, closing: str, where: str) -> int:
    """Index of the ``closing`` bracket matching the one just before ``start``, skipping
    quoted text."""
    depth = 1
    i = start
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "'":
            end = text.find("'", i + 1)
            i = (end if end >= 0 else len(text)) + 1
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise InputError(f"unclosed {opening!r} in {short(text[max(start - 2, 0):], 40)!r}",
                     where=where, hint="check the script's brackets and quotes")


def expand_at(text: str, i: int, lookup: Lookup, *, where: str) -> Expansion:
    """The expansion at ``text[i]`` (a ``$`` or a backquote)."""
    if text[i] == "`":
        end = text.find("`", i + 1)
        if end < 0:
            raise InputError("unbalanced backquote", where=where, hint="check the script's quotes")
        return Expansion("", end + 1, False, (short(text[i:end + 1], MAX_QUOTE_CHARS),))
    following = text[i + 1:i + 2]
    if text.startswith("$((", i):
        end = _closing(text, i + 3, "(", ")", where)
        if end + 1 < len(text) and text[end + 1] == ")":
            return _arithmetic(text[i + 3:end], end + 2, lookup, where)
        # $( (subshell) ): a command substitution after all
    if following == "(":
        end = _closing(text, i + 2, "(", ")", where)
        inner = text[i + 2:end].strip()
        if is_name(inner):
            value = lookup(inner)
            # a variable the file or --set gives: Kubernetes' $(VAR), read as such; any other
            # word is a command the shell would run
            named = inner if value is not None else text[i:end + 1]
            return Expansion(value or "", end + 1, _known(value), (named,))
        return Expansion("", end + 1, False, (short(text[i:end + 1], MAX_QUOTE_CHARS),))
    if following == "{":
        end = _closing(text, i + 2, "{", "}", where)
        return _braced(text[i + 2:end], end + 1, lookup, where)
    if is_name(following):
        end = i + 1
        while end < len(text) and (text[end].isalnum() or text[end] == "_") and text[end].isascii():
            end += 1
        name = text[i + 1:end]
        value = lookup(name)
        return Expansion(scalar(value) if _known(value) and value else "", end, _known(value),
                         (name,))
    if following and (following.isdigit() or following in "@*#?$!-"):
        return Expansion("", i + 2, False, ("$" + following,))
    return Expansion("$", i + 1, True)  # a lone dollar is itself


def _subscript(inner: str, end: int, lookup: Lookup) -> Expansion | None:
    """``${A[@]}``, ``${A[*]}``, ``${A[N]}``, ``${#A[@]}``; ``None`` when ``inner`` is none."""
    count = inner.startswith("#")
    body = inner[1:] if count else inner
    name, bracket, index = body.partition("[")
    if not bracket or not is_name(name) or not index.endswith("]"):
        return None
    index = index[:-1]
    if index not in ("@", "*") and not (index.isdigit() and index.isascii() and len(index) < 7):
        return None
    value = lookup(name)
    if not _known(value) or value is None:
        return Expansion("", end, False, (name,))
    items = as_elements(value)
    if count:
        return Expansion(str(len(items) if index in "@*" else len(_item(items, index))), end,
                         True, (name,))
    if index == "@":
        return Expansion(" ".join(items), end, True, (name,), tuple(items))
    if index == "*":
        return Expansion(" ".join(items), end, True, (name,))
    return Expansion(_item(items, index), end, True, (name,))


def _item(items: list[str], index: str) -> str:
    at = int(index)
    return items[at] if at < len(items) else ""


def _braced(inner: str, end: int, lookup: Lookup, where: str) -> Expansion:
    indexed = _subscript(inner, end, lookup)
    if indexed is not None:
        return indexed
    if inner.startswith("#") and is_name(inner[1:]):
        value = lookup(inner[1:])
        return Expansion(str(len(scalar(value))) if _known(value) and value is not None
                         else "", end, _known(value), (inner[1:],))
    cut = 0
    while cut < len(inner) and (inner[cut].isalnum() or inner[cut] == "_"):
        cut += 1
    name, rest = inner[:cut], inner[cut:]
    if not is_name(name):
        return Expansion("", end, False, ("${" + short(inner, 40) + "}",))
    value = lookup(name)
    if value == UNKNOWN:  # set, to a value the file does not give: no default applies
        return Expansion("", end, False, (name,))
    if value is not None:
        value = scalar(value)
    if not rest:
        return Expansion(value or "", end, value is not None, (name,))
    for operator in (":-", ":=", ":+", "-", "=", "+"):
        if rest.startswith(operator):
            word = rest[len(operator):]
            empty_counts = operator.startswith(":")
            unset = value is None or (empty_counts and value == "")
            if operator.endswith("+"):
                return Expansion("" if unset else _plain(word, lookup, where), end,
                                 value is not None or not empty_counts, (name,))
            if not unset:
                return Expansion(value or "", end, True, (name,))
            default = expand_text(word, lookup, where)
            return Expansion(default.text, end, default.resolved, default.names)
    for operator in ("##", "#", "%%", "%"):
        if rest.startswith(operator):
            if value is None:
                return Expansion("", end, False, (name,))
            pattern = expand_text(rest[len(operator):], lookup, where)
            if not pattern.resolved:
                return Expansion("", end, False, pattern.names)
            return Expansion(_trim(value, pattern.text, operator), end, True, (name,))
    return Expansion("", end, False, ("${" + short(inner, 40) + "}",))  # ${A/x/y}, ${A:1:2}


def _trim(value: str, pattern: str, operator: str) -> str:
    """``${A#p}`` / ``${A##p}`` (shortest / longest prefix matching the glob ``p`` removed),
    ``${A%p}`` / ``${A%%p}`` (the same for a suffix)."""
    from fnmatch import fnmatchcase

    cuts = range(len(value) + 1)
    if operator.startswith("#"):
        order = reversed(cuts) if operator == "##" else cuts
        for cut in order:
            if fnmatchcase(value[:cut], pattern):
                return value[cut:]
        return value
    order = cuts if operator == "%%" else reversed(cuts)
    for cut in order:
        if fnmatchcase(value[cut:], pattern):
            return value[:cut]
    return value


def _plain(word: str, lookup: Lookup, where: str) -> str:
    return expand_text(word, lookup, where).text


def expand_text(text: str, lookup: Lookup, where: str) -> Expansion:
    """Every expansion in ``text`` (a default value, an arithmetic operand); quotes are
    taken as the shell removes them inside ``${...}``."""
    out: list[str] = []
    names: list[str] = []
    resolved = True
    i = 0
    while i < len(text):
        char = text[i]
        if char in "$`":
            found = expand_at(text, i, lookup, where=where)
            if found.resolved:
                out.append(found.text)
            else:
                resolved = False
                names.extend(found.names)
                out.append(text[i:found.end])
            i = max(found.end, i + 1)
        elif char in "\"'":
            i += 1
        else:
            out.append(char)
            i += 1
    return Expansion("".join(out), len(text), resolved, tuple(names))


def substitute_kubernetes(text: str, env: Callable[[str], str | None]) -> tuple[str, tuple[str, ...]]:
    """Kubernetes' ``$(VAR)`` substitution in a ``command``/``args`` item: a variable of the
    container's ``env`` is replaced, ``$$`` is one ``$``, an unknown ``$(VAR)`` is kept as
    written (as the kubelet keeps it) and named."""
    if "$" not in text:
        return text, ()
    out: list[str] = []
    names: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")  # the kubelet's escape: $$(VAR) is the text $(VAR)
            i += 2
            continue
        if text.startswith("$(", i):
            end = text.find(")", i + 2)
            name = text[i + 2:end] if end > 0 else ""
            if is_name(name):
                value = env(name)
                if _known(value) and value is not None:
                    out.append(value)
                else:
                    out.append(text[i:end + 1])
                    names.append(name)
                i = end + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out), tuple(names)


# ------------------------------------------------------------------------------- arithmetic

def _arithmetic(expression: str, end: int, lookup: Lookup, where: str) -> Expansion:
    if len(expression) > MAX_ARITHMETIC_CHARS:
        raise InputError(f"arithmetic expression longer than {MAX_ARITHMETIC_CHARS} characters",
                         where=where)
    expanded = expand_text(expression, lookup, where)
    if not expanded.resolved:
        return Expansion("", end, False, expanded.names)
    tokens = arithmetic.tokens(expanded.text, where)
    missing = [t for t in tokens if is_name(t) and not t[0].isdigit() and not _known(lookup(t))]
    if missing:
        return Expansion("", end, False, tuple(dict.fromkeys(missing)))
    parser = arithmetic.Evaluator(tokens, lookup, where)
    value = parser.expression()
    if parser.at != len(tokens):
        raise InputError(f"cannot read the arithmetic $(({short(expression, 40)}))", where=where)
    return Expansion(str(value), end, True, tuple(t for t in tokens if is_name(t)))
