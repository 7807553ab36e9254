"""Shell integer arithmetic (``$(( ... ))``), as bash evaluates it (bash's ``expr.c``): unary
``- + ! ~``, ``**``, ``* / %``, ``+ -``, ``<< >>``, ``< <= > >=``, ``== !=``, ``& ^ |``,
``&& ||`` and ``cond ? a : b``, with C's precedence; a comparison or a logical operator gives
``1`` or ``0``, ``/`` truncates toward zero, and the branch ``?:``, ``&&`` or ``||`` skips is not
evaluated (``N > 0 ? M / N : 0`` never divides by zero). Assignments (``=``, ``+=``, ``++``) and
the comma are not read: a launch script computes a value, it does not keep a counter there.

InferenceX's launch scripts write ``--max-running-requests "$(( CONC * 3 / 2 > 8 ? CONC * 3 / 2
: 8 ))"``; with only ``+ - * / %`` such a file went unread (issue #33).
"""

from __future__ import annotations

from collections.abc import Callable

from cgconfig.errors import InputError
from cgconfig.limits import check_int_text, short

#: Operators, longest first so ``<=`` is not read as ``<`` then ``=``.
_OPERATORS = ("**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
              "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!", "~", "?", ":", "(", ")")

#: Binary operator → precedence (higher binds tighter), bash's order.
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
           "<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
           "*": 10, "/": 10, "%": 10, "**": 11}

#: Largest magnitude kept (bash computes in 64-bit ``intmax_t``).
_LIMIT = 1 << 63


def tokens(text: str, where: str) -> list[str]:
    """The words and operators of an arithmetic expression."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in " \t\n":
            i += 1
        elif char.isalnum() or char == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(text[i:j])
            i = j
        else:
            operator = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if operator is None or text.startswith(("++", "--", "+=", "-=", "*=", "/=", "%=",
                                                    "<<=", ">>=", "&=", "|=", "^="), i) \
                    or (char == "=" and not text.startswith("==", i)):
                shown = operator if operator and len(operator) > 1 else text[i:i + 3].strip()
                raise InputError(f"arithmetic operator {shown or char!r} is not read "
                                 "(assignments and the comma are not)", where=where)
            out.append(operator)
            i += len(operator)
    return out


class Evaluator:
    """Precedence climbing over :func:`tokens`; ``live`` is false inside a branch the shell
    skips (its value is computed but division by zero there is no error)."""

    def __init__(self, words: list[str], lookup: Callable[[str], str | None],
                 where: str) -> None:
        self.words = words
        self.at = 0
        self.lookup = lookup
        self.where = where
        self.depth = 0

    def next(self) -> str:
        return self.words[self.at] if self.at < len(self.words) else ""

    def expression(self, live: bool = True) -> int:
        """``cond ? a : b`` (right-associative), or a binary expression."""
        self.enter()
        try:
            condition = self.binary(1, live)
            if self.next() != "?":
                return condition
            self.at += 1
            first = self.expression(live and condition != 0)
            if self.next() != ":":
                raise InputError("'?' without ':' in an arithmetic expansion", where=self.where)
            self.at += 1
            second = self.expression(live and condition == 0)
            return first if condition else second
        finally:
            self.depth -= 1

    def binary(self, lowest: int, live: bool) -> int:
        value = self.unary(live)
        while (operator := self.next()) in _BINARY and _BINARY[operator] >= lowest:
            self.at += 1
            rank = _BINARY[operator]
            if operator in ("&&", "||"):  # the right side runs only when it decides
                runs = live and (value != 0) == (operator == "&&")
                right = self.binary(rank + 1, runs)
                value = int(value != 0 and right != 0) if operator == "&&" else \
                    int(value != 0 or right != 0)
                continue
            right = self.binary(rank if operator == "**" else rank + 1, live)
            value = self.apply(operator, value, right, live)
        return value

    def apply(self, operator: str, left: int, right: int, live: bool) -> int:
        if operator in ("/", "%"):
            if right == 0:
                if live:
                    raise InputError("division by zero in an arithmetic expansion",
                                     where=self.where)
                return 0
            quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right > 0) else -1)
            value = quotient if operator == "/" else left - quotient * right
        elif operator == "**":
            if right < 0:
                raise InputError("negative exponent in an arithmetic expansion",
                                 where=self.where)
            if abs(left) > 1 and right > 63:
                raise InputError("arithmetic overflows 64 bits", where=self.where)
            value = left ** right
        elif operator in ("<<", ">>"):
            if not 0 <= right < 64:
                raise InputError(f"shift by {right} in an arithmetic expansion",
                                 where=self.where)
            value = left << right if operator == "<<" else left >> right
        else:
            value = _SIMPLE[operator](left, right)
        if abs(value) > _LIMIT:
            raise InputError("arithmetic overflows 64 bits", where=self.where)
        return value

    def unary(self, live: bool) -> int:
        token = self.next()
        self.enter()
        try:
            if token in ("-", "+", "!", "~"):
                self.at += 1
                value = self.unary(live)
                return {"-": -value, "+": value, "!": int(value == 0), "~": ~value}[token]
            if token == "(":
                self.at += 1
                value = self.expression(live)
                if self.next() != ")":
                    raise InputError("unclosed bracket in an arithmetic expansion",
                                     where=self.where)
                self.at += 1
                return value
            if not token or token in _OPERATORS:
                raise InputError(f"arithmetic needs a value, got {token or 'the end'!r}",
                                 where=self.where)
            self.at += 1
            if not token[0].isdigit():
                token = (self.lookup(token) or "0").strip()  # bash: an unset name is 0
            body = token[1:] if token[:1] == "-" else token
            if not body.isdigit() or not body.isascii():
                raise InputError(f"arithmetic needs integers, got {short(token, 40)!r}",
                                 where=self.where)
            check_int_text(body, self.where)
            return int(token)
        finally:
            self.depth -= 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > 64:
            raise InputError("arithmetic nested too deeply", where=self.where)


_SIMPLE: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b, "^": lambda a, b: a ^ b, "|": lambda a, b: a | b,
}
