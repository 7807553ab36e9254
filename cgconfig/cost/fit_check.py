"""Whether weights + KV reservation + predicted graphs fit one GPU, and what to cut if not.

Per engine, the memory a rank must hold:

* SGLang: the static pool (``mem_fraction_static`` × GPU) holds the weights and the KV cache;
  graphs and activations live outside it, where SGLang keeps its reserve
  (``handle_gpu_memory_settings``). The plan does not fit when the weights fill the static pool
  (no KV cache) or when the predicted graphs exceed what is left outside it after the
  reserve's non-graph part (activations, metadata, the per-rank share);
* vLLM: ``--gpu-memory-utilization`` (default 0.9) × GPU holds weights, activations, the graph
  estimate and the KV cache: no room left for KV is a failure at start-up;
* TensorRT-LLM: weights + graphs must fit the GPU before the KV cache takes its fraction.

``tight``: the expected graphs fit, the range's high end does not.
"""

from __future__ import annotations

from typing import Any

#: The flag that shrinks each phase's graphs, per engine.
CUTS = {
    ("sglang", "decode"): "--cuda-graph-max-bs-decode (or --cuda-graph-bs-decode)",
    ("sglang", "prefill"): "--cuda-graph-max-bs-prefill, or --cuda-graph-backend-prefill disabled",
    ("vllm", "decode"): "--max-cudagraph-capture-size (or --compilation-config "
                        "'{\"cudagraph_mode\": \"PIECEWISE\"}')",
    ("vllm", "prefill"): "--max-cudagraph-capture-size / cudagraph_capture_sizes",
    ("trtllm", "decode"): "cuda_graph_config.max_batch_size (or batch_sizes)",
}
VLLM_DEFAULT_UTILIZATION = 0.9
"""vLLM 0.33.0's ``--gpu-memory-utilization`` default (``config/cache.py``)."""


def _cuts(dialect: str, cost: dict[str, Any]) -> list[str]:
    ranked = []
    for phase, entry in cost["phases"].items():
        mem = ((entry.get("predicted") or {}).get("graph_memory_gib") or {}).get("expected")
        if mem:
            ranked.append((mem, phase, entry["graphs"]))
    return [f"{phase}: {n} graphs, ~{mem:.2f} GiB: {CUTS.get((dialect, phase), 'fewer sizes')}"
            for mem, phase, n in sorted(ranked, reverse=True)]


def fit_check(dialect: str, cost: dict[str, Any], engine: dict[str, Any],
              sglang_reserve: dict[str, Any] | None) -> dict[str, Any]:
    """``{"status": fits|tight|does-not-fit|unknown, "why", "cut", "breakdown_gib"}``."""
    gpu = cost["deployment"]["gpu_memory_gib"]
    weights = cost["model"]["weights_gib_per_rank"]
    graphs = cost["total"]["graph_memory_gib"] or {"expected": 0.0, "high": 0.0}
    if gpu is None:
        return {"status": "unknown", "why": "GPU memory unknown (give --gpu-memory-gib)"}
    if weights is None:
        missing = ", ".join(cost["model"].get("unknown") or []) or "the model's shapes"
        return {"status": "unknown", "why": f"model weights unknown (not known: {missing})"}
    expected, high = graphs["expected"], graphs["high"]
    breakdown: dict[str, float] = {"gpu": gpu, "weights": weights, "graphs_expected": expected}
    status, why = "fits", ""
    if dialect == "sglang":
        fraction = float((engine.get("mem_fraction_static") or {}).get("value") or 0.9)
        static = fraction * gpu
        outside = gpu - static
        reserved = sum(sglang_reserve["parts"].values()) / 1024 if sglang_reserve else 0.0
        breakdown.update(static_pool=round(static, 2), kv_cache=round(static - weights, 2),
                         outside_static=round(outside, 2), engine_graph_reserve=round(reserved, 3))
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
    else:
        budget = gpu * (VLLM_DEFAULT_UTILIZATION if dialect == "vllm" else 1.0)
        kv = budget - weights - expected
        breakdown.update(budget=round(budget, 2), kv_cache=round(kv, 2))
        if kv <= 0:
            status = "does-not-fit"
            why = (f"weights (~{weights:.1f} GiB) + graphs (~{expected:.2f} GiB) leave no KV "
                   f"cache in {budget:.1f} GiB; raise tensor parallelism or cut graphs")
        elif budget - weights - high <= 0:
            status, why = "tight", f"with the graphs' high estimate ({high:.2f} GiB) no KV cache is left"
    out: dict[str, Any] = {"status": status, "why": why,
                           "breakdown_gib": {k: round(v, 3) for k, v in breakdown.items()}}
    if status != "fits":
        out["cut"] = _cuts(dialect, cost)
    return out
