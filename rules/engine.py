"""Apply rules to a draft, to a fixpoint, honouring locks.

* A ``policy`` never changes a locked key: the decision is recorded ``skipped-locked``.
* A ``constraint`` overrides a locked key with a warning naming the user's input; under
  ``--strict`` that is an error (exit 3) listing the remedies, unless ``--allow-override ID``.
* Backends only move down (full → breakable → disabled) and clamps only lower, so application
  terminates; a pack that still does not settle is reported as a cycle naming its rules.

Rules are interpreted in their plain-data form (the JSON of the validated schema), so the
start-up path reads the shipped packs from a JSON cache without YAML or pydantic;
:mod:`cgconfig.rules.loader` validates packs and writes that cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cgconfig.draft import Draft
from cgconfig.errors import InputError, RuleRefusal, StrictConflictError, did_you_mean
from cgconfig.fields.constants import BACKEND_RANK, CAPABILITY_LEVELS
from cgconfig.plan import Change, Decision, Match

PACK_DIR = Path(__file__).resolve().parent / "packs"
CAPABILITIES_FILE = PACK_DIR / "capabilities.yaml"
_PLACEHOLDER = re.compile(r"\{([a-z_]+(?:\.[a-z_0-9]+)+)\}")


@dataclass(frozen=True)
class CompiledRule:
    """A validated rule as plain data: what the engine interprets."""

    id: str
    title: str
    kind: str
    when: dict[str, Any]
    then: tuple[dict[str, Any], ...]
    reason: str
    hint: str | None
    source: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompiledRule:
        """From the JSON form of a :class:`~cgconfig.rules.schema.Rule`."""
        return cls(id=data["id"], title=data["title"], kind=data["kind"], when=data["when"],
                   then=tuple(data["then"]), reason=data["reason"], hint=data.get("hint"),
                   source=data["source"])

    def target_keys(self) -> list[str]:
        """Every config key any of the rule's actions may write."""
        keys: list[str] = []
        for action in self.then:
            if "set" in action:
                keys.append(action["set"]["key"])
            elif "clamp" in action:
                keys.append(action["clamp"]["key"])
            elif "align" in action:
                phase = action["align"]["phase"]
                keys += [f"{phase}.bs", f"{phase}.max_bs"]
        return keys


def compile_rule(rule: Any) -> CompiledRule:
    """A :class:`CompiledRule` from a schema ``Rule`` (or one already compiled)."""
    if isinstance(rule, CompiledRule):
        return rule
    return CompiledRule.from_dict(rule.model_dump(mode="json", by_alias=True, exclude_unset=True))


@dataclass
class RuleSet:
    """Rules in application order, with the pack each came from, and the capability table."""

    rules: list[Any]
    """Schema ``Rule`` objects (validation path) or :class:`CompiledRule` (start-up path)."""
    pack_of: dict[str, str]
    capabilities: Any
    """A ``CapabilityTable``, its JSON form, or ``None``."""
    pack_titles: dict[str, str] = field(default_factory=dict)
    _compiled: list[CompiledRule] | None = field(default=None, repr=False, compare=False)

    def compiled(self) -> list[CompiledRule]:
        """The rules as plain data, compiled once."""
        if self._compiled is None or len(self._compiled) != len(self.rules):
            self._compiled = [compile_rule(r) for r in self.rules]
        return self._compiled

    def levels(self) -> dict[str, str]:
        """Attention backend → capability level."""
        caps = self.capabilities
        if caps is None:
            return {}
        if isinstance(caps, dict):
            return {name: entry["level"] for name, entry in caps["backends"].items()}
        return {name: entry.level for name, entry in caps.backends.items()}

    def get(self, rule_id: str) -> Any:
        """A rule by id; an unknown id is an input error with a did-you-mean."""
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise InputError(f"unknown rule {rule_id!r}", where="rule id",
                         suggestion=did_you_mean(rule_id, [r.id for r in self.rules]))


# ------------------------------------------------------------------------------- loading

def shipped_pack_files() -> list[Path]:
    """The shipped packs in application order (their file names start with a number)."""
    return sorted(p for p in PACK_DIR.glob("*.yaml") if p.name != CAPABILITIES_FILE.name)


