"""``cgconfig calibrate REPORT.json``: fold a runtime ``capture_report()`` into the local
coefficient file, which later plans use and name.

``REPORT.json`` is what :func:`cgconfig.runtime.capture_report` returns, dumped as JSON
(``{"decode": {...}, "prefill": {...}}``), optionally wrapped as ``{"phases": {...},
"engine": "runtime", "layers": 32, "hidden": 4096, "tp": 1}``; the flags give what the file
does not. Each phase that captured graphs becomes one sample (graphs, largest size, measured
``graph_memory_gib`` and ``capture_seconds``). The local file keeps every sample it was given
(up to :data:`MAX_SAMPLES`) and, per class, the coefficients fitted on them with the package's
exponents (:mod:`cgconfig.cost.fit`); it is written with :func:`cgconfig.safe_write.write_text`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cgconfig.cost import coefficients as co
from cgconfig.cost import fit
from cgconfig.errors import InputError
from cgconfig.line.registry import names as engine_names

MAX_SAMPLES = 1000
#: What a calibration sample may name: cgconfig's runtime or an engine of ``line.registry``.
ENGINES = ("runtime", *engine_names())
BACKENDS = ("full", "breakable")


def _positive(value: Any, where: str, *, integer: bool = False) -> float:
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not 0 < value < 1e9:
        raise InputError(f"must be a positive {'integer' if integer else 'number'}, got "
                         f"{value!r:.40}", where=where)
    return float(value)


def samples_from_report(doc: Any, where: str, *, engine: str | None, layers: int | None,
                        hidden: int | None, tp: int | None) -> list[dict[str, Any]]:
    """The samples one report gives (a phase without graphs or memory gives none)."""
    if not isinstance(doc, dict):
        raise InputError("a capture report must be a JSON object", where=where)
    phases = doc.get("phases", doc)
    engine = engine or doc.get("engine") or "runtime"
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r:.40}", where=where, allowed=ENGINES)
    layers = layers or doc.get("layers")
    hidden = hidden or doc.get("hidden")
    tp = tp or doc.get("tp") or 1
    if layers is None or hidden is None:
        raise InputError("the report does not say the model's layers and hidden size",
                         where=where, hint="give --layers N --hidden H (config.json's "
                                           "num_hidden_layers and hidden_size)")
    layers_n = _positive(layers, f"{where} layers", integer=True)
    hidden_n = _positive(hidden, f"{where} hidden", integer=True)
    tp_n = _positive(tp, f"{where} tp", integer=True)
    if not isinstance(phases, dict):
        raise InputError("phases must be an object keyed by phase", where=where)
    out = []
    for phase, report in phases.items():
        if phase not in ("decode", "prefill") or not isinstance(report, dict):
            continue
        at = f"{where} at /{phase}"
        sizes = report.get("sizes") or []
        backend = report.get("runtime_backend") or report.get("backend")
        if not isinstance(sizes, list) or not sizes or backend not in BACKENDS:
            continue
        if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes):
            raise InputError("sizes must be positive integers", where=f"{at}/sizes")
        memory = report.get("graph_memory_gib")
        if memory is None and isinstance(report.get("reserved_bytes"), int):
            memory = report["reserved_bytes"] / 2**30
        seconds = report.get("capture_seconds")
        out.append({"class": co.class_key(engine, phase, backend), "graphs": len(sizes),
                    "max_size": max(sizes), "layers": layers_n, "hidden_per_rank": hidden_n / tp_n,
                    "tp": tp_n,
                    "memory_mib": None if memory is None else
                    _positive(memory, f"{at}/graph_memory_gib") * 1024,
                    "seconds": None if seconds is None else
                    _positive(seconds, f"{at}/capture_seconds"), "source": where})
    if not out:
        raise InputError("the report has no phase that captured full or breakable graphs",
                         where=where)
    return out


def refit(samples: list[dict[str, Any]], origin: str) -> dict[str, Any]:
    """The local file's ``classes`` from its samples, with the package's exponents."""
    base = co.builtin()
    classes: dict[str, Any] = {}
    for klass in sorted({s["class"] for s in samples}):
        group = [fit.Sample(klass, s["graphs"], s["layers"], s["memory_mib"], s["seconds"],
                            s["source"], s["max_size"], s["hidden_per_rank"],
                            int(s.get("tp") or 1))
                 for s in samples if s["class"] == klass]
        entry: dict[str, Any] = {"fitted_on": [f"{origin}: {s.ident}" for s in group][:100]}
        mem = fit.fit_memory(group, base.exponents(klass), base.buffers(klass))
        if mem:
            entry["memory_mib_per_graph"], entry["memory_spread"] = round(mem[0], 4), round(mem[1], 3)
        known = base.lookup(klass)
        tp_exp = known.seconds_tp_exponent if known else fit.fit_tp_exponent(group)
        sec = fit.fit_seconds(group, tp_exp)
        if sec:
            entry["seconds_tp_exponent"] = tp_exp
            entry.update(seconds_fixed=round(sec[0], 4), seconds_per_graph=round(sec[1], 5),
                         seconds_spread=round(sec[2], 3))
        classes[klass] = entry
    return classes


def calibrate(report_path: str, *, engine: str | None = None, layers: int | None = None,
              hidden: int | None = None, tp: int | None = None,
              env: dict[str, str] | None = None) -> tuple[Path, dict[str, Any]]:
    """Add ``report_path``'s samples to the local file and refit it; returns its path and
    the classes it now holds."""
    from cgconfig.safe_write import write_text

    where = f"calibrate {report_path}"
    report = co.read_document(Path(report_path), where)
    new = samples_from_report(report, report_path, engine=engine, layers=layers,
                              hidden=hidden, tp=tp)
    path = co.local_path(env)
    old: list[dict[str, Any]] = []
    if path.exists():
        doc = co.read_document(path, f"local cost file {path}")
        co.Coefficients.from_document({k: v for k, v in doc.items() if k != "samples"},
                                      str(path))
        old = [s for s in doc.get("samples", []) if isinstance(s, dict)]
    samples = (old + new)[-MAX_SAMPLES:]
    classes = refit(samples, "calibrate")
    base = co.builtin()
    out = {"schema_version": 1,
           "memory_exponents": {k: list(v) for k, v in base.memory_exponents.items()},
           "memory_logits_buffers": dict(base.logits_buffers),
           "classes": classes, "samples": samples}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(out, indent=1, sort_keys=True) + "\n", where=where)
    return path, classes
