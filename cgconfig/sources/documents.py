"""Turn each input form into leaves: explicit values for dotted keys, with their origin.

Forms: ``--cuda-graph-config`` (JSON text, ``@file`` or a ``.json``/``.yaml`` path), a plain
dict, a :class:`~cgconfig.fields.config.CudaGraphConfig` object (only fields the caller set become
leaves), and deployment files. Every leaf is validated against the model on the way in, so a
bad value is reported where it was written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cgconfig import docio
from cgconfig.constants import BACKENDS, PHASES, REMOVED_KEYS
from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.spec import FieldError, check
from cgconfig.fields.table import (
    keys_per_phase,
    option_keys,
    spec,
)
from cgconfig.limits import check_size_value, quote_key
from cgconfig.provenance import Layer, Leaf, Origin

if TYPE_CHECKING:
    from cgconfig.fields.config import CudaGraphConfig


def validate_leaf(key: str, value: Any, where: str,
                  backends: tuple[str, ...] = BACKENDS) -> Any:
    """Check one value against its key's type (strictly, as the model does); returns it.
    ``backends``: the backends a refused backend's message lists (the release's)."""
    try:
        checked = check(spec(key), value)
        check_size_value(key, checked, where)
        return checked
    except FieldError as exc:
        allowed = backends if key.endswith(".backend") else None
        suggestion = did_you_mean(value, backends) if allowed and isinstance(value, str) else None
        raise InputError(exc.describe(), where=where, allowed=allowed,
                         suggestion=suggestion) from None


def leaves_from_mapping(data: Any, origin_source: str, layer: Layer, *, position: int = 0,
                        file_lines: docio.LineMap | None = None, file_name: str | None = None,
                        allow_options: bool = False,
                        read_keys: frozenset[str] = frozenset(),
                        backends: tuple[str, ...] = BACKENDS) -> list[Leaf]:
    """Leaves from a ``{"decode": {...}, "prefill": {...}}`` mapping, each with a pointer.
    ``read_keys``: keys the engine release reads that make no plan key (accepted, no leaf);
    ``backends``: the backends the release accepts, for the messages."""

    def where(parts: tuple[Any, ...]) -> str:
        ptr = docio.pointer(parts)
        if file_name is not None:
            return f"{docio.locate(file_name, file_lines or {}, parts)} ({ptr})"
        return f"{origin_source} at {ptr}"

    if not isinstance(data, dict):
        raise InputError(f"must be a JSON object, got {type(data).__name__}",
                         where=file_name or origin_source)
    groups: dict[str, tuple[str, ...]] = {p: keys_per_phase()[p] for p in PHASES}
    if allow_options:
        groups["options"] = option_keys()
    leaves: list[Leaf] = []
    for group, body in data.items():
        if group not in groups:
            raise InputError(f"unknown phase {quote_key(group)}", where=where((group,)),
                             allowed=tuple(groups), suggestion=did_you_mean(str(group), groups))
        if not isinstance(body, dict):
            raise InputError(f"{quote_key(group)} must be a JSON object, got {type(body).__name__}",
                             where=where((group,)))
        for key, value in body.items():
            if key in read_keys:
                continue
            if key in REMOVED_KEYS:
                raise InputError(f"unknown key {quote_key(key)}", where=where((group, key)),
                                 hint=REMOVED_KEYS[key])
            if key not in groups[group]:
                raise InputError(f"unknown key {quote_key(key)}", where=where((group, key)),
                                 allowed=groups[group],
                                 suggestion=did_you_mean(str(key), groups[group]))
            dotted = f"{group}.{key}"
            at = where((group, key))
            if value is None and not spec(dotted).optional:
                raise InputError(f"null is not a value for {dotted}", where=at,
                                 allowed=backends if key == "backend" else None,
                                 hint="omit the key to keep the default")
            # A null where the key may be unset is SGLang 0.5.23's own reading: the key keeps
            # its default and is locked (``arg_groups/cuda_graph_hook.py:parse_cuda_graph_config``
            # locks every key the JSON names), so no later default or hook moves it.
            if key == "backend" and value not in backends and value in BACKENDS:
                checked = value  # another release's backend: the engine's release check says so
            else:
                checked = validate_leaf(dotted, value, at, backends)
            ptr = docio.pointer((group, key))
            shown_at = at.split(" (")[0] + f" {ptr}" if file_name else ptr
            leaves.append(Leaf(dotted, checked, Origin(layer, origin_source, shown_at, position)))
    return leaves


def leaves_from_config_arg(raw: str, position: int = 0, *,
                           read_keys: frozenset[str] = frozenset(),
                           backends: tuple[str, ...] = BACKENDS) -> list[Leaf]:
    """Leaves from one ``--cuda-graph-config`` value: JSON text, ``@file`` or a file path
    (``read_keys`` as for :func:`leaves_from_mapping`)."""
    flag = "--cuda-graph-config"
    text = raw.strip()
    if text.startswith("@") or (not text.startswith("{") and _looks_like_path(text)):
        path = text[1:] if text.startswith("@") else text
        data, lines, name = docio.read_document(path, flag)
        return leaves_from_mapping(data, f"{flag} {name}", Layer.CONFIG, position=position,
                                   file_lines=lines, file_name=name, read_keys=read_keys,
                                   backends=backends)
    data = docio.load_json_text(text, flag)
    return leaves_from_mapping(data, flag, Layer.CONFIG, position=position, read_keys=read_keys,
                               backends=backends)


def _looks_like_path(text: str) -> bool:
    return text.lower().endswith((".json", ".yaml", ".yml")) or docio.looks_like_file(text)


def leaves_from_object(config: CudaGraphConfig, source: str = "CudaGraphConfig") -> list[Leaf]:
    """Leaves for the fields a caller set on a config object; defaults it did not set stay free."""
    leaves = []
    for key in config.explicit_keys():
        phase, name = key.split(".")
        value = getattr(config.phase(phase), name)  # type: ignore[arg-type]
        leaves.append(Leaf(key, value, Origin(Layer.CONFIG, source, docio.pointer((phase, name)))))
    return leaves


def facts_from_file(path: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Deployment facts from a YAML/JSON file: (values, field → ``file:line``)."""
    from cgconfig.fields.table import fact_fields

    known = fact_fields()

    data, lines, name = docio.read_document(path, "--deployment")
    docio.refuse_lone_surrogates(data, name)
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise InputError(f"must be a mapping of deployment facts, got {type(data).__name__}",
                         where=name)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for raw_key, value in data.items():
        key = str(raw_key).replace("-", "_").lstrip("_")
        at = docio.locate(name, lines, (raw_key,))
        if key not in known:
            raise InputError(f"unknown deployment fact {quote_key(raw_key)}", where=at,
                             suggestion=did_you_mean(key, known))
        values[key] = value
        origins[key] = at
    return values, origins
