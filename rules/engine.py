"""Load rule packs and apply them to a draft, to a fixpoint, honouring locks.

* A ``policy`` never changes a locked key: the decision is recorded ``skipped-locked``.
* A ``constraint`` overrides a locked key with a warning naming the user's input; under
  ``--strict`` that is an error (exit 3) listing the remedies, unless ``--allow-override ID``.
* Backends only move down (full → breakable → disabled) and clamps only lower, so application
  terminates; a pack that still does not settle is reported as a cycle naming its rules.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cgconfig.draft import Draft
from cgconfig.errors import InputError, RuleRefusal, StrictConflictError, did_you_mean
from cgconfig.model import BACKEND_RANK
from cgconfig.plan import Change, Decision, Match
from cgconfig.rules import paths
from cgconfig.rules.schema import (
    CAPABILITY_LEVELS,
    COMPARISONS,
    Action,
    All,
    Any_,
    Capability,
    CapabilityTable,
    Condition,
    In,
    IsSet,
    Not,
    NotIn,
    Rule,
    RulePack,
)

PACK_DIR = Path(__file__).resolve().parent / "packs"
CAPABILITIES_FILE = PACK_DIR / "capabilities.yaml"
_PLACEHOLDER = re.compile(r"\{([a-z_]+(?:\.[a-z_0-9]+)+)\}")


@dataclass
class RuleSet:
    """Rules in application order, with the pack each came from, and the capability table."""

    rules: list[Rule]
    pack_of: dict[str, str]
    capabilities: CapabilityTable | None
    pack_titles: dict[str, str] = field(default_factory=dict)

    def get(self, rule_id: str) -> Rule:
        """A rule by id; an unknown id is an input error with a did-you-mean."""
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise InputError(f"unknown rule {rule_id!r}", where="rule id",
                         suggestion=did_you_mean(rule_id, [r.id for r in self.rules]))


# --------------------------------------------------------------------------------- loading

def _pydantic_error(exc: ValidationError, name: str, lines: dict[tuple[Any, ...], int]) -> InputError:
    from cgconfig.docio import locate

    err = exc.errors(include_url=False)[0]
    loc = tuple(err["loc"])
    # Discriminator-less unions report every member; keep the path to the data only.
    data_loc = tuple(p for p in loc if isinstance(p, int) or p in _data_keys(lines))
    where = locate(name, lines, data_loc)
    dotted = ".".join(str(p) for p in loc)
    return InputError(f"{err['msg']} at {dotted}", where=where)


def _data_keys(lines: dict[tuple[Any, ...], int]) -> set[Any]:
    return {part for key in lines for part in key}


def _check_condition(cond: Condition, errors: list[str], where: str) -> None:
    if isinstance(cond, All):
        for c in cond.all:
            _check_condition(c, errors, where)
    elif isinstance(cond, Any_):
        for c in cond.any:
            _check_condition(c, errors, where)
    elif isinstance(cond, Not):
        _check_condition(cond.not_, errors, where)
    elif isinstance(cond, (In, NotIn)):
        operand = cond.in_ if isinstance(cond, In) else cond.not_in
        problem = paths.check_path(operand.path)
        if problem:
            errors.append(f"{where}: {problem}")
            return
        for value in operand.values:
            bad = paths.check_literal(operand.path, value)
            if bad:
                errors.append(f"{where}: {bad}")
    elif isinstance(cond, IsSet):
        problem = paths.check_path(cond.is_set.path)
        if problem:
            errors.append(f"{where}: {problem}")
    elif isinstance(cond, Capability):
        return
    else:
        op = _op_name(cond)
        operand = getattr(cond, op)
        problem = paths.check_path(operand.path)
        if problem:
            errors.append(f"{where}: {problem}")
            return
        if operand.ref is not None:
            problem = paths.check_path(operand.ref)
            if problem:
                errors.append(f"{where}: {problem}")
        else:
            bad = paths.check_literal(operand.path, operand.value)
            if bad:
                errors.append(f"{where}: {bad}")


def _op_name(cond: Condition) -> str:
    for op in COMPARISONS:
        if hasattr(cond, op):
            return op
    raise TypeError(type(cond).__name__)


def check_rule(rule: Rule) -> list[str]:
    """Every path, key, literal and placeholder of one rule; returns the problems found."""
    errors: list[str] = []
    where = f"rule {rule.id}"
    _check_condition(rule.when, errors, where)
    for action in rule.then:
        for key in action.target_keys():
            problem = paths.check_key(key)
            if problem:
                errors.append(f"{where}: {problem}")
        if action.set is not None:
            key = action.set.key
            if not paths.check_key(key):
                prefix = "" if key.startswith("options.") else "config."
                bad = paths.check_literal(prefix + key, action.set.value)
                if bad:
                    errors.append(f"{where}: {bad}")
        if action.clamp is not None and action.clamp.max_ref is not None:
            problem = paths.check_path(action.clamp.max_ref)
            if problem:
                errors.append(f"{where}: {problem}")
    for text in (rule.reason, rule.hint or ""):
        for placeholder in _PLACEHOLDER.findall(text):
            problem = paths.check_path(placeholder)
            if problem:
                errors.append(f"{where}: placeholder {{{placeholder}}}: {problem}")
    return errors


def load_pack_file(path: Path | str, *, check: bool = True) -> RulePack:
    """Read and validate one pack; errors carry ``file:line``."""
    from cgconfig.docio import read_document

    name = str(path)
    data, lines, name = read_document(name, "--rules")
    try:
        pack = RulePack.model_validate(data)
    except ValidationError as exc:
        raise _pydantic_error(exc, name, lines) from None
    if check:
        problems: list[str] = []
        for index, rule in enumerate(pack.rules):
            for problem in check_rule(rule):
                line = lines.get(("rules", index))
                problems.append(f"{name}:{line}: {problem}" if line else f"{name}: {problem}")
        if problems:
            raise InputError(problems[0] + (f" (and {len(problems) - 1} more)"
                                            if len(problems) > 1 else ""))
    return pack


def shipped_pack_files() -> list[Path]:
    """The shipped packs in application order (their file names start with a number)."""
    return sorted(p for p in PACK_DIR.glob("*.yaml") if p.name != CAPABILITIES_FILE.name)


def _cache_path(files: list[Path]) -> Path | None:
    base = os.environ.get("CGCONFIG_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgconfig")
    digest = hashlib.sha256()
    for f in files:
        try:
            st = f.stat()
        except OSError:
            return None
        digest.update(f"{f}:{st.st_mtime_ns}:{st.st_size};".encode())
    return Path(base) / f"packs-{digest.hexdigest()[:20]}.json"


def _load_shipped() -> tuple[list[RulePack], CapabilityTable | None]:
    """Shipped packs, through a JSON cache keyed on the files' stat (YAML costs ~20 ms)."""
    files = shipped_pack_files()
    cap_files = [CAPABILITIES_FILE] if CAPABILITIES_FILE.exists() else []
    cache = None if os.environ.get("CGCONFIG_NO_CACHE") else _cache_path(files + cap_files)
    if cache is not None and cache.exists():
        try:
            raw = json.loads(cache.read_text(encoding="utf-8"))
            packs = [RulePack.model_validate(p) for p in raw["packs"]]
            caps = CapabilityTable.model_validate(raw["capabilities"]) if raw["capabilities"] \
                else None
            return packs, caps
        except (OSError, ValueError, KeyError, ValidationError):
            pass
    packs = [load_pack_file(f) for f in files]
    caps = load_capabilities(CAPABILITIES_FILE) if cap_files else None
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({
                "packs": [p.model_dump(mode="json", by_alias=True, exclude_unset=True)
                          for p in packs],
                "capabilities": caps.model_dump(mode="json") if caps else None,
            }), encoding="utf-8")
            os.replace(tmp, cache)
        except OSError:
            pass
    return packs, caps


