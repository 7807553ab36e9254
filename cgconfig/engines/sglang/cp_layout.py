"""SGLang's context-parallel layout check, and the release that changed what it divides by.

``parallel_hook.handle_context_parallelism`` asserts ``tp_size % attn_cp_size == 0`` and
``tp_size % (<DP width> * attn_cp_size) == 0``; up to 0.5.21 the DP width is ``--dp-size``
whether or not attention runs data-parallel, from 0.5.22 it is ``attn_dp_size`` (1 without
DP attention). Rows of :class:`~cgconfig.engines.release_change.ReleaseChange`. Stdlib only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cgconfig.engines.release_change import ReleaseChange, holds_in

if TYPE_CHECKING:
    from cgconfig.facts import Facts

#: The releases whose CP layout check divides by ``--dp-size`` itself.
CP_LAYOUT_BY_DP_SIZE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.22", "the CP layout check asserts tp_size % (dp_size * "
                  "attn_cp_size) == 0 with --dp-size even without DP attention",
                  "python/sglang/srt/arg_groups/parallel_hook.py:handle_context_parallelism"),
)


def attn_cp_layout_valid(facts: Facts, release: str) -> bool:
    """Whether SGLang ``release`` accepts the line's CP layout. MLA prefill CP
    (``model_overrides/deepseek_v2.py``) first sets attn_cp = tp // attn_dp (the DP size),
    which always divides."""
    if facts.attn_cp_size == 1 or (facts.use_mla and facts.enable_prefill_cp):
        return True
    by_dp_size = holds_in(CP_LAYOUT_BY_DP_SIZE, release)
    dp = facts.dp_size if by_dp_size or facts.enable_dp_attention else 1
    return bool(facts.tp_size % facts.attn_cp_size == 0
                and facts.tp_size % (facts.attn_cp_size * dp) == 0)
