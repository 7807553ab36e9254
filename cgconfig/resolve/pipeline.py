"""Resolution as a list of named steps per engine, each a function of the run so far.

    sglang:  validate facts → lock inputs → derive facts → dialect steps → rule switches
             → each SGLang stage in SGLang's order (:data:`~cgconfig.resolve.stages.SGLANG_STAGES`):
               its own steps and its rules (DeepEP alignment at ``apply_deepep_adjustments``;
               decode and prefill sizes, then the memory-hook view, at
               ``handle_gpu_memory_settings``) → rules end → capture → engine → plan
    vllm:    validate facts → lock inputs → derive facts → dialect steps → listed sizes
             → rule switches → stage ``resolved`` → rules end → capture → plan
    trtllm:  as vllm

A line runs its own engine's steps (:data:`ENGINE_STEPS`, keyed by the request's dialect) and
only the rules of its engine's packs and the core packs (``RuleSetLike.for_engine``): a vLLM or
TensorRT-LLM plan runs no SGLang sizing step and no SGLang rule. Each rule runs once, at the
stage its pack names (``stage:``); nothing runs twice and no order is read from a rule's text.

Nothing flows backwards: the locked set is frozen from the user's inputs before any default or
rule runs, and each step records what it did in the draft, so the plan can explain itself. The
rule set is an argument: this package never imports the rule engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cgconfig.constants import PHASES
from cgconfig.derived import derive_facts
from cgconfig.draft import Draft
from cgconfig.errors import StrictConflictError
from cgconfig.facts import Facts, shown_facts, validate_facts
from cgconfig.fields.table import all_config_keys, keys_per_phase
from cgconfig.locks import LockPolicy
from cgconfig.plan import Plan, phase_units
from cgconfig.resolve.capture import capture, capture_listed
from cgconfig.resolve.engine import engine_block, memory_view
from cgconfig.resolve.model_note import unknown_model_note
from cgconfig.resolve.request import ResolveRequest, RuleSetLike
from cgconfig.resolve.sglang_sizing import align_deepep_prefill, fill_prefill_sizes
from cgconfig.resolve.stages import ENGINE_STAGES, RESOLVED, SGLANG_DEEPEP, SGLANG_MEMORY_HOOK
from cgconfig.resolve.steps import fill_decode_sizes, fill_listed_sizes, memory, start_draft


@dataclass
class Run:
    """One resolution in progress: its request, rule set, and what the steps built so far."""

    request: ResolveRequest
    rules: RuleSetLike | None
    facts: Facts | None = None
    draft: Draft | None = None
    capture: dict[str, dict[str, Any]] = field(default_factory=dict)
    engine: dict[str, dict[str, Any]] = field(default_factory=dict)
    plan: Plan | None = None
    memory_view: Draft | None = None
    """The draft as SGLang's memory hook leaves it (taken once, at that stage)."""
    conflicts: list[str] = field(default_factory=list)
    """``--strict`` conflicts met so far, raised together once every stage has run."""

    def __post_init__(self) -> None:
        if self.rules is not None:
            chosen = self.request.engine_version
            version = chosen.version if chosen is not None and \
                chosen.engine == self.request.dialect else None
            self.rules = self.rules.for_engine(self.request.dialect, version)

    def checked(self) -> tuple[Draft, Facts]:
        """The draft and facts, which every step after ``lock-inputs`` may rely on."""
        assert self.draft is not None and self.facts is not None
        return self.draft, self.facts


def _validate_facts(run: Run) -> None:
    run.facts = validate_facts(run.request.facts, run.request.fact_sources)


def _lock_inputs(run: Run) -> None:
    assert run.facts is not None
    run.draft = start_draft(run.request, run.facts)
    chosen = run.request.engine_version
    if run.request.dialect == "sglang" and chosen is not None and chosen.engine == "sglang":
        run.draft.sglang_version = chosen.version
    run.draft.policy = LockPolicy(strict=run.request.strict,
                                  allow_override=frozenset(run.request.allow_override))


def _derive_facts(run: Run) -> None:
    draft, facts = run.checked()
    memory_gib, memory_source = memory(facts, run.request.fact_sources)
    draft.derived = derive_facts(facts, memory_gib, memory_source, draft.sglang_version)
    draft.derived["dialect"] = run.request.dialect


def _decode_sizes(run: Run) -> None:
    fill_decode_sizes(*run.checked())


def _prefill_sizes(run: Run) -> None:
    fill_prefill_sizes(*run.checked())


def _listed_sizes(run: Run) -> None:
    fill_listed_sizes(run.checked()[0])


def _dialect_steps(run: Run) -> None:
    draft, _ = run.checked()
    for hook in run.request.hooks:
        hook(draft)


def _active_rules(run: Run) -> RuleSetLike | None:
    return run.rules if run.request.use_rules else None


def _rule_switches(run: Run) -> None:
    draft, _ = run.checked()
    rules = _active_rules(run)
    if rules is not None:
        rules.check_switches(draft, disabled=run.request.disabled_rules,
                             apply_advice=run.request.apply_advice)


def _stage(name: str, before: tuple[Callable[[Run], None], ...] = (),
           after: tuple[Callable[[Run], None], ...] = ()) -> Step:
    """One engine stage: its own steps, then the rules that name it, then what follows."""

    def run_stage(run: Run) -> None:
        for step in before:
            step(run)
        rules = _active_rules(run)
        if rules is not None:
            run.conflicts += rules.apply_stage(run.checked()[0], name,
                                               disabled=run.request.disabled_rules,
                                               apply_advice=run.request.apply_advice)
        for step in after:
            step(run)

    return f"stage {name}", run_stage


