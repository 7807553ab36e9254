"""The first steps every engine runs: lock the inputs, read the GPU memory, take listed sizes.

Inputs become leaves, leaves are merged by layer and frozen into the locked set before anything
else runs, and defaults fill what nobody set. Every step records what it did in the draft, so
the plan can explain itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cgconfig.draft import Draft
from cgconfig.facts import Facts
from cgconfig.fields.table import all_config_keys, default_value
from cgconfig.plan import Change, Decision
from cgconfig.provenance import ChainEntry, Leaf, leaf_entry, merge_leaves
from cgconfig.resolve.request import ResolveRequest


def memory(facts: Facts, sources: dict[str, str]) -> tuple[float | None, str]:
    if facts.gpu_memory_gib is not None:
        return facts.gpu_memory_gib, sources.get("gpu_memory_gib", "--gpu-memory-gib")
    from cgconfig.gpu_probe import probe_gpu

    reading = probe_gpu(facts.device)  # once per process: the machine source asked already
    return reading.memory_gib, reading.source


def resolver_decision(draft: Draft, rule: str, why: str, changes: list[Change | None]) -> None:
    real = [c for c in changes if c is not None]
    draft.decisions.append(Decision(rule=rule, kind="resolver", outcome="applied", why=why,
                                    changes=real))


def start_draft(request: ResolveRequest, facts: Facts, *, engine_leaves: Iterable[Leaf] = (),
                engine_defaults: Mapping[str, tuple[Any, str]] | None = None) -> Draft:
    """The draft from the inputs' leaves (and ``engine_leaves``, values the engine sets as if
    they were flags), the locked set frozen from them; ``engine_defaults`` are the engine's
    own defaults where they differ from cgconfig's (key → value, why)."""
    by_key = merge_leaves([*engine_leaves, *request.leaves])
    dialect_defaults = {d.key: d for d in request.defaults}
    values: dict[str, Any] = {}
    chains: dict[str, list[ChainEntry]] = {}
    for key in all_config_keys():
        value, why = (engine_defaults or {}).get(key, (default_value(key), None))
        values[key] = value
        chains[key] = [ChainEntry("default", value, "default", why=why)]
        if key in dialect_defaults:
            default = dialect_defaults[key]
            values[key] = default.value
            chains[key].append(ChainEntry(default.source, default.value, "default",
                                          why=default.why))
        for leaf in by_key.get(key, []):
            values[key] = leaf.value
            chains[key].append(leaf_entry(leaf))
    # The locked set is frozen here, from user input alone, before any default or rule runs.
    locked = frozenset(by_key)
    return Draft(values=values, chains=chains, locked=locked, leaves=by_key,
                 facts=facts.model_dump())


def max_bs_from_list(draft: Draft, phase: str, sizes: list[int]) -> None:
    change = draft.record(f"{phase}.max_bs", max(sizes), source="resolver", layer="resolver",
                          why=f"a {phase}.bs list sets max_bs = max(bs)")
    resolver_decision(draft, "sizes.max-bs-from-bs",
                       f"a {phase}.bs list decides {phase}.max_bs (max_bs = max(bs))", [change])


def fill_listed_sizes(draft: Draft) -> None:
    """vLLM and TensorRT-LLM: each phase's max_bs is its listed sizes' maximum when nobody set
    it; nothing is generated here (the engine's own dialect chose the lists)."""
    for phase in ("decode", "prefill"):
        bs = draft.get(f"{phase}.bs")
        if bs and draft.get(f"{phase}.max_bs") is None:
            max_bs_from_list(draft, phase, bs)
