"""The engine's environment variables that change graph decisions, as a source.

Read from the launch line's ``VAR=value`` prefixes and from the environment given (the CLI
passes ``os.environ``; the Python API and the tests pass their own mapping, so a developer's
shell never changes a test), the prefix winning as it does for the engine. The variables are
data (``cgconfig/line/env-vars.json``, each with the engine file that reads it): one that
feeds a deployment fact becomes that fact, with provenance ``line prefix VAR=value`` or
``env VAR``; one cgconfig does not model is named in a note with its effect; one the engine
version no longer reads (``VLLM_ATTENTION_BACKEND`` in vLLM 0.33.0) gets a note saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cgconfig.errors import InputError
from cgconfig.limits import quote, short
from cgconfig.line import has_engine_variables
from cgconfig.line.env import EngineEnvVar, graph_env
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Contribution

#: What SGLang's ``get_bool_env_var`` (sglang 0.5.23 srt/utils/common.py) takes as true and
#: false, in any case; any other value it reads as false, with a warning (so does cgconfig).
_TRUE, _FALSE = ("true", "1"), ("false", "0")


def _convert(var: EngineEnvVar, text: str, where: str, notes: list[str]) -> Any:
    if var.type == "bool":
        if text.lower() not in _TRUE + _FALSE:  # SGLang warns and reads it as false
            notes.append(f"{where}: {quote(text)} is neither true nor false; the engine reads "
                         f"it as false")
        return text.lower() in _TRUE
    if var.type == "int":
        try:
            return int(text)
        except ValueError:
            raise InputError(f"{var.name}={quote(text)} is not an integer", where=where) from None
    return text


@dataclass
class EngineEnvironment:
    """The graph-relevant variables of ``engine`` set on the line or in ``environ``."""

    engine: str
    prefixes: Mapping[str, str] = field(default_factory=dict)
    """``VAR=value`` words before the entry point."""
    environ: Mapping[str, str] = field(default_factory=dict)

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Facts for the variables cgconfig models, notes for the others."""
        del so_far  # reads only the environment
        out = Contribution()
        if not self.prefixes and not has_engine_variables(self.environ):
            return out
        for setting in graph_env(self.engine, self.prefixes, self.environ):
            var, value = setting.var, setting.value
            where = (f"line prefix {var.name}={short(value)}" if setting.origin == "launch line"
                     else f"env {var.name}")
            if not var.read_by_engine:
                out.notes.append(f"{where}: {var.effect} (set, and ignored)")
            elif var.fact is not None:
                out.facts[var.fact] = _convert(var, value, where, out.notes)
                out.fact_sources[var.fact] = where
            else:
                out.notes.append(f"{where}: not modelled by cgconfig; the engine reads it "
                                 f"({var.source}): {var.effect}")
        return out
