"""Replay recorded decode batch sizes through the example model: default list vs tuned list.

The 10,000-step sequence of ``benchmarks/workloads/poisson_sequence.json`` (a continuous-batching
simulation, see ``make_workloads.py``) is served by two decode runners on one model: one captured
with SGLang's default list for max_bs 256 (36 sizes, ``cgconfig.engines.sglang.grid.decode_sizes``), one with
the list ``cgconfig tune`` chooses for that histogram with the same number of graphs
(``cgconfig.tune.optimize.best_sizes`` over every size 1..256, which is what the resolver allows
for ``--gpu-memory-gib 141 --tp-size 1``). The sequence is cut into chunks of 1,000 steps and
the two runners alternate chunk by chunk (the order flipping every chunk), so clock and thermal
drift hit both alike; the totals and their ratio are printed.

It also fits the step-time model of ``cgconfig tune --cost FILE`` (graph and eager lines, ms)
from a few measured sizes and writes it with ``--cost-out``.

Needs CUDA (runs on the CPU with ``--small`` only as a smoke test). Uses only the torch-free
parts of cgconfig besides the runtime, so no pydantic is needed.

    python benchmarks/tune_replay.py [--json FILE] [--cost-out FILE]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))

from llama_decoder import LlamaDecoder, ModelConfig, decode_slots  # noqa: E402

from cgconfig.engines.sglang.grid import decode_sizes  # noqa: E402
from cgconfig.runtime import PhaseRunner, phase_capture  # noqa: E402
from cgconfig.tune import histogram  # noqa: E402
from cgconfig.tune.cost import cost_document  # noqa: E402
from cgconfig.tune.optimize import StepCost, best_sizes, evaluate  # noqa: E402

MAX_BS = 256
CHUNK = 1000


def _plan(sizes: list[int]) -> dict[str, Any]:
    return {"schema_version": 1, "options": {},
            "capture": {"decode": {"backend": "full", "sizes": sizes}}}


def _batches(sizes: set[int], cfg: ModelConfig, device: torch.device) -> dict[int, Any]:
    """One decode batch per size, built once: the replay times the runner, not Python lists."""
    out = {}
    gen = torch.Generator().manual_seed(0)
    half = cfg.max_context // 2  # every request mid-way through its context
    for n in sorted(sizes):
        rows = torch.arange(1, n + 1)
        out[n] = {
            "input_ids": torch.randint(0, cfg.vocab, (n,), generator=gen).to(device),
            "positions": torch.full((n,), half - 1, dtype=torch.int64).to(device),
            "out_cache_loc": (rows * cfg.max_context).to(device),
            "req_pool_indices": rows.to(device),
            "seq_lens": torch.full((n,), half, dtype=torch.int64).to(device),
        }
    return out


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares line ``a + b·x`` through (x, ms) points, both clamped at 0."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0
    b = max(b, 0.0)
    return max(my - b * mx, 0.0), b


def step_model(model: LlamaDecoder, runner: PhaseRunner, batches: dict[int, Any],
               device: torch.device, sizes: list[int]) -> StepCost:
    """Measure graph and eager steps at ``sizes`` and fit the two lines."""
    graph, eager = [], []
    with torch.no_grad():
        for n in sizes:
            batch = batches[n]
            steps = ((functools.partial(runner.run, batch, n), 30, graph),
                     (functools.partial(model.decode_forward, batch), 10, eager))
            for fn, reps, out in steps:
                fn()
                _sync(device)
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                _sync(device)
                out.append((n, (time.perf_counter() - t0) / reps * 1e3))
    (ga, gb), (ea, eb) = _fit(graph), _fit(eager)
    return StepCost(ga, gb, ea, eb)


def main() -> int:
    """Capture both lists, replay the sequence alternately, print totals and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--cost-out", metavar="FILE")
    parser.add_argument("--small", action="store_true", help="CPU smoke test: tiny model")
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    work = ROOT / "benchmarks" / "workloads"
    sequence: list[int] = json.loads((work / "poisson_sequence.json").read_text())[: args.steps]
    counts = histogram.load(work / "poisson.json").phase("decode")
    default = decode_sizes(MAX_BS)
    tuned = best_sizes(counts, list(range(1, MAX_BS + 1)), len(default))

    cuda = torch.cuda.is_available() and not args.small
    device = torch.device("cuda" if cuda else "cpu")
    base = ModelConfig() if cuda else ModelConfig.small()
    cfg = ModelConfig(**{**base.__dict__, "max_requests": MAX_BS + 1})
    torch.manual_seed(0)
    model = LlamaDecoder(cfg, torch.bfloat16 if cuda else torch.float32, device).eval()
    runners = {name: PhaseRunner(phase_capture(_plan(sizes), "decode"), model.decode_forward,
                                 decode_slots(), device=device)
               for name, sizes in (("default", default), ("tuned", tuned))}
    capture = {name: r.capture() for name, r in runners.items()}
    batches = _batches(set(sequence) | {1, 16, 64, 128, 256}, cfg, device)
    totals = {"default": 0.0, "tuned": 0.0}
    chunk_ratios: list[float] = []
    with torch.no_grad():
        for runner in runners.values():  # warm-up: every size once through each runner
            for n in sorted(set(sequence)):
                runner.run(batches[n], n)
        _sync(device)
        for start in range(0, len(sequence), CHUNK):
            chunk = sequence[start: start + CHUNK]
            order = ["default", "tuned"] if (start // CHUNK) % 2 == 0 else ["tuned", "default"]
            took = {}
            for name in order:
                run = runners[name].run
                _sync(device)
                t0 = time.perf_counter()
                for n in chunk:
                    run(batches[n], n)
                _sync(device)
                took[name] = time.perf_counter() - t0
                totals[name] += took[name]
            chunk_ratios.append(took["default"] / took["tuned"])
    cost = step_model(model, runners["default"], batches, device, [1, 16, 64, 128, 256])
    report = {
        "device": torch.cuda.get_device_name(device) if cuda else "cpu",
        "torch": torch.__version__, "steps": len(sequence),
        "default_sizes": default, "tuned_sizes": tuned,
        "default_waste": evaluate(default, counts).waste,
        "tuned_waste": evaluate(tuned, counts).waste,
        "default_seconds": round(totals["default"], 4), "tuned_seconds": round(totals["tuned"], 4),
        "default_over_tuned": round(totals["default"] / totals["tuned"], 4),
        "chunk_ratios": [round(r, 4) for r in chunk_ratios],
        "chunks_tuned_faster": sum(r > 1 for r in chunk_ratios),
        "replays": {n: r.stats.to_dict()["padding_ratio"] for n, r in runners.items()},
        "capture_seconds": {n: c["capture_seconds"] for n, c in capture.items()},
        "cost_model_ms": cost_document(cost)["graph"] | {"eager": cost_document(cost)["eager"]},
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    if args.cost_out:
        Path(args.cost_out).write_text(json.dumps(cost_document(
            cost, source="benchmarks/tune_replay.py on " + report["device"]), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
