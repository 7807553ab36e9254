"""Apply rules to a draft, stage by stage, each stage to a fixpoint, under the one lock policy
(:mod:`cgconfig.locks`).

Backends only move down (full → breakable → disabled) and clamps only lower, so application
terminates; a pack that still does not settle is reported as a cycle naming its rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from cgconfig.constants import BACKEND_RANK
from cgconfig.draft import Draft
from cgconfig.errors import InputError, RuleRefusal, did_you_mean
from cgconfig.fields.values import round_up
from cgconfig.limits import check_size_value
from cgconfig.locks import conflict_message
from cgconfig.plan import Change, Decision, Match
from cgconfig.provenance import ChainEntry
from cgconfig.rules.evaluate import evaluate, fill_placeholders, unmet

if TYPE_CHECKING:
    from cgconfig.rules.compiled import CompiledRule
    from cgconfig.rules.schema import Rule


class RulesView(Protocol):
    """What applying rules reads of a rule set (:class:`~cgconfig.rules.ruleset.RuleSet`)."""

    def get(self, rule_id: str) -> Rule | CompiledRule:
        """The rule with this id (an input error naming the closest id when none has it)."""

    def in_stage(self, stage: str) -> list[CompiledRule]:
        """The rules of one stage, in application order."""

    def levels(self) -> dict[str, str]:
        """Capability levels by backend."""

    def compiled(self) -> list[CompiledRule]:
        """Every rule, in application order."""


def _proposed(action: dict[str, Any], draft: Draft) -> list[tuple[str, Any]]:
    """The (key, new value) pairs an action would write; no-ops and upgrades are dropped."""
    if "set" in action:
        key, value = action["set"]["key"], action["set"].get("value")
        current = draft.get(key)
        if key.endswith(".backend"):
            return [(key, value)] if BACKEND_RANK[value] < BACKEND_RANK[current] else []
        return [(key, value)] if current != value else []
    if "clamp" in action:
        spec = action["clamp"]
        key = spec["key"]
        current = draft.get(key)
        bound = spec["max"] if spec.get("max") is not None else draft.lookup(
            spec.get("max_ref") or "")
        if current is None or bound is None or bound <= 0 or current <= bound:
            return []
        return [(key, int(bound))]
    if "align" in action:
        phase, multiple = action["align"]["phase"], action["align"]["multiple"]
        sizes = draft.get(f"{phase}.bs") or []
        aligned = sorted({round_up(s, multiple) for s in sizes})
        if not aligned or aligned == sorted(sizes):
            return []
        pairs: list[tuple[str, Any]] = [(f"{phase}.bs", aligned)]
        if draft.get(f"{phase}.max_bs") != aligned[-1]:
            pairs.append((f"{phase}.max_bs", aligned[-1]))
        return pairs
    return []


def _verbs(rule: CompiledRule) -> set[str]:
    return {next(iter(action)) for action in rule.then}


def check_switches(draft: Draft, rule_set: RulesView, *, disabled: list[str] | None = None,
                   apply_advice: list[str] | None = None) -> None:
    """Before any stage: every ``--apply-advice`` id names an advice rule, and a constraint
    is switched off only where ``--allow-override`` (without ``--strict``) lets it be."""
    disabled_ids = set(disabled or [])
    _check_advice_ids(rule_set, set(apply_advice or []))
    overridable = draft.policy.allow_override
    for rule_id in sorted(disabled_ids | overridable):
        rule = rule_set.get(rule_id)
        if rule_id in disabled_ids and rule.kind == "constraint" and (
                draft.policy.strict or rule_id not in overridable):
            raise InputError(
                f"rule {rule_id!r} is a constraint (a real incompatibility) and cannot be "
                "switched off", where="--disable-rule",
                hint=f"to run without it anyway, drop --strict and add --allow-override {rule_id}")


def apply_stage(draft: Draft, rule_set: RulesView, stage: str, *,
                disabled: list[str] | None = None,
                apply_advice: list[str] | None = None) -> list[str]:
    """Run the rules of one stage over the draft to a fixpoint under ``draft.policy``; returns
    the ``--strict`` conflicts it met (the caller raises them all together once every stage
    has run, so one error lists each conflicting constraint).

    Advice rules (``origin: advice``) not named in ``apply_advice`` only record what they
    would change (outcome ``advised``); named ones apply (:func:`finish_advice` then warns
    that the plan differs from the engine's own decision).
    """
    disabled_ids = set(disabled or [])
    applied_advice = set(apply_advice or [])
    active = [r for r in rule_set.in_stage(stage) if r.id not in disabled_ids]
    if not active:
        return []
    levels = rule_set.levels()
    decisions: dict[str, Decision] = {}
    conflicts: list[str] = []
    warned: set[str] = set()
    max_passes = len(active) + 2
    for _ in range(max_passes):
        changed_by: list[str] = []
        for rule in active:
            if rule.origin == "advice" and rule.id not in applied_advice:
                _advise(rule, draft, levels, decisions)
                continue
            if _apply_one(rule, draft, levels, decisions, conflicts, warned):
                changed_by.append(rule.id)
        if conflicts or not changed_by:
            break
    else:
        raise InputError("rules do not settle (a cycle): " + ", ".join(sorted(set(changed_by))),
                         where="rule packs",
                         hint="two rules keep changing the same keys; fix or disable one")
    draft.decisions.extend(decisions.values())
    return conflicts


def finish_advice(draft: Draft, rule_set: RulesView, *, disabled: list[str] | None = None,
                  apply_advice: list[str] | None = None) -> None:
    """After the last stage (and no ``--strict`` conflict): a warning for each
    ``--apply-advice`` rule, that it changed the plan or why it changed nothing."""
    disabled_ids = set(disabled or [])
    decisions = {d.rule: d for d in draft.decisions if d.kind != "resolver"}
    levels = rule_set.levels()
    for rule_id in sorted(set(apply_advice or [])):
        if rule_id in decisions and decisions[rule_id].changes:
            draft.warnings.append(
                f"advice {rule_id} applied (--apply-advice): this plan differs from what the "
                "engine alone would do")
        elif rule_id not in disabled_ids:
            rule = next(r for r in rule_set.compiled() if r.id == rule_id)
            draft.warnings.append(f"advice {rule_id} (--apply-advice) changes nothing: "
                                  + _why_not(rule, draft, levels, decisions))


def _why_not(rule: CompiledRule, draft: Draft, levels: dict[str, str],
             decisions: dict[str, Decision]) -> str:
    """Why a named advice rule changed nothing: its condition's first unmet part, or that the
    plan already has what it would set."""
    if rule.id in decisions or evaluate(rule.when, draft, levels, []):
        return "the plan already has what it would set"
    return f"it does not apply here ({unmet(rule.when, draft, levels)})"


def _check_advice_ids(rule_set: RulesView, named: set[str]) -> None:
    """Every ``--apply-advice`` id must name an advice rule (one line, a did-you-mean)."""
    advice = [r.id for r in rule_set.compiled() if r.origin == "advice"]
    for rule_id in sorted(named - set(advice)):
        known = any(r.id == rule_id for r in rule_set.compiled())
        what = (f"rule {rule_id!r} is not advice (origin: upstream): the engine itself does it"
                if known else f"unknown rule {rule_id!r}")
        raise InputError(what, where="--apply-advice", allowed=advice,
                         suggestion=did_you_mean(rule_id, advice))


def _advise(rule: CompiledRule, draft: Draft, levels: dict[str, str],
            decisions: dict[str, Decision]) -> None:
    """Record what an advice rule would change, without changing anything."""
    matches: list[Match] = []
    if rule.id in decisions or not evaluate(rule.when, draft, levels, matches):
        return
    proposed = [pair for action in rule.then for pair in _proposed(action, draft)]
    if not proposed and "warn" not in _verbs(rule):
        return
    reason = fill_placeholders(rule.reason, draft)
    decisions[rule.id] = _decision(draft, rule, "advised", reason,
                                   f"apply with --apply-advice {rule.id}", matches,
                                   [Change(k, draft.get(k), v) for k, v in proposed])


def _apply_one(rule: CompiledRule, draft: Draft, levels: dict[str, str],
               decisions: dict[str, Decision],
               conflicts: list[str], warned: set[str]) -> bool:
    matches: list[Match] = []
    if not evaluate(rule.when, draft, levels, matches):
        return False
    reason = fill_placeholders(rule.reason, draft)
    hint = fill_placeholders(rule.hint, draft) if rule.hint else None
    verbs = _verbs(rule)
    if "refuse" in verbs:
        raise RuleRefusal(f"{reason} [rule {rule.id}]" + (f"; {hint}" if hint else ""))
    proposed = [pair for action in rule.then for pair in _proposed(action, draft)]
    if "warn" in verbs and rule.id not in warned:
        warned.add(rule.id)
        draft.warnings.append(f"{reason} [rule {rule.id}]")
        if not proposed:
            decisions[rule.id] = _decision(draft, rule, "warned", reason, hint, matches, [])
    if not proposed:
        return False
    locked = [key for key, _ in proposed if key in draft.locked]
    verdict = draft.policy.verdict(rule.id, rule.kind, locked)
    if verdict == "skip":
        if rule.id not in decisions:
            inputs = [i for key in locked for i in draft.user_inputs(key)]
            decision = _decision(draft, rule, "skipped-locked", reason, hint, matches, [])
            decision.inputs = inputs
            decision.changes = [Change(k, draft.get(k), v) for k, v in proposed]
            decisions[rule.id] = decision
            for key in locked:
                draft.chains[key].append(_blocked_entry(rule, draft.get(key), reason))
        return False
    if verdict == "conflict":
        for key in locked:
            named = ", ".join(draft.user_inputs(key)) or "your input"
            wanted = dict(proposed)[key]
            conflicts.append(conflict_message(
                rule.id, key, draft.get(key), wanted, named, reason,
                [f"set {key} to {wanted!r}", f"pass --allow-override {rule.id}"]))
        return False
    outcome = "overrode-lock" if locked else "applied"
    changes: list[Change] = []
    for key, value in proposed:
        check_size_value(key, value, f"rule {rule.id}")
        layer = "rule"
        change = draft.record(key, value, source=f"rule:{rule.id}", layer=layer, why=reason)
        if change is not None:
            changes.append(change)
        if key.endswith(".bs"):
            draft.mark_sizes_explicit(key.split(".")[0])
    if locked:
        for key in locked:
            named = ", ".join(draft.user_inputs(key)) or "your input"
            draft.warnings.append(
                f"rule {rule.id} overrode {key} set by {named}: {reason}"
                + (f" ({hint})" if hint else ""))
    existing = decisions.get(rule.id)
    if existing is not None and existing.outcome in ("applied", "overrode-lock"):
        existing.changes.extend(changes)
    else:
        decision = _decision(draft, rule, outcome, reason, hint, matches, changes)
        if locked:
            decision.inputs = [i for key in locked for i in draft.user_inputs(key)]
        decisions[rule.id] = decision
    return bool(changes)


def _blocked_entry(rule: CompiledRule, value: Any, reason: str) -> ChainEntry:
    return ChainEntry(source=f"rule:{rule.id}", value=value, layer="rule-skipped",
                      why=f"skipped (key is locked by your input): {reason}")


def _decision(draft: Draft, rule: CompiledRule, outcome: str, reason: str, hint: str | None,
              matches: list[Match],
              changes: list[Change]) -> Decision:
    return Decision(rule=rule.id, kind=rule.kind, outcome=outcome,  # type: ignore[arg-type]
                    why=reason, changes=changes, matched=matches, hint=hint,
                    source=fill_placeholders(rule.source, draft) if rule.source else rule.source)
