"""Rules as plain data, and the rule set a resolution applies.

Rules are interpreted in their plain-data form (the JSON of the validated schema), so the
start-up path can build a :class:`RuleSet` from the JSON cache without YAML or pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cgconfig.draft import Draft
from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import quote
from cgconfig.rules.apply import apply_stage, check_switches, finish_advice
from cgconfig.rules.compiled import CompiledRule

if TYPE_CHECKING:
    from cgconfig.rules.schema import Rule


def compile_rule(rule: Any) -> CompiledRule:
    """A :class:`CompiledRule` from a schema ``Rule`` (or one already compiled)."""
    if isinstance(rule, CompiledRule):
        return rule
    return CompiledRule.from_dict(rule.model_dump(mode="json", by_alias=True, exclude_unset=True))


@dataclass
class RuleSet:
    """Rules in application order, with the pack each came from, and each engine's capability
    table."""

    rules: list[Rule] | list[CompiledRule]
    """Schema ``Rule`` objects (validation path) or :class:`CompiledRule` (start-up path)."""
    pack_of: dict[str, str]
    capabilities: Any
    """Engine → its ``CapabilityTable`` or the table's JSON form (the engines that ship one);
    :meth:`for_engine` keeps the line's engine's only."""
    pack_titles: dict[str, str] = field(default_factory=dict)
    pack_engines: dict[str, str] = field(default_factory=dict)
    """Pack → the engine its rules run on (``core``: every engine; a pack not listed: core)."""
    _compiled: list[CompiledRule] | None = field(default=None, repr=False, compare=False)
    _per_engine: dict[str, RuleSet] = field(default_factory=dict, repr=False, compare=False)
    _by_stage: dict[str, list[CompiledRule]] | None = field(default=None, repr=False,
                                                             compare=False)
    _levels: dict[str, str] | None = field(default=None, repr=False, compare=False)

    def engine_of(self, rule_id: str) -> str:
        """The engine whose lines the rule runs on (``core``: every engine)."""
        return self.pack_engines.get(self.pack_of[rule_id], "core")

    def for_engine(self, engine: str, version: str | None = None) -> RuleSet:
        """The rules that run on ``engine``'s lines at ``version`` (``None``: the newest
        supported): its own packs' and the core packs', in order, without the rules whose
        ``versions`` exclude that release. A vLLM or TensorRT-LLM line never runs an SGLang
        rule."""
        from cgconfig.line.versions import SUPPORTED, in_range, newest

        release = version or (newest(engine) if engine in SUPPORTED else "")
        cached = self._per_engine.get(f"{engine}=={release}")
        if cached is not None:
            return cached
        keep = [r for r in self.rules if self.engine_of(r.id) in (engine, "core")
                and (r.versions is None or in_range(r.versions, release))]
        subset = RuleSet(rules=keep, pack_of=self.pack_of,  # type: ignore[arg-type]
                         capabilities={e: t for e, t in (self.capabilities or {}).items()
                                       if e == engine},
                         pack_titles=self.pack_titles,
                         pack_engines=self.pack_engines)
        subset._per_engine[f"{engine}=={release}"] = subset
        self._per_engine[f"{engine}=={release}"] = subset
        return subset

    def compiled(self) -> list[CompiledRule]:
        """The rules as plain data, compiled once."""
        if self._compiled is None or len(self._compiled) != len(self.rules):
            self._compiled = [compile_rule(r) for r in self.rules]
            self._by_stage = None
        return self._compiled

    def in_stage(self, stage: str) -> list[CompiledRule]:
        """The rules that run at ``stage``, in order (grouped once)."""
        compiled = self.compiled()
        if self._by_stage is None:
            by_stage: dict[str, list[CompiledRule]] = {}
            for rule in compiled:
                by_stage.setdefault(rule.stage, []).append(rule)
            self._by_stage = by_stage
        return self._by_stage.get(stage, [])

    def levels(self) -> dict[str, str]:
        """Attention backend → capability level (read once), from the tables this set holds (a
        set made by :meth:`for_engine`: its engine's)."""
        if self._levels is None:
            levels: dict[str, str] = {}
            for caps in (self.capabilities or {}).values():
                if isinstance(caps, dict):
                    levels.update({name: entry["level"] for name, entry in caps["backends"].items()})
                else:
                    levels.update({name: entry.level for name, entry in caps.backends.items()})
            self._levels = levels
        return self._levels

    def check_switches(self, draft: Draft, *, disabled: list[str],
                       apply_advice: list[str]) -> None:
        """Before any stage (a resolution then calls :meth:`apply_stage` for each of its
        engine's stages in order, and :meth:`finish`): refuse a ``--disable-rule`` of a
        constraint or an ``--apply-advice`` of a rule that is not advice."""
        check_switches(draft, self, disabled=disabled, apply_advice=apply_advice)

    def apply_stage(self, draft: Draft, stage: str, *, disabled: list[str],
                    apply_advice: list[str]) -> list[str]:
        """Run the rules of one stage over ``draft`` to a fixpoint; returns the ``--strict``
        conflicts met (raised together by the caller after the last stage)."""
        return apply_stage(draft, self, stage, disabled=disabled, apply_advice=apply_advice)

    def finish(self, draft: Draft, *, disabled: list[str], apply_advice: list[str]) -> None:
        """After the last stage: warn about each ``--apply-advice`` rule and what it did."""
        finish_advice(draft, self, disabled=disabled, apply_advice=apply_advice)

    def undecided(self, draft: Draft, unknown: frozenset[str], *,
                  disabled: list[str]) -> list[str]:
        """Ids of the rules that the ``unknown`` fact paths keep undecided on ``draft``."""
        from cgconfig.rules.undecided import undecided_rules

        return undecided_rules(self, draft, unknown, disabled)

    def validated(self, rule_id: str) -> Rule:
        """A rule by id in its schema form (sets loaded by :mod:`.loader` hold that form)."""
        rule = self.get(rule_id)
        if isinstance(rule, CompiledRule):
            raise TypeError("this rule set was read from the cache; load it with the loader")
        return rule

    def get(self, rule_id: str) -> Rule | CompiledRule:
        """A rule by id; an unknown id is an input error with a did-you-mean."""
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise InputError(f"unknown rule {quote(rule_id)}", where="rule id",
                         suggestion=did_you_mean(rule_id, [r.id for r in self.rules]))
