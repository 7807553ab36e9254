"""The step-time model file for ``cgconfig tune --cost FILE``.

Version 1 (documented in ``docs/histogram-format.md``)::

    {"schema_version": 1, "unit": "ms",
     "graph": {"a": 2.1, "b": 0.024},
     "eager": {"a": 10.8, "b": 0.0}}

A decode step replaying a graph of ``g`` requests costs ``graph.a + graph.b·g``; an eager step of
``x`` requests costs ``eager.a + eager.b·x``. ``benchmarks/tune_replay.py`` fits both lines from
measured steps and writes this file.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from cgconfig.errors import InputError, refuse_unknown_keys
from cgconfig.tune.histogram import read_text
from cgconfig.tune.optimize import StepCost

TOP_KEYS = ("schema_version", "unit", "graph", "eager", "source")
LINE_KEYS = ("a", "b")
MAX_MS = 1e9
"""A step of over eleven days is not a measurement."""


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"must be a number, got {value!r:.40}", where=where,
                         allowed=f"0..{MAX_MS:g}")
    number = float(value)
    if not math.isfinite(number) or not 0 <= number <= MAX_MS:
        raise InputError(f"{number!r} is out of range", where=where, allowed=f"0..{MAX_MS:g}")
    return number


def _line(doc: dict[str, Any], name: str, where: str) -> tuple[float, float]:
    body = doc.get(name)
    at = f"{where} at /{name}"
    if not isinstance(body, dict):
        raise InputError('must be an object {"a": ms, "b": ms per row}', where=at)
    refuse_unknown_keys(body, LINE_KEYS, at)
    if set(body) != set(LINE_KEYS):
        raise InputError("needs both a (ms per step) and b (ms per row)", where=at)
    return _number(body["a"], f"{at}/a"), _number(body["b"], f"{at}/b")


def cost_from_document(doc: Any, where: str) -> StepCost:
    """Validate a parsed cost document."""
    if not isinstance(doc, dict):
        raise InputError(f"must be a JSON object, got {type(doc).__name__}", where=where)
    refuse_unknown_keys(doc, TOP_KEYS, where)
    if doc.get("schema_version") != 1 or isinstance(doc.get("schema_version"), bool):
        raise InputError(f"schema_version {doc.get('schema_version')!r:.20} is not supported",
                         where=f"{where} at /schema_version", allowed=(1,))
    if doc.get("unit", "ms") != "ms":
        raise InputError(f"unit {doc.get('unit')!r:.20} is not supported",
                         where=f"{where} at /unit", allowed=("ms",))
    graph, eager = _line(doc, "graph", where), _line(doc, "eager", where)
    return StepCost(graph[0], graph[1], eager[0], eager[1])


def load_cost(path: str | os.PathLike[str], *, flag: str = "--cost") -> StepCost:
    """Read and validate a step-time model file."""
    where = f"{flag} {os.fspath(path)}"
    text = read_text(os.fspath(path), where)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                         where=where) from None
    except (ValueError, RecursionError):
        raise InputError("not a cost document (too deep or a number too long)",
                         where=where) from None
    return cost_from_document(doc, where)


def cost_document(cost: StepCost, source: str | None = None) -> dict[str, Any]:
    """The file form of ``cost`` (what the replay benchmark writes)."""
    doc: dict[str, Any] = {"schema_version": 1, "unit": "ms",
                           "graph": {"a": round(cost.graph_a, 6), "b": round(cost.graph_b, 6)},
                           "eager": {"a": round(cost.eager_a, 6), "b": round(cost.eager_b, 6)}}
    if source:
        doc["source"] = source
    return doc
