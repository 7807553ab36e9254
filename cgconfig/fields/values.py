"""Flag-argument parsers shared by every source, and the one round-up helper.

Each parser turns one token into a value or raises :class:`InputError` naming where the token
came from, so every dialect reports a bad number the same way.
"""

from __future__ import annotations

import re

from cgconfig.errors import InputError
from cgconfig.limits import check_finite, check_int_text, quote

# ASCII digits only, and never more than Python can convert: int() and float() would also read
# "٨", "６４" and "1_0", and a 5,000-digit number would raise from deep inside.
_HUMAN_INT = re.compile(r"^\s*([0-9]{1,30}(?:\.[0-9]{1,30})?)\s*([kKmMgG]?)\s*$")
_ASCII_INT = re.compile(r"[+-]?[0-9]+")
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HUMAN_SCALE = {"": 1, "k": 1_000, "m": 1_000_000, "g": 1_000_000_000}


def parse_int(text: str, where: str, *, allow_negative: bool = False) -> int:
    """An integer from a flag argument, with a one-line error naming the flag."""
    if not _ASCII_INT.fullmatch(text.strip()):
        raise InputError(f"expected an integer, got {quote(text)}", where=where)
    check_int_text(text, where)
    value = int(text.strip(), 10)
    if value <= 0 and not allow_negative:
        raise InputError(f"expected a positive integer, got {value}", where=where)
    return value


def looks_human_int(text: str) -> bool:
    """Whether ``text`` is written as a number with an optional k/m/g suffix."""
    return _HUMAN_INT.match(text) is not None


def parse_human_int(text: str, where: str) -> int:
    """``200k`` → 200000, ``1.5m`` → 1500000, plain integers as they are."""
    match = _HUMAN_INT.match(text)
    if not match:
        raise InputError(f"expected a positive integer such as 200000 or 200k, got {quote(text)}",
                         where=where)
    number, unit = match.groups()
    exact = float(number) * _HUMAN_SCALE[unit.lower()]
    if exact != int(exact):
        raise InputError(f"expected a whole number of tokens, got {quote(text)}", where=where)
    value = int(exact)
    if value <= 0:
        raise InputError(f"expected a positive integer, got {quote(text)}", where=where)
    return value


def parse_float(text: str, where: str) -> float:
    """A non-negative number from a flag argument."""
    if not _ASCII_FLOAT.fullmatch(text.strip()):
        raise InputError(f"expected a number, got {quote(text)}", where=where)
    value = check_finite(float(text), where)
    if value < 0:
        raise InputError(f"expected a non-negative number, got {quote(text)}", where=where)
    return value


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of ``multiple`` that is at least ``value``."""
    return -(-value // multiple) * multiple
