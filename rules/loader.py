"""Load rule packs from YAML: validate them against the schema, check paths and literals,
and keep a JSON cache of the shipped packs so start-up never parses YAML or builds models.

This is the cold path (pydantic, YAML); :mod:`cgconfig.rules.loading` reads the cache as plain
data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import check_rule_count, quote
from cgconfig.resolve.stages import stages_of
from cgconfig.rules import paths
from cgconfig.rules.cache import (
    capability_files,
    pack_engine,
    read_cache,
    shipped_pack_files,
    write_cache,
)
from cgconfig.rules.evaluate import PLACEHOLDER
from cgconfig.rules.ruleset import RuleSet
from cgconfig.rules.schema import (
    COMPARISONS,
    All,
    Any_,
    Capability,
    CapabilityTable,
    Condition,
    Contains,
    In,
    IsSet,
    Not,
    NotIn,
    Rule,
    RulePack,
)

__all__ = ["check_rule", "load_capabilities", "load_pack_file", "load_rule_set",
           "shipped_packs"]

def _pydantic_error(exc: ValidationError, name: str, lines: dict[tuple[Any, ...], int]) -> InputError:
    from cgconfig.docio import locate

    err = exc.errors(include_url=False)[0]
    loc = tuple(err["loc"])
    # Discriminator-less unions report every member; keep the path to the data only.
    data_loc = tuple(p for p in loc if isinstance(p, int) or p in _data_keys(lines))
    where = locate(name, lines, data_loc)
    dotted = ".".join(str(p) for p in loc)
    return InputError(f"{err['msg']} at {dotted}", where=where)


def _data_keys(lines: dict[tuple[Any, ...], int]) -> set[Any]:
    return {part for key in lines for part in key}


def _check_condition(cond: Condition, errors: list[str], where: str) -> None:
    if isinstance(cond, All):
        for c in cond.all:
            _check_condition(c, errors, where)
    elif isinstance(cond, Any_):
        for c in cond.any:
            _check_condition(c, errors, where)
    elif isinstance(cond, Not):
        _check_condition(cond.not_, errors, where)
    elif isinstance(cond, (In, NotIn)):
        operand = cond.in_ if isinstance(cond, In) else cond.not_in
        problem = paths.check_path(operand.path)
        if problem:
            errors.append(f"{where}: {problem}")
            return
        for value in operand.values:
            bad = paths.check_literal(operand.path, value)
            if bad:
                errors.append(f"{where}: {bad}")
    elif isinstance(cond, IsSet):
        problem = paths.check_path(cond.is_set.path)
        if problem:
            errors.append(f"{where}: {problem}")
    elif isinstance(cond, Contains):
        problem = paths.check_path(cond.contains.path) or paths.check_item(
            cond.contains.path, cond.contains.value)
        if problem:
            errors.append(f"{where}: {problem}")
    elif isinstance(cond, Capability):
        return
    else:
        op = _op_name(cond)
        operand = getattr(cond, op)
        problem = paths.check_path(operand.path)
        if problem:
            errors.append(f"{where}: {problem}")
            return
        if operand.ref is not None:
            problem = paths.check_path(operand.ref)
            if problem:
                errors.append(f"{where}: {problem}")
        else:
            bad = paths.check_literal(operand.path, operand.value)
            if bad:
                errors.append(f"{where}: {bad}")


def _op_name(cond: Condition) -> str:
    for op in COMPARISONS:
        if hasattr(cond, op):
            return op
    raise TypeError(type(cond).__name__)


def check_rule(rule: Rule) -> list[str]:
    """Every path, key, literal and placeholder of one rule; returns the problems found."""
    errors: list[str] = []
    where = f"rule {rule.id}"
    _check_condition(rule.when, errors, where)
    for action in rule.then:
        for key in action.target_keys():
            problem = paths.check_key(key)
            if problem:
                errors.append(f"{where}: {problem}")
        if action.set is not None:
            key = action.set.key
            if not paths.check_key(key):
                prefix = "" if key.startswith("options.") else "config."
                bad = paths.check_literal(prefix + key, action.set.value)
                if bad:
                    errors.append(f"{where}: {bad}")
        if action.clamp is not None and action.clamp.max_ref is not None:
            problem = paths.check_path(action.clamp.max_ref)
            if problem:
                errors.append(f"{where}: {problem}")
    if not errors:
        from cgconfig.rules.soundness import problems

        errors += problems(rule)
    for text in (rule.reason, rule.hint or "", rule.source or ""):
        for placeholder in PLACEHOLDER.findall(text):
            if placeholder in ("engine.label", "engine.version"):
                continue  # the release the line is answered for (Draft.lookup)
            problem = paths.check_path(placeholder)
            if problem:
                errors.append(f"{where}: placeholder {{{placeholder}}}: {problem}")
    return errors


def _in_its_engine_folder(pack: RulePack, path: Path) -> RulePack:
    """A shipped pack sits in the ``rules/`` folder of the engine it declares
    (``cgconfig/engines/sglang/rules/``)."""
    folder = pack_engine(path)
    if pack.engine != folder:
        raise InputError(f"declares engine: {pack.engine} but sits in {folder}'s rules/ folder",
                         where=str(path),
                         hint=f"move it to the rules/ folder of the {pack.engine} plug-in package"
                         if pack.engine != "core" else "a shipped pack declares its engine")
    return pack


def load_pack_file(path: Path | str, *, check: bool = True) -> RulePack:
    """Read and validate one pack; errors carry ``file:line``."""
    from cgconfig.docio import read_document

    name = str(path)
    data, lines, name = read_document(name, "--rules")
    try:
        if isinstance(data, dict) and isinstance(data.get("rules"), list):
            check_rule_count(len(data["rules"]), name)
        pack = RulePack.model_validate(data)
    except RecursionError:
        raise InputError("rule conditions are nested too deeply", where=name) from None
    except ValidationError as exc:
        raise _pydantic_error(exc, name, lines) from None
    _check_stages(pack, name, lines)
    if check:
        problems: list[str] = []
        for index, rule in enumerate(pack.rules):
            for problem in check_rule(rule):
                line = lines.get(("rules", index))
                problems.append(f"{name}:{line}: {problem}" if line else f"{name}: {problem}")
        if problems:
            raise InputError(problems[0] + (f" (and {len(problems) - 1} more)"
                                            if len(problems) > 1 else ""))
    return pack


def _check_stages(pack: RulePack, name: str, lines: dict[tuple[Any, ...], int]) -> None:
    """Every rule's ``stage:`` is one of its engine's stages (one line, a did-you-mean)."""
    allowed = stages_of(pack.engine)
    for index, rule in enumerate(pack.rules):
        if rule.stage in allowed:
            continue
        line = lines.get(("rules", index, "stage")) or lines.get(("rules", index))
        raise InputError(f"rule {rule.id!r}: unknown stage {quote(rule.stage)} for engine "
                         f"{pack.engine}", where=f"{name}:{line}" if line else name,
                         allowed=list(allowed), suggestion=did_you_mean(rule.stage, allowed))


def shipped_packs() -> tuple[list[RulePack], dict[str, CapabilityTable]]:
    """The shipped packs and each engine's capability table, validated (from the JSON cache
    when it is current, else from YAML, refreshing the cache)."""
    raw = read_cache()
    if raw is not None:
        try:
            packs = [RulePack.model_validate(p) for p in raw["packs"]]
            caps = {engine: CapabilityTable.model_validate(table)
                    for engine, table in (raw["capabilities"] or {}).items()}
            return packs, caps
        except (KeyError, TypeError, AttributeError, ValidationError):
            pass
    packs = [_in_its_engine_folder(load_pack_file(f), f) for f in shipped_pack_files()]
    caps = {engine: load_capabilities(path) for engine, path in capability_files().items()}
    _write_cache(packs, caps)
    return packs, caps


def _write_cache(packs: list[RulePack], caps: dict[str, CapabilityTable]) -> None:
    write_cache({
        "packs": [p.model_dump(mode="json", by_alias=True, exclude_unset=True) for p in packs],
        "capabilities": {engine: table.model_dump(mode="json") for engine, table in caps.items()},
    })


def load_capabilities(path: Path) -> CapabilityTable:
    """The attention-backend capability table."""
    from cgconfig.docio import read_document

    data, lines, name = read_document(str(path), "capabilities")
    try:
        return CapabilityTable.model_validate(data)
    except ValidationError as exc:
        raise _pydantic_error(exc, name, lines) from None


def load_rule_set(extra_files: list[str] | None = None, *, shipped: bool = True) -> RuleSet:
    """Shipped packs (unless ``shipped=False``) then user packs, ids checked for uniqueness."""
    packs, caps = shipped_packs() if shipped else ([], {})
    packs = list(packs)
    for extra in extra_files or []:
        packs.append(load_pack_file(extra))
    rules: list[Rule] = []
    pack_of: dict[str, str] = {}
    titles: dict[str, str] = {}
    for pack in packs:
        titles[pack.pack] = pack.title
        for rule in pack.rules:
            if rule.id in pack_of:
                raise InputError(f"duplicate rule id {rule.id!r} (in packs {pack_of[rule.id]!r} "
                                 f"and {pack.pack!r})", where="--rules")
            pack_of[rule.id] = pack.pack
            rules.append(rule)
    engines: dict[str, str] = {pack.pack: pack.engine for pack in packs}
    return RuleSet(rules=rules, pack_of=pack_of, capabilities=caps, pack_titles=titles,
                   pack_engines=engines)