def cache_path() -> Path | None:
    """Where the JSON form of the shipped packs is cached, keyed on the files' stat."""
    if os.environ.get("CGCONFIG_NO_CACHE"):
        return None
    base = os.environ.get("CGCONFIG_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgconfig")
    digest = hashlib.sha256()
    files = shipped_pack_files() + ([CAPABILITIES_FILE] if CAPABILITIES_FILE.exists() else [])
    for f in files:
        try:
            st = f.stat()
        except OSError:
            return None
        digest.update(f"{f}:{st.st_mtime_ns}:{st.st_size};".encode())
    return Path(base) / f"packs-{digest.hexdigest()[:20]}.json"


def read_cache() -> dict[str, Any] | None:
    """The cached JSON of the shipped packs, or ``None`` when absent or unreadable."""
    path = cache_path()
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "packs" in data else None


def load_rule_set(extra_files: list[str] | None = None, *, shipped: bool = True) -> RuleSet:
    """Validated packs as schema objects: shipped (unless ``shipped=False``), then user packs."""
    from cgconfig.rules.loader import load_rule_set as load_validated

    return load_validated(extra_files, shipped=shipped)


_SHIPPED: list[RuleSet] = []


def load_rules_for_resolve(extra_files: list[str] | None = None) -> RuleSet:
    """The rules a resolution applies: the shipped packs from the JSON cache when it is current
    (no YAML, no pydantic), user packs validated from their files.

    The shipped set is read once per process: a launch script that resolves many plans pays
    for it once.
    """
    if not extra_files and _SHIPPED:
        return _SHIPPED[0]
    raw = None if extra_files else read_cache()
    if raw is None:
        rule_set = load_rule_set(extra_files)
        if not extra_files:
            _SHIPPED.append(rule_set)
        return rule_set
    rules: list[Any] = []
    pack_of: dict[str, str] = {}
    titles: dict[str, str] = {}
    for pack in raw["packs"]:
        titles[pack["pack"]] = pack["title"]
        for data in pack["rules"]:
            pack_of[data["id"]] = pack["pack"]
            rules.append(CompiledRule.from_dict(data))
    rule_set = RuleSet(rules=rules, pack_of=pack_of, capabilities=raw["capabilities"],
                       pack_titles=titles)
    _SHIPPED.append(rule_set)
    return rule_set


def __getattr__(name: str) -> Any:
    # The validation helpers live with the schema (cold path); keep them reachable from here.
    if name in ("check_rule", "load_pack_file", "load_capabilities"):
        from cgconfig.rules import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------ evaluation

def _capability(draft: Draft, spec: dict[str, Any], levels: dict[str, str],
                out: list[Match]) -> bool:
    d = draft.derived
    which = spec.get("backends", "in_use")
    if which == "decode":
        names = [d.get("decode_attention_backend")]
    elif which == "prefill":
        names = [d.get("prefill_attention_backend")]
    else:
        names = list(d.get("attention_backends") or [])
    found = [levels[n] for n in names if n and n in levels]
    if not found:
        return False
    weakest = min(found, key=CAPABILITY_LEVELS.index)
    rank = CAPABILITY_LEVELS.index(weakest)
    op = next(n for n in ("lt", "ge", "eq") if spec.get(n) is not None)
    wanted = spec[op]
    target = CAPABILITY_LEVELS.index(wanted)
    result = {"lt": rank < target, "ge": rank >= target, "eq": rank == target}[op]
    if result:
        shown = ", ".join(n for n in names if n)
        out.append(Match(f"capability({which}: {shown})", op, wanted, weakest))
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


