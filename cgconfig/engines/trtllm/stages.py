"""TensorRT-LLM's stages (the plug-in part ``stages``): its dialect step resolves its whole config, so
its rules run once, after it. Stdlib only.
"""

from __future__ import annotations

from cgconfig.resolve.stages import RESOLVED

STAGES: tuple[str, ...] = (RESOLVED,)

#: No ``derived.*`` paths of its own (the plug-in part ``derived_types``): its rules, if any,
#: read the engine-neutral ones.
DERIVED_TYPES = None
