"""Run a rule's stored examples through the whole resolver (used by tests and
``cgconfig rules validate``)."""

from __future__ import annotations

from cgconfig.errors import CgConfigError, RuleRefusal
from cgconfig.resolve.request import RuleSetLike
from cgconfig.rules.schema import Example, Rule


def run_example(rule: Rule, example: Example, extra_packs: list[str] | None = None,
                rules: RuleSetLike | None = None) -> str | None:
    """``None`` when the example behaves as stated, else what went wrong (one line).

    ``rules``: the rule set of the shipped packs and ``extra_packs``, loaded once by a caller
    that runs many examples (used unless the example's own line names more packs)."""
    from cgconfig.api import request_from_argv, resolve_request
    from cgconfig.resolve.pipeline import resolve

    try:
        request = request_from_argv(list(example.args))
    except CgConfigError as error:
        return f"error: {error}"
    own = bool(request.settings.rule_files)
    request.settings.rule_files = [*request.settings.rule_files, *(extra_packs or [])]
    try:
        plan = (resolve(request, rules) if rules is not None and not own and request.use_rules
                else resolve_request(request))
    except RuleRefusal as refusal:
        fired = f"[rule {rule.id}]" in str(refusal)
        if example.fires and fired and example.outcome in (None, "refused"):
            return None
        return f"refused: {refusal}" if not fired or not example.fires else (
            f"expected outcome {example.outcome}, got refused")
    except CgConfigError as error:
        return f"error: {error}"
    decision = next((d for d in plan.decisions if d.rule == rule.id), None)
    if example.fires and decision is None:
        return "expected the rule to fire, it did not"
    if not example.fires and decision is not None:
        return f"expected the rule not to fire, it did ({decision.outcome})"
    if decision is not None and example.outcome and decision.outcome != example.outcome:
        return f"expected outcome {example.outcome}, got {decision.outcome}"
    for key, expected in example.expect.items():
        group, name = key.split(".", 1)
        actual = plan.options.get(name) if group == "options" else plan.config[group][name]
        if actual != expected:
            return f"expected {key}={expected!r}, got {actual!r}"
    return None
