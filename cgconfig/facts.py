"""Validated deployment facts with attribute access, checked without building pydantic models.

:class:`~cgconfig.fields.deployment.DeploymentFacts` documents the facts and gives their JSON Schema;
the resolver checks values against the same types through :mod:`cgconfig.fields.spec`, which keeps
pydantic off the start-up path.
"""

from __future__ import annotations

from typing import Any

from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.spec import FieldError, check
from cgconfig.fields.table import fact_fields, spec
from cgconfig.limits import check_size_value, quote_key


class Facts:
    """Read-only deployment facts: ``facts.tp_size``; ``model_dump()`` gives a plain dict."""

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, Any]) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("deployment facts are read-only")

    def model_dump(self) -> dict[str, Any]:
        """Every fact, defaults included, as a dict (the same shape as the pydantic model)."""
        return dict(self._values)


def validate_facts(values: dict[str, Any], sources: dict[str, str]) -> Facts:
    """Facts from given values plus defaults; a bad value names its flag or ``file:line``."""
    known = fact_fields()
    out: dict[str, Any] = {}
    for name in known:
        field_spec = spec(f"facts.{name}")
        if name not in values:
            out[name] = field_spec.default
            continue
        where = sources.get(name, "--" + name.replace("_", "-"))
        try:
            out[name] = check(field_spec, values[name])
            check_size_value(f"facts.{name}", out[name], where)
        except FieldError as exc:
            choices = field_spec.choices
            suggestion = None
            if choices and isinstance(exc.value, str) and "did you mean" not in exc.message:
                suggestion = did_you_mean(exc.value, choices)
            raise InputError(exc.describe(), where=where, allowed=choices,
                             suggestion=suggestion) from None
    for name in values:
        if name not in known:
            raise InputError(f"unknown deployment fact {quote_key(name)}",
                             where=sources.get(name, "deployment facts"),
                             suggestion=did_you_mean(name, known))
    return Facts(out)


#: The facts every plan shows with where each came from: the platform, the GPUs, the model.
SHOWN_FACTS = ("device", "gpu_memory_gib", "gpu_sm", "gpu_count", "model_path", "model_arch",
               "use_mla", "is_multimodal", "model_context_length")
_GPU_FACTS = ("gpu_memory_gib", "gpu_sm", "gpu_count")


def shown_facts(facts: dict[str, Any], sources: dict[str, str],
                derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """:data:`SHOWN_FACTS` as ``{name: {"value": v, "source": where}}``: the flag, file line,
    probe or inference that gave it; ``default`` or ``unknown (why)`` when nothing did."""
    out: dict[str, dict[str, Any]] = {}
    probe = str(derived.get("gpu_memory_source", ""))
    for name in SHOWN_FACTS:
        value = facts.get(name)
        if name in sources:
            source = sources[name]
        elif name in _GPU_FACTS and value is None and probe.startswith("unknown"):
            source = probe
        else:
            source = "unknown" if value is None else "default"
        out[name] = {"value": value, "source": source}
    return out
