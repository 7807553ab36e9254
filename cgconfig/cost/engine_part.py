"""What the cost core asks of an engine: the plug-in part ``cost`` (``cgconfig.line.plugins``).

Every engine's package has a ``cost.py`` whose ``COST`` is an :class:`EngineCost`: the engine's
own reservation for graph memory (SGLang's reserve, vLLM's boot-time estimator, TensorRT-LLM's
none), how its memory is budgeted on a GPU (the fit check), the flag that cuts each phase, the
log groups ``verify`` reads per phase, whether it always compiles, and whether its phases share
one graph pool. The core (:mod:`cgconfig.cost.plan_cost`, :mod:`.fit_check`, :mod:`.compare`,
:mod:`.budget`) names no engine: it reads these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple


class CostContext(NamedTuple):
    """What an engine's cost functions read: the resolved plan's pieces."""

    label: str
    """The release the plan answers for (``SGLang 0.5.23``), for the sources the part cites."""
    facts: dict[str, Any]
    engine: dict[str, Any]
    """The plan's engine block (SGLang's derived settings; empty for other engines)."""
    options: dict[str, Any]
    engine_reserve: dict[str, Any] | None
    """What the engine's pipeline computed of its own reservation (SGLang's memory hook), or
    ``None``."""


class SharedPool(NamedTuple):
    """Phases whose graphs live in one memory pool, predicted together.

    vLLM captures every mode's graphs into one global graph pool (0.33.0
    ``compilation/cuda_graph.py:CUDAGraphWrapper.__init__``) and logs one total for the whole
    capture; its boots are fitted on that total. The plan then
    predicts the pool once, from all its graphs, instead of adding one prediction per phase."""

    name: str
    phase: str
    """The class the pool's prediction reads: ``engine/phase/backend``."""
    backend: str
    why: str


class EngineCost(NamedTuple):
    """One engine's answers to the cost core (see the module docstring)."""

    reservation: Callable[[str, tuple[int, ...], CostContext], dict[str, Any] | None]
    """The engine's own reservation for one phase's graphs (``gib``, ``source``, ``how``), or
    ``None`` where it has none to show."""
    cuts: Mapping[str, str]
    """Per phase, the flag that makes its graphs fewer or smaller."""
    log_groups: Mapping[str, str]
    """A capture group of the engine's log (``verify``) → the plan phase it measures."""
    budget_fraction: float = 1.0
    """The share of the GPU weights, graphs and KV cache must fit in (the generic fit check)."""
    budget_source: str = ""
    engine_reserve: Callable[[CostContext], dict[str, Any] | None] = lambda ctx: None
    """The plan-level ``cost.engine_reserve`` block, or ``None``."""
    fit_check: Callable[[dict[str, Any], CostContext], dict[str, Any] | None] = (
        lambda cost, ctx: None)
    """The engine's own fit check (``status``, ``why``, ``breakdown_gib``), or ``None`` for the
    generic one (weights + graphs + KV cache within :attr:`budget_fraction` of the GPU)."""
    compiles: Callable[[dict[str, Any]], bool] = lambda options: False
    """Whether start-up runs torch.compile (whose time is not predicted)."""
    shared_pool: SharedPool | None = None
