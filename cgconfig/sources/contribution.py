"""The source protocol: every input form returns a :class:`Contribution`.

A contribution is what one input said: values with their provenance (leaves), deployment facts
with where each was written, dialect defaults and steps, deprecations, notes and ignored
arguments. :func:`gather` folds contributions into one request, in the order given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from cgconfig.line.versions import EngineVersion
from cgconfig.provenance import Leaf
from cgconfig.resolve.request import DialectDefault, DraftStep, ResolveRequest, Settings

__all__ = ["Contribution", "Settings", "Source", "add", "gather"]


@dataclass
class Contribution:
    """What one source said."""

    leaves: list[Leaf] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    fact_sources: dict[str, str] = field(default_factory=dict)
    """Fact → where it was written (``--tp``, ``deploy.yaml:3``)."""
    defaults: list[DialectDefault] = field(default_factory=list)
    steps: list[DraftStep] = field(default_factory=list)
    deprecations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    settings: Settings | None = None
    dialect: str | None = None
    """Set by a dialect's source: the plan records which dialect it read."""
    engine_args: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """An entry-point line's engine flags with their values (``ResolveRequest.engine_args``)."""


class Source(Protocol):
    """One input form. ``so_far`` is the request gathered from the sources before this one
    (a dialect needs the facts the SGLang flags gave, e.g. GPU memory for vLLM's defaults)."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Parse this source's input (once) and say what it contributes."""


def add(request: ResolveRequest, part: Contribution, *, facts_win: bool = True) -> None:
    """Fold one contribution into ``request``; its facts override earlier ones unless
    ``facts_win`` is false (then they only fill gaps)."""
    request.leaves += part.leaves
    for name, value in part.facts.items():
        if facts_win or name not in request.facts:
            request.facts[name] = value
            request.fact_sources[name] = part.fact_sources[name]
    request.defaults += part.defaults
    request.hooks += part.steps
    request.deprecations += part.deprecations
    request.notes += part.notes
    request.ignored_args += part.ignored
    request.engine_args += part.engine_args
    if part.settings is not None:
        given = part.settings
        request.settings = Settings(given.strict, list(given.rule_files),
                                    list(given.disabled_rules), list(given.allow_override),
                                    list(given.apply_advice))
    if part.dialect is not None:
        request.dialect = part.dialect


def gather(sources: list[Source], engine_version: EngineVersion | None = None) -> ResolveRequest:
    """One request from ``sources``, each contributing in turn (answering for
    ``engine_version``, None: the newest supported)."""
    request = ResolveRequest(engine_version=engine_version)
    for source in sources:
        add(request, source.contribute(request))
    return request
