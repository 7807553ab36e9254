"""The first steps: lock the inputs, derive facts, default the sizes.

Inputs become leaves, leaves are merged by layer and frozen into the locked set before anything
else runs, and defaults fill what nobody set. Every step records what it did in the draft, so
the plan can explain itself.
"""

from __future__ import annotations

from typing import Any

from cgconfig.dialects import sglang_grid as sz
from cgconfig.dialects.sglang_releases import holds
from cgconfig.draft import Draft
from cgconfig.facts import Facts
from cgconfig.fields.table import all_config_keys, default_value
from cgconfig.plan import Change, Decision
from cgconfig.provenance import ChainEntry, leaf_entry, merge_leaves
from cgconfig.resolve.request import ResolveRequest
from cgconfig.resolve.sglang_sizing import (
    engine_flag_leaves,
    expand_multimodal_decode,
    size_generator,
)

#: Platforms on which prefill graphs are validated; elsewhere prefill defaults to disabled.
PREFILL_GRAPH_PLATFORMS = ("cuda",)

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


def start_draft(request: ResolveRequest, facts: Facts) -> Draft:
    """The draft from the inputs' leaves (and the values SGLang sets as flags), the locked set
    frozen from them."""
    by_key = merge_leaves([*engine_flag_leaves(request.leaves, facts, request.dialect),
                           *request.leaves])
    dialect_defaults = {d.key: d for d in request.defaults}
    values: dict[str, Any] = {}
    chains: dict[str, list[ChainEntry]] = {}
    for key in all_config_keys():
        value = default_value(key)
        why = None
        if key == "prefill.backend" and request.dialect == "sglang" \
                and facts.device not in PREFILL_GRAPH_PLATFORMS:
            value, why = "disabled", f"prefill graphs are not validated on {facts.device}"
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


def _max_bs_from_list(draft: Draft, phase: str, sizes: list[int]) -> None:
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
            _max_bs_from_list(draft, phase, bs)


def fill_decode_sizes(draft: Draft, facts: Facts) -> None:
    """Default decode max_bs and size list, as SGLang 0.5.23's memory handler does
    (``arg_groups/memory_hook.py:handle_gpu_memory_settings``); prefill is
    :func:`cgconfig.resolve.sglang_sizing.fill_prefill_sizes`."""
    d = draft.derived
    draft.size_generator = size_generator(draft)
    src, layer = "resolver", "resolver"

    # --- decode -------------------------------------------------------------------------
    bs = draft.get("decode.bs")
    if facts.device == "cpu":
        bound = max(bs) if bs else draft.get("options.torch_compile_max_bs")
        why = ("CPU graphs come from torch.compile: decode.max_bs is "
               + ("max(decode.bs)" if bs else "--torch-compile-max-bs"))
        changes = [draft.record("decode.max_bs", bound, source=src, layer=layer, why=why)]
        if bs:
            # SGLang sets torch_compile_max_bs = max(bs) on CPU, so every listed size compiles.
            changes.append(draft.record("options.torch_compile_max_bs", bound, source=src,
                                        layer=layer, why="CPU: torch_compile_max_bs = max(bs)"))
        resolver_decision(draft, "sizes.cpu-decode-bound", why, changes)
    elif bs:
        _max_bs_from_list(draft, "decode", bs)
    elif draft.get("decode.max_bs") is None:
        tier = sz.memory_tier(d["gpu_memory_gib"], facts.device, draft.sglang_version)
        value = tier.decode_max_bs(facts.tp_size)
        why = (f"GPU memory tier {tier.label} ({d['gpu_memory_source']}), tp_size="
               f"{facts.tp_size}: default decode max_bs {value}")
        changes = [draft.record("decode.max_bs", value, source="default (derived)", layer="default",
                                why=why)]
        mrr = facts.max_running_requests
        if mrr is not None and mrr < value and holds("decode-max-bs-running-clamp",
                                                     draft.sglang_version):
            why2 = f"default decode max_bs clamped to --max-running-requests {mrr}"
            changes.append(draft.record("decode.max_bs", mrr, source="resolver", layer=layer,
                                        why=why2))
            why = f"{why}; {why2}"
        if holds("qwen3-vl-running-limit", draft.sglang_version):
            changes.append(expand_multimodal_decode(draft, facts))
        resolver_decision(draft, "sizes.decode-max-bs-default", why, changes)
    if not bs:
        draft.derived_sizes.add("decode")
        generated = draft.size_generator("decode", draft.get("decode.max_bs"))
        grid = ("the CPU grid" if facts.device == "cpu" else
                "every size (padding disabled)" if draft.get("options.disable_padding") else
                f"the speculative-decoding grid ({facts.speculative_algorithm})"
                if d["speculative"] else "the decode grid")
        draft.record("decode.bs", generated, source="default (derived)", layer="default",
                     why=f"generated from decode.max_bs={draft.get('decode.max_bs')} by {grid}")
