"""Resolution as a list of named steps per engine, each a function of the run so far.

Each engine's package lists its own steps in its own order (``cgconfig/engines/<engine>/
pipeline.py``, the plug-in part ``steps``), built from the steps here that every engine shares
and its own:

    sglang:  validate facts → lock inputs → derive facts → dialect steps → rule switches
             → each SGLang stage in SGLang's order, its own steps and its rules
             → rules end → capture (its model runner's filter) → engine → plan
    vllm:    validate facts → lock inputs → derive facts → dialect steps → listed sizes
             → rule switches → stage ``resolved`` → rules end → capture (listed) → plan
    trtllm:  as vllm

:func:`resolve` runs the steps of the request's engine (its dialect) with only the rules of
that engine's packs and the core packs (``RuleSetLike.for_engine``). Each rule runs once, at
the stage its pack names (``stage:``); nothing runs twice and no order is read from a rule's
text. This package imports no engine's package and never the rule engine: the rule set is an
argument.

Nothing flows backwards: the locked set is frozen from the user's inputs before any default or
rule runs, and each step records what it did in the draft, so the plan can explain itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cgconfig.constants import PHASES
from cgconfig.derived import common_derived
from cgconfig.draft import Draft
from cgconfig.errors import StrictConflictError
from cgconfig.facts import Facts, shown_facts, validate_facts
from cgconfig.fields.table import all_config_keys, keys_per_phase
from cgconfig.line.plugins import part
from cgconfig.locks import LockPolicy
from cgconfig.plan import Plan
from cgconfig.provenance import Leaf
from cgconfig.resolve.capture import capture_listed
from cgconfig.resolve.model_note import unknown_model_note
from cgconfig.resolve.request import ResolveRequest, RuleSetLike
from cgconfig.resolve.stages import RESOLVED
from cgconfig.resolve.steps import fill_listed_sizes, memory, start_draft


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
    """The draft as the engine's memory step leaves it (SGLang's memory hook), taken once."""
    conflicts: list[str] = field(default_factory=list)
    """``--strict`` conflicts met so far, raised together once every stage has run."""
    engine_reserve: dict[str, Any] | None = None
    """The engine's own graph reserve as its memory step computed it (SGLang), for the cost."""

    def __post_init__(self) -> None:
        if self.rules is not None:
            chosen = self.request.engine_version
            version = chosen.version if chosen is not None and \
                chosen.engine == self.request.dialect else None
            self.rules = self.rules.for_engine(self.request.dialect, version)

    def release(self) -> str | None:
        """The release of the line's engine the line is answered for: the chosen one, else
        the engine's newest supported (``None`` for an engine with no releases)."""
        from cgconfig.line.versions import SUPPORTED, newest

        chosen, engine = self.request.engine_version, self.request.dialect
        if chosen is not None and chosen.engine == engine:
            return chosen.version
        return newest(engine) if engine in SUPPORTED else None

    def checked(self) -> tuple[Draft, Facts]:
        """The draft and facts, which every step after ``lock-inputs`` may rely on."""
        assert self.draft is not None and self.facts is not None
        return self.draft, self.facts


def validate(run: Run) -> None:
    """Step ``validate-facts``: the request's facts, typed and checked."""
    run.facts = validate_facts(run.request.facts, run.request.fact_sources)


def lock_inputs(run: Run, *, engine_leaves: Iterable[Leaf] = (),
                engine_defaults: Mapping[str, tuple[Any, str]] | None = None) -> None:
    """Step ``lock-inputs``: the draft from the inputs, its locked set frozen; an engine's own
    step passes what the engine sets as flags and its own defaults."""
    assert run.facts is not None
    run.draft = start_draft(run.request, run.facts, engine_leaves=engine_leaves,
                            engine_defaults=engine_defaults)
    run.draft.policy = LockPolicy(strict=run.request.settings.strict,
                                  allow_override=frozenset(run.request.settings.allow_override))
    run.draft.engine_version = run.release()


def derive(run: Run) -> None:
    """Step ``derive-facts`` of an engine with no derived values of its own."""
    draft, facts = run.checked()
    memory_gib, memory_source = memory(facts, run.request.fact_sources)
    draft.derived = common_derived(facts, memory_gib, memory_source, run.request.dialect)


def listed_sizes(run: Run) -> None:
    """Step ``listed-sizes``: each phase's max_bs from its listed sizes."""
    fill_listed_sizes(run.checked()[0])


def dialect_steps(run: Run) -> None:
    """Step ``dialect-steps``: the steps the dialect's source handed over."""
    draft, _ = run.checked()
    for hook in run.request.hooks:
        hook(draft)


def _active_rules(run: Run) -> RuleSetLike | None:
    return run.rules if run.request.use_rules else None


def rule_switches(run: Run) -> None:
    """Step ``rule-switches``: ``--disable-rule`` / ``--enable-rule`` checked against the set."""
    draft, _ = run.checked()
    rules = _active_rules(run)
    if rules is not None:
        rules.check_switches(draft, disabled=run.request.settings.disabled_rules,
                             apply_advice=run.request.settings.apply_advice)


