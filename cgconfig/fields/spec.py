"""Field types as plain data, and a validator that needs no pydantic.

The pydantic declarations in ``config.py`` and ``deployment.py`` are the source of truth.
Building them costs ~35 ms at start-up (more than all of cgconfig's own work), so the start-up
path of ``cgconfig resolve`` and of shell completion reads the same types from ``generated.py``
(``python -m cgconfig.fields.generate``; a test keeps it current). The messages match
pydantic's, so errors read the same either way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cgconfig.limits import Bound
from cgconfig.line.registry import ROWS

#: Engines whose emitter each key must declare a mapping for (an :class:`EngineKey` or a
#: :class:`NotExpressible`). SGLang's needs none: ``--emit sglang`` pins every phase key in
#: ``--cuda-graph-config`` and writes each option with its :class:`FlagSpelling`.
#: Derived from ``line.registry``: the engines whose row says ``key_mappings`` (a test fails on
#: a key without one). Another engine's emitter gets an ``undeclared`` note for each key it has
#: no mapping for (``emit_keys.unsaid``).
EMIT_ENGINES = tuple(row.name for row in ROWS if row.key_mappings and not row.host)


class FlagSpelling(NamedTuple):
    """A key's own SGLang flag, declared next to its type (``Annotated[..., FlagSpelling(...)]``).

    The flag table, ``--help``, completion, the SGLang emitter and ``docs/migration.md`` read
    it from the generated specs; nothing else spells the flag.
    """

    flag: str
    help: str
    aliases: tuple[str, ...] = ()
    """Deprecated spellings that write the same key (each prints a deprecation note)."""
    value: str | None = None
    """How the argument is read when the type does not say it (``human_int``: ``200k``)."""
    graph_effect: bool = True
    """Whether SGLang reads the flag while deciding its CUDA graphs (its flag table says so)."""


class EngineKey(NamedTuple):
    """What another engine calls a key, and how ``--emit ENGINE`` writes it.

    ``spelling`` is the key of the engine's own document (vLLM's ``--compilation-config``,
    TensorRT-LLM's options file; dotted for nesting). Without ``how`` the emitter copies the
    plan's value there as is when it differs from the declared default; with ``how`` the
    emitter's own code writes it (several keys into one engine key), as ``how`` says.
    """

    engine: str
    spelling: str
    how: str | None = None


class NotExpressible(NamedTuple):
    """A key the engine has no way to say: ``--emit ENGINE`` prints one note, tagged ``tag``,
    whenever the plan's value differs from the declared default (never a silent drop)."""

    engine: str
    tag: str
    why: str
    """What the engine lacks, for the note tags' descriptions and the docs."""
    note: str | None = None
    """The note's text when not ``<key>=<value> has no <engine> equivalent``."""


class FieldSpec(NamedTuple):
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
    flag: FlagSpelling | None = None
    bound: Bound | None = None
    """The largest value (each item, for a list) any input may give, and its unit."""
    engines: tuple[EngineKey | NotExpressible, ...] = ()
    """Each other engine's mapping of the key (one per engine of :data:`EMIT_ENGINES`)."""

    def mapping(self, engine: str) -> EngineKey | NotExpressible | None:
        """The key's declared mapping for ``engine``, if any."""
        return next((m for m in self.engines if m.engine == engine), None)


class FieldError(ValueError):
    """A value that does not fit its field; ``str()`` is pydantic's wording."""

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.message = message
        self.value = value

    def describe(self) -> str:
        """``<message> (got <value>)``, as the CLI prints it."""
        from cgconfig.limits import quote

        return f"{self.message} (got {quote(self.value)})"


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
        if value != value or value in (float("inf"), float("-inf")):
            raise FieldError("Input should be a finite number", value)
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
            from cgconfig.constants import REMOVED_BACKENDS

            if value in REMOVED_BACKENDS:
                raise FieldError(REMOVED_BACKENDS[value], value)
        if spec.key.endswith("attention_backend") and isinstance(value, str):
            from cgconfig.constants import unknown_attention_backend

            raise FieldError(unknown_attention_backend(value) or "", value)
        raise FieldError(f"Input should be {_literal_text(spec.choices)}", value)
    raise AssertionError(spec.kind)
