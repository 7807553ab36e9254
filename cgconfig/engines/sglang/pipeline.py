"""SGLang's resolution, step by step, in SGLang 0.5.23's own order (the plug-in part ``steps``).

The stages are SGLang's hooks (:data:`cgconfig.engines.sglang.stages.SGLANG_STAGES`, in
``arg_groups/pipeline.py:run_resolution_pipeline`` order); at each one SGLang's own steps run
before or after the rules that name it: the DeepEP alignment after
``cuda_graph_hook.apply_deepep_adjustments``'s rules (it reads the prefill backend they left),
the memory hook's sizing before ``memory_hook.handle_gpu_memory_settings``'s rules and the
view of the config its heuristic reads after them. Then the model runner's capture filter and
the plan's ``engine`` block.
"""

from __future__ import annotations

from collections.abc import Callable

from cgconfig.engines.sglang.cuda_graph_hook import align_deepep_prefill
from cgconfig.engines.sglang.cuda_graph_runner import capture
from cgconfig.engines.sglang.derived import derive_facts
from cgconfig.engines.sglang.engine_block import engine_block, graph_reserve, memory_view
from cgconfig.engines.sglang.flag_defaults import engine_flag_leaves, platform_defaults
from cgconfig.engines.sglang.memory_hook import fill_decode_sizes, fill_prefill_sizes
from cgconfig.engines.sglang.stages import SGLANG_DEEPEP, SGLANG_MEMORY_HOOK, SGLANG_STAGES
from cgconfig.resolve.pipeline import (
    Run,
    Step,
    head,
    lock_inputs,
    make_plan,
    rule_switches,
    rules_end,
    stage,
)
from cgconfig.resolve.steps import memory


def _sglang_release(run: Run) -> str:
    """The SGLang release the line is answered for (:meth:`Run.release`, one home)."""
    release = run.release()
    assert release is not None  # SGLang ships its tables
    return release


def _lock_inputs(run: Run) -> None:
    assert run.facts is not None
    lock_inputs(run, engine_leaves=engine_flag_leaves(run.request.leaves, run.facts,
                                                 _sglang_release(run)),
                engine_defaults=platform_defaults(run.facts, _sglang_release(run)))


def _derive_facts(run: Run) -> None:
    draft, facts = run.checked()
    memory_gib, memory_source = memory(facts, run.request.fact_sources)
    assert draft.engine_version is not None  # set by lock-inputs
    draft.derived = derive_facts(facts, memory_gib, memory_source, draft.engine_version,
                                 run.request.ignored_args)


def _decode_sizes(run: Run) -> None:
    fill_decode_sizes(*run.checked())


def _prefill_sizes(run: Run) -> None:
    fill_prefill_sizes(*run.checked())


def _deepep_prefill(run: Run) -> None:
    align_deepep_prefill(*run.checked())


def _memory_view(run: Run) -> None:
    run.memory_view = memory_view(run.checked()[0])


def _capture(run: Run) -> None:
    run.capture = capture(*run.checked())


def _engine(run: Run) -> None:
    draft, facts = run.checked()
    assert run.memory_view is not None
    run.engine = engine_block(draft, facts, run.memory_view)
    run.engine_reserve = graph_reserve(draft, facts, run.memory_view)


#: SGLang's own steps before a stage's rules (the memory hook's sizing) or after them (the
#: DeepEP alignment; the memory-hook view).
BEFORE_RULES: dict[str, tuple[Callable[[Run], None], ...]] = {
    SGLANG_MEMORY_HOOK: (_decode_sizes, _prefill_sizes)}
AFTER_RULES: dict[str, tuple[Callable[[Run], None], ...]] = {
    SGLANG_DEEPEP: (_deepep_prefill,), SGLANG_MEMORY_HOOK: (_memory_view,)}

STEPS: tuple[Step, ...] = (
    *head(_lock_inputs, _derive_facts), ("rule-switches", rule_switches),
    *(stage(name, BEFORE_RULES.get(name, ()), AFTER_RULES.get(name, ()))
      for name in SGLANG_STAGES),
    ("rules-end", rules_end), ("capture", _capture), ("engine", _engine), ("plan", make_plan),
)
