"""Tune a deployment's decode sizes through the normal resolver.

1. Resolve the launch line as given: the default plan and its decode list.
2. Resolve it again with every size ``1..U`` as a locked ``decode.bs``: what the capture filter
   and the rules keep is the set of sizes this deployment allows (alignment under DP attention,
   request width under speculative decoding, the request pool), so the optimiser chooses among
   them instead of having its choice rounded afterwards.
3. Optimise over the histogram (:mod:`cgconfig.tune.optimize`).
4. Resolve once more with the tuned list locked (provenance ``tune: FILE``): every rule still
   runs, and the tuned list must come out captured unchanged.

This module imports the resolver (pydantic); the optimiser itself does not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cgconfig.api import resolve_request as resolve
from cgconfig.errors import InputError
from cgconfig.plan import Plan
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import ResolveRequest
from cgconfig.tune.histogram import Histogram
from cgconfig.tune.optimize import (
    MAX_GRAPHS,
    Metrics,
    StepCost,
    best_sizes,
    coverable,
    evaluate,
    fewest_for_waste,
)

TUNE_LIMIT = 4096
"""Largest decode size tune offers beyond the default range: batches above it run eagerly."""
_LAST = 1 << 30
"""Position of tune's leaf: after every input of the config layer, so it wins."""


