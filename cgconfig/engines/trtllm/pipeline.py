"""TensorRT-LLM's resolution (the plug-in part ``steps``): its dialect step decides the modes and the
sizes as ``TorchLlmArgs`` does; its rules run once that is resolved, and
exactly the listed sizes are captured (:data:`cgconfig.resolve.pipeline.LISTED_STEPS`).
"""

from __future__ import annotations

from cgconfig.resolve.pipeline import LISTED_STEPS, Step

STEPS: tuple[Step, ...] = LISTED_STEPS
