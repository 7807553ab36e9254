"""One rule as plain data: what the rule engine interprets (the JSON form of a validated
:class:`~cgconfig.rules.schema.Rule`, so start-up needs neither YAML nor pydantic)."""

from __future__ import annotations

from typing import Any, NamedTuple

from cgconfig.resolve.stages import RESOLVED


class CompiledRule(NamedTuple):
    """A validated rule as plain data: what the engine interprets."""

    id: str
    title: str
    kind: str
    when: dict[str, Any]
    then: tuple[dict[str, Any], ...]
    reason: str
    hint: str | None
    source: str
    origin: str = "upstream"
    """``advice`` rules change the plan only when named by ``--apply-advice``."""
    stage: str = RESOLVED
    """The engine stage the rule runs at (:mod:`cgconfig.resolve.stages`)."""
    versions: str | None = None
    """The engine releases the rule holds in (``>=0.5.20``); ``None``: every one."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompiledRule:
        """From the JSON form of a :class:`~cgconfig.rules.schema.Rule`."""
        return cls(id=data["id"], title=data["title"], kind=data["kind"], when=data["when"],
                   then=tuple(data["then"]), reason=data["reason"], hint=data.get("hint"),
                   source=data["source"], origin=data.get("origin", "upstream"),
                   stage=data.get("stage", RESOLVED), versions=data.get("versions"))

    def target_keys(self) -> list[str]:
        """Every config key any of the rule's actions may write."""
        keys: list[str] = []
        for action in self.then:
            if "set" in action:
                keys.append(action["set"]["key"])
            elif "clamp" in action:
                keys.append(action["clamp"]["key"])
            elif "align" in action:
                phase = action["align"]["phase"]
                keys += [f"{phase}.bs", f"{phase}.max_bs"]
        return keys
