"""The draft configuration the resolver and the rules work on.

A flat map of dotted keys (``decode.max_bs``, ``options.disable_padding``) to values, a chain of
entries per key (default → inputs → resolver → rules), the locked set frozen from the user's
inputs, and the decisions and warnings so far. Size lists that nobody set are *derived*: they
follow their phase's ``max_bs`` whenever a rule moves it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cgconfig.locks import LockPolicy
from cgconfig.plan import Change, Decision
from cgconfig.provenance import ChainEntry, Leaf

SizeGenerator = Callable[[str, int], list[int]]
#: ``{engine.label}`` (``SGLang 0.5.20``) and ``{engine.version}``: placeholders a rule's reason
#: or hint may use for the release the line is answered for.
ENGINE_PLACEHOLDERS = ("label", "version")


@dataclass
class Draft:
    """Mutable resolution state. Only the resolver and the rule engine write to it."""

    values: dict[str, Any]
    chains: dict[str, list[ChainEntry]]
    locked: frozenset[str]
    leaves: dict[str, list[Leaf]]
    """User leaves per key in precedence order (for naming the input a lock came from)."""
    facts: dict[str, Any]
    derived: dict[str, Any] = field(default_factory=dict)
    decisions: list[Decision] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    derived_sizes: set[str] = field(default_factory=set)
    """Phases whose ``bs`` list is generated from ``max_bs`` (not set by anyone)."""
    size_generator: SizeGenerator | None = None
    policy: LockPolicy = field(default_factory=LockPolicy)
    """How downgrades treat locked keys (``--strict``, ``--allow-override``)."""
    engine_version: str | None = None
    """The release of the line's engine the line is answered for (set by ``lock-inputs``, for
    every engine); an engine's steps read that release's rows of its ``releases.py``, a rule's
    ``{engine.label}`` names it."""
    decode_filter: Callable[[list[int]], list[int]] | None = None
    """A dialect's own capture filter (TensorRT-LLM's and vLLM's, set by their steps):
    configured decode sizes → captured ones, recording its decisions. ``None``: SGLang's filter."""

    def get(self, key: str) -> Any:
        """The current value of a dotted key."""
        return self.values[key]

    def lookup(self, path: str) -> Any:
        """Resolve a rule path: ``facts.x``, ``derived.x``, ``config.<phase>.<key>``, ``options.x``."""
        root, _, rest = path.partition(".")
        if root == "facts":
            return self.facts[rest]
        if root == "derived":
            return self.derived.get(rest)
        if root == "config":
            return self.values[rest]
        if root == "options":
            return self.values[path]
        if root == "locked":
            return rest in self.locked
        if root == "engine" and rest in ENGINE_PLACEHOLDERS:
            # Text placeholders only ({engine.label} in a reason): the release the line is
            # answered for, from the registry (conditions use a rule's ``versions:``).
            from cgconfig.line.versions import SUPPORTED, label, newest

            engine = str(self.derived.get("dialect") or "sglang")
            version = self.engine_version or (newest(engine) if engine in SUPPORTED else "")
            return label(engine, version) if rest == "label" else version
        raise KeyError(path)

    def user_inputs(self, key: str) -> list[str]:
        """The inputs that set (and so locked) a key, as ``flag`` or ``flag at pointer``."""
        return [leaf.origin.describe() for leaf in self.leaves.get(key, [])]

    def record(self, key: str, value: Any, *, source: str, layer: str, why: str | None = None,
               at: str | None = None) -> Change | None:
        """Set a key and append to its chain; returns the change, or None if nothing moved."""
        before = self.values.get(key)
        self.values[key] = value
        self.chains.setdefault(key, []).append(
            ChainEntry(source=source, value=value, layer=layer, at=at, why=why))
        if before == value:
            return None
        changes = Change(key, before, value)
        phase, _, name = key.partition(".")
        if name == "max_bs" and phase in self.derived_sizes and self.size_generator is not None:
            self._regenerate(phase, source=source, layer=layer)
        return changes

    def _regenerate(self, phase: str, *, source: str, layer: str) -> None:
        assert self.size_generator is not None
        max_bs = self.values[f"{phase}.max_bs"]
        sizes = self.size_generator(phase, max_bs)
        self.values[f"{phase}.bs"] = sizes
        self.chains.setdefault(f"{phase}.bs", []).append(ChainEntry(
            source=source, value=sizes, layer=layer,
            why=f"regenerated from {phase}.max_bs={max_bs} (bs was not set explicitly)"))

    def mark_sizes_explicit(self, phase: str) -> None:
        """A rule rewrote the list itself: it no longer follows max_bs."""
        self.derived_sizes.discard(phase)
