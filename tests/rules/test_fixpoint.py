"""Fixpoint, cycle detection, and order-independence of rules that write different keys."""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cgconfig import resolve_args
from cgconfig.errors import InputError, RuleRefusal
from cgconfig.rules import loading
from cgconfig.rules.loader import load_rule_set
from cgconfig.rules.ruleset import RuleSet

CYCLE = """\
pack: cycle
title: Two rules that undo each other
rules:
  - id: cycle.gc-on
    title: GC on
    kind: policy
    when: {eq: {path: options.enable_cudagraph_gc, value: false}}
    then: [{set: {key: options.enable_cudagraph_gc, value: true}}]
    reason: "gc is {options.enable_cudagraph_gc}"
    source: test
    examples: [{args: [], fires: true}, {args: [--enable-cudagraph-gc], fires: false}]
  - id: cycle.gc-off
    title: GC off
    kind: policy
    when: {eq: {path: options.enable_cudagraph_gc, value: true}}
    then: [{set: {key: options.enable_cudagraph_gc, value: false}}]
    reason: "gc is {options.enable_cudagraph_gc}"
    source: test
    examples: [{args: [--enable-cudagraph-gc], fires: true}, {args: [], fires: false}]
"""

CHAIN = """\
pack: chain
title: A rule that only fires after a later rule's change
rules:
  - id: chain.second
    title: GC on makes decode breakable
    kind: policy
    when: {eq: {path: options.enable_cudagraph_gc, value: true}}
    then: [{set: {key: decode.backend, value: breakable}}]
    reason: "gc={options.enable_cudagraph_gc}"
    source: test
    examples: [{args: [--enable-cudagraph-gc], fires: true}, {args: [], fires: false}]
  - id: chain.first
    title: LoRA turns GC on
    kind: policy
    when: {eq: {path: facts.enable_lora, value: true}}
    then: [{set: {key: options.enable_cudagraph_gc, value: true}}]
    reason: "lora={facts.enable_lora}"
    source: test
    examples: [{args: [--enable-lora], fires: true}, {args: [], fires: false}]
"""


def _pack(tmp_path: Path, text: str) -> str:
    path = tmp_path / "user.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def test_a_cycle_is_an_error_naming_the_rules(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        resolve_args(["--rules", _pack(tmp_path, CYCLE)])
    message = str(info.value)
    assert "rules do not settle (a cycle): cycle.gc-off, cycle.gc-on" in message
    assert info.value.exit_code == 2


def test_disabling_one_rule_of_the_cycle_settles_it(tmp_path: Path) -> None:
    plan = resolve_args(["--rules", _pack(tmp_path, CYCLE), "--disable-rule", "cycle.gc-off"])
    assert plan.options["enable_cudagraph_gc"] is True


def test_fixpoint_reaches_a_rule_that_depends_on_a_later_rule(tmp_path: Path) -> None:
    plan = resolve_args(["--rules", _pack(tmp_path, CHAIN), "--enable-lora",
                         "--lora-paths", "a=/adapters/a"])
    assert plan.options["enable_cudagraph_gc"] is True
    assert plan.config["decode"]["backend"] == "breakable"
    fired = [d.rule for d in plan.decisions if d.rule.startswith("chain.")]
    assert set(fired) == {"chain.first", "chain.second"}


def test_fixpoint_chains_shipped_rules_across_packs() -> None:
    """capability (20) -> breakable decode, then memory saver (50) -> disabled."""
    plan = resolve_args(["--device", "cuda", "--attention-backend", "intel_xpu",
                         "--speculative-algorithm",
                         "EAGLE", "--enable-memory-saver", "--apply-advice",
                         "attention.spec-decode-needs-uniform-batch", "--apply-advice",
                         "feature.memory-saver-breakable-decode"])
    assert plan.config["decode"]["backend"] == "disabled"
    outcomes = {d.rule: d.outcome for d in plan.decisions}
    assert outcomes["attention.spec-decode-needs-uniform-batch"] == "applied"
    assert outcomes["feature.memory-saver-breakable-decode"] == "applied"


def test_one_decision_per_rule_even_over_several_passes() -> None:
    plan = resolve_args(["--attention-backend", "intel_amx", "--enable-memory-saver"])
    rules = [d.rule for d in plan.decisions]
    assert len(rules) == len(set(rules))


# --------------------------------------------------------------------- order independence

SHIPPED = load_rule_set()


def _groups(rule_set: RuleSet) -> list[list[int]]:
    """Rule indices partitioned by the config keys they write (union of overlapping sets).

    Rules that write nothing (warnings, refusals) are a group each.
    """
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    keys_of = [sorted(r.target_keys()) or [f"rule:{r.id}"] for r in rule_set.rules]
    for keys in keys_of:
        for key in keys[1:]:
            parent[find(key)] = find(keys[0])
    groups: dict[str, list[int]] = {}
    for index, keys in enumerate(keys_of):
        groups.setdefault(find(keys[0]), []).append(index)
    return list(groups.values())


GROUPS = _groups(SHIPPED)
SCENARIOS = sorted({tuple(e.args) for r in SHIPPED.rules for e in r.examples})


def _interleave(groups: list[list[int]], rng: random.Random) -> list[int]:
    """A random merge of the groups that keeps each group's own order."""
    queues = [list(g) for g in groups]
    order: list[int] = []
    while queues:
        queue = rng.choice(queues)
        order.append(queue.pop(0))
        if not queue:
            queues.remove(queue)
    return order


def _effective(argv: tuple[str, ...], rule_set: RuleSet) -> object:
    """What a plan means for the runtime: backends, captured sizes, options; or a refusal."""
    with mock.patch.object(loading, "load_rules_for_resolve", lambda extra=None: rule_set):
        try:
            plan = resolve_args(list(argv))
        except RuleRefusal:
            return "refused"
    return ({p: plan.capture[p]["backend"] for p in ("decode", "prefill")},
            {p: plan.capture[p]["sizes"] for p in ("decode", "prefill")},
            dict(plan.options))


BASELINE = {argv: _effective(argv, SHIPPED) for argv in SCENARIOS}


def test_the_partition_is_not_trivial() -> None:
    assert len(GROUPS) >= 5
    assert sum(len(g) for g in GROUPS) == len(SHIPPED.rules)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_rules_writing_different_keys_commute(seed: int) -> None:
    order = _interleave(GROUPS, random.Random(seed))
    shuffled = RuleSet(rules=[SHIPPED.rules[i] for i in order], pack_of=SHIPPED.pack_of,
                       capabilities=SHIPPED.capabilities, pack_titles=SHIPPED.pack_titles)
    for argv in SCENARIOS:
        assert _effective(argv, shuffled) == BASELINE[argv], (argv, [r.id for r in
                                                                     shuffled.rules])
