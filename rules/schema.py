"""The rule-pack schema: conditions, actions and rules as typed data.

A condition is a small tree of typed nodes (``all``/``any``/``not`` over comparisons), never an
expression string: nothing is parsed or evaluated except by the fixed interpreter in
``evaluate.py``. Paths and literals are checked against the deployment and config models when a
pack loads (``paths.py``), so a typo fails at load time with a did-you-mean.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from cgconfig.constants import CAPABILITY_LEVELS
from cgconfig.line.registry import names as engine_names
from cgconfig.resolve.stages import RESOLVED

_STRICT = ConfigDict(extra="forbid")



def _known_engine(name: str) -> str:
    if name != "core" and name not in engine_names():
        raise ValueError(f"engine {name!r} is not one cgconfig knows: "
                         f"{', '.join((*engine_names(), 'core'))}")
    return name


#: What a pack's ``engine:`` may name: one engine of ``line.registry`` or ``core``.
Engine = Annotated[str, AfterValidator(_known_engine)]

CapabilityLevel = Literal["NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS"]
assert get_args(CapabilityLevel) == CAPABILITY_LEVELS


class Operand(BaseModel):
    """``{path, value}`` or ``{path, ref}``: compare a path with a literal or another path."""

    model_config = _STRICT
    path: str
    value: Any = None
    ref: str | None = None

    @model_validator(mode="after")
    def _one_right_side(self) -> Operand:
        if self.ref is not None and "value" in self.model_fields_set:
            raise ValueError("give either 'value' or 'ref', not both")
        if self.ref is None and "value" not in self.model_fields_set:
            raise ValueError("give 'value' (a literal) or 'ref' (another path)")
        return self


class MemberOperand(BaseModel):
    """``{path, values}``: membership in a literal list."""

    model_config = _STRICT
    path: str
    values: list[Any] = Field(min_length=1)


class PathOperand(BaseModel):
    """``{path}``: for ``is_set``."""

    model_config = _STRICT
    path: str


class CapabilityOperand(BaseModel):
    """Compare the weakest attention backend in use with a support level.

    ``backends`` picks which: the decode backend, the prefill backend, or both (``in_use``,
    the minimum over prefill and decode). When no attention backend is known the atom is false.
    """

    model_config = _STRICT
    backends: Literal["in_use", "decode", "prefill"] = "in_use"
    lt: CapabilityLevel | None = None
    ge: CapabilityLevel | None = None
    eq: CapabilityLevel | None = None

    @model_validator(mode="after")
    def _one_comparison(self) -> CapabilityOperand:
        given = [n for n in ("lt", "ge", "eq") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of lt, ge, eq")
        return self


class All(BaseModel):
    """True when every sub-condition is true."""

    model_config = _STRICT
    all: list[Condition] = Field(min_length=1)


class Any_(BaseModel):
    """True when some sub-condition is true."""

    model_config = _STRICT
    any: list[Condition] = Field(min_length=1)


class Not(BaseModel):
    """Negation."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    not_: Condition = Field(alias="not")


class Eq(BaseModel):
    """``path == value``."""

    model_config = _STRICT
    eq: Operand


class Ne(BaseModel):
    """``path != value``."""

    model_config = _STRICT
    ne: Operand


class In(BaseModel):
    """``path in values``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    in_: MemberOperand = Field(alias="in")


class NotIn(BaseModel):
    """``path not in values``."""

    model_config = _STRICT
    not_in: MemberOperand


class Gt(BaseModel):
    """``path > value`` (false when the path is unset)."""

    model_config = _STRICT
    gt: Operand


class Ge(BaseModel):
    """``path >= value``."""

    model_config = _STRICT
    ge: Operand


class Lt(BaseModel):
    """``path < value``."""

    model_config = _STRICT
    lt: Operand


class Le(BaseModel):
    """``path <= value``."""

    model_config = _STRICT
    le: Operand


class IsSet(BaseModel):
    """A config key the user set explicitly, or a fact that is not null."""

    model_config = _STRICT
    is_set: PathOperand


class Contains(BaseModel):
    """A list-valued path (``derived.attention_backends``) holds ``value``."""

    model_config = _STRICT
    contains: MemberValue


class MemberValue(BaseModel):
    """``{path, value}`` for ``contains``."""

    model_config = _STRICT
    path: str
    value: Any


class Capability(BaseModel):
    """Attention-backend capability comparison (see :class:`CapabilityOperand`)."""

    model_config = _STRICT
    capability: CapabilityOperand


Condition = (All | Any_ | Not | Eq | Ne | In | NotIn | Gt | Ge | Lt | Le | IsSet | Contains
             | Capability)
Contains.model_rebuild()
for _model in (All, Any_, Not):
    _model.model_rebuild()

COMPARISONS = ("eq", "ne", "gt", "ge", "lt", "le")


class SetAction(BaseModel):
    """Set a key. Backends only move down (full → breakable → disabled)."""

    model_config = _STRICT
    key: str
    value: Any


class ClampAction(BaseModel):
    """Lower a number to at most ``max`` (a literal) or the value at ``max_ref``."""

    model_config = _STRICT
    key: str
    max: int | None = None
    max_ref: str | None = None

    @model_validator(mode="after")
    def _one_bound(self) -> ClampAction:
        if (self.max is None) == (self.max_ref is None):
            raise ValueError("give exactly one of 'max' or 'max_ref'")
        return self


class AlignAction(BaseModel):
    """Round every size of a phase's list up to a multiple; max_bs follows the list."""

    model_config = _STRICT
    phase: Literal["decode", "prefill"]
    multiple: int = Field(gt=1)


