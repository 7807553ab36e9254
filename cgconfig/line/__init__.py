"""The line layer: the engines' own command-line surfaces as data (the registry, flag tables,
entry points, tokens, env, versions) and the one splitter. Stdlib only; no plug-in imported.

* :func:`load_table` — every flag of SGLang 0.5.23, vLLM 0.33.0 (``vllm serve``) or trtllm-serve,
  generated from the engine's parser by ``scripts/gen_engine_tables.py``, each flag classified as
  ``modelled`` (cgconfig reads it) or ``ignored`` (known to the engine, not read), with
  ``graph_effect`` where the engine's graph decision depends on it.
* :func:`find_entry_point` — ``python -m sglang.launch_server``, ``sglang serve``, ``vllm serve``,
  ``trtllm-serve``... anywhere in a line, with ``VAR=value`` prefixes.
* :func:`graph_env` — the engine environment variables that change graph decisions.

Stdlib only and fast: each table is one cached ``json.load``.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cgconfig.line.entry import EntryPoint, find_entry_point, tokenize
    from cgconfig.line.env import (
        EngineEnvVar,
        EnvSetting,
        engine_env_vars,
        env_vars_for,
        graph_env,
    )
    from cgconfig.line.table import ENGINES, EngineFlag, EngineTable, load_table

def env_prefixes() -> tuple[str, ...]:
    """Name prefixes of every engine environment variable in ``env-vars.json`` (the registry's
    ``env_prefixes``; a test checks them): a process environment without any skips reading
    the table."""
    from cgconfig.line.registry import ROWS

    return tuple(prefix for row in ROWS for prefix in row.env_prefixes)


def has_engine_variables(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` holds a variable named like an engine's (the cheap test before
    reading ``env-vars.json``)."""
    prefixes = env_prefixes()
    return any(name.startswith(prefixes) for name in environ)


#: Public name → the submodule defining it. Imported on first use (PEP 562), so a line of
#: cgconfig's own flags, which needs only ``entry``, never loads the tables' modules.
_HOMES = {
    "EntryPoint": "entry", "find_entry_point": "entry", "tokenize": "entry",
    "EngineEnvVar": "env", "EnvSetting": "env", "engine_env_vars": "env",
    "env_vars_for": "env", "graph_env": "env",
    "ENGINES": "table", "EngineFlag": "table", "EngineTable": "table", "load_table": "table",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"cgconfig.line.{_HOMES[name]}"), name)


__all__ = [
    "ENGINES",
    "EngineEnvVar",
    "EngineFlag",
    "EngineTable",
    "EntryPoint",
    "EnvSetting",
    "engine_env_vars",
    "env_vars_for",
    "find_entry_point",
    "graph_env",
    "load_table",
    "tokenize",
]
