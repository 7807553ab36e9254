"""What an SGLang plan's sizes count (the plug-in part ``units``): SGLang 0.5.23 sizes decode
graphs by requests, each verifying ``request_width`` tokens under speculative decoding
(python/sglang/srt/model_executor/model_runner.py: ``ModelRunner.decode_num_tokens_per_req``),
and prefill graphs by tokens.
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import phase_units


def units(derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each phase's unit, from the resolution's derived values."""
    return phase_units("requests", int(derived.get("request_width", 1)))
