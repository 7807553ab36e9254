"""JSON text read within the document limits: bracket depth checked before parsing,
non-finite numbers and over-long integers refused, lone surrogates refused where a document
must be text. Every failure is one :class:`~cgconfig.errors.InputError` line (the file side —
regular files, sizes, YAML — is :mod:`cgconfig.docio`'s)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from cgconfig import limits
from cgconfig.errors import InputError

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: linear and fast
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """Deepest bracket nesting of JSON text (strings skipped), without recursing."""
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {limits.short(text, 40)} is out of range")
    return value


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > limits.MAX_INT_DIGITS:
        raise ValueError(f"integer with {len(text.lstrip('-'))} digits is too long "
                         f"(at most {limits.MAX_INT_DIGITS})")
    return int(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def refuse_lone_surrogates(data: Any, where: str) -> None:
    """A document of cgconfig's own (a ``--deployment`` file) must hold text: a lone surrogate
    (JSON ``"\\ud800"``, which no UTF-8 file can hold) in any string, keys included, is one
    error line. The engines' own inputs (a model's ``config.json``,
    ``--json-model-override-args``) are read as the engine's ``json.loads`` reads them, a lone
    surrogate included (it is shown escaped). Iterative and linear in the document."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                raise InputError(f"a string holds a lone surrogate (\\u{ord(found.group()):04x}), "
                                 "which is not text", where=where,
                                 hint="write the character itself, or a valid surrogate pair")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def loads_bounded(text: str, where: str, *, non_finite: bool = False) -> Any:
    """``json.loads`` within the document limits, for JSON given inline (a flag's value).

    Too deep is an :class:`~cgconfig.errors.InputError`; text that is not JSON, NaN/Infinity
    (unless ``non_finite``) and integers too long to convert raise ``ValueError``
    (``json.JSONDecodeError`` for a syntax error), so a caller may fall back to reading the
    text another way. ``non_finite`` reads ``NaN``, ``Infinity`` and ``-Infinity`` (and
    numbers beyond a float) as Python's ``json`` does, for a model's ``config.json``: the engine
    reads it with ``json.load``, which accepts them; whoever reads such a value checks it.
    """
    if len(text) > limits.MAX_FILE_BYTES:
        limits.check_file_size(len(text.encode("utf-8", "surrogatepass")), where)
    limits.check_depth(json_depth(text), where)
    if non_finite:
        data = json.loads(text, parse_int=_json_int)
    else:
        data = json.loads(text, parse_constant=_json_constant, parse_float=_json_float,
                          parse_int=_json_int)
    return data


def load_json_text(text: str, where: str, *, non_finite: bool = False) -> Any:
    """Parse JSON text; a syntax error becomes one line naming the source and position.
    ``non_finite``: NaN and Infinity are read as :func:`loads_bounded` says."""
    try:
        return loads_bounded(text, where, non_finite=non_finite)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})",
                         where=where) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"invalid JSON ({exc})", where=where) from None
