"""The one numeric parser (flag arguments, YAML scalars, vendor-tool output) and the one
round-up helper.

Each parser turns one token into a value or raises :class:`InputError` naming where the token
came from, so every dialect reports a bad number the same way. Numbers are ASCII only (``int()``
and ``float()`` would also read ``٨``, ``６４`` and ``1_0``), never longer than
:data:`~cgconfig.limits.MAX_INT_DIGITS` digits, and within the bounds the caller gives. YAML
integers are read as YAML 1.2's core schema reads them (:func:`yaml_int`), never as YAML 1.1
(``010`` → 8, ``1_0`` → 10, ``1:00`` → 60).
"""

from __future__ import annotations

import re
from typing import TypeVar

from cgconfig.errors import InputError, unexpanded_variable_hint
from cgconfig.limits import MAX_INT_DIGITS, check_finite, check_int_text, quote

_N = TypeVar("_N", int, float)

# ASCII digits only, and never more than Python can convert: int() and float() would also read
# "٨", "６４" and "1_0", and a 5,000-digit number would raise from deep inside.
_HUMAN_INT = re.compile(r"^\s*([0-9]{1,30}(?:\.[0-9]{1,30})?)\s*([kKmMgG]?)\s*$")
_ASCII_INT = re.compile(r"[+-]?[0-9]+")
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HUMAN_SCALE = {"": 1, "k": 1_000, "m": 1_000_000, "g": 1_000_000_000}


def parse_int(text: str, where: str, *, allow_negative: bool = False) -> int:
    """An integer from a flag argument, with a one-line error naming the flag."""
    return read_int(text, where, minimum=None if allow_negative else 1)


def read_int(text: str, where: str, *, minimum: int | None = None,
             maximum: int | None = None) -> int:
    """A decimal integer of ASCII digits (surrounding blanks allowed) within the bounds."""
    if not isinstance(text, str) or not _ASCII_INT.fullmatch(text.strip()):
        raise InputError(f"expected an integer, got {quote(text)}", where=where,
                         hint=unexpanded_variable_hint(text))
    check_int_text(text, where)
    return _bounded(int(text.strip(), 10), text, where, minimum, maximum)


def read_float(text: str, where: str, *, minimum: float | None = None,
               maximum: float | None = None, positive: bool = False) -> float:
    """A finite decimal number of ASCII characters within the bounds (``positive``: above 0)."""
    if not isinstance(text, str) or not _ASCII_FLOAT.fullmatch(text.strip()):
        raise InputError(f"expected a number, got {quote(text)}", where=where)
    mantissa = text.strip().lstrip("+-").split("e")[0].split("E")[0]
    if len(mantissa) > 2 * MAX_INT_DIGITS:
        raise InputError(f"number with {len(mantissa)} digits is too long", where=where)
    value = check_finite(float(text), where)
    if positive and value <= 0:
        raise InputError(f"expected a number above 0, got {quote(text.strip())}", where=where)
    return _bounded(value, text, where, minimum, maximum)


def _bounded(value: _N, text: str, where: str, minimum: float | None,
             maximum: float | None) -> _N:
    if minimum is not None and value < minimum:
        kind = "integer" if isinstance(value, int) else "number"
        wanted = f"a positive {kind}" if minimum == 1 else f"{kind} of at least {minimum:g}"
        raise InputError(f"expected {wanted}, got {value:g}", where=where)
    if maximum is not None and value > maximum:
        raise InputError(f"{quote(text.strip())} is above the limit of {maximum:g}",
                         where=where)
    return value


#: YAML 1.2 core schema: ``[-+]?[0-9]+`` (decimal), ``0o[0-7]+``, ``0x[0-9a-fA-F]+``.
_YAML12_DECIMAL = re.compile(r"[-+]?[0-9]+")
_YAML12_OCTAL = re.compile(r"0o[0-7]+")
_YAML12_HEX = re.compile(r"0x[0-9a-fA-F]+")
_YAML12_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def yaml_int(text: str, where: str) -> int | str:
    """A scalar YAML 1.1 resolved as an integer, read as YAML 1.2's core schema reads it.

    ``1_0``, ``1:00`` and ``0b101`` are strings in YAML 1.2 (returned as text, so a field that
    wants a number says so); ``0o17`` and ``0x1F`` are refused: YAML reads them as octal and
    hex, but every value of a cgconfig document stands for an engine flag or JSON key, which
    the engine reads as decimal only (argparse's ``int('0x8')`` and ``json.loads`` refuse
    them), so ``tp_size: 0x8`` read as 8 would be a misread; a decimal with a leading zero
    (``010``: 8 in YAML 1.1, 10 in YAML 1.2) is refused as ambiguous.
    """
    digits = text.lstrip("+-")
    if _YAML12_OCTAL.fullmatch(text) or _YAML12_HEX.fullmatch(text):
        kind = "octal" if text[1] == "o" else "hex"
        shown = quote(text)
        check_int_text(text[2:], where)
        raise InputError(f"integer {shown} is written in {kind} (YAML reads it as "
                         f"{int(text[2:], 8 if kind == 'octal' else 16)}): cgconfig reads "
                         "decimal only, as the engines' flags do", where=where,
                         hint=f"write {int(text[2:], 8 if kind == 'octal' else 16)}")
    if not _YAML12_DECIMAL.fullmatch(text):
        return text
    check_int_text(text, where)
    if len(digits) > 1 and digits.startswith("0"):
        raise InputError(f"integer {quote(text)} has a leading zero: YAML 1.1 reads it as "
                         f"octal, YAML 1.2 as decimal", where=where,
                         hint=f"write {int(digits, 10)}" + (
                             f", or {int(digits, 8)} if octal was meant"
                             if set(digits) <= set("01234567") else ""))
    return int(text, 10)


def yaml_float(text: str) -> str | None:
    """``None`` when a scalar YAML 1.1 resolved as a float is one in YAML 1.2 too, else the
    text (``1_0.5``, ``1:30.0`` are strings in YAML 1.2)."""
    lowered = text.lower().lstrip("+-")
    if lowered in (".inf", ".nan") or _YAML12_FLOAT.fullmatch(text):
        return None
    return text


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