def load_capabilities(path: Path) -> CapabilityTable:
    """The attention-backend capability table."""
    from cgconfig.docio import read_document

    data, lines, name = read_document(str(path), "capabilities")
    try:
        return CapabilityTable.model_validate(data)
    except ValidationError as exc:
        raise _pydantic_error(exc, name, lines) from None


def load_rule_set(extra_files: list[str] | None = None, *, shipped: bool = True) -> RuleSet:
    """Shipped packs (unless ``shipped=False``) then user packs, ids checked for uniqueness."""
    packs, caps = _load_shipped() if shipped else ([], None)
    packs = list(packs)
    for extra in extra_files or []:
        packs.append(load_pack_file(extra))
    rules: list[Rule] = []
    pack_of: dict[str, str] = {}
    titles: dict[str, str] = {}
    for pack in packs:
        titles[pack.pack] = pack.title
        for rule in pack.rules:
            if rule.id in pack_of:
                raise InputError(f"duplicate rule id {rule.id!r} (in packs {pack_of[rule.id]!r} "
                                 f"and {pack.pack!r})", where="--rules")
            pack_of[rule.id] = pack.pack
            rules.append(rule)
    return RuleSet(rules=rules, pack_of=pack_of, capabilities=caps, pack_titles=titles)


# ------------------------------------------------------------------------------ evaluation

