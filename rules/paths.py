"""What a rule may refer to: the typed paths of facts, derived facts, config and options.

Paths are checked when a pack loads: an unknown path gets a did-you-mean, a literal that does
not fit the path's type (``tp_size: "2"``) is an error, so a typo never silently matches nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from pydantic import TypeAdapter, ValidationError

from cgconfig.constants import ATTENTION_BACKENDS
from cgconfig.derived import derived_types
from cgconfig.errors import did_you_mean
from cgconfig.fields.config import field_info
from cgconfig.fields.deployment import DeploymentFacts
from cgconfig.fields.table import all_config_keys

_ATTENTION_PATHS = {"facts.attention_backend", "facts.prefill_attention_backend",
                    "facts.decode_attention_backend", "derived.prefill_attention_backend",
                    "derived.decode_attention_backend"}


@lru_cache(maxsize=1)
def known_paths() -> dict[str, Any]:
    """Every valid condition path → its type annotation."""
    paths: dict[str, Any] = {}
    for name, info in DeploymentFacts.model_fields.items():
        paths[f"facts.{name}"] = info.annotation
    for name, annotation in derived_types().items():
        paths[f"derived.{name}"] = annotation
    for key in all_config_keys():
        info = field_info(key)
        prefix = "" if key.startswith("options.") else "config."
        paths[prefix + key] = info.annotation
    return paths


def config_keys() -> list[str]:
    """Keys an action may write (``decode.backend``, ``options.x``)."""
    return all_config_keys()


def check_path(path: str) -> str | None:
    """``None`` when the path exists, else an error message with a did-you-mean."""
    if path in known_paths():
        return None
    hint = did_you_mean(path, known_paths())
    return f"unknown path {path!r}" + (f" (did you mean {hint!r}?)" if hint else "")


def check_key(key: str) -> str | None:
    """``None`` when an action key exists, else an error message with a did-you-mean."""
    if key in config_keys():
        return None
    hint = did_you_mean(key, config_keys())
    return f"unknown config key {key!r}" + (f" (did you mean {hint!r}?)" if hint else "")


def check_literal(path: str, value: Any) -> str | None:
    """``None`` when ``value`` fits the type at ``path``, else why not."""
    if path in _ATTENTION_PATHS:
        if value is None or value in ATTENTION_BACKENDS:
            return None
        hint = did_you_mean(str(value), ATTENTION_BACKENDS)
        return f"{value!r} is not an attention backend" + (
            f" (did you mean {hint!r}?)" if hint else "")
    annotation = known_paths().get(path)
    if path.startswith("config.") or path.startswith("options."):
        key = path.removeprefix("config.")
        annotation = Optional[field_info(key).annotation]  # noqa: UP045
    if annotation is None:
        return f"no type known for {path}"
    try:
        TypeAdapter(annotation).validate_python(value, strict=True)
    except ValidationError as exc:
        msg = exc.errors(include_url=False)[0]["msg"]
        return f"{value!r} does not fit {path}: {msg}"
    return None


def check_item(path: str, value: Any) -> str | None:
    """``None`` when ``value`` can be an element of the list at ``path``, else why not."""
    if path == "derived.attention_backends":
        return check_literal("facts.attention_backend", value)
    annotation = known_paths().get(path)
    if getattr(annotation, "__origin__", None) is not list:
        return f"{path} is not a list; use eq or in"
    return None
