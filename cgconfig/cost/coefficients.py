"""The cost model's coefficients: the package's fitted file, or a local calibration over it.

``coefficients.json`` beside this module is fitted by ``benchmarks/fit_cost.py`` from public
boot logs (each cited in ``benchmarks/cost/boots.json``) and runtime measurements on one H200
(``benchmarks/RESULTS.md``, issue #34). ``cgconfig calibrate`` writes a local file of the same
form (:func:`local_path`); its classes replace the package's, and a plan names which file each
prediction came from.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from cgconfig.errors import InputError, refuse_unknown_keys

BUILTIN_PATH = Path(__file__).with_name("coefficients.json")
DEFAULT_LAYERS = 40
"""Layers assumed when the model's config is not at hand (the middle of :data:`LAYER_RANGE`)."""
LAYER_RANGE = (16, 96)
"""Layers of the models the prediction covers: an unknown count widens the range to these."""
DEFAULT_HIDDEN = 4096
"""Hidden size (per rank) assumed when the model's config is not at hand."""
HIDDEN_RANGE = (1024, 8192)
"""Per-rank hidden sizes an unknown one widens the range to."""
VOCAB_RANGE = (32000, 256000)
"""Vocabularies an unknown one widens a decode prediction's range to."""
ENTRY_KEYS = ("fitted_on", "memory_mib_per_graph", "memory_spread", "seconds_fixed",
              "seconds_per_graph", "seconds_spread", "seconds_tp_exponent", "source")
TOP_KEYS = ("schema_version", "memory_exponents", "memory_logits_buffers", "classes",
            "not_predicted", "sources", "samples")
MAX_VALUE = 1e7
PHASES = ("decode", "prefill")
"""The phases with memory exponents of their own (a vLLM mixed capture counts as prefill)."""
LOCAL_ENV = "CGCONFIG_COST_FILE"
"""Environment variable naming the local coefficient file (default: :func:`local_path`)."""


def class_key(engine: str, phase: str, backend: str) -> str:
    """``engine/phase/backend`` (``runtime`` is cgconfig's own runtime)."""
    return f"{engine}/{phase}/{backend}"


def local_path(env: dict[str, str] | None = None) -> Path:
    """Where ``cgconfig calibrate`` keeps its file: ``$CGCONFIG_COST_FILE``, else
    ``$XDG_CONFIG_HOME/cgconfig/cost.json`` (``~/.config/cgconfig/cost.json``)."""
    env = dict(os.environ) if env is None else env
    if env.get(LOCAL_ENV):
        return Path(os.path.expanduser(env[LOCAL_ENV]))
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "cgconfig" / "cost.json"


class ClassCoefficients(NamedTuple):
    """One class's fitted numbers and where they came from."""

    memory_mib_per_graph: float | None = None
    memory_spread: float = 2.0
    seconds_fixed: float = 0.0
    seconds_per_graph: float | None = None
    seconds_spread: float = 2.0
    seconds_tp_exponent: float = 0.0
    """``e``: capture seconds ∝ graphs · layers/32 · tp ** e (all-reduces in every graph,
    ranks capturing in lock step; 0 for a class measured on one GPU)."""
    fitted_on: tuple[str, ...] = ()
    origin: str = "cgconfig/cost/coefficients.json"
    """The file the class came from (the package's, or the local calibration file)."""


def _number(value: Any, where: str, low: float = 0.0) -> float:
    high = MAX_VALUE if low >= 0 else -low
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value) or not low <= value <= high:
        raise InputError(f"must be a number in {low:g}..{high:g}, got {value!r:.40}",
                         where=where)
    return float(value)


def _entry(body: Any, where: str, origin: str) -> ClassCoefficients:
    if not isinstance(body, dict):
        raise InputError("a class must be an object", where=where)
    refuse_unknown_keys(body, ENTRY_KEYS, where)
    fitted = body.get("fitted_on", [])
    if not isinstance(fitted, list) or not all(isinstance(x, str) for x in fitted):
        raise InputError("fitted_on must be a list of strings", where=f"{where}/fitted_on")
    mem = body.get("memory_mib_per_graph")
    sec = body.get("seconds_per_graph")
    return ClassCoefficients(
        memory_mib_per_graph=None if mem is None else _number(mem, f"{where}/memory_mib_per_graph"),
        memory_spread=_number(body.get("memory_spread", 2.0), f"{where}/memory_spread", 1.0),
        seconds_fixed=_number(body.get("seconds_fixed", 0.0), f"{where}/seconds_fixed"),
        seconds_per_graph=None if sec is None else _number(sec, f"{where}/seconds_per_graph"),
        seconds_spread=_number(body.get("seconds_spread", 2.0), f"{where}/seconds_spread", 1.0),
        seconds_tp_exponent=_number(body.get("seconds_tp_exponent", 0.0),
                                    f"{where}/seconds_tp_exponent", -3.0),
        fitted_on=tuple(fitted[:1000]), origin=origin)


