"""ToyLLM's steps: the listed sizes, captured as listed."""

from __future__ import annotations

from cgconfig.resolve.pipeline import LISTED_STEPS, Step

STEPS: tuple[Step, ...] = LISTED_STEPS
