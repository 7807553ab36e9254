"""The engines' own command-line surfaces as data: flag tables, line splitting, entry points, env.

* :func:`load_table` — every flag of SGLang 0.5.23, vLLM 0.33.0 (``vllm serve``) or trtllm-serve,
  generated from the engine's parser by ``scripts/gen_engine_tables.py``, each flag classified as
  ``modelled`` (cgconfig reads it) or ``ignored`` (known to the engine, not read), with
  ``graph_effect`` where the engine's graph decision depends on it.
* :func:`split_line` — split an engine argv exactly as the engine's parser would.
* :func:`find_entry_point` — ``python -m sglang.launch_server``, ``sglang serve``, ``vllm serve``,
  ``trtllm-serve``... anywhere in a line, with ``VAR=value`` prefixes.
* :func:`graph_env` — the engine environment variables that change graph decisions.

Stdlib only and fast: each table is one cached ``json.load``.
"""

from cgconfig.engines.entry import EntryPoint, find_entry_point, tokenize
from cgconfig.engines.env import EngineEnvVar, EnvSetting, engine_env_vars, env_vars_for, graph_env
from cgconfig.engines.split import SplitLine, split_line
from cgconfig.engines.table import ENGINES, EngineFlag, EngineTable, load_table

__all__ = [
    "ENGINES",
    "EngineEnvVar",
    "EngineFlag",
    "EngineTable",
    "EntryPoint",
    "EnvSetting",
    "SplitLine",
    "engine_env_vars",
    "env_vars_for",
    "find_entry_point",
    "graph_env",
    "load_table",
    "split_line",
    "tokenize",
]