class Action(BaseModel):
    """One action; exactly one field is given."""

    model_config = _STRICT
    set: SetAction | None = None
    clamp: ClampAction | None = None
    align: AlignAction | None = None
    refuse: bool | None = None
    warn: bool | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Action:
        given = [n for n in type(self).model_fields if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(f"an action has exactly one of set, clamp, align, refuse, warn "
                             f"(got {', '.join(given) or 'none'})")
        return self

    def target_keys(self) -> list[str]:
        """Config keys the action may write."""
        if self.set is not None:
            return [self.set.key]
        if self.clamp is not None:
            return [self.clamp.key]
        if self.align is not None:
            return [f"{self.align.phase}.bs", f"{self.align.phase}.max_bs"]
        return []


class Example(BaseModel):
    """A worked case stored with the rule and run as a test through the whole resolver."""

    model_config = _STRICT
    args: list[str] = Field(default_factory=list)
    """A cgconfig/SGLang command line."""
    fires: bool
    """Whether this rule must appear in the plan's decisions."""
    outcome: Literal["applied", "skipped-locked", "overrode-lock", "refused", "warned",
                     "advised"] | None = None
    expect: dict[str, Any] = Field(default_factory=dict)
    """Dotted config keys → expected final values."""
    note: str | None = None


class Rule(BaseModel):
    """One rule: when the condition holds, the actions run, and the decision is recorded."""

    model_config = _STRICT
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    title: str
    kind: Literal["policy", "constraint"]
    stage: str = RESOLVED
    """The upstream hook or config stage the rule encodes, from its engine's list
    (:func:`cgconfig.resolve.stages.engine_stages`, checked when the pack loads): the rule runs
    there, in the engine's order. Unset: ``resolved``, after the engine's whole resolution."""
    when: Condition
    then: list[Action] = Field(min_length=1)
    reason: str
    """Why, for people; ``{facts.x}``-style placeholders are filled with actual values."""
    hint: str | None = None
    """How to override or avoid it."""
    source: str
    """The upstream code this rule encodes."""
    origin: Literal["upstream", "advice"] = "upstream"
    """``upstream``: the engine itself does this (``source`` names where). ``advice``:
    cgconfig's own judgement; listed in the plan, applied only with ``--apply-advice ID``."""
    versions: str | None = None
    """The engine releases the rule holds in (``">=0.5.20"``, ``"<0.5.20"``, clauses joined by
    commas), checked at load against the pack engine's supported versions; unset: every
    supported release."""
    examples: list[Example] = Field(min_length=2)

    @model_validator(mode="after")
    def _examples_both_ways(self) -> Rule:
        if not any(e.fires for e in self.examples) or all(e.fires for e in self.examples):
            raise ValueError("give at least one example where the rule fires and one where "
                             "it does not")
        return self

    def target_keys(self) -> list[str]:
        """Every config key any of the rule's actions may write."""
        return [k for a in self.then for k in a.target_keys()]


class RulePack(BaseModel):
    """A YAML file of rules about one concern."""

    model_config = _STRICT
    pack: str
    title: str
    engine: Engine = "core"
    """Whose lines the pack's rules run on: ``sglang``, ``vllm`` or ``trtllm`` (that engine's
    lines only), or ``core`` (every line). Every shipped pack names it; a user pack that does
    not applies to every engine."""
    rules: list[Rule] = Field(min_length=1)

    @model_validator(mode="after")
    def _versions_name_supported_releases(self) -> RulePack:
        from cgconfig.line.versions import SUPPORTED, range_clauses, version_key

        for rule in self.rules:
            if rule.versions is None:
                continue
            if self.engine not in SUPPORTED:
                raise ValueError(f"rule {rule.id}: versions needs a pack of one engine "
                                 f"(engine: sglang, vllm or trtllm), not {self.engine!r}")
            known = {version_key(v) for v in SUPPORTED[self.engine]}
            for _, bound in range_clauses(rule.versions):
                if bound not in known:
                    raise ValueError(f"rule {rule.id}: versions bound {'.'.join(map(str, bound))}"
                                     f" is not a supported {self.engine} release "
                                     f"({', '.join(SUPPORTED[self.engine])})")
        return self


class CapabilityTable(BaseModel):
    """Attention backend → CUDA-graph support level (data, shipped as ``capabilities.yaml``)."""

    model_config = _STRICT
    levels: list[CapabilityLevel]
    backends: dict[str, CapabilityEntry]


class CapabilityEntry(BaseModel):
    """One backend's support level and where the level was read."""

    model_config = _STRICT
    level: CapabilityLevel
    source: str
    note: str | None = None


CapabilityTable.model_rebuild()