@dataclass(frozen=True)
class Coefficients:
    """Every class, the shared layer exponent, and the classes nobody can predict."""

    memory_exponents: dict[str, tuple[float, ...]]
    """Per phase, ``(a, b, c, d, v)``: memory ∝ graphs ** a · (max_size/256) ** b ·
    (hidden/4096) ** c · (layers/32) ** d · (vocab/128000) ** v (missing trailing exponents
    are 0; a plain list holds for both phases)."""
    classes: dict[str, ClassCoefficients]
    not_predicted: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    logits_buffers: dict[str, float] = field(default_factory=dict)
    """Per phase or class, the bf16 logits buffers (largest size × vocabulary × 2 bytes) added
    to the power law (0 where absent)."""

    @classmethod
    def from_document(cls, doc: Any, origin: str) -> Coefficients:
        """Validate a parsed coefficient document (``origin`` names it in errors and plans)."""
        if not isinstance(doc, dict):
            raise InputError("a coefficient file must be a JSON object", where=origin)
        refuse_unknown_keys(doc, TOP_KEYS, origin)
        if doc.get("schema_version") != 1 or isinstance(doc.get("schema_version"), bool):
            raise InputError(f"schema_version {doc.get('schema_version')!r:.20} is not "
                             "supported", where=f"{origin} at /schema_version", allowed=(1,))
        classes = doc.get("classes", {})
        if not isinstance(classes, dict):
            raise InputError("classes must be an object", where=f"{origin} at /classes")
        parsed = {str(k): _entry(v, f"{origin} at /classes/{k}", origin)
                  for k, v in classes.items()}
        text = {k: str(v) for k, v in (doc.get("not_predicted") or {}).items()}
        sources = {k: str(v) for k, v in (doc.get("sources") or {}).items()}
        raw = doc.get("memory_exponents", [1.0, 0.0, 0.0, 0.0])
        by_phase = raw if isinstance(raw, dict) else {"decode": raw, "prefill": raw}
        if set(by_phase) != set(PHASES):
            raise InputError("memory_exponents must be a list, or an object with one list per "
                             "phase", where=f"{origin} at /memory_exponents", allowed=PHASES)
        exps: dict[str, tuple[float, ...]] = {}
        for phase in PHASES:
            at = f"{origin} at /memory_exponents" + ("" if isinstance(raw, list) else f"/{phase}")
            values = by_phase[phase]
            if not isinstance(values, list) or not 3 <= len(values) <= 5:
                raise InputError("memory exponents must be a list of three to five numbers",
                                 where=at)
            exps[phase] = tuple(_number(x, f"{at}/{i}", -2.0)
                                for i, x in enumerate([*values, 0.0, 0.0][:5]))
        raw_buffers = doc.get("memory_logits_buffers", {})
        if not isinstance(raw_buffers, dict) or not all(
                k in PHASES or str(k).count("/") == 2 for k in raw_buffers):
            raise InputError("memory_logits_buffers must be an object with a number per phase "
                             "or per class (engine/phase/backend)",
                             where=f"{origin} at /memory_logits_buffers", allowed=PHASES)
        buffers = {phase: _number(v, f"{origin} at /memory_logits_buffers/{phase}")
                   for phase, v in raw_buffers.items()}
        return cls(exps, parsed, text, sources, buffers)

    def exponents(self, klass: str) -> tuple[float, ...]:
        """The memory exponents of ``klass``'s phase (``engine/phase/backend``)."""
        phase = klass.split("/")[1] if klass.count("/") == 2 else "decode"
        return self.memory_exponents.get(phase, self.memory_exponents["decode"])

    def buffers(self, klass: str) -> float:
        """The logits buffers of ``klass`` (its own entry, else its phase's; 0 when the file
        names none)."""
        phase = klass.split("/")[1] if klass.count("/") == 2 else "decode"
        return self.logits_buffers.get(klass, self.logits_buffers.get(phase, 0.0))

    def lookup(self, klass: str) -> ClassCoefficients | None:
        """One class's coefficients, or ``None`` when it was never fitted."""
        return self.classes.get(klass)

    def merged(self, local: Coefficients) -> Coefficients:
        """These coefficients with ``local``'s classes replacing (or adding to) them."""
        return Coefficients(self.memory_exponents, {**self.classes, **local.classes},
                            self.not_predicted, self.sources, self.logits_buffers)


def read_document(path: Path, where: str) -> Any:
    """A coefficient file's JSON, read within the document limits."""
    from cgconfig.docio import load_json_text, read_text_file

    return load_json_text(read_text_file(str(path), where=where), where)


def builtin() -> Coefficients:
    """The package's fitted coefficients."""
    return Coefficients.from_document(json.loads(BUILTIN_PATH.read_text(encoding="utf-8")),
                                      "cgconfig/cost/coefficients.json")


def load(env: dict[str, str] | None = None) -> Coefficients:
    """The coefficients plans use: the package's, with the local calibration file over them
    when it exists (a broken local file is an :class:`InputError` naming it)."""
    base = builtin()
    path = local_path(env)
    if not path.exists():
        return base
    where = f"local cost file {path}"
    return base.merged(Coefficients.from_document(read_document(path, where), str(path)))
