"""Field lookups by dotted key, with no pydantic import.

The start-up path reads every key's type, default, docstring and flag spelling from the
generated ``generated.py`` (written from the pydantic declarations in ``config.py`` and
``deployment.py``; a test keeps the two in step).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cgconfig.constants import PHASES
from cgconfig.fields.spec import FieldSpec


@lru_cache(maxsize=1)
def specs() -> dict[str, FieldSpec]:
    """Every field spec by dotted key: ``decode.max_bs``, ``options.x``, ``facts.tp_size``."""
    from cgconfig.fields.generated import SPECS

    return {spec.key: spec for spec in SPECS}


def spec(key: str) -> FieldSpec:
    """The spec of one dotted key."""
    return specs()[key]


@lru_cache(maxsize=1)
def keys_per_phase() -> dict[str, tuple[str, ...]]:
    """Phase → its keys, in model order."""
    return {p: tuple(k.split(".", 1)[1] for k in specs() if k.startswith(p + "."))
            for p in PHASES}


@lru_cache(maxsize=1)
def option_keys() -> tuple[str, ...]:
    """Graph option names, in model order."""
    return tuple(k.split(".", 1)[1] for k in specs() if k.startswith("options."))


@lru_cache(maxsize=1)
def fact_fields() -> tuple[str, ...]:
    """Deployment fact names, in model order."""
    return tuple(k.split(".", 1)[1] for k in specs() if k.startswith("facts."))


@lru_cache(maxsize=1)
def _config_keys() -> tuple[str, ...]:
    return tuple(k for k in specs() if not k.startswith("facts."))


def all_config_keys() -> list[str]:
    """Every dotted key the resolver tracks: phase keys, then ``options.*``."""
    return list(_config_keys())


def default_value(key: str) -> Any:
    """The model default of a dotted key (before platform or deployment defaults)."""
    value = spec(key).default
    return list(value) if isinstance(value, list) else value