def _level_of(table: CapabilityTable | None, backend: str) -> str | None:
    if table is None:
        return None
    entry = table.backends.get(backend)
    return entry.level if entry else None


def _capability(draft: Draft, cond: Capability, table: CapabilityTable | None,
                out: list[Match]) -> bool:
    spec = cond.capability
    d = draft.derived
    if spec.backends == "decode":
        names = [d.get("decode_attention_backend")]
    elif spec.backends == "prefill":
        names = [d.get("prefill_attention_backend")]
    else:
        names = list(d.get("attention_backends") or [])
    levels = [lvl for lvl in (_level_of(table, n) for n in names if n) if lvl]
    if not levels:
        return False
    weakest = min(levels, key=CAPABILITY_LEVELS.index)
    rank = CAPABILITY_LEVELS.index(weakest)
    op, wanted = next((n, getattr(spec, n)) for n in ("lt", "ge", "eq")
                      if getattr(spec, n) is not None)
    target = CAPABILITY_LEVELS.index(wanted)
    result = {"lt": rank < target, "ge": rank >= target, "eq": rank == target}[op]
    if result:
        which = ", ".join(n for n in names if n)
        out.append(Match(f"capability({spec.backends}: {which})", op, wanted, weakest))
    return result


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if op == "eq":
        return bool(actual == expected)
    if op == "ne":
        return bool(actual != expected)
    if actual is None or expected is None:
        return False
    return bool({"gt": actual > expected, "ge": actual >= expected,
                 "lt": actual < expected, "le": actual <= expected}[op])


def evaluate(cond: Condition, draft: Draft, table: CapabilityTable | None,
             out: list[Match]) -> bool:
    """Evaluate a condition; the atoms that made it true are appended to ``out``."""
    if isinstance(cond, All):
        trail: list[Match] = []
        for c in cond.all:
            if not evaluate(c, draft, table, trail):
                return False
        out.extend(trail)
        return True
    if isinstance(cond, Any_):
        for c in cond.any:
            trail = []
            if evaluate(c, draft, table, trail):
                out.extend(trail)
                return True
        return False
    if isinstance(cond, Not):
        inner: list[Match] = []
        result = not evaluate(cond.not_, draft, table, inner)
        if result:
            out.append(Match("(condition)", "not", "false", "false"))
        return result
    if isinstance(cond, (In, NotIn)):
        operand = cond.in_ if isinstance(cond, In) else cond.not_in
        actual = draft.lookup(operand.path)
        hit = actual in operand.values
        result = hit if isinstance(cond, In) else not hit
        if result:
            out.append(Match(operand.path, "in" if isinstance(cond, In) else "not_in",
                             operand.values, actual))
        return result
    if isinstance(cond, IsSet):
        path = cond.is_set.path
        if path.startswith("config.") or path.startswith("options."):
            key = path.removeprefix("config.")
            result = key in draft.locked
        else:
            result = draft.lookup(path) is not None
        if result:
            out.append(Match(path, "is_set", True, True))
        return result
    if isinstance(cond, Capability):
        return _capability(draft, cond, table, out)
    op = _op_name(cond)
    operand = getattr(cond, op)
    actual = draft.lookup(operand.path)
    expected = draft.lookup(operand.ref) if operand.ref is not None else operand.value
    result = _compare(op, actual, expected)
    if result:
        out.append(Match(operand.path, op, operand.ref or expected, actual))
    return result


