"""The condition interpreter: evaluate a rule's ``when`` against a draft, fill its placeholders.

Conditions are small trees of plain data (``all``/``any``/``not`` over comparisons), never
expression strings: nothing is parsed or evaluated except by this fixed interpreter.
"""

from __future__ import annotations

import re
from typing import Any

from cgconfig.constants import CAPABILITY_LEVELS
from cgconfig.draft import Draft
from cgconfig.plan import Match

#: A ``{facts.x}``-style placeholder in a rule's reason or hint.
PLACEHOLDER = re.compile(r"\{([a-z_]+(?:\.[a-z_0-9]+)+)\}")


def _capability(draft: Draft, spec: dict[str, Any], levels: dict[str, str],
                out: list[Match]) -> bool:
    d = draft.derived
    which = spec.get("backends", "in_use")
    if which == "decode":
        names = [d.get("decode_attention_backend")]
    elif which == "prefill":
        names = [d.get("prefill_attention_backend")]
    else:
        names = list(d.get("attention_backends") or [])
    found = [levels[n] for n in names if n and n in levels]
    if not found:
        return False
    weakest = min(found, key=CAPABILITY_LEVELS.index)
    rank = CAPABILITY_LEVELS.index(weakest)
    op = next(n for n in ("lt", "ge", "eq") if spec.get(n) is not None)
    wanted = spec[op]
    target = CAPABILITY_LEVELS.index(wanted)
    result = {"lt": rank < target, "ge": rank >= target, "eq": rank == target}[op]
    if result:
        shown = ", ".join(n for n in names if n)
        out.append(Match(f"capability({which}: {shown})", op, wanted, weakest))
    return result


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if op == "eq":
        return bool(actual == expected)
    if op == "ne":
        return bool(actual != expected)
    if actual is None or expected is None:
        return False
    try:
        return bool({"gt": actual > expected, "ge": actual >= expected,
                     "lt": actual < expected, "le": actual <= expected}[op])
    except TypeError:  # packs are checked at load (rules.soundness); never crash a resolve
        return False


def evaluate(cond: dict[str, Any], draft: Draft, levels: dict[str, str],
             out: list[Match]) -> bool:
    """Evaluate a condition (plain-data form); the atoms that made it true go to ``out``."""
    (op, body), = cond.items()
    if op == "all":
        trail: list[Match] = []
        if all(evaluate(c, draft, levels, trail) for c in body):
            out.extend(trail)
            return True
        return False
    if op == "any":
        for c in body:
            trail = []
            if evaluate(c, draft, levels, trail):
                out.extend(trail)
                return True
        return False
    if op == "not":
        result = not evaluate(body, draft, levels, [])
        if result:
            out.append(Match("(condition)", "not", "false", "false"))
        return result
    if op in ("in", "not_in"):
        actual = draft.lookup(body["path"])
        hit = actual in body["values"]
        result = hit if op == "in" else not hit
        if result:
            out.append(Match(body["path"], op, body["values"], actual))
        return result
    if op == "is_set":
        path = body["path"]
        if path.startswith(("config.", "options.")):
            result = path.removeprefix("config.") in draft.locked
        else:
            result = draft.lookup(path) is not None
        if result:
            out.append(Match(path, "is_set", True, True))
        return result
    if op == "capability":
        return _capability(draft, body, levels, out)
    if op == "contains":
        actual = draft.lookup(body["path"]) or []
        result = body["value"] in actual
        if result:
            out.append(Match(body["path"], "contains", body["value"], actual))
        return result
    actual = draft.lookup(body["path"])
    ref = body.get("ref")
    expected = draft.lookup(ref) if ref is not None else body.get("value")
    result = _compare(op, actual, expected)
    if result:
        out.append(Match(body["path"], op, ref or expected, actual))
    return result


def fill_placeholders(text: str, draft: Draft) -> str:
    """Replace ``{facts.x}``-style placeholders with the draft's current values."""
    def value(match: re.Match[str]) -> str:
        try:
            found = draft.lookup(match.group(1))
        except KeyError:
            return match.group(0)
        if found is None:
            return "unset"
        return f"{found:g}" if isinstance(found, float) else str(found)

    return PLACEHOLDER.sub(value, text)


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v) for v in value)
    return str(value)


def unmet(cond: dict[str, Any], draft: Draft, levels: dict[str, str]) -> str:
    """Why ``cond`` does not hold, in a few words: the first part of it that fails
    (``facts.device is xpu, not one of cuda, hip``). Call it only when it does not hold."""
    (op, body), = cond.items()
    if op == "all":
        failed = next((c for c in body if not evaluate(c, draft, levels, [])), None)
        return unmet(failed, draft, levels) if failed is not None else "(it holds)"
    if op == "any":
        return "none of: " + "; ".join(unmet(c, draft, levels) for c in body[:3]) + (
            "; …" if len(body) > 3 else "")
    if op == "not":
        return "its negated condition holds"
    if op == "capability":
        which = body.get("backends", "in_use")
        d = draft.derived
        names = ([d.get(f"{which}_attention_backend")] if which in ("decode", "prefill")
                 else list(d.get("attention_backends") or []))
        shown = ", ".join(n for n in names if n) or "none"
        found = [levels[n] for n in names if n and n in levels]
        if not found:
            return f"no CUDA-graph support level is known for the attention backend ({shown})"
        weakest = min(found, key=CAPABILITY_LEVELS.index)
        wanted = next(f"{word} {body[n]}" for n, word in (("lt", "below"), ("ge", "at least"),
                                                          ("eq", "exactly"))
                      if body.get(n) is not None)
        return f"the attention backend ({shown}) supports {weakest}, not {wanted}"
    path = body["path"]
    actual = draft.lookup(path)
    if op == "in":
        return f"{path} is {_shown(actual)}, not one of {_shown(body['values'])}"
    if op in ("not_in", "ne"):
        return f"{path} is {_shown(actual)}"
    if op == "is_set":
        return f"{path} is not set"
    if op == "contains":
        return f"{path} does not contain {_shown(body['value'])}"
    ref = body.get("ref")
    expected = draft.lookup(ref) if ref is not None else body.get("value")
    sign = {"eq": "", "gt": "> ", "ge": "≥ ", "lt": "< ", "le": "≤ "}.get(op, f"{op} ")
    against = f"{sign}{ref} ({_shown(expected)})" if ref else f"{sign}{_shown(expected)}"
    return f"{path} is {_shown(actual)}, not {against}"
