"""Fit ``cgconfig/cost/coefficients.json`` and print the held-out error table (issue #34).

Inputs (both in this folder):

* ``cost/boots.json``: public boot logs, each cited by URL, marked ``fit``, ``holdout`` or
  ``excluded`` (with why);
* ``capture_cost_h200.jsonl``: ``capture_cost_bench.py``'s runtime measurements on one H200
  (memory: the device's free-memory drop over the capture, what the engines log). The models
  in :data:`RUNTIME_HOLDOUT` are held out, the rest fit.

Usage: ``python benchmarks/fit_cost.py [--write]`` (``--write`` rewrites the coefficients file;
without it the script checks that the file matches the fit and prints the table).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from cgconfig.cost import fit
from cgconfig.cost.coefficients import BUILTIN_PATH, DEFAULT_HIDDEN, DEFAULT_LAYERS, class_key

HERE = Path(__file__).resolve().parent
RUNTIME_HOLDOUT = {("meta-llama/Llama-3.2-1B", 1), ("meta-llama/Llama-3.1-8B-Instruct", 1),
                   ("Qwen/Qwen2.5-32B-Instruct", 1), ("meta-llama/Llama-3.1-8B-Instruct", 2)}
#: How a boot's logged capture maps onto a plan's phase and backend.
ENGINE_PHASE = {("vllm", "mixed", "piecewise"): ("prefill", "breakable")}


def boot_samples() -> tuple[list[tuple[str, fit.Sample]], list[dict[str, Any]]]:
    """(use, sample) per usable boot, and the boots themselves."""
    boots = json.loads((HERE / "cost" / "boots.json").read_text())["boots"]
    out = []
    for b in boots:
        if b["use"] == "excluded":
            continue
        phase, backend = ENGINE_PHASE.get((b["engine"], b["phase"], b["backend"]),
                                          (b["phase"], b["backend"]))
        mem = b["memory_gib"] * 1024 if b["memory_gib"] is not None else None
        out.append((b["use"], fit.Sample(class_key(b["engine"], phase, backend), b["graphs"],
                                         b["layers"] or DEFAULT_LAYERS, mem, b["seconds"],
                                         b["id"], b["max_size"],
                                         b["hidden"] / b["tp"] if b["hidden"] else DEFAULT_HIDDEN)))
    return out, boots


def runtime_samples() -> list[tuple[str, fit.Sample]]:
    """(use, sample) per runtime measurement (per-rank layers are the model's). The second
    batch (``capture_cost_h200_holdout.jsonl``, recorded after the model was fitted) is held
    out whole."""
    out = []
    lines = [(False, x) for x in (HERE / "capture_cost_h200.jsonl").read_text().splitlines()]
    lines += [(True, x) for x in (HERE / "capture_cost_h200_holdout.jsonl").read_text()
              .splitlines()]
    for second, line in lines:
        row = json.loads(line)
        if "error" in row:
            continue
        use = "holdout" if second or (row["model"], row["tp"]) in RUNTIME_HOLDOUT else "fit"
        ident = f"h200 {row['model']} tp{row['tp']} {row['phase']}/{row['backend']} n={row['graphs']}"
        out.append((use, fit.Sample(class_key("runtime", row["phase"], row["backend"]),
                                    row["graphs"], row["layers"],
                                    row["free_drop_bytes"] / 2**20, row["capture_seconds"],
                                    ident, row["max_size"], row["hidden"] / row["tp"])))
    return out


def fit_all(samples: list[tuple[str, fit.Sample]]) -> dict[str, Any]:
    """The coefficients document from the fit samples."""
    fitting = [s for use, s in samples if use == "fit"]
    exps = fit.fit_exponents(fitting)
    classes: dict[str, Any] = {}
    for klass in sorted({s.klass for s in fitting}):
        group = [s for s in fitting if s.klass == klass]
        entry: dict[str, Any] = {"fitted_on": sorted(s.ident for s in group)}
        mem = fit.fit_memory(group, exps)
        if mem:
            entry["memory_mib_per_graph"] = round(mem[0], 4)
            entry["memory_spread"] = round(mem[1], 3)
        sec = fit.fit_seconds(group)
        if sec:
            entry["seconds_fixed"] = round(sec[0], 4)
            entry["seconds_per_graph"] = round(sec[1], 5)
            entry["seconds_spread"] = round(sec[2], 3)
        classes[klass] = entry
    return {"schema_version": 1, "memory_exponents": list(exps), "classes": classes}


def held_out(doc: dict[str, Any], samples: list[tuple[str, fit.Sample]]) -> list[dict[str, Any]]:
    """Prediction against measurement for every held-out sample whose class was fitted."""
    from cgconfig.cost.coefficients import Coefficients

    coeffs = Coefficients.from_document(doc, "fit")
    rows = []
    for use, s in samples:
        if use != "holdout":
            continue
        c = coeffs.lookup(s.klass)
        if c is None:
            continue
        row: dict[str, Any] = {"id": s.ident, "class": s.klass, "graphs": s.graphs}
        if s.memory_mib and c.memory_mib_per_graph is not None:
            pred = c.memory_mib_per_graph * fit.memory_shape(s.graphs, s.max_size, s.hidden,
                                                             coeffs.memory_exponents)
            row.update(memory_mib=round(s.memory_mib, 1), predicted_mib=round(pred, 1),
                       memory_ratio=round(fit.ratio_error(pred, s.memory_mib), 3))
        if s.seconds and c.seconds_per_graph is not None:
            pred = c.seconds_fixed + c.seconds_per_graph * s.graphs * s.layers / fit.REFERENCE_LAYERS
            row.update(seconds=s.seconds, predicted_seconds=round(pred, 3),
                       seconds_ratio=round(fit.ratio_error(pred, s.seconds), 3))
        rows.append(row)
    return rows


def summary(rows: list[dict[str, Any]], key: str, group: str | None = None) -> str:
    """``n, median error %, p90 ratio`` of one column."""
    vals = [r[key] for r in rows if key in r and (group is None or r["class"].startswith(group))]
    if not vals:
        return "n=0"
    return (f"n={len(vals)} median {100 * (statistics.median(vals) - 1):.0f} % "
            f"p90 {fit.percentile(vals, 0.9):.2f}x")


def main(argv: list[str] | None = None) -> int:
    """Fit, then print the held-out table; ``--write`` rewrites the coefficients file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    boots, _ = boot_samples()
    samples = boots + runtime_samples()
    doc = fit_all(samples)
    builtin = json.loads(BUILTIN_PATH.read_text())
    doc["not_predicted"] = builtin.get("not_predicted", {})
    doc["sources"] = builtin.get("sources", {})
    if args.write:
        BUILTIN_PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    elif {k: v for k, v in builtin.items() if k in doc} != doc:
        print("coefficients.json differs from the fit: run with --write", file=sys.stderr)
        return 1
    rows = held_out(doc, samples)
    for r in rows:
        print(json.dumps(r))
    for group in ("sglang/", "vllm/", "vllm-v0/", "trtllm/", "runtime/", None):
        print(f"{group or 'all'}: memory {summary(rows, 'memory_ratio', group)}; "
              f"seconds {summary(rows, 'seconds_ratio', group)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