def stage(name: str, before: tuple[Callable[[Run], None], ...] = (),
          after: tuple[Callable[[Run], None], ...] = ()) -> Step:
    """One engine stage: its own steps, then the rules that name it, then what follows."""

    def run_stage(run: Run) -> None:
        for step in before:
            step(run)
        rules = _active_rules(run)
        if rules is not None:
            run.conflicts += rules.apply_stage(run.checked()[0], name,
                                               disabled=run.request.settings.disabled_rules,
                                               apply_advice=run.request.settings.apply_advice)
        for step in after:
            step(run)

    return f"stage {name}", run_stage


def rules_end(run: Run) -> None:
    """After the last stage: every ``--strict`` conflict in one error, else the advice
    warnings."""
    draft, _ = run.checked()
    if run.conflicts:
        raise StrictConflictError(run.conflicts)
    rules = _active_rules(run)
    if rules is not None:
        rules.finish(draft, disabled=run.request.settings.disabled_rules,
                     apply_advice=run.request.settings.apply_advice)


def capture_listed_sizes(run: Run) -> None:
    """Step ``capture`` of an engine that captures exactly its listed sizes."""
    run.capture = capture_listed(run.checked()[0])


def make_plan(run: Run) -> None:
    """Step ``plan``: the plan from the draft, the capture and the engine block."""
    draft, facts = run.checked()
    request = run.request
    config = {p: {k: draft.values[f"{p}.{k}"] for k in keys_per_phase()[p]} for p in PHASES}
    options = {k.split(".", 1)[1]: v for k, v in draft.values.items() if k.startswith("options.")}
    order = {k: i for i, k in enumerate(all_config_keys())}
    facts_out = facts.model_dump()
    facts_out["derived"] = dict(draft.derived)
    model_note = unknown_model_note(facts, request.fact_sources,
                                    run.rules if request.use_rules else None, draft,
                                    request.settings.disabled_rules)
    run.plan = Plan(
        config=config, capture=run.capture, options=options,
        locked=sorted(draft.locked, key=order.__getitem__),
        decisions=draft.decisions,
        provenance={k: draft.chains[k] for k in all_config_keys()},
        warnings=[*draft.warnings],
        facts=facts_out, fact_sources=dict(sorted(request.fact_sources.items())),
        deprecations=list(request.deprecations),
        notes=[*request.notes, *_version_notes(request), *([model_note] if model_note else [])],
        ignored_args=list(request.ignored_args), units=part(request.dialect, "units")(draft.derived),
        key_facts=shown_facts(facts_out, request.fact_sources, draft.derived),
        engine=run.engine, engine_version=_version_header(request),
    )
    run.plan.engine_reserve = run.engine_reserve


def _version_notes(request: ResolveRequest) -> list[str]:
    """The one line saying a requested version was answered as the nearest older one."""
    note = request.engine_version.note if request.engine_version is not None else None
    return [note] if note else []


def _version_header(request: ResolveRequest) -> dict[str, str]:
    from cgconfig.line.versions import default

    chosen = request.engine_version or default(request.dialect)
    return {"engine": chosen.engine, "version": chosen.version, "label": chosen.label,
            "source": chosen.source}


Step = tuple[str, Callable[[Run], None]]


def head(lock: Callable[[Run], None] = lock_inputs,
         derive_step: Callable[[Run], None] = derive) -> tuple[Step, ...]:
    """The steps every engine starts with: ``validate-facts`` → ``lock-inputs`` →
    ``derive-facts`` → ``dialect-steps``, with the engine's own lock and derive steps."""
    return (("validate-facts", validate), ("lock-inputs", lock), ("derive-facts", derive_step),
            ("dialect-steps", dialect_steps))


#: The whole pipeline of an engine whose dialect step decides the modes and sizes and which
#: captures exactly the listed sizes (vLLM, TensorRT-LLM): its rules run once that is resolved.
LISTED_STEPS: tuple[Step, ...] = (
    *head(), ("listed-sizes", listed_sizes), ("rule-switches", rule_switches), stage(RESOLVED),
    ("rules-end", rules_end), ("capture", capture_listed_sizes), ("plan", make_plan))


def engine_steps(engine: str) -> tuple[Step, ...]:
    """``engine``'s steps, in its order (its plug-in part ``steps``)."""
    steps: tuple[Step, ...] = part(engine, "steps")
    return steps


def resolve(request: ResolveRequest, rules: RuleSetLike | None) -> Plan:
    """Run every step of the request's engine over ``request``; ``rules`` is the rule set to
    apply (``None``: none).

    Raises :class:`~cgconfig.errors.InputError` for bad input.
    """
    run = Run(request, rules)
    for _, step in engine_steps(request.dialect):
        step(run)
    assert run.plan is not None
    return run.plan
