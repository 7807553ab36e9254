"""Fit ``cgconfig/cost/coefficients.json`` and print the held-out error table (issue #34).

Inputs (both in this folder):

* ``cost/boots.json``: public boot logs, each cited by URL, marked ``fit``, ``holdout`` or
  ``excluded`` (with why);
* ``capture_cost_h200*.jsonl``: runtime measurements on one H200 (memory: the device's
  free-memory drop over the capture, what the engines log). Runs 1-5 (``capture_cost_h200.jsonl``,
  ``_holdout``, ``_hf``, ``_hf4``, ``_hf5``) were each held out in turn by earlier sessions and
  read; they are all fit data now. ``capture_cost_h200_hf6.jsonl`` (run 6: new models and sizes,
  recorded after the coefficients were frozen at this file's fit) is held out whole.

The usable public boots are split by :func:`split_by_hash` too, within each class, so every
class keeps boots to fit; the rule was fixed before any error of this fit was looked at.

Usage: ``python benchmarks/fit_cost.py [--write]`` (``--write`` rewrites the coefficients file;
without it the script checks that the file matches the fit and prints the table).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from cgconfig.cost import fit
from cgconfig.cost.coefficients import (
    BUILTIN_PATH,
    DEFAULT_HIDDEN,
    DEFAULT_LAYERS,
    class_key,
)

HERE = Path(__file__).resolve().parent
#: The H200 batches held out whole (recorded after the coefficients were frozen).
HELD_OUT_BATCHES = ("hf6",)
FIRST_MODEL = ("The first model each benchmark process captures is left out of fit and held-out "
               "sets alike: its free-memory drop includes CUDA's lazy loading of the kernels the "
               "process had not run yet (up to 3x the pool it reserved), which an engine has "
               "loaded by its profile run before capture.")
#: How a boot's logged capture maps onto a plan's phase and backend.
ENGINE_PHASE = {("vllm", "mixed", "piecewise"): ("prefill", "breakable")}


LOGITS_IN_GRAPH = ("runtime", "sglang")
"""Engines whose decode graphs end in every row's logits, so their decode pools hold
``fit.LOGITS_BUFFERS`` bf16 logits buffers of the largest size: cgconfig.runtime's benchmark
forward returns them (``capture_cost_hf.build_hf``), SGLang 0.5.23's
``model_executor/cuda_graph_runner.py:CudaGraphRunner.capture_one_batch_size`` captures the
model's forward through its ``LogitsProcessor``. vLLM's graphs stop at the hidden states (V1
0.33.0 ``compilation/cuda_graph.py:CUDAGraphWrapper`` wraps the model's forward; logits are
``compute_logits`` outside; V0 ``worker/model_runner.py:CUDAGraphRunner`` likewise), and
TensorRT-LLM's DeepSeek-R1 boots hold pools (220 MiB at 2048 rows) smaller than one such
buffer: their classes have none. Chosen by ``select_memory_model.py`` (form ``phase:gbhL+1e``)."""


def logits_buffers(klass: str) -> float:
    """The logits buffers of class ``engine/phase/backend``."""
    engine, phase = klass.split("/")[:2]
    return fit.LOGITS_BUFFERS.get(phase, 0.0) if engine in LOGITS_IN_GRAPH else 0.0


def split_by_hash(keys: list[str]) -> dict[str, str]:
    """``fit`` or ``holdout`` per key: ordered by the SHA-1 of the key, every second one held
    out, the first fitted (so a group of one is fitted, never only held out)."""
    ordered = sorted(set(keys), key=lambda k: hashlib.sha1(k.encode()).hexdigest())
    return {k: ("fit" if i % 2 == 0 else "holdout") for i, k in enumerate(ordered)}


def _boot_class(b: dict[str, Any]) -> str:
    phase, backend = ENGINE_PHASE.get((b["engine"], b["phase"], b["backend"]),
                                      (b["phase"], b["backend"]))
    return class_key(b["engine"], phase, backend)


def boot_samples() -> tuple[list[tuple[str, fit.Sample]], list[dict[str, Any]]]:
    """(use, sample) per usable boot, and the boots themselves."""
    boots = json.loads((HERE / "cost" / "boots.json").read_text())["boots"]
    usable = [b for b in boots if b["use"] != "excluded"]
    split: dict[str, str] = {}
    for klass in {_boot_class(b) for b in usable}:
        split.update(split_by_hash([b["id"] for b in usable if _boot_class(b) == klass]))
    out = []
    for b in usable:
        phase, backend = ENGINE_PHASE.get((b["engine"], b["phase"], b["backend"]),
                                          (b["phase"], b["backend"]))
        mem = b["memory_gib"] * 1024 if b["memory_gib"] is not None else None
        out.append((split[b["id"]], fit.Sample(class_key(b["engine"], phase, backend), b["graphs"],
                                         b["layers"] or DEFAULT_LAYERS, mem, b["seconds"],
                                         b["id"], b["max_size"],
                                         b["hidden"] / b["tp"] if b["hidden"] else DEFAULT_HIDDEN,
                                         b["tp"] or 1)))
    return out, boots


def runtime_samples() -> list[tuple[str, fit.Sample]]:
    """(use, sample) per runtime measurement (per-rank layers are the model's): runs 1-5 fit,
    :data:`HELD_OUT_BATCHES` held out."""
    out = []
    lines = [("first", x) for x in (HERE / "capture_cost_h200.jsonl").read_text().splitlines()]
    lines += [("second", x) for x in (HERE / "capture_cost_h200_holdout.jsonl").read_text()
              .splitlines()]
    lines += [("hf", x) for x in (HERE / "capture_cost_h200_hf.jsonl").read_text().splitlines()]
    lines += [("hf4", x) for x in (HERE / "capture_cost_h200_hf4.jsonl").read_text()
              .splitlines()]
    lines += [("hf5", x) for x in (HERE / "capture_cost_h200_hf5.jsonl").read_text()
              .splitlines()]
    sixth = HERE / "capture_cost_h200_hf6.jsonl"
    if sixth.exists():
        lines += [("hf6", x) for x in sixth.read_text().splitlines()]
    firsts = {batch: json.loads(x)["model"] for batch, x in reversed(lines)}
    firsts["hf-main"] = next(json.loads(x)["model"] for batch, x in lines
                             if batch == "hf" and json.loads(x)["model"] != firsts["hf"])
    for batch, line in lines:
        row = json.loads(line)
        if "error" in row:
            continue
        if row["model"] in (firsts[batch], firsts["hf-main"] if batch == "hf" else None):
            continue  # a process's first model pays CUDA's lazy kernel loading (see FIRST_MODEL)
        use = "holdout" if batch in HELD_OUT_BATCHES else "fit"
        tag = {"hf": "hf ", "hf4": "hf4 ", "hf5": "hf5 ", "hf6": "hf6 "}.get(batch, "")
        ident = (f"h200 {tag}{row['model']} tp{row['tp']} {row['phase']}/{row['backend']} "
                 f"n={row['graphs']}")
        out.append((use, fit.Sample(class_key("runtime", row["phase"], row["backend"]),
                                    row["graphs"], row["layers"],
                                    row["free_drop_bytes"] / 2**20, row["capture_seconds"],
                                    ident, row["max_size"], row["hidden"] / row["tp"], 1,
                                    _vocab(row["model"]) / row["tp"],
                                    *_mlp_head(row["model"]))))
    return out


def _vocab(model: str) -> int:
    """The vocabulary the benchmark built ``model`` with (its public config.json value)."""
    sys.path.insert(0, str(HERE))
    from capture_cost_bench import MODELS
    from capture_cost_hf import HF_MODELS

    if model in HF_MODELS:
        return int(HF_MODELS[model][1]["vocab_size"])
    return int(MODELS[model]["vocab_size"])


def _mlp_head(model: str) -> tuple[float, float]:
    """(MLP width / hidden size, head size) the benchmark built ``model`` with."""
    sys.path.insert(0, str(HERE))
    from capture_cost_bench import MODELS
    from capture_cost_hf import HF_MODELS

    cfg = HF_MODELS[model][1] if model in HF_MODELS else MODELS[model]
    head = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    return cfg["intermediate_size"] / cfg["hidden_size"], float(head)


def fit_all(samples: list[tuple[str, fit.Sample]]) -> dict[str, Any]:
    """The coefficients document from the fit samples."""
    fitting = [s for use, s in samples if use == "fit"]
    exps = fit.fit_exponents(fitting, logits_buffers)
    classes: dict[str, Any] = {}
    for klass in sorted({s.klass for s in fitting}):
        group = [s for s in fitting if s.klass == klass]
        entry: dict[str, Any] = {"fitted_on": sorted(s.ident for s in group)}
        phase = klass.split("/")[1]  # decode or prefill
        mem = fit.fit_memory(group, exps[phase], logits_buffers(klass))
        if mem:
            entry["memory_mib_per_graph"] = round(mem[0], 4)
            entry["memory_spread"] = round(mem[1], 3)
        tp_exp = fit.fit_tp_exponent(group)
        sec = fit.fit_seconds(group, tp_exp)
        if sec:
            entry["seconds_tp_exponent"] = tp_exp
            entry["seconds_fixed"] = round(sec[0], 4)
            entry["seconds_per_graph"] = round(sec[1], 5)
            entry["seconds_spread"] = round(sec[2], 3)
        classes[klass] = entry
    return {"schema_version": 1, "memory_exponents": {k: list(v) for k, v in exps.items()},
            "memory_logits_buffers": {**fit.LOGITS_BUFFERS, **{
                k: 0.0 for k in sorted({*classes, "vllm/decode/full"})
                if logits_buffers(k) != fit.LOGITS_BUFFERS.get(k.split("/")[1], 0.0)}},
            "classes": classes}


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
            pred = fit.predict_memory(c.memory_mib_per_graph, s.graphs, s.max_size, s.hidden,
                                      coeffs.exponents(s.klass), s.layers, s.vocab,
                                      coeffs.buffers(s.klass))
            row.update(memory_mib=round(s.memory_mib, 1), predicted_mib=round(pred, 1),
                       memory_ratio=round(fit.ratio_error(pred, s.memory_mib), 3))
        if s.seconds and c.seconds_per_graph is not None:
            pred = c.seconds_fixed + c.seconds_per_graph * fit.work(s, c.seconds_tp_exponent)
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
