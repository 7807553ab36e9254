"""vLLM's answers to the cost core (:class:`cgconfig.cost.engine_part.EngineCost`).

* Reservation: vLLM (≥ 0.21, ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1`` by default in
  0.33.0) estimates at boot, on the GPU:
  ``v1/worker/gpu_model_runner.py:GPUModelRunner.profile_cudagraph_memory`` captures the first
  two graphs of each mode, then takes ``max(first capture over modes) + Σ max(second capture,
  1 MiB) × (graphs − 1)`` and ``gpu_worker.py:determine_available_memory`` subtracts it from the
  KV cache. What it will measure cannot be computed off the GPU; its floor (1 MiB per further
  graph) can.
* One pool: every mode's graphs are captured into the one global graph pool (vLLM 0.33.0
  ``compilation/cuda_graph.py:CUDAGraphWrapper.__init__``: ``self.graph_pool =
  current_platform.get_global_graph_pool()``), and the boot log gives one total for the
  capture (``v1/worker/gpu_model_runner.py:GPUModelRunner.capture_model``: ``Graph capturing
  finished in … secs, took … GiB``), which is what the public boots
  of ``vllm/prefill/breakable`` are fitted on (their graph count is the sum over modes). The
  plan predicts that pool once from all its graphs.
* Budget: ``--gpu-memory-utilization`` (default 0.9, ``config/cache.py``) × GPU holds weights,
  activations, the graph estimate and the KV cache.
"""

from __future__ import annotations

from typing import Any

from cgconfig.cost.engine_part import CostContext, EngineCost, SharedPool
from cgconfig.line.versions import release_label

CODE = ("v1/worker/gpu_model_runner.py:GPUModelRunner.profile_cudagraph_memory (subtracted "
        "in v1/worker/gpu_worker.py:determine_available_memory)")
DEFAULT_UTILIZATION = 0.9
"""vLLM 0.33.0's ``--gpu-memory-utilization`` default (``config/cache.py``)."""


def estimate(graphs: int, estimating: bool = True) -> dict[str, Any]:
    """What vLLM's boot-time estimator does for a mode of ``graphs`` graphs: the formula, and
    the floor it cannot go under (1 MiB per graph after the first); cited from the newest
    release's code, where it was read."""
    source = f"{release_label('vllm')} {CODE}"
    if not estimating:
        return {"gib": 0.0, "source": source,
                "how": "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0: nothing is subtracted"}
    return {"gib": None, "floor_gib": round(max(graphs - 1, 0) / 1024, 4), "source": source,
            "how": "measured at boot on the GPU: first capture + max(second capture, 1 MiB) × "
                   f"({graphs} − 1); FULL's first capture runs with max_num_tokens // size "
                   "sequences, so it overshoots long-context FULL graphs"}


def reservation(phase: str, sizes: tuple[int, ...], ctx: CostContext) -> dict[str, Any] | None:
    """The estimator's formula and floor for one mode's graphs."""
    return estimate(len(sizes)) if sizes else None


COST = EngineCost(
    reservation=reservation,
    cuts={"decode": "--max-cudagraph-capture-size (or --compilation-config "
                    "'{\"cudagraph_mode\": \"PIECEWISE\"}')",
          "prefill": "--max-cudagraph-capture-size / cudagraph_capture_sizes"},
    log_groups={"decode FULL": "decode", "mixed PIECEWISE": "prefill", "mixed FULL": "prefill"},
    budget_fraction=DEFAULT_UTILIZATION,
    budget_source="--gpu-memory-utilization (default 0.9, vLLM config/cache.py)",
    compiles=lambda options: True,
    shared_pool=SharedPool(
        "graph_pool", "prefill", "breakable",
        f"{release_label('vllm')} captures every mode into one global graph pool "
        "(compilation/cuda_graph.py:CUDAGraphWrapper.__init__, "
        "current_platform.get_global_graph_pool()) and logs one total "
        "(v1/worker/gpu_model_runner.py:GPUModelRunner.capture_model); predicted once from "
        "all its graphs with the class fitted on those totals"),
)
