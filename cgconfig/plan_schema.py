"""The plan's JSON format as pydantic models: the source of ``cgconfig schema plan``.

The resolver builds plans with plain dataclasses (``plan.py``) to stay fast; these models
describe the same document for consumers, and tests validate real plans against them, so the
published schema cannot drift from what ``resolve -o json`` prints.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cgconfig.constants import MAX_CAPTURE_SIZE

# strict: a plan file whose sizes are ["1", "2"] or [true, false] is not a plan (no coercion)
_DOC = ConfigDict(extra="forbid", use_attribute_docstrings=True, populate_by_name=True,
                  strict=True)


class ChangeDoc(BaseModel):
    """One key moved by a decision."""

    model_config = _DOC
    key: str
    """Dotted key (``decode.backend``) or ``capture.decode.sizes``."""
    from_: Any = Field(alias="from")
    """Value before."""
    to: Any
    """Value after."""


class MatchDoc(BaseModel):
    """One condition atom that matched, with the actual value."""

    model_config = _DOC
    path: str
    op: str
    expected: Any
    actual: Any


class DecisionDoc(BaseModel):
    """What one rule or resolver step decided."""

    model_config = _DOC
    rule: str
    """Rule id (``role.prefill-instance-no-decode``) or resolver step (``sizes.*``)."""
    kind: Literal["policy", "constraint", "resolver"]
    outcome: Literal["applied", "skipped-locked", "overrode-lock", "refused", "warned", "advised"]
    changes: list[ChangeDoc]
    why: str
    """Human reason with the deployment's facts filled in."""
    matched: list[MatchDoc] | None = None
    hint: str | None = None
    """How to override or avoid the decision."""
    source: str | None = None
    """The upstream code the rule encodes."""
    inputs: list[str] | None = None
    """The user inputs behind a skipped or overridden lock."""


class ChainEntryDoc(BaseModel):
    """One step in a key's history, lowest precedence first; the last one wins."""

    model_config = _DOC
    source: str
    """``default``, a flag, ``--cuda-graph-config``, ``resolver`` or ``rule:<id>``."""
    layer: str
    """``default``, ``legacy``, ``off-switch``, ``convenience``, ``config``, ``resolver``, ``rule``
    or ``rule-skipped`` (a policy that left a locked key alone)."""
    value: Any
    at: str | None = None
    """JSON pointer or ``file:line``."""
    why: str | None = None


CaptureSize = Annotated[int, Field(ge=1, le=MAX_CAPTURE_SIZE)]
"""A capture size as a plan holds it: a whole number from 1 to the largest any engine takes
(a plan file with ``-1`` or ``0`` in a size list is not a plan)."""


class PhaseCaptureDoc(BaseModel):
    """What will actually be captured for one phase."""

    model_config = _DOC
    backend: Literal["full", "breakable", "tc_piecewise", "disabled"]
    """``tc_piecewise``: SGLang 0.5.21's and older releases' torch.compile piecewise graph."""
    sizes: list[CaptureSize]
    """Sizes to capture, ascending; empty when the phase runs eagerly."""
    compile_sizes: list[CaptureSize] | None = None
    """Decode only: sizes torch.compile handles."""
    alignment: dict[str, Any] | None = None
    """Decode only: the capture filter's inputs (multiple, request width, pool size)."""


class PhaseUnitDoc(BaseModel):
    """What one phase's sizes count."""

    model_config = _DOC
    counts: Literal["requests", "tokens"]
    tokens_per_request: int | None = None
    """Decode only: tokens one request takes in a step (1, or the speculative width)."""


class KeyFactDoc(BaseModel):
    """One platform, GPU or model fact and where it came from."""

    model_config = _DOC
    value: Any
    source: str
    """A flag, ``path/config.json:line`` (with the reason for a derived fact), ``nvidia-smi`` /
    ``rocm-smi``, ``inferred from --attention-backend …``, ``default`` or ``unknown (why)``."""


class EngineValueDoc(BaseModel):
    """One engine setting SGLang derives alongside the graphs."""

    model_config = _DOC
    value: Any
    source: str
    """The flag it was given by, or the upstream function that set it (engine, version, file)."""
    why: str


class PlanDocument(BaseModel):
    """``cgconfig resolve -o json``, schema version 1."""

    model_config = _DOC
    schema_version: Literal[1]
    config: dict[Literal["decode", "prefill"], dict[str, Any]]
    """Configured values per phase (what a ``--cuda-graph-config`` would say)."""
    capture: dict[Literal["decode", "prefill"], PhaseCaptureDoc]
    options: dict[str, Any]
    locked: list[str]
    """Keys the user set explicitly; policies never change them."""
    decisions: list[DecisionDoc]
    provenance: dict[str, list[ChainEntryDoc]]
    warnings: list[str]
    facts: dict[str, Any]
    """Deployment facts used, plus ``derived`` values computed from them."""
    fact_sources: dict[str, str]
    key_facts: dict[str, KeyFactDoc] = {}
    """The platform (``device``), GPU (``gpu_memory_gib``, ``gpu_sm``, ``gpu_count``) and model
    (``model_path``, ``model_arch``, ``use_mla``, ``is_multimodal``, ``model_context_length``)
    facts with their sources."""
    deprecations: list[str]
    notes: list[str] = []
    """Facts about the inputs that are not deprecations (vLLM's capture-size truncation)."""
    ignored_args: list[str]
    units: dict[Literal["decode", "prefill"], PhaseUnitDoc] | None = None
    """What each phase's sizes count: SGLang decode requests, SGLang prefill and all vLLM sizes
    tokens (absent from plans written before it was added)."""
    engine: dict[str, EngineValueDoc] = {}
    """SGLang input: the engine settings SGLang 0.5.23 derives with the graphs
    (``attention_backend``, ``chunked_prefill_size``, ``mem_fraction_static``, ...); empty for
    other dialects."""
    engine_version: dict[Literal["engine", "version", "label", "source"], str] = {}
    """The engine version the plan answers for (``label``: ``SGLang 0.5.20``) and where that
    choice came from (``source``: ``--engine-version``, ``CGCONFIG_ENGINE_VERSION``, a log, a
    docker image tag, the installed package, or ``default (newest supported)``); absent from
    plans written before it was added."""
    cost: dict[str, Any] = {}
    """What the plan costs at start-up, per rank: ``phases`` (graphs, ``engine_reservation``,
    ``predicted`` memory and seconds with ``low``/``expected``/``high``, ``how``, ``unknown``,
    or ``pool`` when the phase shares one), ``pools`` (graphs of several phases in one pool,
    predicted once), ``total``, ``model``, ``deployment``, ``not_predicted`` and ``fit`` (against the GPU);
    absent from plans written before it was added."""
