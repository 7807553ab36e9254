"""SGLang's answers to the cost core (:class:`cgconfig.cost.engine_part.EngineCost`).

SGLang folds a fixed reserve into ``mem_fraction_static``: ``reserve_for_graph_mb`` inside
``arg_groups/memory_hook.py:handle_gpu_memory_settings`` (ported in
:func:`cgconfig.engines.sglang.memory.graph_reserve_parts`; the pipeline computes it from the
config as the hook sees it, :func:`cgconfig.engines.sglang.engine_block.graph_reserve`). The
static pool (``mem_fraction_static`` × GPU) holds the weights and the KV cache; graphs and
activations live outside it, where the reserve is kept.
"""

from __future__ import annotations

from typing import Any

from cgconfig.cost.engine_part import CostContext, EngineCost


def reservation(phase: str, sizes: tuple[int, ...], ctx: CostContext) -> dict[str, Any] | None:
    """SGLang's reserve for one phase, in GiB, from the hook's parts (MiB)."""
    reserve = ctx.engine_reserve
    if reserve is None:
        return None
    parts, why = reserve["parts"], reserve["why"]
    return {"gib": round(parts.get(phase, 0.0) / 1024, 6), "mib": parts.get(phase, 0.0),
            "source": f"{ctx.label} arg_groups/memory_hook.py:handle_gpu_memory_settings "
                      "(reserve_for_graph_mb)",
            "how": why.get(phase, "")}


def engine_reserve(ctx: CostContext) -> dict[str, Any] | None:
    """The whole reserve the hook keeps out of the static pool, graph reserve included."""
    reserve = ctx.engine_reserve
    if reserve is None:
        return None
    return {"graph_gib": round(sum(reserve["parts"].values()) / 1024, 6),
            "reserved_gib": round(reserve["reserved_mib"] / 1024, 6),
            "applied": reserve["applied"],
            "source": f"{ctx.label} arg_groups/memory_hook.py:handle_gpu_memory_settings: "
                      "the memory kept out of the static pool (graph reserve included)"}


def fit_check(cost: dict[str, Any], ctx: CostContext) -> dict[str, Any]:
    """Does not fit when the weights fill the static pool (no KV cache) or when the predicted
    graphs exceed what is left outside it; tight when the range's high end does, or when the
    graphs take more than half the headroom above SGLang's own graph reserve."""
    gpu = cost["deployment"]["gpu_memory_gib"]
    weights = cost["model"]["weights_gib_per_rank"]
    graphs = cost["total"]["graph_memory_gib"] or {"expected": 0.0, "high": 0.0}
    expected, high = graphs["expected"], graphs["high"]
    fraction = float((ctx.engine.get("mem_fraction_static") or {}).get("value") or 0.9)
    static = fraction * gpu
    outside = gpu - static
    reserve = ctx.engine_reserve
    reserved = sum(reserve["parts"].values()) / 1024 if reserve else 0.0
    breakdown = {"gpu": gpu, "weights": weights, "graphs_expected": expected,
                 "static_pool": round(static, 2), "kv_cache": round(static - weights, 2),
                 "outside_static": round(outside, 2), "engine_graph_reserve": round(reserved, 3)}
    status, why = "fits", ""
    if static <= weights:
        status = "does-not-fit"
        why = (f"the weights (~{weights:.1f} GiB per rank) fill the static pool "
               f"(mem_fraction_static {fraction:g} × {gpu:g} GiB = {static:.1f} GiB): no KV "
               "cache; raise --tp-size / --pp-size or use a quantized model")
    elif expected > outside:
        status = "does-not-fit"
        why = (f"the predicted graphs (~{expected:.2f} GiB) exceed the {outside:.2f} GiB "
               "SGLang leaves outside its static pool (weights + KV cache) for graphs and "
               "activations; cut graphs, or lower --mem-fraction-static")
    elif high > outside or expected > reserved + 0.5 * (outside - reserved):
        status = "tight"
        why = (f"the predicted graphs (~{expected:.2f} GiB, up to {high:.2f}) against "
               f"SGLang's graph reserve of {reserved:.2f} GiB: the excess comes out of the "
               f"activation headroom ({outside:.2f} GiB outside the static pool)")
    return {"status": status, "why": why, "breakdown_gib": breakdown}


COST = EngineCost(
    reservation=reservation,
    cuts={"decode": "--cuda-graph-max-bs-decode (or --cuda-graph-bs-decode)",
          "prefill": "--cuda-graph-max-bs-prefill, or --cuda-graph-backend-prefill disabled"},
    log_groups={"decode": "decode", "prefill": "prefill"},
    engine_reserve=engine_reserve,
    fit_check=fit_check,
    compiles=lambda options: bool(options.get("enable_torch_compile")),
)
