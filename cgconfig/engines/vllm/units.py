"""What a vLLM plan's sizes count (the plug-in part ``units``): vLLM has one capture-size list
counting tokens; a uniform decode step of N requests is N * (1 + num_speculative_tokens) tokens
(vllm/config/compilation.py: ``CompilationConfig.adjust_cudagraph_sizes_for_spec_decode``).
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import phase_units


def units(derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each phase's unit, from the resolution's derived values."""
    return phase_units("tokens", int(derived.get("vllm_tokens_per_request", 1)))