def fill_placeholders(text: str, draft: Draft) -> str:
    """Replace ``{facts.x}``-style placeholders with the draft's current values."""
    def value(match: re.Match[str]) -> str:
        try:
            found = draft.lookup(match.group(1))
        except KeyError:
            return match.group(0)
        return "unset" if found is None else str(found)

    return _PLACEHOLDER.sub(value, text)


# -------------------------------------------------------------------------------- actions

def _proposed(action: Action, draft: Draft) -> list[tuple[str, Any]]:
    """The (key, new value) pairs an action would write; no-ops and upgrades are dropped."""
    if action.set is not None:
        key, value = action.set.key, action.set.value
        current = draft.get(key)
        if key.endswith(".backend"):
            return [(key, value)] if BACKEND_RANK[value] < BACKEND_RANK[current] else []
        return [(key, value)] if current != value else []
    if action.clamp is not None:
        key = action.clamp.key
        current = draft.get(key)
        bound = action.clamp.max if action.clamp.max is not None else draft.lookup(
            action.clamp.max_ref or "")
        if current is None or bound is None or bound <= 0 or current <= bound:
            return []
        return [(key, int(bound))]
    if action.align is not None:
        phase, multiple = action.align.phase, action.align.multiple
        sizes = draft.get(f"{phase}.bs") or []
        aligned = sorted({-(-s // multiple) * multiple for s in sizes})
        if not aligned or aligned == sorted(sizes):
            return []
        pairs: list[tuple[str, Any]] = [(f"{phase}.bs", aligned)]
        if draft.get(f"{phase}.max_bs") != aligned[-1]:
            pairs.append((f"{phase}.max_bs", aligned[-1]))
        return pairs
    return []


@dataclass
class _Outcome:
    decision: Decision
    changed: bool


def apply_rules(draft: Draft, rule_set: RuleSet, *, strict: bool = False,
                disabled: list[str] | None = None,
                allow_override: list[str] | None = None) -> None:
    """Run the rules over the draft to a fixpoint, recording one decision per rule."""
    disabled_ids = set(disabled or [])
    overridable = set(allow_override or [])
    for rule_id in sorted(disabled_ids | overridable):
        rule = rule_set.get(rule_id)
        if rule_id in disabled_ids and rule.kind == "constraint" and (
                strict or rule_id not in overridable):
            raise InputError(
                f"rule {rule_id!r} is a constraint (a real incompatibility) and cannot be "
                "switched off", where="--disable-rule",
                hint=f"to run without it anyway, drop --strict and add --allow-override {rule_id}")
    active = [r for r in rule_set.rules if r.id not in disabled_ids]
    decisions: dict[str, Decision] = {}
    conflicts: list[str] = []
    warned: set[str] = set()
    max_passes = len(active) + 2
    for _ in range(max_passes):
        changed_by: list[str] = []
        for rule in active:
            if _apply_one(rule, draft, rule_set, decisions, conflicts, warned, strict,
                          overridable):
                changed_by.append(rule.id)
        if conflicts:
            raise StrictConflictError(conflicts)
        if not changed_by:
            break
    else:
        raise InputError("rules do not settle (a cycle): " + ", ".join(sorted(set(changed_by))),
                         where="rule packs",
                         hint="two rules keep changing the same keys; fix or disable one")
    draft.decisions.extend(decisions.values())


def _apply_one(rule: Rule, draft: Draft, rule_set: RuleSet, decisions: dict[str, Decision],
               conflicts: list[str], warned: set[str], strict: bool,
               overridable: set[str]) -> bool:
    matches: list[Match] = []
    if not evaluate(rule.when, draft, rule_set.capabilities, matches):
        return False
    reason = fill_placeholders(rule.reason, draft)
    hint = fill_placeholders(rule.hint, draft) if rule.hint else None
    verbs = {a.verb for a in rule.then}
    if "refuse" in verbs:
        raise RuleRefusal(f"{reason} [rule {rule.id}]" + (f"; {hint}" if hint else ""))
    proposed = [pair for action in rule.then for pair in _proposed(action, draft)]
    if "warn" in verbs and rule.id not in warned:
        warned.add(rule.id)
        draft.warnings.append(f"{reason} [rule {rule.id}]")
        if not proposed:
            decisions[rule.id] = _decision(rule, "warned", reason, hint, matches, [])
    if not proposed:
        return False
    locked = [key for key, _ in proposed if key in draft.locked]
    if locked and rule.kind == "policy":
        if rule.id not in decisions:
            inputs = [i for key in locked for i in draft.user_inputs(key)]
            decision = _decision(rule, "skipped-locked", reason, hint, matches, [])
            decision.inputs = inputs
            decision.changes = [Change(k, draft.get(k), v) for k, v in proposed]
            decisions[rule.id] = decision
            for key in locked:
                draft.chains[key].append(_blocked_entry(rule, draft.get(key), reason))
        return False
    if locked and strict and rule.id not in overridable:
        for key in locked:
            inputs = ", ".join(draft.user_inputs(key)) or "your input"
            wanted = dict(proposed)[key]
            conflicts.append(
                f"rule {rule.id} (constraint) would change {key} from {draft.get(key)!r} to "
                f"{wanted!r}, which {inputs} set explicitly: {reason}. Remedies: drop "
                f"{inputs}; or set {key} to {wanted!r}; or pass --allow-override {rule.id}")
        return False
    outcome = "overrode-lock" if locked else "applied"
    changes: list[Change] = []
    for key, value in proposed:
        layer = "rule"
        change = draft.record(key, value, source=f"rule:{rule.id}", layer=layer, why=reason)
        if change is not None:
            changes.append(change)
        if key.endswith(".bs"):
            draft.mark_sizes_explicit(key.split(".")[0])
    if locked:
        for key in locked:
            inputs = ", ".join(draft.user_inputs(key)) or "your input"
            draft.warnings.append(
                f"rule {rule.id} overrode {key} set by {inputs}: {reason}"
                + (f" ({hint})" if hint else ""))
    existing = decisions.get(rule.id)
    if existing is not None and existing.outcome in ("applied", "overrode-lock"):
        existing.changes.extend(changes)
    else:
        decision = _decision(rule, outcome, reason, hint, matches, changes)
        if locked:
            decision.inputs = [i for key in locked for i in draft.user_inputs(key)]
        decisions[rule.id] = decision
    return bool(changes)


def _blocked_entry(rule: Rule, value: Any, reason: str) -> Any:
    from cgconfig.provenance import ChainEntry

    return ChainEntry(source=f"rule:{rule.id}", value=value, layer="rule-skipped",
                      why=f"skipped (key is locked by your input): {reason}")


def _decision(rule: Rule, outcome: str, reason: str, hint: str | None, matches: list[Match],
              changes: list[Change]) -> Decision:
    return Decision(rule=rule.id, kind=rule.kind, outcome=outcome,  # type: ignore[arg-type]
                    why=reason, changes=changes, matched=matches, hint=hint, source=rule.source)
