"""Read JSON and YAML documents with locations, so errors can say ``file:line``.

Every document is hostile until read: files must be regular files (after resolving symlinks)
under :data:`~cgconfig.limits.MAX_FILE_BYTES` and valid UTF-8; JSON and YAML are nested at
most :data:`~cgconfig.limits.MAX_NESTING_DEPTH` deep; YAML aliases may not refer to
themselves and count towards :data:`~cgconfig.limits.MAX_DOCUMENT_NODES` each time they
expand; tags on collections, non-scalar keys, non-finite numbers and integers too long to
convert are rejected. Every failure is one :class:`~cgconfig.errors.InputError` line.

YAML is imported only when a YAML document is actually read (it costs ~20 ms at start-up).
"""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from cgconfig import limits
from cgconfig.errors import InputError

# JSON text is read by cgconfig.json_text; re-exported for the readers of documents.
from cgconfig.json_text import json_depth as json_depth
from cgconfig.json_text import load_json_text as load_json_text
from cgconfig.json_text import loads_bounded as loads_bounded
from cgconfig.json_text import refuse_lone_surrogates as refuse_lone_surrogates

#: JSON pointer (as a tuple of keys/indices) → 1-based line in the source document.
LineMap = dict[tuple[Any, ...], int]
#: Path of a scalar → (1-based line its text starts on, YAML style: ``""`` plain,
#: ``"'"``/``'"'`` quoted, ``"|"``/``">"`` block), for readers that point into a value.
ScalarLines = dict[tuple[Any, ...], tuple[int, str]]

_YAML_DEFAULT_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


def pointer(parts: tuple[Any, ...]) -> str:
    """RFC 6901 pointer text for a path: ``("decode", "max_bs")`` → ``/decode/max_bs``.

    A part that is not a plain name is shown as ``<…>``: a pointer never echoes file content.
    """
    return "/" + "/".join(
        str(p).replace("~", "~0").replace("/", "~1") if limits.is_name(p) else "<…>"
        for p in parts)


def display_name(path_text: str) -> str:
    """A file name as error lines show it: one line, at most a couple of hundred characters."""
    return limits.short(path_text, 200)


# ------------------------------------------------------------------------------------ YAML

