"""cgconfig's prediction of one phase's graph pool memory (per rank) and capture seconds.

The formula is :mod:`cgconfig.cost.fit`'s, with the class's coefficients
(:mod:`cgconfig.cost.coefficients`); the range is the class's fitted spread, widened for every
fact the plan does not know (an unknown hidden size spans
:data:`~cgconfig.cost.coefficients.HIDDEN_RANGE`, unknown layers
:data:`~cgconfig.cost.coefficients.LAYER_RANGE`, an unknown vocabulary
:data:`~cgconfig.cost.coefficients.VOCAB_RANGE`). A class with no coefficients of its own
borrows the runtime measurement of the same phase and backend, with a wider range, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from cgconfig.cost import fit
from cgconfig.cost.coefficients import (
    DEFAULT_HIDDEN,
    DEFAULT_LAYERS,
    HIDDEN_RANGE,
    LAYER_RANGE,
    VOCAB_RANGE,
    ClassCoefficients,
    Coefficients,
    class_key,
)

BORROWED_SPREAD = 2.0
"""Extra range factor when a class borrows another's coefficients."""


class PhaseInputs(NamedTuple):
    """What one phase's prediction reads."""

    engine: str
    phase: str
    backend: str
    sizes: tuple[int, ...]
    layers: int | None
    hidden_per_rank: float | None
    tp: int = 1
    """Tensor-parallel size: every graph records its all-reduces, ranks capture in lock step."""
    vocab: int | None = None
    """The model's vocabulary (a decode graph's logits are vocabulary-wide on every rank)."""


@dataclass
class Prediction:
    """A phase's predicted memory and seconds, each ``(low, expected, high)``, and how."""

    klass: str
    memory_gib: tuple[float, float, float] | None = None
    seconds: tuple[float, float, float] | None = None
    how: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    origin: str = ""
    fitted_on: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the plan's ``cost.phases.<phase>.predicted``)."""
        def triple(v: tuple[float, float, float] | None, digits: int) -> dict[str, float] | None:
            if v is None:
                return None
            return {"low": round(v[0], digits), "expected": round(v[1], digits),
                    "high": round(v[2], digits)}

        return {"class": self.klass, "graph_memory_gib": triple(self.memory_gib, 3),
                "capture_seconds": triple(self.seconds, 2), "coefficients": self.origin,
                "fitted_on": self.fitted_on, "how": list(self.how),
                "unknown": list(self.unknown)}


def _choose(coeffs: Coefficients, inputs: PhaseInputs,
            quantity: str) -> tuple[str, ClassCoefficients | None, bool]:
    """The class that has ``quantity`` (``memory_mib_per_graph`` or ``seconds_per_graph``):
    the engine's own, else the runtime's of the same phase and backend (borrowed)."""
    own = class_key(inputs.engine, inputs.phase, inputs.backend)
    found = coeffs.lookup(own)
    if found is not None and getattr(found, quantity) is not None:
        return own, found, False
    borrowed = class_key("runtime", inputs.phase, inputs.backend)
    other = coeffs.lookup(borrowed)
    if other is not None and getattr(other, quantity) is not None:
        return borrowed, other, True
    return own, None, False


