"""Engine environment variables that change CUDA-graph decisions, as data (``env-vars.json``).

Each entry names the engine file and function that reads the variable (read from the engines'
own source), so a plan can show a variable's effect with its provenance: a ``VAR=value`` prefix
on the launch line wins over the process environment, as it does for the engine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "env-vars.json")


class EngineEnvVar(NamedTuple):
    """One environment variable an engine reads while deciding CUDA graphs."""

    name: str
    engine: str
    type: str
    default: str | None
    read_by_engine: bool
    """False for names users still set that this engine version no longer reads."""
    source: str
    """The engine file and function that reads it, with the engine version."""
    effect: str
    fact: str | None = None
    """The deployment fact cgconfig reads the variable into; ``None``: shown as a note only."""


class EnvSetting(NamedTuple):
    """A graph-relevant variable's value and where it came from."""

    var: EngineEnvVar
    value: str
    origin: str
    """``launch line`` (a ``VAR=value`` prefix) or ``environment``."""


@lru_cache(maxsize=1)
def engine_env_vars() -> tuple[EngineEnvVar, ...]:
    """Every variable in the table, all engines."""
    with open(_TABLE, encoding="utf-8") as handle:
        data = json.load(handle)
    return tuple(EngineEnvVar(**row) for row in data["variables"])


def env_vars_for(engine: str) -> dict[str, EngineEnvVar]:
    """The variables ``engine`` (``sglang``, ``vllm``, ``trtllm``) reads, by name."""
    return {v.name: v for v in engine_env_vars() if v.engine == engine}


def graph_env(engine: str, prefixes: Mapping[str, str], environ: Mapping[str, str]) -> list[EnvSetting]:
    """The graph-relevant variables set for ``engine``: line prefixes first, then the environment."""
    settings: list[EnvSetting] = []
    for name, var in env_vars_for(engine).items():
        if name in prefixes:
            settings.append(EnvSetting(var, prefixes[name], "launch line"))
        elif name in environ:
            settings.append(EnvSetting(var, environ[name], "environment"))
    return settings
