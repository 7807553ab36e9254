"""Read JSON and YAML documents with locations, so errors can say ``file:line``.

YAML is imported only when a YAML document is actually read (it costs ~20 ms at start-up).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cgconfig.errors import InputError

#: JSON pointer (as a tuple of keys/indices) → 1-based line in the source document.
LineMap = dict[tuple[Any, ...], int]


def pointer(parts: tuple[Any, ...]) -> str:
    """RFC 6901 pointer text for a path: ``("decode", "max_bs")`` → ``/decode/max_bs``."""
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def load_json_text(text: str, where: str) -> Any:
    """Parse JSON text; a syntax error becomes one line naming the source and position."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})",
                         where=where) from None


def load_yaml_text(text: str, where: str) -> tuple[Any, LineMap]:
    """Parse YAML text, returning the data and the line of every mapping key and list item."""
    import yaml

    lines: LineMap = {}
    try:
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            data = _construct(loader, node, (), lines) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        at = f"{where}:{mark.line + 1}" if mark is not None else where
        raise InputError(f"invalid YAML ({exc.problem})", where=at) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML ({exc})", where=where) from None
    return data, lines


def _construct(loader: Any, node: Any, path: tuple[Any, ...], lines: LineMap) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = _construct(loader, value_node, (*path, key), lines)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            items.append(_construct(loader, item, (*path, i), lines))
        return items
    return loader.construct_object(node, deep=True)


def read_document(path_text: str, where: str) -> tuple[Any, LineMap, str]:
    """Read a ``.json``/``.yaml``/``.yml`` file; returns (data, line map, display name)."""
    path = Path(path_text).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"file not found: {path_text}", where=where) from None
    except OSError as exc:
        raise InputError(f"cannot read {path_text}: {exc.strerror}", where=where) from None
    name = str(path_text)
    if path.suffix.lower() in (".yaml", ".yml"):
        data, lines = load_yaml_text(text, name)
        return data, lines, name
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("{", "[")):
        return load_json_text(text, name), {}, name
    data, lines = load_yaml_text(text, name)
    return data, lines, name


def locate(name: str, lines: LineMap, parts: tuple[Any, ...]) -> str:
    """``file:line`` of the deepest known part of ``parts``, else the pointer alone."""
    for cut in range(len(parts), 0, -1):
        line = lines.get(parts[:cut])
        if line is not None:
            return f"{name}:{line}"
    return name
