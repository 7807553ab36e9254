"""The resolution pipeline: inputs → locks → defaults → rules → sizes → plan.

Nothing flows backwards: inputs become leaves, leaves are merged by layer and frozen into the
locked set before anything else runs, defaults fill what nobody set, the rule engine downgrades
what cannot work, and the capture filter turns configured lists into what will be captured.
Every step records what it did in the draft, so the plan can explain itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cgconfig import sizes as sz
from cgconfig.derived import derive_facts
from cgconfig.draft import Draft
from cgconfig.facts import Facts, validate_facts
from cgconfig.fields.constants import PHASES
from cgconfig.fields.table import all_config_keys, default_value, keys_per_phase
from cgconfig.plan import Change, Decision, Plan
from cgconfig.provenance import ChainEntry, Leaf, leaf_entry, merge_leaves

#: Platforms on which prefill graphs are validated; elsewhere prefill defaults to disabled.
PREFILL_GRAPH_PLATFORMS = ("cuda",)


@dataclass(frozen=True)
class DialectDefault:
    """A default supplied by an input dialect (vLLM's grid, TRT-LLM's), with its reason."""

    key: str
    value: Any
    source: str
    why: str


@dataclass
class ResolveRequest:
    """Everything one resolution needs, already parsed into leaves and facts."""

    leaves: list[Leaf] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    fact_sources: dict[str, str] = field(default_factory=dict)
    strict: bool = False
    rule_files: list[str] = field(default_factory=list)
    disabled_rules: list[str] = field(default_factory=list)
    allow_override: list[str] = field(default_factory=list)
    use_rules: bool = True
    deprecations: list[str] = field(default_factory=list)
    ignored_args: list[str] = field(default_factory=list)
    defaults: list[DialectDefault] = field(default_factory=list)
    """Dialect defaults (e.g. vLLM's size grid): they replace model defaults but do not lock."""
    hooks: list[Callable[[Draft], None]] = field(default_factory=list)
    """Dialect steps run after defaults and before the rules (e.g. vLLM's mode resolution)."""
    dialect: str = "sglang"


def _memory(facts: Facts, sources: dict[str, str]) -> tuple[float | None, str]:
    if facts.gpu_memory_gib is not None:
        return facts.gpu_memory_gib, sources.get("gpu_memory_gib", "--gpu-memory-gib")
    if facts.device not in ("cuda",):
        return None, f"unknown (no probe for device {facts.device})"
    from cgconfig.gpu_probe import probe_gpu_memory_gib

    return probe_gpu_memory_gib()


def _resolver_decision(draft: Draft, rule: str, why: str, changes: list[Change | None]) -> None:
    real = [c for c in changes if c is not None]
    draft.decisions.append(Decision(rule=rule, kind="resolver", outcome="applied", why=why,
                                    changes=real))


def _start_draft(request: ResolveRequest, facts: Facts) -> Draft:
    by_key = merge_leaves(request.leaves)
    dialect_defaults = {d.key: d for d in request.defaults}
    values: dict[str, Any] = {}
    chains: dict[str, list[ChainEntry]] = {}
    for key in all_config_keys():
        value = default_value(key)
        why = None
        if key == "prefill.backend" and facts.device not in PREFILL_GRAPH_PLATFORMS:
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


def _size_generator(draft: Draft) -> Any:
    def generate(phase: str, max_bs: int) -> list[int]:
        padding = not draft.values["options.disable_padding"]
        if phase == "prefill":
            return sz.prefill_sizes(max_bs)
        if draft.facts["device"] == "cpu":
            return sz.cpu_sizes(max_bs, padding=padding)
        return sz.decode_sizes(max_bs, speculative=draft.derived["speculative"], padding=padding)

    return generate


def _max_bs_from_list(draft: Draft, phase: str, sizes: list[int]) -> None:
    change = draft.record(f"{phase}.max_bs", max(sizes), source="resolver", layer="resolver",
                          why=f"a {phase}.bs list sets max_bs = max(bs)")
    _resolver_decision(draft, "sizes.max-bs-from-bs",
                       f"a {phase}.bs list decides {phase}.max_bs (max_bs = max(bs))", [change])


def _fill_sizes(draft: Draft, facts: Facts) -> None:
    """Default max_bs and size lists, as SGLang's memory handler does (research §6)."""
    d = draft.derived
    draft.size_generator = _size_generator(draft)
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
        _resolver_decision(draft, "sizes.cpu-decode-bound", why, changes)
    elif bs:
        _max_bs_from_list(draft, "decode", bs)
    elif draft.get("decode.max_bs") is None:
        tier = sz.memory_tier(d["gpu_memory_gib"], facts.device)
        value = tier.decode_max_bs(facts.tp_size)
        why = (f"GPU memory tier {tier.label} ({d['gpu_memory_source']}), tp_size="
               f"{facts.tp_size}: default decode max_bs {value}")
        changes = [draft.record("decode.max_bs", value, source="default (derived)", layer="default",
                                why=why)]
        mrr = facts.max_running_requests
        if mrr is not None and mrr < value:
            why2 = f"default decode max_bs clamped to --max-running-requests {mrr}"
            changes.append(draft.record("decode.max_bs", mrr, source="resolver", layer=layer,
                                        why=why2))
            why = f"{why}; {why2}"
        _resolver_decision(draft, "sizes.decode-max-bs-default", why, changes)
    if not bs:
        draft.derived_sizes.add("decode")
        generated = draft.size_generator("decode", draft.get("decode.max_bs"))
        grid = ("the CPU grid" if facts.device == "cpu" else
                "every size (padding disabled)" if draft.get("options.disable_padding") else
                f"the speculative-decoding grid ({facts.speculative_algorithm})"
                if d["speculative"] else "the decode grid")
        draft.record("decode.bs", generated, source="default (derived)", layer="default",
                     why=f"generated from decode.max_bs={draft.get('decode.max_bs')} by {grid}")

    # --- prefill ------------------------------------------------------------------------
    pbs = draft.get("prefill.bs")
    if pbs and draft.get("prefill.max_bs") is None:
        _max_bs_from_list(draft, "prefill", pbs)
    elif draft.get("prefill.max_bs") is None:
        if facts.use_mla:
            value, why = sz.MLA_PREFILL_MAX_BS, "MLA models default prefill max_bs to 2048 tokens"
        else:
            value = d["chunked_prefill_size"]
            why = (f"prefill max_bs = chunked-prefill size {value} "
                   f"({d['chunked_prefill_source']})")
        if value is not None and value > 0:
            change = draft.record("prefill.max_bs", value, source="default (derived)",
                                  layer="default", why=why)
            _resolver_decision(draft, "sizes.prefill-max-bs-default", why, [change])
    if not pbs:
        draft.derived_sizes.add("prefill")
        max_bs = draft.get("prefill.max_bs")
        generated = draft.size_generator("prefill", max_bs) if max_bs else []
        if generated:
            draft.record("prefill.bs", generated, source="default (derived)", layer="default",
                         why=f"generated from prefill.max_bs={max_bs}")


def _capture(draft: Draft, facts: Facts) -> dict[str, dict[str, Any]]:
    """Configured lists → what will actually be captured, per phase."""
    capture: dict[str, dict[str, Any]] = {}
    d = draft.derived
    # decode
    dec_backend = draft.get("decode.backend")
    alignment = sz.capture_alignment(
        tp_size=facts.tp_size, dp_size=facts.dp_size,
        enable_dp_attention=facts.enable_dp_attention, attn_cp_size=facts.attn_cp_size,
        moe_a2a_backend=facts.moe_a2a_backend,
        enable_two_batch_overlap=facts.enable_two_batch_overlap,
        request_width=d["request_width"], pool_size=facts.max_running_requests)
    configured = list(draft.get("decode.bs") or [])
    sizes = sz.filter_capture_sizes(configured, alignment) if dec_backend != "disabled" else []
    if dec_backend != "disabled" and sizes != sorted(set(configured)):
        dropped = sorted(set(configured) - set(sizes))
        added = sorted(set(sizes) - set(configured))
        why = "capture filter: " + "; ".join(
            [*alignment.reasons,
             *( [f"request pool {facts.max_running_requests} caps sizes"]
                if facts.max_running_requests else [])]) or "capture filter: sorted and deduplicated"
        detail = []
        if dropped:
            detail.append(f"dropped {_short(dropped)}")
        if added:
            detail.append(f"added {_short(added)}")
        draft.decisions.append(Decision(
            rule="sizes.capture-filter", kind="resolver", outcome="applied",
            why=f"{why} ({', '.join(detail) or 'reordered'})",
            changes=[Change("capture.decode.sizes", configured, sizes)]))
    if dec_backend != "disabled" and not sizes:
        draft.warnings.append(
            "decode: no configured size survives the capture filter (alignment "
            f"{alignment.multiple}, width {alignment.request_width}); decode runs eagerly")
    compile_list = sz.compile_sizes(
        sizes, enable_torch_compile=draft.get("options.enable_torch_compile"),
        torch_compile_max_bs=draft.get("options.torch_compile_max_bs"))
    capture["decode"] = {
        "backend": dec_backend if sizes else "disabled",
        "sizes": sizes,
        "compile_sizes": compile_list,
        "alignment": {"multiple": alignment.multiple, "request_width": alignment.request_width,
                      "pool_size": alignment.pool_size},
    }
    # prefill: no filter upstream; the list is used sorted.
    pre_backend = draft.get("prefill.backend")
    psizes = sorted(set(draft.get("prefill.bs") or [])) if pre_backend != "disabled" else []
    if pre_backend != "disabled" and not psizes:
        draft.warnings.append("prefill: no capture sizes (prefill max_bs below 4 tokens or "
                              "chunked prefill disabled); prefill runs eagerly")
    capture["prefill"] = {"backend": pre_backend if psizes else "disabled", "sizes": psizes}
    _coverage(draft, facts, sizes, dec_backend)
    return capture


def _coverage(draft: Draft, facts: Facts, sizes: list[int], backend: str) -> None:
    mrr = facts.max_running_requests
    if backend == "disabled" or not sizes or mrr is None or mrr <= sizes[-1]:
        return
    message = (f"coverage: --max-running-requests {mrr} exceeds the largest decode graph "
               f"({sizes[-1]}); batches of {sizes[-1] + 1}..{mrr} requests run eagerly, "
               "without CUDA graphs")
    draft.warnings.append(message)
    draft.decisions.append(Decision(
        rule="coverage.decode-eager-range", kind="resolver", outcome="warned", why=message,
        hint=f"raise --cuda-graph-max-bs-decode to {mrr} to cover every batch"))


def _short(values: list[int]) -> str:
    return str(values) if len(values) <= 6 else f"[{values[0]}, {values[1]}, …, {values[-1]}]"


def resolve(request: ResolveRequest) -> Plan:
    """Resolve a request into a plan. Raises :class:`InputError` for bad input."""
    facts = validate_facts(request.facts, request.fact_sources)
    draft = _start_draft(request, facts)
    memory_gib, memory_source = _memory(facts, request.fact_sources)
    draft.derived = derive_facts(facts, memory_gib, memory_source)
    draft.derived["dialect"] = request.dialect
    _fill_sizes(draft, facts)
    for hook in request.hooks:
        hook(draft)
    if request.use_rules:
        from cgconfig.rules.engine import apply_rules, load_rules_for_resolve

        rule_set = load_rules_for_resolve(request.rule_files)
        apply_rules(draft, rule_set, strict=request.strict,
                    disabled=request.disabled_rules, allow_override=request.allow_override)
    capture = _capture(draft, facts)
    config = {p: {k: draft.values[f"{p}.{k}"] for k in keys_per_phase()[p]} for p in PHASES}
    options = {k.split(".", 1)[1]: v for k, v in draft.values.items() if k.startswith("options.")}
    order = {k: i for i, k in enumerate(all_config_keys())}
    facts_out = facts.model_dump()
    facts_out["derived"] = {k: v for k, v in draft.derived.items()}
    return Plan(
        config=config, capture=capture, options=options,
        locked=sorted(draft.locked, key=order.__getitem__),
        decisions=draft.decisions,
        provenance={k: draft.chains[k] for k in all_config_keys()},
        warnings=[*draft.warnings],
        facts=facts_out, fact_sources=dict(sorted(request.fact_sources.items())),
        deprecations=list(request.deprecations), ignored_args=list(request.ignored_args),
    )