@dataclass(frozen=True)
class TuneResult:
    """The default and tuned plans with their metrics over one histogram."""

    default_plan: Plan
    plan: Plan
    counts: dict[int, int]
    allowed: list[int]
    default_metrics: Metrics
    tuned_metrics: Metrics
    objective: str
    constraint: dict[str, Any]
    graphs_for_1pct: int | None
    source: str

    @property
    def default_sizes(self) -> list[int]:
        """What the default plan captures for decode."""
        return self.default_plan.capture_sizes("decode")

    @property
    def tuned_sizes(self) -> list[int]:
        """What the tuned plan captures for decode."""
        return self.plan.capture_sizes("decode")

    @property
    def memory_ratio(self) -> float:
        """Capture memory of the tuned list relative to the default: the largest graph sets the
        shared pool's size (benchmarks/RESULTS.md: all sizes together reserve what the largest
        alone does), so the ratio of the largest sizes."""
        default, tuned = self.default_sizes, self.tuned_sizes
        return (tuned[-1] / default[-1]) if default and tuned else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The ``tune`` key of ``cgconfig tune -o json``."""
        def side(sizes: list[int], metrics: Metrics, memory: float) -> dict[str, Any]:
            out: dict[str, Any] = {
                "sizes": sizes, "graphs": metrics.graphs,
                "padding_waste": round(metrics.waste, 6),
                "eager_step_share": round(metrics.eager_share, 6),
                "padded_rows_per_step": round(metrics.padded_rows / metrics.steps, 4)
                if metrics.steps else 0.0,
                "relative_capture_memory": round(memory, 4),
            }
            if metrics.expected_cost is not None:
                out["expected_step_ms"] = round(metrics.expected_cost, 6)
            return out

        return {
            "histogram": self.source, "phase": "decode", "objective": self.objective,
            "constraint": self.constraint,
            "steps": self.default_metrics.steps,
            "allowed_sizes": {"count": len(self.allowed),
                              "max": self.allowed[-1] if self.allowed else None},
            "graphs_for_1pct_waste": self.graphs_for_1pct,
            "default": side(self.default_sizes, self.default_metrics, 1.0),
            "tuned": side(self.tuned_sizes, self.tuned_metrics, self.memory_ratio),
        }


def _with_sizes(request: ResolveRequest, sizes: list[int], source: str) -> ResolveRequest:
    leaf = Leaf("decode.bs", list(sizes), Origin(Layer.CONFIG, source, position=_LAST))
    return dataclasses.replace(request, leaves=[*request.leaves, leaf])


def _alignment(plan: Plan) -> str:
    align = plan.capture["decode"].get("alignment") or {}
    return (f"multiple {align.get('multiple', 1)}, request width "
            f"{align.get('request_width', 1)}")


def _upper(default: Plan, counts: dict[int, int]) -> int:
    max_bs = int(default.config["decode"]["max_bs"] or 0)
    if "decode.max_bs" in default.locked:
        return max_bs  # the user's bound on graph sizes stands
    observed = max(counts, default=0)
    return max(max_bs, min(observed, max(max_bs, TUNE_LIMIT)))


def tune_plan(request: ResolveRequest, histogram: Histogram, source: str, *,
              max_graphs: int | None = None, max_waste_pct: float | None = None,
              cost: StepCost | None = None, cost_source: str | None = None) -> TuneResult:
    """Tune the decode sizes of ``request`` to ``histogram`` (read from ``source``)."""
    where = f"--histogram {source}"
    default = resolve(request)
    if default.config["decode"]["backend"] == "disabled" or not default.capture_sizes("decode"):
        raise InputError("this deployment captures no decode graphs, so there is nothing to tune",
                         where="command line",
                         hint="drop the flag or rule input that disables decode graphs")
    counts = dict(histogram.phase("decode"))
    if not counts:
        raise InputError("the histogram has no decode batch sizes", where=where,
                         hint='record one with runner.stats.write_histogram(path) or convert a '
                              'server log (cgconfig histogram --sglang-log LOG)')
    label = f"tune: {source}"
    probe = resolve(_with_sizes(request, list(range(1, _upper(default, counts) + 1)), label))
    allowed = probe.capture_sizes("decode")
    servable = coverable(counts, allowed)
    if not servable:
        raise InputError(f"every batch in the histogram is larger than the largest size this "
                         f"deployment allows ({allowed[-1] if allowed else 0})", where=where)
    if max_waste_pct is not None:
        chosen = fewest_for_waste(counts, allowed, max_waste_pct / 100.0, limit=MAX_GRAPHS)
        floor = evaluate(allowed, servable)
        if chosen is None and floor.waste <= max_waste_pct / 100.0:
            raise InputError(f"reaching {max_waste_pct:g} % padding waste needs more than "
                             f"{MAX_GRAPHS} graphs", where="--max-waste",
                             hint="raise the bound")
        if chosen is None:
            raise InputError(
                f"no list of the sizes this deployment allows reaches {max_waste_pct:g} % "
                f"padding waste: capturing every allowed size still wastes "
                f"{100 * floor.waste:.2f} % (alignment {_alignment(default)})",
                where="--max-waste", hint="raise the bound or relax the alignment")
        constraint: dict[str, Any] = {"max_waste_pct": max_waste_pct}
    else:
        count = max_graphs if max_graphs is not None else min(
            len(default.capture_sizes("decode")), MAX_GRAPHS)
        chosen = best_sizes(counts, allowed, count, cost)
        constraint = {"max_graphs": count}
        if not chosen:
            raise InputError("under the cost model every graph is slower than running eagerly",
                             where=f"--cost {cost_source}",
                             hint="check the model's graph and eager lines")
    plan = resolve(_with_sizes(request, chosen, label))
    if plan.capture_sizes("decode") != chosen:
        got = plan.capture_sizes("decode")
        vllm = plan.units.get("decode", {}).get("counts") == "tokens"  # vLLM counts tokens
        raise InputError(
            f"the resolver changed the tuned list ({len(chosen)} sizes, up to "
            f"{max(chosen)}) to {len(got)} sizes{f' up to {max(got)}' if got else ''}",
            where="command line",
            hint="a vLLM line takes its capture sizes from vLLM's own size grid "
                 "(-cc.cudagraph_capture_sizes), which tune does not set: tune the SGLang line"
            if vllm else "a rule depends on the list itself, which tune cannot optimise under")
    one_pct = fewest_for_waste(counts, allowed, 0.01, limit=MAX_GRAPHS)
    objective = (f"step time (cost model {cost_source})" if cost is not None
                 and max_waste_pct is None else "padded rows")
    return TuneResult(
        default_plan=default, plan=plan, counts=counts, allowed=allowed,
        default_metrics=evaluate(default.capture_sizes("decode"), counts, cost),
        tuned_metrics=evaluate(chosen, counts, cost),
        objective=objective, constraint=constraint,
        graphs_for_1pct=len(one_pct) if one_pct is not None else None, source=source)