def predict(inputs: PhaseInputs, coeffs: Coefficients) -> Prediction | None:
    """The prediction for a phase that captures graphs (``None`` for no sizes)."""
    if not inputs.sizes:
        return None
    own = class_key(inputs.engine, inputs.phase, inputs.backend)
    mem_class, cm, mem_borrowed = _choose(coeffs, inputs, "memory_mib_per_graph")
    sec_class, cs, sec_borrowed = _choose(coeffs, inputs, "seconds_per_graph")
    pred = Prediction(own if not mem_borrowed else mem_class)
    chosen = cm or cs
    if chosen is None:
        pred.how.append(f"no coefficients for {own}: not predicted")
        return pred
    pred.origin = chosen.origin
    pred.fitted_on = len(chosen.fitted_on)
    for quantity, klass, borrowed in (("memory", mem_class, mem_borrowed),
                                      ("seconds", sec_class, sec_borrowed)):
        if borrowed:
            pred.how.append(f"no {inputs.engine} boots with {quantity} for {inputs.phase}/"
                            f"{inputs.backend}: cgconfig.runtime's measured class {klass}, "
                            f"range ×{BORROWED_SPREAD:g}")
    n, biggest = len(inputs.sizes), max(inputs.sizes)
    widen = BORROWED_SPREAD if mem_borrowed else 1.0
    c = cm
    if c is not None and c.memory_mib_per_graph is not None:
        hidden = inputs.hidden_per_rank or DEFAULT_HIDDEN
        mem_layers = inputs.layers or DEFAULT_LAYERS
        exps = coeffs.exponents(mem_class)
        buffers = coeffs.buffers(mem_class)
        vocab = inputs.vocab or fit.REFERENCE_VOCAB
        m = c.memory_mib_per_graph

        def at(v: float) -> float:
            return fit.predict_memory(m, n, biggest, hidden, exps, mem_layers, v, buffers) / 1024

        mid = at(vocab)
        low, high = mid / (c.memory_spread * widen), mid * c.memory_spread * widen
        if inputs.hidden_per_rank is None:
            pred.unknown.append("hidden")
            low = min(low, low * (HIDDEN_RANGE[0] / DEFAULT_HIDDEN) ** exps[2])
            high = max(high, high * (HIDDEN_RANGE[1] / DEFAULT_HIDDEN) ** exps[2])
        if inputs.layers is None:
            low = min(low, low * (LAYER_RANGE[0] / DEFAULT_LAYERS) ** exps[3])
            high = max(high, high * (LAYER_RANGE[1] / DEFAULT_LAYERS) ** exps[3])
        if inputs.vocab is None and (exps[4] or buffers):
            pred.unknown.append("vocab")
            low = min(low, low * at(VOCAB_RANGE[0]) / mid)
            high = max(high, high * at(VOCAB_RANGE[1]) / mid)
        pred.memory_gib = (low, mid, high)
        a, b, cc, d, v = [*exps, 0.0][:5]
        logits = fit.logits_mib(biggest, vocab)
        pred.how.append(
            f"memory = {m:g} MiB × graphs^{a:g} × (max size/256)^{b:g} × "
            f"(hidden per rank/4096)^{cc:g} × (layers/32)^{d:g} × (vocab/128000)^{v:g} + "
            f"{buffers:g} × logits (max size × vocab × 2 B) = "
            f"{m:g} × {n}^{a:g} × ({biggest}/256)^{b:g} × "
            f"({hidden:g}/4096)^{cc:g} × ({mem_layers}/32)^{d:g} × ({vocab:g}/128000)^{v:g} + "
            f"{buffers:g} × {logits:.0f} MiB = {mid * 1024:.0f} MiB; range "
            f"÷/× {c.memory_spread * widen:.2f} (the class's 90th-percentile fit error)")
    widen = BORROWED_SPREAD if sec_borrowed else 1.0
    c = cs
    if c is not None and c.seconds_per_graph is not None:
        layers = inputs.layers or DEFAULT_LAYERS
        e = c.seconds_tp_exponent
        tpf = max(inputs.tp, 1) ** e
        work = n * layers / fit.REFERENCE_LAYERS * tpf
        mid = c.seconds_fixed + c.seconds_per_graph * work
        low, high = mid / (c.seconds_spread * widen), mid * c.seconds_spread * widen
        if inputs.layers is None:
            pred.unknown.append("layers")
            low = min(low, c.seconds_fixed + c.seconds_per_graph * n * LAYER_RANGE[0] / 32 * tpf)
            high = max(high, (c.seconds_fixed
                              + c.seconds_per_graph * n * LAYER_RANGE[1] / 32 * tpf)
                       * c.seconds_spread * widen)
        pred.seconds = (low, mid, high)
        pred.how.append(
            f"seconds = {c.seconds_fixed:g} + {c.seconds_per_graph:g} × graphs × layers/32 × "
            f"tp^{e:g} = {c.seconds_fixed:g} + {c.seconds_per_graph:g} × {n} × {layers}/32 × "
            f"{max(inputs.tp, 1)}^{e:g} = {mid:.2f} s; "
            f"range ÷/× {c.seconds_spread * widen:.2f}; the GPU model is not an input (the "
            "classes mix A100, L40 and H200 captures)")
    return pred