def evaluate(cond: dict[str, Any], draft: Draft, levels: dict[str, str],
             out: list[Match]) -> bool:
    """Evaluate a condition (plain-data form); the atoms that made it true go to ``out``."""
    (op, body), = cond.items()
    if op == "all":
        trail: list[Match] = []
        if all(evaluate(c, draft, levels, trail) for c in body):
            out.extend(trail)
            return True
        return False
    if op == "any":
        for c in body:
            trail = []
            if evaluate(c, draft, levels, trail):
                out.extend(trail)
                return True
        return False
    if op == "not":
        result = not evaluate(body, draft, levels, [])
        if result:
            out.append(Match("(condition)", "not", "false", "false"))
        return result
    if op in ("in", "not_in"):
        actual = draft.lookup(body["path"])
        hit = actual in body["values"]
        result = hit if op == "in" else not hit
        if result:
            out.append(Match(body["path"], op, body["values"], actual))
        return result
    if op == "is_set":
        path = body["path"]
        if path.startswith(("config.", "options.")):
            result = path.removeprefix("config.") in draft.locked
        else:
            result = draft.lookup(path) is not None
        if result:
            out.append(Match(path, "is_set", True, True))
        return result
    if op == "capability":
        return _capability(draft, body, levels, out)
    if op == "contains":
        actual = draft.lookup(body["path"]) or []
        result = body["value"] in actual
        if result:
            out.append(Match(body["path"], "contains", body["value"], actual))
        return result
    actual = draft.lookup(body["path"])
    ref = body.get("ref")
    expected = draft.lookup(ref) if ref is not None else body.get("value")
    result = _compare(op, actual, expected)
    if result:
        out.append(Match(body["path"], op, ref or expected, actual))
    return result


def fill_placeholders(text: str, draft: Draft) -> str:
    """Replace ``{facts.x}``-style placeholders with the draft's current values."""
    def value(match: re.Match[str]) -> str:
        try:
            found = draft.lookup(match.group(1))
        except KeyError:
            return match.group(0)
        if found is None:
            return "unset"
        return f"{found:g}" if isinstance(found, float) else str(found)

    return _PLACEHOLDER.sub(value, text)


# -------------------------------------------------------------------------------- actions

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
        aligned = sorted({-(-s // multiple) * multiple for s in sizes})
        if not aligned or aligned == sorted(sizes):
            return []
        pairs: list[tuple[str, Any]] = [(f"{phase}.bs", aligned)]
        if draft.get(f"{phase}.max_bs") != aligned[-1]:
            pairs.append((f"{phase}.max_bs", aligned[-1]))
        return pairs
    return []


def _verbs(rule: CompiledRule) -> set[str]:
    return {next(iter(action)) for action in rule.then}


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
    active = [r for r in rule_set.compiled() if r.id not in disabled_ids]
    levels = rule_set.levels()
    decisions: dict[str, Decision] = {}
    conflicts: list[str] = []
    warned: set[str] = set()
    max_passes = len(active) + 2
    for _ in range(max_passes):
        changed_by: list[str] = []
        for rule in active:
            if _apply_one(rule, draft, levels, decisions, conflicts, warned, strict,
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


def _apply_one(rule: CompiledRule, draft: Draft, levels: dict[str, str],
               decisions: dict[str, Decision],
               conflicts: list[str], warned: set[str], strict: bool,
               overridable: set[str]) -> bool:
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
            named = ", ".join(draft.user_inputs(key)) or "your input"
            wanted = dict(proposed)[key]
            conflicts.append(
                f"rule {rule.id} (constraint) would change {key} from {draft.get(key)!r} to "
                f"{wanted!r}, which {named} set explicitly: {reason}. Remedies: drop "
                f"{named}; or set {key} to {wanted!r}; or pass --allow-override {rule.id}")
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
            named = ", ".join(draft.user_inputs(key)) or "your input"
            draft.warnings.append(
                f"rule {rule.id} overrode {key} set by {named}: {reason}"
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


def _blocked_entry(rule: CompiledRule, value: Any, reason: str) -> Any:
    from cgconfig.provenance import ChainEntry

    return ChainEntry(source=f"rule:{rule.id}", value=value, layer="rule-skipped",
                      why=f"skipped (key is locked by your input): {reason}")


def _decision(rule: CompiledRule, outcome: str, reason: str, hint: str | None, matches: list[Match],
              changes: list[Change]) -> Decision:
    return Decision(rule=rule.id, kind=rule.kind, outcome=outcome,  # type: ignore[arg-type]
                    why=reason, changes=changes, matched=matches, hint=hint, source=rule.source)
