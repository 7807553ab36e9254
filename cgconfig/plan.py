"""The plan: what to capture per phase, and the full record of why.

``Plan.to_json()`` is the versioned machine format of docs/plan-format.md (``schema_version`` 1). It is
deterministic: the same inputs give byte-identical output, so plans can be diffed in CI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from cgconfig.constants import PHASES
from cgconfig.provenance import ChainEntry

SCHEMA_VERSION = 1

RuleKind = Literal["policy", "constraint", "resolver"]
SizeUnit = Literal["requests", "tokens"]
Outcome = Literal["applied", "skipped-locked", "overrode-lock", "refused", "warned", "advised"]


@dataclass
class Change:
    """One key moved by a decision: ``from`` → ``to``."""

    key: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        """JSON form with the plan format's ``from``/``to`` names."""
        return {"key": self.key, "from": self.before, "to": self.after}


@dataclass
class Match:
    """One atom of a rule's condition, with what the deployment actually had."""

    path: str
    op: str
    expected: Any
    actual: Any

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"path": self.path, "op": self.op, "expected": self.expected, "actual": self.actual}


@dataclass
class Decision:
    """What one rule (or the resolver itself) decided, and why."""

    rule: str
    kind: RuleKind
    outcome: Outcome
    why: str
    changes: list[Change] = field(default_factory=list)
    matched: list[Match] = field(default_factory=list)
    hint: str | None = None
    source: str | None = None
    """The upstream code the rule encodes (``SGLang apply_cuda_graph_disaggregation_roles``)."""
    inputs: list[str] = field(default_factory=list)
    """The user inputs a locked key came from, for skipped or overridden locks."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form; empty optional parts are left out."""
        out: dict[str, Any] = {
            "rule": self.rule,
            "kind": self.kind,
            "outcome": self.outcome,
            "changes": [c.to_dict() for c in self.changes],
            "why": self.why,
        }
        if self.matched:
            out["matched"] = [m.to_dict() for m in self.matched]
        if self.hint:
            out["hint"] = self.hint
        if self.source:
            out["source"] = self.source
        if self.inputs:
            out["inputs"] = self.inputs
        return out

    @property
    def downgraded(self) -> bool:
        """Whether this decision changed a value (what ``--check`` refuses)."""
        return self.outcome in ("applied", "overrode-lock") and bool(self.changes) and (
            self.kind != "resolver")

    @property
    def overrode_input(self) -> bool:
        """Whether this decision changed a value the user set (what plain ``--check`` refuses)."""
        return self.outcome == "overrode-lock" and bool(self.changes)


def phase_units(decode_counts: str = "requests",
                tokens_per_request: int = 1) -> dict[str, dict[str, Any]]:
    """What each phase's sizes count: decode sizes ``decode_counts`` (``requests`` or
    ``tokens``; a request takes ``tokens_per_request`` tokens in a decode step), prefill sizes
    always tokens. Each engine's plug-in part ``units`` says which its plans use."""
    return {"decode": {"counts": decode_counts, "tokens_per_request": tokens_per_request},
            "prefill": {"counts": "tokens"}}


#: Widest indent :meth:`Plan.to_json` takes (a million spaces per level is no layout).
MAX_INDENT = 16


@dataclass
class Plan:
    """A resolved CUDA-graph plan: configured values, capture lists and their provenance."""

    config: dict[str, dict[str, Any]]
    capture: dict[str, dict[str, Any]]
    options: dict[str, Any]
    locked: list[str]
    decisions: list[Decision]
    provenance: dict[str, list[ChainEntry]]
    warnings: list[str]
    facts: dict[str, Any]
    fact_sources: dict[str, str] = field(default_factory=dict)
    deprecations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Facts about the inputs worth a line on stderr that are not deprecations."""
    ignored_args: list[str] = field(default_factory=list)
    units: dict[str, dict[str, Any]] = field(default_factory=phase_units)
    """Per phase, what its sizes count (``requests`` or ``tokens``) and, for decode, the tokens
    one request takes in a step (``tokens_per_request``): see :func:`phase_units`."""
    key_facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The platform, GPU and model facts, each ``{"value", "source"}``: where it came from
    (a flag, ``config.json:line``, a probe, an inference, ``default``)."""
    engine: dict[str, dict[str, Any]] = field(default_factory=dict)
    """SGLang's graph-dependent engine settings (``mem_fraction_static``, the chunked-prefill size,
    the attention backends, ...): per setting its ``value``, the upstream ``source`` and ``why``.
    Empty for other dialects."""
    engine_version: dict[str, str] = field(default_factory=dict)
    """The engine version the plan answers for: ``engine``, ``version``, ``label``
    (``SGLang 0.5.20``) and ``source`` (``--engine-version``, a docker image tag, ...,
    ``default (newest supported)``)."""
    cost: dict[str, Any] = field(default_factory=dict)
    """What the plan costs at start-up, per rank (:mod:`cgconfig.cost`): per phase the graph
    count, the engine's own reservation and cgconfig's prediction of graph memory and capture
    seconds with their ranges and facts; totals; and whether it fits the GPU."""
    engine_reserve: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    """The engine's own graph reserve as its memory step computed it (SGLang), which the cost
    section reads; not part of the plan document."""
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The plan document (docs/plan-format.md) as plain data."""
        return {
            "schema_version": self.schema_version,
            "config": self.config,
            "capture": self.capture,
            "options": self.options,
            "locked": self.locked,
            "decisions": [d.to_dict() for d in self.decisions],
            "provenance": {k: [e.to_dict() for e in v] for k, v in self.provenance.items()},
            "warnings": self.warnings,
            "facts": self.facts,
            "fact_sources": self.fact_sources,
            "key_facts": self.key_facts,
            "deprecations": self.deprecations,
            "notes": self.notes,
            "ignored_args": self.ignored_args,
            "units": self.units,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "cost": self.cost,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """Deterministic JSON text of :meth:`to_dict`; ``indent`` is ``None`` (one line) or
        0 to :data:`MAX_INDENT` spaces (anything else is an
        :class:`~cgconfig.errors.InputError`)."""
        if indent is not None and (isinstance(indent, bool) or not isinstance(indent, int)
                                   or not 0 <= indent <= MAX_INDENT):
            from cgconfig.errors import InputError
            from cgconfig.limits import quote

            raise InputError(f"indent must be None or 0..{MAX_INDENT}, got {quote(indent)}",
                             where="Plan.to_json")
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def capture_sizes(self, phase: str) -> list[int]:
        """The sizes that will actually be captured for a phase (empty when disabled);
        an unknown phase raises :class:`~cgconfig.errors.InputError`."""
        return list(self.capture[_phase(phase)]["sizes"])

    def backend(self, phase: str) -> str:
        """The resolved backend of a phase."""
        return str(self.config[_phase(phase)]["backend"])

    def size_unit(self, phase: str) -> SizeUnit:
        """What a phase's sizes count: ``requests`` or ``tokens``."""
        unit: SizeUnit = self.units[_phase(phase)]["counts"]
        return unit

    @property
    def downgraded(self) -> bool:
        """True when any rule changed the configuration (``--check=any`` exits 10 then)."""
        return any(d.downgraded for d in self.decisions)


def _phase(phase: object) -> str:
    from cgconfig.errors import InputError, did_you_mean
    from cgconfig.limits import quote

    if phase not in PHASES:
        text = phase if isinstance(phase, str) else ""
        raise InputError(f"unknown phase {quote(phase)}", where="Plan", allowed=PHASES,
                         suggestion=did_you_mean(text, PHASES))
    return str(phase)
