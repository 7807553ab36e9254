"""Write ``generated.py`` and every table read from the declarations.

Run ``python -m cgconfig.fields.generate`` after changing a declaration: it writes every key's
spec (type, default, doc, SGLang flag, bound, other engines' mappings) to ``generated.py``, the
bounds block of ``cgconfig/limits.py`` and the key tables of README.md, docs/plan-format.md
and docs/emit.md (:mod:`cgconfig.fields.key_docs`), and the keys' flags in SGLang's flag
tables (:mod:`cgconfig.fields.engine_flags`). A test fails while any of them is stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cgconfig.fields.spec import EngineKey, FieldSpec, FlagSpelling, NotExpressible
from cgconfig.limits import Bound


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
    spelling = next((m for m in metadata if isinstance(m, FlagSpelling)), None)
    bound = next((m for m in metadata if isinstance(m, Bound)), None)
    engines = tuple(m for m in metadata if isinstance(m, (EngineKey, NotExpressible)))
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
                     min_items, choices, doc, spelling, bound, engines)


def build_specs() -> list[FieldSpec]:
    """Specs for every config key, option and fact, read from the pydantic models."""
    from cgconfig.fields.config import PHASE_MODELS, PHASES, GraphOptions
    from cgconfig.fields.deployment import ATTENTION_BACKENDS, DeploymentFacts

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


_FIELDS = ("optional", "gt", "ge", "min_items", "choices", "doc", "flag", "bound", "engines")


def _arg(name: str, value: Any) -> str:
    """``name=<value>`` as Python source. A doc naming an engine's newest release
    (``SGLang 0.5.23``, from its declaration's docstring) takes the release from the versions
    table at import (``_NEWEST``), so generated code names no release of its own."""
    if name != "doc":
        return f"{name}={value!r}"
    import re

    from cgconfig.line.versions import SUPPORTED, label, newest

    labels = {label(engine, newest(engine)): engine for engine in SUPPORTED}
    parts = [p for p in re.split("(" + "|".join(map(re.escape, labels)) + ")", value) if p]
    return "doc=" + (" + ".join(f"_NEWEST[{labels[p]!r}]" if p in labels else repr(p)
                                for p in parts) or "''")


def _packed(args: list[str], width: int = 100) -> list[str]:
    """``FieldSpec(<args>),`` over as few lines as fit ``width`` (a long argument alone)."""
    lines, line = [], "    FieldSpec("
    for i, arg in enumerate(args):
        piece = arg + (", " if i < len(args) - 1 else "),")
        if len(line) + len(piece) > width and line.strip() != "FieldSpec(":
            lines.append(line.rstrip())
            line = "              "
        line += piece
    return [*lines, line]


def render_module(specs: list[FieldSpec]) -> str:
    """The text of ``generated.py`` for ``specs``."""
    lines = [
        '"""Generated by ``python -m cgconfig.fields.generate`` from the pydantic models: do not edit.',
        "",
        "A test fails when this file and the models disagree.",
        '"""',
        "",
        "from cgconfig.fields.spec import EngineKey, FieldSpec, FlagSpelling, NotExpressible",
        "from cgconfig.limits import Bound",
        "from cgconfig.line.versions import SUPPORTED, label, newest",
        "",
        "#: Each engine's newest release as messages name it (``versions.label``), for the docs.",
        "_NEWEST = {engine: label(engine, newest(engine)) for engine in SUPPORTED}",
        "",
        "SPECS: tuple[FieldSpec, ...] = (",
    ]
    defaults = FieldSpec("", "", None)
    for s in specs:
        args = [repr(s.key), repr(s.kind), repr(s.default)]
        args += [_arg(name, getattr(s, name)) for name in _FIELDS
                 if getattr(s, name) != getattr(defaults, name)]
        lines += _packed(args)
    lines.append(")")
    return "\n".join(lines) + "\n"


GENERATED = Path(__file__).resolve().parent / "generated.py"


def problems(specs: list[FieldSpec]) -> list[str]:
    """One line per graph key that lacks what every key must declare: a bound when numeric,
    one mapping per engine of ``EMIT_ENGINES``, a flag when it is an option."""
    from cgconfig.fields.spec import EMIT_ENGINES

    out = []
    for s in specs:
        if s.key.startswith("facts."):
            continue
        if s.kind in ("int", "int_list", "float") and s.bound is None:
            out.append(f"{s.key}: no bound; add REQUESTS, TOKENS, CONTEXT (cgconfig.limits) or "
                       "a Bound(limit, unit) to its declaration")
        for engine in EMIT_ENGINES:
            count = sum(m.engine == engine for m in s.engines)
            if count != 1:
                out.append(f"{s.key}: {count} mappings for {engine}; declare one "
                           f"EngineKey({engine!r}, SPELLING) or NotExpressible({engine!r}, TAG, WHY)")
        if s.key.startswith("options.") and s.flag is None:
            out.append(f"{s.key}: an option needs a FlagSpelling (--emit sglang writes it)")
    return out


def outputs() -> dict[Path, str]:
    """Every file this generator writes, with the text it should hold."""
    from cgconfig.fields.engine_flags import tables
    from cgconfig.fields.key_docs import blocks

    specs = build_specs()
    return {GENERATED: render_module(specs), **blocks(specs), **tables(specs)}


if __name__ == "__main__":
    missing = problems(build_specs())
    if missing:
        raise SystemExit("cgconfig/fields/config.py: " + "\ncgconfig/fields/config.py: ".join(missing))
    for path, text in outputs().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            from cgconfig.safe_write import write_text

            write_text(path, text, where=str(path))
            print(f"wrote {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
