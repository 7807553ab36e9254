"""What a TensorRT-LLM plan's sizes count (the plug-in part ``units``): trtllm-serve's
``cuda_graph_config.batch_sizes`` count requests (tensorrt_llm/llmapi/llm_args.py:
``CudaGraphConfig.batch_sizes``); its piecewise ``capture_num_tokens`` count tokens.
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import phase_units


def units(derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each phase's unit, from the resolution's derived values."""
    return phase_units("requests", 1)