class _Budget:
    """Nodes built so far (aliases counted per expansion) and the ancestors of the current one."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.nodes = 0
        self.limit = limits.MAX_DOCUMENT_NODES
        self.ancestors: set[int] = set()
        self.scalars: ScalarLines | None = None


def load_yaml_text(text: str, where: str) -> tuple[Any, LineMap]:
    """Parse YAML text, returning the data and the line of every mapping key and list item."""
    import yaml

    lines: LineMap = {}
    _check_yaml_size(text, where)
    try:
        # libyaml's parser when present: fast, and it bounds nesting itself.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        try:
            node = loader.get_single_node()
            data = (_construct(loader, node, (), lines, _Budget(where))
                    if node is not None else None)
        finally:
            loader.dispose()
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:
        raise _yaml_error(exc, where) from None
    return data, lines


def _check_yaml_size(text: str, where: str, budget: int = limits.MAX_DOCUMENT_NODES) -> None:
    """Refuse, before parsing, a document with more items than the node budget: every node
    but the root needs a line, a comma, a bracket, ``- `` or ``: `` of its own."""
    items = sum(text.count(mark) for mark in ("\n", ",", "[", "{", "- ", ": "))
    if items > 2 * budget:
        raise InputError(f"document has more than {budget} values", where=where)


def load_yaml_documents(text: str, where: str) -> list[tuple[Any, LineMap, ScalarLines]]:
    """Every document of a multi-document YAML stream (``---``), each with its line map and
    where each string scalar's text starts (:data:`ScalarLines`). At most
    :data:`~cgconfig.limits.MAX_DOCUMENTS` documents; the node budget counts over all."""
    import yaml

    _check_yaml_size(text, where, limits.MAX_DOCUMENT_NODES * 4)
    out: list[tuple[Any, LineMap, ScalarLines]] = []
    budget = _Budget(where)
    budget.limit = limits.MAX_DOCUMENT_NODES * 4
    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        try:
            while loader.check_node():
                if len(out) >= limits.MAX_DOCUMENTS:
                    raise InputError(f"file has more than {limits.MAX_DOCUMENTS} YAML documents",
                                     where=where)
                node = loader.get_node()
                lines: LineMap = {}
                scalars: ScalarLines = {}
                budget.scalars = scalars
                data = (_construct(loader, node, (), lines, budget)
                        if node is not None else None)
                out.append((data, lines, scalars))
        finally:
            loader.dispose()
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:
        raise _yaml_error(exc, where) from None
    return out


def _yaml_error(exc: Exception, where: str) -> InputError:
    """The one error line for a YAML document that does not parse (the mark's line when the
    parser gives one)."""
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark
        at = f"{where}:{mark.line + 1}" if mark is not None else where
        return InputError(f"invalid YAML ({limits.short(str(exc.problem), 120)})", where=at)
    if isinstance(exc, yaml.reader.ReaderError):
        return InputError(f"invalid YAML (character {exc.character!r} at position "
                          f"{exc.position} is not allowed)", where=where)
    if isinstance(exc, yaml.YAMLError):
        return InputError(f"invalid YAML ({limits.short(' '.join(str(exc).split()), 120)})",
                          where=where)
    return InputError(f"invalid YAML ({limits.short(str(exc), 120)})", where=where)


def _construct(loader: Any, node: Any, path: tuple[Any, ...], lines: LineMap,
               budget: _Budget) -> Any:
    import yaml

    line = node.start_mark.line + 1
    at = f"{budget.where}:{line}"
    budget.nodes += 1
    if budget.nodes > budget.limit:
        raise InputError(f"document expands to more than {budget.limit} values "
                         "(YAML aliases count each time they are used)", where=at)
    limits.check_depth(len(path), at)
    if isinstance(node, yaml.ScalarNode):
        if budget.scalars is not None:
            style = node.style or ""
            # a block scalar's text starts on the line after its indicator
            budget.scalars[path] = (line + (1 if style in ("|", ">") else 0), style)
        return _scalar(loader, node, at)
    if node.tag not in _YAML_DEFAULT_TAGS:
        raise InputError(f"YAML tag {limits.short(node.tag, 40)} is not allowed", where=at)
    if id(node) in budget.ancestors:
        raise InputError("a YAML alias refers to itself (recursive document)", where=at)
    budget.ancestors.add(id(node))
    try:
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise InputError("a mapping key must be a plain value, not a list or mapping",
                                     where=f"{budget.where}:{key_node.start_mark.line + 1}")
                key = _scalar(loader, key_node, at)
                lines[(*path, key)] = key_node.start_mark.line + 1
                out[key] = _construct(loader, value_node, (*path, key), lines, budget)
            return out
        items = []
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            items.append(_construct(loader, item, (*path, i), lines, budget))
        return items
    finally:
        budget.ancestors.discard(id(node))


_YAML_INT_TAG, _YAML_FLOAT_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_YAML11_INT_TEXT = re.compile(r"[-+]?[0-9][0-9a-fA-FxXoObB_:]*")


def _scalar(loader: Any, node: Any, at: str) -> Any:
    """One scalar: numbers as YAML 1.2's core schema reads them (the one parser in
    :mod:`cgconfig.fields.values`), any other standard tag through PyYAML's constructor; a
    value a tag cannot take (``!!int`` with nothing after it) is one error line."""
    from cgconfig.fields.values import yaml_float, yaml_int

    text = node.value
    if node.tag == _YAML_INT_TAG:
        value = yaml_int(text, at)
        if isinstance(value, str) and not _YAML11_INT_TEXT.fullmatch(text):
            raise InputError(f"YAML tag !!int needs an integer, got {limits.quote(text)}",
                             where=at)
        return value
    if node.tag == _YAML_FLOAT_TAG and yaml_float(text) is not None:
        if not any(char in "0123456789" for char in text):
            raise InputError(f"YAML tag !!float needs a number, got {limits.quote(text)}",
                             where=at)
        return text  # 1_0.5 and 1:30.0 are text in YAML 1.2
    if node.tag == "tag:yaml.org,2002:null" and text not in ("", "~", "null", "Null", "NULL"):
        raise InputError(f"YAML tag !!null cannot take the value {limits.quote(text)}",
                         where=at)
    try:
        value = loader.construct_object(node, deep=True)
    except (ValueError, IndexError, KeyError, TypeError, AttributeError):
        tag = node.tag.replace("tag:yaml.org,2002:", "!!")
        raise InputError(f"YAML tag {limits.short(tag, 40)} cannot take the value "
                         f"{limits.quote(text)}", where=at) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"expected a finite number, got {limits.short(text, 40)}",
                         where=at)
    return value


# ----------------------------------------------------------------------------------- files

def read_text_file(path_text: str, where: str) -> str:
    """The text of a regular file (symlinks resolved) under the size cap, as strict UTF-8.

    Devices, FIFOs, sockets and directories are refused before anything is read, so
    ``/dev/zero`` or a FIFO cannot hang or exhaust memory.
    """
    shown = display_name(path_text)
    if "\0" in path_text:
        raise InputError("a file name cannot contain a NUL byte", where=where)
    path = Path(os.path.expanduser(path_text))  # ~nosuchuser stays as written
    try:
        info = os.stat(path)  # follows symlinks: the target is what must be regular
    except FileNotFoundError:
        raise InputError(f"file not found: {shown}", where=where) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {shown}: {_reason(exc)}", where=where) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{shown} is not a regular file", where=where)
    limits.check_file_size(info.st_size, where=shown)
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat still cannot block the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InputError(f"{shown} is not a regular file", where=where)
            raw = handle.read(limits.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {_reason(exc)}", where=where) from None
    limits.check_file_size(len(raw), where=shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         where=shown) from None
    return text.removeprefix("\ufeff")


def read_stdin(where: str = "stdin") -> str:
    """Standard input as strict UTF-8 text under the same cap as a file: ``< /dev/zero`` or
    ``< /dev/urandom`` stop after :data:`~cgconfig.limits.MAX_FILE_BYTES` + 1 bytes, a closed
    stdin (``<&-``) is one error line."""
    import sys

    stream = sys.stdin
    if stream is None:
        raise InputError("standard input is closed", where=where)
    try:
        buffer = getattr(stream, "buffer", None)
        raw = buffer.read(limits.MAX_FILE_BYTES + 1) if buffer is not None else \
            stream.read(limits.MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read standard input: {_reason(exc)}", where=where) from None
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    limits.check_file_size(len(raw), where=where)
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                         where=where) from None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or limits.short(str(exc), 80)


def looks_like_file(text: str) -> bool:
    """Whether ``text`` names an existing regular file; any probe failure means no."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def read_document(path_text: str, where: str) -> tuple[Any, LineMap, str]:
    """Read a ``.json``/``.yaml``/``.yml`` file; returns (data, line map, display name)."""
    text = read_text_file(path_text, where)
    name = display_name(str(path_text))
    suffix = os.path.splitext(path_text)[1].lower()
    if suffix in (".yaml", ".yml"):
        data, lines = load_yaml_text(text, name)
        return data, lines, name
    if suffix == ".json" or text.lstrip().startswith(("{", "[")):
        return load_json_text(text, name), {}, name
    data, lines = load_yaml_text(text, name)
    return data, lines, name


def locate(name: str, lines: LineMap, parts: tuple[Any, ...]) -> str:
    """``file:line`` of the deepest known part of ``parts``, else the pointer alone."""
    for cut in range(len(parts), 0, -1):
        try:
            line = lines.get(parts[:cut])
        except TypeError:  # an unhashable part: no line is known for it
            continue
        if line is not None:
            return f"{name}:{line}"
    return name
