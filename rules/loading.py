"""The rule sets a resolution uses: shipped packs (from the JSON cache when current) and user packs."""

from __future__ import annotations

from cgconfig.rules.cache import read_cache
from cgconfig.rules.compiled import CompiledRule
from cgconfig.rules.ruleset import RuleSet

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
        from cgconfig.rules.loader import load_rule_set

        rule_set = load_rule_set(extra_files)
        if not extra_files:
            _SHIPPED.append(rule_set)
        return rule_set
    rules: list[CompiledRule] = []
    pack_of: dict[str, str] = {}
    titles: dict[str, str] = {}
    engines: dict[str, str] = {}
    for pack in raw["packs"]:
        titles[pack["pack"]] = pack["title"]
        engines[pack["pack"]] = pack.get("engine", "core")
        for data in pack["rules"]:
            pack_of[data["id"]] = pack["pack"]
            rules.append(CompiledRule.from_dict(data))
    rule_set = RuleSet(rules=rules, pack_of=pack_of, capabilities=raw["capabilities"] or {},
                       pack_titles=titles, pack_engines=engines)
    _SHIPPED.append(rule_set)
    return rule_set
