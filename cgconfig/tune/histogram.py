"""The batch-size histogram file: what a server really served, per phase.

Version 1 of the format (documented in ``docs/histogram-format.md``)::

    {"schema_version": 1,
     "source": "optional free text: what recorded it",
     "phases": {"decode": {"<size>": <count>, ...}, "prefill": {"<size>": <count>, ...}}}

Decode sizes count requests in a step, prefill sizes count tokens; a count is the number of steps
served at that size. Every phase is optional. The runtime writes it
(``runner.stats.write_histogram(path)``); :mod:`cgconfig.engines.sglang.tune_log` converts SGLang's
server log into it. This module needs neither torch nor pydantic.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from typing import Any

from cgconfig.errors import InputError, did_you_mean
from cgconfig.histogram_file import PHASES, SCHEMA_VERSION, Counts, Histogram, dumps, write
from cgconfig.limits import MAX_STEP_COUNT, MAX_STEP_SIZE

TOP_KEYS = ("schema_version", "source", "phases")

#: Limits on what a histogram file may hold; anything beyond is an input error, not work.
MAX_FILE_BYTES = 8 * 1024 * 1024
"""A histogram of every size up to the largest allowed fits in well under 8 MiB."""
MAX_SIZE = MAX_STEP_SIZE
"""Largest batch size accepted (decode requests or prefill tokens): ``limits.MAX_STEP_SIZE``."""
MAX_COUNT = MAX_STEP_COUNT
"""Largest step count per size: ``limits.MAX_STEP_COUNT``."""


__all__ = ["Counts", "Histogram", "dumps", "write"]


def read_text(path: str, where: str) -> str:
    """A regular, UTF-8 file of at most :data:`MAX_FILE_BYTES`, or an :class:`InputError`."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", where=where) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("not a regular file", where=where)
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"file is {info.st_size} bytes; the limit is {MAX_FILE_BYTES}",
                         where=where)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        return raw.decode("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", where=where) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", where=where) from None


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"a count must be an integer, got {_short(value)}", where=where,
                         allowed=f"0..{MAX_COUNT}")
    if not 0 <= value <= MAX_COUNT:
        raise InputError(f"count {value} is out of range", where=where, allowed=f"0..{MAX_COUNT}")
    return value


def _size(key: Any, where: str) -> int:
    if not isinstance(key, str) or not (key.isascii() and key.isdigit()) or len(key) > 8:
        raise InputError(f"a size must be a decimal integer, got {_short(key)}", where=where,
                         allowed=f"1..{MAX_SIZE}")
    from cgconfig.fields.values import read_int

    size = read_int(key, where)
    if not 1 <= size <= MAX_SIZE:
        raise InputError(f"size {size} is out of range", where=where, allowed=f"1..{MAX_SIZE}")
    return size


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def from_document(doc: Any, where: str) -> Histogram:
    """Validate a parsed document; every problem is an :class:`InputError` naming its place."""
    if not isinstance(doc, dict):
        raise InputError(f"must be a JSON object, got {type(doc).__name__}", where=where)
    for key in doc:
        if key not in TOP_KEYS:
            raise InputError(f"unknown key {_short(key)}", where=where, allowed=TOP_KEYS,
                             suggestion=did_you_mean(str(key), TOP_KEYS))
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise InputError(f"schema_version {_short(version)} is not supported",
                         where=f"{where} at /schema_version", allowed=(SCHEMA_VERSION,))
    source = doc.get("source")
    if source is not None and not isinstance(source, str):
        raise InputError("source must be a string", where=f"{where} at /source")
    phases = doc.get("phases")
    if not isinstance(phases, dict):
        raise InputError("phases must be an object of phase name to counts",
                         where=f"{where} at /phases")
    out: dict[str, Counts] = {}
    for name, body in phases.items():
        at = f"{where} at /phases/{name}"
        if name not in PHASES:
            raise InputError(f"unknown phase {_short(name)}", where=f"{where} at /phases",
                             allowed=PHASES, suggestion=did_you_mean(str(name), PHASES))
        if not isinstance(body, dict):
            raise InputError(f"must map sizes to counts, got {type(body).__name__}", where=at)
        counts: Counts = {}
        for key, value in body.items():
            size = _size(key, f"{at}/{_short(key)[1:-1]}")
            count = _count(value, f"{at}/{size}")
            if count:
                counts[size] = counts.get(size, 0) + count
        out[name] = dict(sorted(counts.items()))
    return Histogram(phases=out, source=source)


def loads(text: str, where: str) -> Histogram:
    """Parse and validate a histogram document's text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                         where=where) from None
    except (ValueError, RecursionError) as exc:
        # Python's int-string limit and nesting depth: both are malformed input here.
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "number too long"
        raise InputError(f"not a histogram document ({reason})", where=where) from None
    return from_document(doc, where)


def load(path: str | os.PathLike[str], *, flag: str = "--histogram") -> Histogram:
    """Read and validate a histogram file; errors name ``flag`` and the path."""
    name = os.fspath(path)
    where = f"{flag} {name}"
    return loads(read_text(name, where), where)


def from_counts(phases: Mapping[str, Mapping[int, int]], *, source: str, where: str,
                empty: str) -> Histogram:
    """A histogram built from counted steps (a server log), checked against the bounds
    :func:`from_document` applies when ``tune`` reads it back, so ``cgconfig histogram`` never
    writes a file ``tune`` refuses. Sizes of 0 (an idle step) are left out; a histogram left
    with no step at all is an :class:`InputError` saying ``empty``."""
    out: dict[str, Counts] = {}
    for name, counts in phases.items():
        kept: Counts = {}
        for size, count in sorted(counts.items()):
            if size == 0 or not count:
                continue
            if not 1 <= size <= MAX_SIZE:
                raise InputError(f"a step of {size} is above the limit of {MAX_SIZE}",
                                 where=where, hint="see 'Limits' in the README")
            if count > MAX_COUNT:
                raise InputError(f"{count} steps of size {size} is above the limit of "
                                 f"{MAX_COUNT} per size", where=where,
                                 hint="see 'Limits' in the README")
            kept[size] = count
        if kept:
            out[name] = kept
    if not out:
        raise InputError(empty, where=where)
    return Histogram(phases=out, source=source)


def counts_from_mapping(counts: Mapping[int, int]) -> Counts:
    """Sorted plain-int copy of a counter, zero counts dropped."""
    return {int(k): int(v) for k, v in sorted(counts.items()) if v}
