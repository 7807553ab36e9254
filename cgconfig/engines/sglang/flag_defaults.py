"""What SGLang sets before any hook runs: values it sets as if the user had passed a flag, and
the defaults that differ from cgconfig's by platform. Both enter at step ``lock-inputs``.
"""

from __future__ import annotations

from typing import Any

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang import model_archs as ma
from cgconfig.engines.sglang.releases import (
    MUSE_GLIMMER_PREFILL_DEFAULT,
    PREFILL_DEFAULT_TC_PIECEWISE,
    PREFILL_OPT_IN,
)
from cgconfig.facts import Facts
from cgconfig.line.versions import label
from cgconfig.provenance import Layer, Leaf, Origin

#: Platforms on which prefill graphs are validated; elsewhere prefill defaults to disabled.
PREFILL_GRAPH_PLATFORMS = ("cuda",)


def platform_defaults(facts: Facts, release: str) -> dict[str, tuple[Any, str]]:
    """Defaults SGLang gives by platform: prefill graphs off where they are not validated;
    on CUDA, the releases whose default prefill backend is ``tc_piecewise``
    (``releases.PREFILL_DEFAULT_TC_PIECEWISE``); everywhere, in the releases whose prefill
    graph is opt-in (``releases.PREFILL_OPT_IN``), disabled unless
    ``--enable-piecewise-cuda-graph``."""
    if holds_in(PREFILL_OPT_IN, release):
        return {"prefill.backend": ("disabled", f"{label('sglang', release)} captures prefill "
                                    "graphs only with --enable-piecewise-cuda-graph")}
    if facts.device in PREFILL_GRAPH_PLATFORMS:
        if holds_in(PREFILL_DEFAULT_TC_PIECEWISE, release):
            return {"prefill.backend": ("tc_piecewise", f"{label('sglang', release)}'s default "
                                        "prefill backend (CudaGraphConfig)")}
        return {}
    return {"prefill.backend": ("disabled", f"prefill graphs are not validated on {facts.device}")}


#: SGLang 0.5.23 ``apply_muse_glimmer_prefill_cuda_graph_max_bs_default``'s prefill max_bs.
MUSE_GLIMMER_PREFILL_MAX_BS = 512


def engine_flag_leaves(leaves: list[Leaf], facts: Facts, release: str) -> list[Leaf]:
    """Values SGLang sets as flags before parsing: they lock like user input.

    Only when no flag of the user's already sets the key (an explicit
    ``--cuda-graph-max-bs-prefill`` wins upstream too), and only in the releases that do it
    (``releases.MUSE_GLIMMER_PREFILL_DEFAULT``).
    """
    if facts.model_arch not in ma.MUSE_GLIMMER_ARCHS \
            or not holds_in(MUSE_GLIMMER_PREFILL_DEFAULT, release):
        return []
    if any(leaf.key == "prefill.max_bs" and leaf.origin.layer == Layer.CONVENIENCE
           for leaf in leaves):
        return []
    origin = Origin(Layer.CONVENIENCE, f"{label('sglang', release)} apply_muse_glimmer_prefill_"
                    "cuda_graph_max_bs_default (--cuda-graph-max-bs-prefill "
                    f"{MUSE_GLIMMER_PREFILL_MAX_BS})", position=-1)
    return [Leaf("prefill.max_bs", MUSE_GLIMMER_PREFILL_MAX_BS, origin)]
