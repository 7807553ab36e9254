"""The engines' own reservation for graph memory, per phase, where the engine has one.

* SGLang folds a fixed reserve into ``mem_fraction_static``: ``memory_hook.reserve_for_graph_mb``
  inside ``arg_groups/memory_hook.py:handle_gpu_memory_settings`` (ported in
  :func:`cgconfig.engines.sglang.memory.graph_reserve_parts`; the pipeline computes it from the
  config as the hook sees it and hands it here).
* vLLM (≥ 0.21, ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1`` by default in 0.33.0) estimates at
  boot, on the GPU: ``v1/worker/gpu_model_runner.py:GPUModelRunner.profile_cudagraph_memory``
  captures the first two graphs of each mode, then takes ``max(first capture over modes) +
  Σ max(second capture, 1 MiB) × (graphs − 1)`` and ``gpu_worker.py:determine_available_memory``
  subtracts it from the KV cache. What it will measure cannot be computed off the GPU; its
  floor (1 MiB per further graph) can, and cgconfig's own per-graph prediction shows what the
  linear extrapolation gives.
* TensorRT-LLM reserves nothing for graphs: the KV cache takes ``free_gpu_memory_fraction`` of
  what is free after start-up, and its docs put a graph at "up to 200 MB".
"""

from __future__ import annotations

from typing import Any

from cgconfig.line.versions import release_label

VLLM_CODE = ("v1/worker/gpu_model_runner.py:GPUModelRunner.profile_cudagraph_memory (subtracted "
             "in v1/worker/gpu_worker.py:determine_available_memory)")
TRTLLM_SOURCE = "TensorRT-LLM: no graph reservation (KV cache: free_gpu_memory_fraction of the rest)"


def sglang_reserve(parts: dict[str, float], label: str, phase: str,
                   why: dict[str, str]) -> dict[str, Any]:
    """SGLang's reserve for one phase, in GiB, from the hook's parts (MiB)."""
    return {"gib": round(parts.get(phase, 0.0) / 1024, 6), "mib": parts.get(phase, 0.0),
            "source": f"{label} arg_groups/memory_hook.py:handle_gpu_memory_settings "
                      "(reserve_for_graph_mb)",
            "how": why.get(phase, "")}


def vllm_estimate(graphs: int, estimating: bool) -> dict[str, Any]:
    """What vLLM's boot-time estimator does for a mode of ``graphs`` graphs: the formula, and the
    floor it cannot go under (1 MiB per graph after the first)."""
    source = f"{release_label('vllm')} {VLLM_CODE}"
    if not estimating:
        return {"gib": 0.0, "source": source,
                "how": "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0: nothing is subtracted"}
    return {"gib": None, "floor_gib": round(max(graphs - 1, 0) / 1024, 4), "source": source,
            "how": "measured at boot on the GPU: first capture + max(second capture, 1 MiB) × "
                   f"({graphs} − 1); FULL's first capture runs with max_num_tokens // size "
                   "sequences, so it overshoots long-context FULL graphs"}


def trtllm_reserve() -> dict[str, Any]:
    """TensorRT-LLM has no reservation of its own."""
    return {"gib": 0.0, "source": TRTLLM_SOURCE,
            "how": "graphs come out of the memory the KV cache leaves"}
