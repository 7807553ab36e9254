"""ToyLLM's one stage."""

from __future__ import annotations

from cgconfig.resolve.stages import RESOLVED

STAGES: tuple[str, ...] = (RESOLVED,)
