"""Flag-argument parsers shared by every source, and the one round-up helper.

Each parser turns one token into a value or raises :class:`InputError` naming where the token
came from, so every dialect reports a bad number the same way.
"""

from __future__ import annotations

import re

from cgconfig.errors import InputError

_HUMAN_INT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)\s*$")
_HUMAN_SCALE = {"": 1, "k": 1_000, "m": 1_000_000, "g": 1_000_000_000}


def parse_int(text: str, where: str, *, allow_negative: bool = False) -> int:
    """An integer from a flag argument, with a one-line error naming the flag."""
    try:
        value = int(text, 10)
    except ValueError:
        raise InputError(f"expected an integer, got {text!r}", where=where) from None
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
        raise InputError(f"expected a positive integer such as 200000 or 200k, got {text!r}",
                         where=where)
    number, unit = match.groups()
    exact = float(number) * _HUMAN_SCALE[unit.lower()]
    if exact != int(exact):
        raise InputError(f"expected a whole number of tokens, got {text!r}", where=where)
    value = int(exact)
    if value <= 0:
        raise InputError(f"expected a positive integer, got {text!r}", where=where)
    return value


def parse_float(text: str, where: str) -> float:
    """A non-negative number from a flag argument."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"expected a number, got {text!r}", where=where) from None
    if value < 0:
        raise InputError(f"expected a non-negative number, got {text!r}", where=where)
    return value


def round_up(value: int, multiple: int) -> int:
    """The smallest multiple of ``multiple`` that is at least ``value``."""
    return -(-value // multiple) * multiple
