"""The one lock policy every downgrade follows: rules from the packs and vLLM's Stage B alike.

* A ``policy`` never changes a key the user set: it is skipped and the skip is recorded.
* A ``constraint`` (a real incompatibility) overrides such a key with a warning naming the
  user's input; under ``--strict`` that is an error (exit 3) listing the remedies, unless
  ``--allow-override ID`` names the rule.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

Verdict = Literal["apply", "skip", "conflict"]


class LockPolicy(NamedTuple):
    """``--strict`` and ``--allow-override``: how a downgrade may treat a locked key."""

    strict: bool = False
    allow_override: frozenset[str] = frozenset()

    def verdict(self, rule_id: str, kind: str, locked: list[str]) -> Verdict:
        """What a rule of ``kind`` may do when it would change the ``locked`` keys."""
        if not locked:
            return "apply"
        if kind == "policy":
            return "skip"
        if self.strict and rule_id not in self.allow_override:
            return "conflict"
        return "apply"


def conflict_message(rule_id: str, key: str, current: Any, wanted: Any, inputs: str,
                     reason: str, remedies: list[str]) -> str:
    """The ``--strict`` error for one locked key a constraint would change."""
    return (f"rule {rule_id} (constraint) would change {key} from {current!r} to {wanted!r}, "
            f"which {inputs} set explicitly: {reason}. Remedies: drop {inputs}; "
            + "; ".join(f"or {r}" for r in remedies))
