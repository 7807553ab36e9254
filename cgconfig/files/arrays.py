"""Bash arrays in launch scripts: ``ARGS=(--tp 8 --mem-fraction-static 0.8)`` and
``"${ARGS[@]}"``, the commonest way a script keeps its flags in one place.

A variable's value is text everywhere else in the readers, so an array is kept as text too:
its elements behind a marker no script can write (a NUL byte starts it), so a scalar can never
be taken for an array. ``${A[@]}`` gives each element as its own word even inside double
quotes, as bash does; ``${A[*]}`` and ``$A`` behave as in bash (the elements joined by a blank,
and the first element).
"""

from __future__ import annotations

#: Starts an array's value; elements are separated by :data:`_SEPARATOR`.
_MARK = "\0array\x1f"
_SEPARATOR = "\x1f"


def array_value(elements: list[str]) -> str:
    """The stored value of an array of ``elements``."""
    return _MARK + _SEPARATOR.join(elements)


def elements_of(value: str) -> list[str] | None:
    """The elements of an array's stored value, or ``None`` for a scalar."""
    if not value.startswith(_MARK):
        return None
    body = value[len(_MARK):]
    return body.split(_SEPARATOR) if body else []


def as_elements(value: str) -> list[str]:
    """A value read as an array: a scalar is an array of one element (bash's rule)."""
    found = elements_of(value)
    return [value] if found is None else found


def scalar(value: str) -> str:
    """A value read as a scalar: an array gives its first element, as ``$A`` does in bash."""
    found = elements_of(value)
    if found is None:
        return value
    return found[0] if found else ""
