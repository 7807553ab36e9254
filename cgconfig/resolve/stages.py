"""Each engine's stages: the upstream hooks and config stages its rules encode, in run order.

A rule names its stage (``stage:`` in its pack); the pack loader checks the name against its
engine's list here, and the pipeline runs the rules of each stage, to a fixpoint, at that
stage's place, between the engine's own steps. The order is the engine's, never a reading of
a rule's ``source:`` text.

Each engine lists its own (the plug-in part ``stages``: SGLang's hooks in
``cgconfig/engines/sglang/stages.py``). :data:`RESOLVED`, last on every engine, is "after the
engine's whole resolution": the stage of a rule that names none (a user pack's) and the only
stage a ``core`` pack may name.

Stdlib only: the start-up path reads it to check the rule-pack cache.
"""

from __future__ import annotations

from functools import cache

#: After the engine's whole resolution, on every engine.
RESOLVED = "resolved"


@cache
def engine_stages() -> dict[str, tuple[str, ...]]:
    """Each engine's stages in order (its plug-in part ``stages``)."""
    from cgconfig.line.plugins import PACKAGES, part

    return {engine: part(engine, "stages") for engine in PACKAGES}


def stages_of(engine: str) -> tuple[str, ...]:
    """The stages a pack for ``engine`` may name; a ``core`` pack runs on every engine, so
    only the stages every engine has."""
    stages = engine_stages()
    if engine in stages:
        return stages[engine]
    every = list(stages.values())
    return tuple(s for s in every[0] if all(s in v for v in every))


def stage_key() -> str:
    """The stage lists as one string (part of the rule-pack cache key)."""
    return "\0".join(f"{engine}:{','.join(stages)}" for engine, stages in
                     sorted(engine_stages().items()))
