"""TensorRT-LLM's answers to the cost core (:class:`cgconfig.cost.engine_part.EngineCost`).

TensorRT-LLM reserves nothing for graphs: the KV cache takes ``free_gpu_memory_fraction`` of
what is free after start-up, and its docs put a graph at "up to 200 MB". Weights and graphs must
fit the GPU before the KV cache takes its fraction.
"""

from __future__ import annotations

from typing import Any

from cgconfig.cost.engine_part import CostContext, EngineCost

SOURCE = "TensorRT-LLM: no graph reservation (KV cache: free_gpu_memory_fraction of the rest)"


def reservation(phase: str, sizes: tuple[int, ...], ctx: CostContext) -> dict[str, Any] | None:
    """No reservation of its own."""
    if not sizes:
        return None
    return {"gib": 0.0, "source": SOURCE, "how": "graphs come out of the memory the KV cache leaves"}


COST = EngineCost(
    reservation=reservation,
    cuts={"decode": "cuda_graph_config.max_batch_size (or batch_sizes)"},
    log_groups={"decode": "decode"},
)
