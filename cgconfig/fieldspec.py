"""Field types as plain data, and a validator that needs no pydantic.

The pydantic models in ``model.py`` and ``deployment.py`` are the source of truth. Building
them costs ~35 ms at start-up (more than all of cgconfig's own work), so the start-up path of
``cgconfig resolve`` and of shell completion reads the same types from ``_fieldspecs.py``, a
module generated from the models (``python -m cgconfig.fieldspec > cgconfig/_fieldspecs.py``)
and kept current by a test. The messages match pydantic's, so errors read the same either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cgconfig.errors import did_you_mean


@dataclass(frozen=True)
class FieldSpec:
    """One field's type: kind, bounds, choices, default and the first line of its docstring."""

    key: str
    kind: str
    """``int``, ``float``, ``bool``, ``str``, ``int_list`` or ``choice``."""
    default: Any
    optional: bool = False
    gt: float | None = None
    ge: float | None = None
    min_items: int | None = None
    choices: tuple[str, ...] | None = None
    doc: str = ""


class FieldError(ValueError):
    """A value that does not fit its field; ``str()`` is pydantic's wording."""

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.message = message
        self.value = value

    def describe(self) -> str:
        """``<message> (got <value>)``, as the CLI prints it."""
        return f"{self.message} (got {self.value!r})"


def _literal_text(choices: tuple[str, ...]) -> str:
    quoted = [repr(c) for c in choices]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


def _check_int(spec: FieldSpec, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError("Input should be a valid integer", value)
    _check_bounds(spec, value)
    return value


def _check_bounds(spec: FieldSpec, value: float) -> None:
    if spec.gt is not None and not value > spec.gt:
        raise FieldError(f"Input should be greater than {spec.gt:g}", value)
    if spec.ge is not None and not value >= spec.ge:
        raise FieldError(f"Input should be greater than or equal to {spec.ge:g}", value)


def check(spec: FieldSpec, value: Any) -> Any:
    """Return ``value`` when it fits ``spec`` (strictly, as the models do), else raise."""
    if value is None and spec.optional:
        return None
    if spec.kind == "int":
        return _check_int(spec, value)
    if spec.kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise FieldError("Input should be a valid number", value)
        _check_bounds(spec, value)
        return value
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise FieldError("Input should be a valid boolean", value)
        return value
    if spec.kind == "str":
        if not isinstance(value, str):
            raise FieldError("Input should be a valid string", value)
        return value
    if spec.kind == "int_list":
        if not isinstance(value, list):
            raise FieldError("Input should be a valid list", value)
        if spec.min_items is not None and len(value) < spec.min_items:
            raise FieldError(f"List should have at least {spec.min_items} item after "
                             f"validation, not {len(value)}", value)
        item = FieldSpec(spec.key, "int", None, gt=spec.gt, ge=spec.ge)
        for element in value:
            _check_int(item, element)
        return list(value)
    if spec.kind == "choice":
        assert spec.choices is not None
        if value in spec.choices:
            return value
        if spec.key.endswith(".backend") and isinstance(value, str):
            from cgconfig.model_data import REMOVED_BACKENDS

            if value in REMOVED_BACKENDS:
                raise FieldError(REMOVED_BACKENDS[value], value)
        if spec.key.endswith("attention_backend") and isinstance(value, str):
            hint = did_you_mean(value, spec.choices)
            extra = f" (did you mean {hint!r}?)" if hint else ""
            raise FieldError(f"unknown attention backend {value!r}{extra}", value)
        raise FieldError(f"Input should be {_literal_text(spec.choices)}", value)
    raise AssertionError(spec.kind)


# ------------------------------------------------------------------------- generation

def _spec_from_field(key: str, info: Any, choices_override: tuple[str, ...] | None) -> FieldSpec:
    from typing import Annotated, Literal, Union, get_args, get_origin

    import annotated_types as at

    annotation = info.annotation
    optional = False
    if get_origin(annotation) in (Union, type(int | None)):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        annotation = args[0]
    metadata = list(info.metadata)
    if get_origin(annotation) is Annotated:
        annotation, *extra = get_args(annotation)
        metadata += extra
    kind, choices, item_meta = "str", None, []
    if annotation is bool:
        kind = "bool"
    elif annotation is int:
        kind = "int"
    elif annotation is float:
        kind = "float"
    elif get_origin(annotation) is Literal:
        kind, choices = "choice", tuple(get_args(annotation))
    elif get_origin(annotation) is list:
        kind = "int_list"
        (item,) = get_args(annotation)
        if get_origin(item) is Annotated:
            _, *item_meta = get_args(item)
    if choices_override:
        kind, choices = "choice", choices_override
    gt = ge = min_items = None
    # A FieldInfo inside Annotated (Field(min_length=1)) carries its constraints one level down.
    flat = [inner for meta in [*metadata, *item_meta]
            for inner in (meta.metadata if hasattr(meta, "metadata") else [meta])]
    for meta in flat:
        if isinstance(meta, at.Gt):
            gt = float(meta.gt)  # type: ignore[arg-type]
        elif isinstance(meta, at.Ge):
            ge = float(meta.ge)  # type: ignore[arg-type]
        elif isinstance(meta, at.MinLen):
            min_items = meta.min_length
    doc = " ".join((info.description or "").strip().split("\n\n")[0].split()).replace("``", "")
    return FieldSpec(key, kind, info.get_default(call_default_factory=True), optional, gt, ge,
                     min_items, choices, doc)


def build_specs() -> list[FieldSpec]:
    """Specs for every config key, option and fact, read from the pydantic models."""
    from cgconfig.deployment import ATTENTION_BACKENDS, DeploymentFacts
    from cgconfig.model import PHASE_MODELS, PHASES, GraphOptions

    specs: list[FieldSpec] = []
    for phase in PHASES:
        for name, info in PHASE_MODELS[phase].model_fields.items():
            specs.append(_spec_from_field(f"{phase}.{name}", info, None))
    for name, info in GraphOptions.model_fields.items():
        specs.append(_spec_from_field(f"options.{name}", info, None))
    for name, info in DeploymentFacts.model_fields.items():
        override = ATTENTION_BACKENDS if name.endswith("attention_backend") else None
        specs.append(_spec_from_field(f"facts.{name}", info, override))
    return specs


def render_module(specs: list[FieldSpec]) -> str:
    """The text of ``_fieldspecs.py`` for ``specs``."""
    lines = [
        '"""Generated by ``python -m cgconfig.fieldspec`` from the pydantic models: do not edit.',
        "",
        "A test fails when this file and the models disagree.",
        '"""',
        "",
        "from cgconfig.fieldspec import FieldSpec",
        "",
        "SPECS: tuple[FieldSpec, ...] = (",
    ]
    for s in specs:
        lines.append(f"    FieldSpec({s.key!r}, {s.kind!r}, {s.default!r},")
        lines.append(f"              optional={s.optional!r}, gt={s.gt!r}, ge={s.ge!r}, "
                     f"min_items={s.min_items!r},")
        lines.append(f"              choices={s.choices!r},")
        lines.append(f"              doc={s.doc!r}),")
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(render_module(build_specs()))
