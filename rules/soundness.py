"""Checks that a rule which fits the schema also runs: refused at load with ``file:line``.

The schema says what a rule looks like; these checks say whether the engine can apply it
without failing or silently doing nothing at resolve time: ordering comparisons and clamps
need numbers on both sides, a clamp needs an integer key, ``set`` needs a value (not null),
a backend can only be set downwards (``full`` never is), and sizes stay within the limits.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from cgconfig.errors import InputError
from cgconfig.limits import check_size_value, quote
from cgconfig.rules import paths
from cgconfig.rules.schema import All, Any_, Condition, Not, Rule

ORDERING = ("gt", "ge", "lt", "le")


def _base_types(annotation: Any) -> set[Any]:
    """The plain types an annotation admits, without None and constraints."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _base_types(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return {t for arg in get_args(annotation) for t in _base_types(arg)} - {type(None)}
    return {origin or annotation} - {type(None)}


def is_numeric_path(path: str) -> bool:
    """Whether every value at ``path`` is a number (``int``/``float``, not ``bool``)."""
    annotation = paths.known_paths().get(path)
    if path.startswith("options."):
        annotation = paths.known_paths().get(path, annotation)
    found = _base_types(annotation) if annotation is not None else set()
    return bool(found) and found <= {int, float}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _conditions(cond: Condition) -> list[Any]:
    """Every atom of a condition, iteratively (nesting depth is bounded when it is read)."""
    atoms: list[Any] = []
    stack: list[Any] = [cond]
    while stack:
        item = stack.pop()
        if isinstance(item, All):
            stack.extend(item.all)
        elif isinstance(item, Any_):
            stack.extend(item.any)
        elif isinstance(item, Not):
            stack.append(item.not_)
        else:
            atoms.append(item)
    return atoms


def problems(rule: Rule) -> list[str]:
    """Why the engine could not apply ``rule`` as written; empty when it can."""
    where = f"rule {rule.id}"
    found: list[str] = []
    for atom in _conditions(rule.when):
        for op in ORDERING:
            operand = getattr(atom, op, None)
            if operand is None:
                continue
            if not is_numeric_path(operand.path):
                found.append(f"{where}: {op} needs a number at {operand.path}")
            elif operand.ref is not None and not is_numeric_path(operand.ref):
                found.append(f"{where}: {op} compares {operand.path} with {operand.ref}, "
                             "which is not a number")
            elif operand.ref is None and not _is_number(operand.value):
                found.append(f"{where}: {op} needs a number, got {quote(operand.value)}")
    for action in rule.then:
        if action.set is not None:
            key, value = action.set.key, action.set.value
            if value is None:
                found.append(f"{where}: set {key} needs a value (null is not one)")
            elif key.endswith(".backend") and value == "full":
                found.append(f"{where}: set {key} to 'full' would move a backend up; rules "
                             "only move backends down (full → breakable → disabled)")
            else:
                found += _limit_problem(key, value, where)
        if action.clamp is not None:
            key = action.clamp.key
            if not is_numeric_path(key if key.startswith("options.") else f"config.{key}"):
                found.append(f"{where}: clamp needs a number key, {key} is not one")
            if action.clamp.max_ref is not None and not is_numeric_path(action.clamp.max_ref):
                found.append(f"{where}: clamp max_ref {action.clamp.max_ref} is not a number")
            if action.clamp.max is not None:
                found += _limit_problem(key, action.clamp.max, where)
    return found


def _limit_problem(key: str, value: Any, where: str) -> list[str]:
    try:
        check_size_value(key, value, where)
    except InputError as exc:
        return [str(exc)]
    return []
