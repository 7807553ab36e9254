"""SGLang 0.5.23 ``arg_groups/cuda_graph_hook.py:apply_deepep_adjustments``: DeepEP's
multiple-of-8 alignment of the prefill sizes (stage ``cuda_graph_hook.apply_deepep_adjustments``,
after that stage's rules have decided the prefill backend, before the memory defaults).
"""

from __future__ import annotations

from cgconfig.draft import Draft
from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang import sizes as ss
from cgconfig.engines.sglang.memory_hook import answered_release, size_generator
from cgconfig.engines.sglang.releases import DEEPEP_PREFILL_ALIGN
from cgconfig.facts import Facts
from cgconfig.resolve.steps import resolver_decision


def align_deepep_prefill(draft: Draft, facts: Facts) -> None:
    """DeepEP with breakable prefill: the prefill sizes rounded up to multiples of 8, as
    SGLang 0.5.23 ``cuda_graph_hook.apply_deepep_adjustments`` does (stage
    ``apply_deepep_adjustments``, after the compatibility cascade's rules have decided the
    prefill backend and before the memory defaults, so an unset max_bs is taken as 2048).

    An explicit list is rule ``feature.deepep-prefill-align-8``'s (it locks); this aligns the
    derived one. Releases before 0.5.17 do not align (``releases.DEEPEP_PREFILL_ALIGN``).
    """
    if not holds_in(DEEPEP_PREFILL_ALIGN, answered_release(draft)):
        return
    if draft.size_generator is None:
        draft.size_generator = size_generator(draft)
    adjusted = ss.deepep_prefill_adjustment(
        moe_a2a_backend=facts.moe_a2a_backend,
        prefill_breakable=draft.get("prefill.backend") == "breakable",
        max_bs=draft.get("prefill.max_bs"), bs=draft.get("prefill.bs"))
    if adjusted is None or "prefill.bs" in draft.locked:
        return
    why = ("DeepEP with breakable prefill: sizes rounded up to multiples of 8 before the "
           "memory defaults (unset max_bs taken as 2048)")
    changes = [draft.record("prefill.max_bs", adjusted[0], source="resolver", layer="resolver",
                            why=why),
               draft.record("prefill.bs", adjusted[1], source="resolver", layer="resolver",
                            why=why)]
    resolver_decision(draft, "sizes.deepep-prefill-align", why, [c for c in changes if c])
    # The list is still SGLang's own (not the user's): a later max_bs clamp regenerates it
    # from the grid (parallel_hook.handle_data_parallelism), unaligned.
    draft.derived_sizes.add("prefill")
