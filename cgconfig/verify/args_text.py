"""Launch arguments as engines print them: ``ServerArgs(a=1, b='x')`` and ``{'a': 1, 'b': 'x'}``.

The text is split once, left to right, at top-level commas (brackets and quotes tracked, at most
:data:`MAX_DEPTH` deep); each value is then read by :func:`ast.literal_eval` when it is a short
literal, else kept as its text (enum reprs such as ``<CUDAGraphMode.FULL: 2>`` are not literals).
Nothing is evaluated.
"""

from __future__ import annotations

import ast
from typing import Any

MAX_DEPTH = 16
MAX_VALUE = 8192
"""Longest value text handed to ``literal_eval``; longer ones are kept as text."""
MAX_ITEMS = 2048
_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}


def split_top(body: str, close: str) -> tuple[list[str], bool]:
    """The comma-separated items of ``body`` up to the ``close`` that ends it, and whether
    that close was found."""
    items: list[str] = []
    stack: list[str] = []
    quote: str | None = None
    start = i = 0
    size = len(body)
    while i < size:
        char = body[i]
        if quote is not None:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in _OPEN and (char != "<" or _enum_start(body, i)):
            if len(stack) >= MAX_DEPTH:
                return items, False
            stack.append(_OPEN[char])
        elif stack and char == stack[-1]:
            stack.pop()
        elif not stack and char == close:
            items.append(body[start:i])
            return [item for item in items if item.strip()], True
        elif not stack and char == ",":
            items.append(body[start:i])
            start = i + 1
            if len(items) >= MAX_ITEMS:
                return items, False
        i += 1
    return items, False


def _enum_start(body: str, i: int) -> bool:
    """``<Name.`` opens an enum repr; a bare ``<`` (a comparison in a string) does not."""
    nxt = body[i + 1:i + 2]
    return nxt.isascii() and nxt.isalpha()


def value_of(text: str) -> Any:
    """A literal's value, or its stripped text when it is not a short literal."""
    text = text.strip()
    if len(text) > MAX_VALUE:
        return text[:64]
    if text.startswith("<") and ":" in text and text.endswith(">"):
        return text[1:text.find(":")].strip()  # <CUDAGraphMode.FULL: 2> -> "CUDAGraphMode.FULL"
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def parse_call(text: str, name: str) -> dict[str, Any] | None:
    """``Name(a=1, b='x')`` as ``{"a": 1, "b": "x"}``, or ``None`` when it is not one."""
    if not text.startswith(name + "("):
        return None
    items, closed = split_top(text[len(name) + 1:], ")")
    if not closed:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            return None
        out[key] = value_of(value)
    return out


def parse_mapping(text: str) -> dict[str, Any] | None:
    """``{'a': 1, "b": 'x'}`` as a dict of string keys, or ``None`` when it is not one."""
    text = text.lstrip()
    if not text.startswith("{"):
        return None
    items, closed = split_top(text[1:], "}")
    if not closed:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key_text, colon, value = _split_key(item)
        if not colon:
            return None
        key = value_of(key_text)
        if not isinstance(key, str):
            return None
        out[key] = value_of(value)
    return out


def _split_key(item: str) -> tuple[str, bool, str]:
    """``'key': value`` split at the colon after the quoted key."""
    item = item.strip()
    if item[:1] in ("'", '"'):
        end = item.find(item[0], 1)
        if end > 0:
            rest = item[end + 1:].lstrip()
            if rest.startswith(":"):
                return item[:end + 1], True, rest[1:]
    return item, False, ""
