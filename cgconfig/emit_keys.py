"""What each emitter does with each key, read from the keys' declarations.

Every graph key declares, per engine of ``EMIT_ENGINES`` (the registry's engines but the host),
an ``EngineKey`` (the engine's own spelling, copied as is or written by the emitter's code as
its ``how`` says) or a ``NotExpressible`` (a tagged note); a key an engine added from its own
folder has no mapping for is named in an ``undeclared`` note. The emitters call these two
functions instead of keeping lists of keys, so a new key is never dropped silently: a test
fails while a key declares neither for some shipped engine.
"""

from __future__ import annotations

from typing import Any

from cgconfig.fields.spec import EngineKey, FieldSpec, NotExpressible
from cgconfig.fields.table import all_config_keys, spec
from cgconfig.plan import Plan

__all__ = ["copy_keys", "unsaid"]


def _values(plan: Plan) -> list[tuple[FieldSpec, Any]]:
    """Each graph key's spec and the plan's value: the options first, then the phase keys."""
    keys = sorted(all_config_keys(), key=lambda k: not k.startswith("options."))
    out = []
    for key in keys:
        group, name = key.split(".", 1)
        value = plan.options.get(name) if group == "options" else plan.config[group].get(name)
        out.append((spec(key), value))
    return out


def unsaid(plan: Plan, engine: str, template: str) -> list[tuple[str, str]]:
    """``(tag, text)`` for each key ``engine`` cannot express whose plan value differs from its
    default; ``template`` words the text from ``key`` and ``value`` unless the key declares its
    own note."""
    notes = []
    for field, value in _values(plan):
        mapping = field.mapping(engine)
        if mapping is None and value != field.default:
            # an engine added beside cgconfig's keys (its own folder, no key declares it):
            # the key is named, never dropped
            notes.append(("undeclared", f"{field.key}={value}: no spelling for this engine is "
                                        "declared in cgconfig/fields/"))
        elif isinstance(mapping, NotExpressible) and value != field.default:
            text = mapping.note or template.format(key=field.key, value=value)
            notes.append((mapping.tag, text))
    return notes


def copy_keys(plan: Plan, engine: str, doc: dict[str, Any]) -> None:
    """Write into ``doc`` each key that ``engine`` spells without a ``how`` (copied as is),
    when the plan's value differs from its default; dotted spellings nest."""
    for field, value in _values(plan):
        mapping = field.mapping(engine)
        if not isinstance(mapping, EngineKey) or mapping.how or value == field.default:
            continue
        *parents, leaf = mapping.spelling.split(".")
        target = doc
        for part in parents:
            child = target.get(part)
            target[part] = child = dict(child) if isinstance(child, dict) else {}
            target = child
        target[leaf] = value