def _rules_end(run: Run) -> None:
    """After the last stage: every ``--strict`` conflict in one error, else the advice
    warnings."""
    draft, _ = run.checked()
    if run.conflicts:
        raise StrictConflictError(run.conflicts)
    rules = _active_rules(run)
    if rules is not None:
        rules.finish(draft, disabled=run.request.disabled_rules,
                     apply_advice=run.request.apply_advice)


def _deepep_prefill(run: Run) -> None:
    align_deepep_prefill(*run.checked())


def _memory_view(run: Run) -> None:
    run.memory_view = memory_view(run.checked()[0])


def _capture(run: Run) -> None:
    run.capture = capture(*run.checked())


def _capture_listed(run: Run) -> None:
    run.capture = capture_listed(run.checked()[0])


def _engine(run: Run) -> None:
    draft, facts = run.checked()
    assert run.memory_view is not None
    run.engine = engine_block(draft, facts, run.memory_view)


def _plan(run: Run) -> None:
    draft, facts = run.checked()
    request = run.request
    config = {p: {k: draft.values[f"{p}.{k}"] for k in keys_per_phase()[p]} for p in PHASES}
    options = {k.split(".", 1)[1]: v for k, v in draft.values.items() if k.startswith("options.")}
    order = {k: i for i, k in enumerate(all_config_keys())}
    facts_out = facts.model_dump()
    facts_out["derived"] = dict(draft.derived)
    model_note = unknown_model_note(facts, request.fact_sources,
                                    run.rules if request.use_rules else None, draft,
                                    request.disabled_rules)
    run.plan = Plan(
        config=config, capture=run.capture, options=options,
        locked=sorted(draft.locked, key=order.__getitem__),
        decisions=draft.decisions,
        provenance={k: draft.chains[k] for k in all_config_keys()},
        warnings=[*draft.warnings],
        facts=facts_out, fact_sources=dict(sorted(request.fact_sources.items())),
        deprecations=list(request.deprecations),
        notes=[*request.notes, *_version_notes(request), *([model_note] if model_note else [])],
        ignored_args=list(request.ignored_args), units=phase_units(draft.derived),
        key_facts=shown_facts(facts_out, request.fact_sources, draft.derived),
        engine=run.engine, engine_version=_version_header(request),
    )


def _version_notes(request: ResolveRequest) -> list[str]:
    """The one line saying a requested version was answered as the nearest older one."""
    note = request.engine_version.note if request.engine_version is not None else None
    return [note] if note else []


def _version_header(request: ResolveRequest) -> dict[str, str]:
    from cgconfig.engines.versions import default

    chosen = request.engine_version or default(request.dialect)
    return {"engine": chosen.engine, "version": chosen.version, "label": chosen.label,
            "source": chosen.source}


Step = tuple[str, Callable[[Run], None]]
_HEAD: tuple[Step, ...] = (
    ("validate-facts", _validate_facts),
    ("lock-inputs", _lock_inputs),
    ("derive-facts", _derive_facts),
    ("dialect-steps", _dialect_steps),
)
#: SGLang's own steps, at the stage where SGLang 0.5.23 does them: before a stage's rules
#: (the memory hook's sizing) or after them (the DeepEP alignment, which reads the prefill
#: backend the compatibility cascade left; the memory-hook view).
_SGLANG_BEFORE: dict[str, tuple[Callable[[Run], None], ...]] = {
    SGLANG_MEMORY_HOOK: (_decode_sizes, _prefill_sizes)}
_SGLANG_AFTER: dict[str, tuple[Callable[[Run], None], ...]] = {
    SGLANG_DEEPEP: (_deepep_prefill,), SGLANG_MEMORY_HOOK: (_memory_view,)}
_LISTED_RULES: tuple[Step, ...] = (
    ("rule-switches", _rule_switches), _stage(RESOLVED), ("rules-end", _rules_end))
#: Each engine's pipeline, in order: one place to read what a resolution of its lines does.
#: SGLang runs its stages in its own order, its sizing among them; vLLM and TensorRT-LLM take
#: their sizes from their own dialect (vLLM's grid and Stage B, TensorRT-LLM's batch sizes),
#: run their rules once that is resolved and capture exactly the listed sizes.
ENGINE_STEPS: dict[str, tuple[Step, ...]] = {
    "sglang": (*_HEAD, ("rule-switches", _rule_switches),
               *(_stage(name, _SGLANG_BEFORE.get(name, ()), _SGLANG_AFTER.get(name, ()))
                 for name in ENGINE_STAGES["sglang"]),
               ("rules-end", _rules_end), ("capture", _capture),
               ("engine", _engine), ("plan", _plan)),
    "vllm": (*_HEAD, ("listed-sizes", _listed_sizes), *_LISTED_RULES,
             ("capture", _capture_listed), ("plan", _plan)),
    "trtllm": (*_HEAD, ("listed-sizes", _listed_sizes), *_LISTED_RULES,
               ("capture", _capture_listed), ("plan", _plan)),
}
assert all(name in ENGINE_STAGES for name in ENGINE_STEPS)
#: SGLang's pipeline (the default dialect).
STEPS = ENGINE_STEPS["sglang"]


def resolve(request: ResolveRequest, rules: RuleSetLike | None) -> Plan:
    """Run every step over ``request``; ``rules`` is the rule set to apply (``None``: none).

    Raises :class:`~cgconfig.errors.InputError` for bad input.
    """
    run = Run(request, rules)
    for _, step in ENGINE_STEPS[request.dialect]:
        step(run)
    assert run.plan is not None
    return run.plan
