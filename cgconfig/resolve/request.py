"""What a resolution takes in: the gathered inputs, and the rule set's interface.

Sources build a :class:`ResolveRequest`; the pipeline never imports a source or the rule engine:
the rule set arrives as an argument that satisfies :class:`RuleSetLike`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from cgconfig.draft import Draft
from cgconfig.line.versions import EngineVersion
from cgconfig.provenance import Leaf

#: A dialect's own resolution step (vLLM's Stage B), run after defaults and before the rules.
DraftStep = Callable[[Draft], None]


class DialectDefault(NamedTuple):
    """A default supplied by an input dialect (vLLM's grid, TRT-LLM's), with its reason."""

    key: str
    value: Any
    source: str
    why: str


@dataclass
class Settings:
    """Resolution settings an input may carry (SGLang's ``--strict``, ``--rules``...): one home,
    carried whole by the request (``ResolveRequest.settings``)."""

    strict: bool = False
    """``--strict``: a rule may not override a value the user set."""
    rule_files: list[str] = field(default_factory=list)
    """``--rules FILE``: user rule packs, besides the shipped ones."""
    disabled_rules: list[str] = field(default_factory=list)
    """``--disable-rule ID``: rules not to run."""
    allow_override: list[str] = field(default_factory=list)
    """``--allow-override ID``: rules that may override a locked value under ``--strict``."""
    apply_advice: list[str] = field(default_factory=list)
    """Advice rules (``origin: advice``) to apply; the others are only listed in the plan."""


@dataclass
class ResolveRequest:
    """Everything one resolution needs, already parsed into leaves and facts."""

    leaves: list[Leaf] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    fact_sources: dict[str, str] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    """How the rules run (``--strict``, ``--rules``, ``--disable-rule``...), as the last input
    that carried settings gave them."""
    use_rules: bool = True
    deprecations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the inputs said that is worth knowing but deprecated nothing (vLLM truncation)."""
    ignored_args: list[str] = field(default_factory=list)
    defaults: list[DialectDefault] = field(default_factory=list)
    """Dialect defaults (e.g. vLLM's size grid): they replace model defaults but do not lock."""
    hooks: list[DraftStep] = field(default_factory=list)
    """Dialect steps run after defaults and before the rules (e.g. vLLM's mode resolution)."""
    dialect: str = "sglang"
    engine_version: EngineVersion | None = None
    """The engine version the plan answers for (``None``: the dialect's newest supported,
    ``line.versions.default``)."""
    engine_args: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """The engine flags of an entry-point line that no dialect table claims, as (dest, spelling,
    values), in line order (vLLM's dialect reads the ones that change its plan)."""


class RuleSetLike(Protocol):
    """What the pipeline needs of a rule set: the rules for one engine, applied to a draft."""

    def for_engine(self, engine: str, version: str | None = None) -> RuleSetLike:
        """The rules that run on ``engine``'s lines at ``version`` (``None``: the newest
        supported): its packs' and the core packs', without those whose ``versions``
        exclude that release."""

    def check_switches(self, draft: Draft, *, disabled: list[str],
                       apply_advice: list[str]) -> None:
        """Refuse bad ``--disable-rule`` / ``--apply-advice`` ids before any stage runs."""

    def apply_stage(self, draft: Draft, stage: str, *, disabled: list[str],
                    apply_advice: list[str]) -> list[str]:
        """Run the rules of one stage over ``draft`` to a fixpoint under ``draft.policy``;
        advice rules apply only when named in ``apply_advice``. Returns the ``--strict``
        conflicts it met, which the pipeline raises together after the last stage."""

    def finish(self, draft: Draft, *, disabled: list[str], apply_advice: list[str]) -> None:
        """After the last stage: the ``--apply-advice`` warnings."""

    def undecided(self, draft: Draft, unknown: frozenset[str], *,
                  disabled: list[str]) -> list[str]:
        """Ids of the rules whose condition depends on the ``unknown`` fact paths (e.g.
        ``facts.model_arch`` when no config was found)."""
