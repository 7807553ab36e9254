"""``cgconfig tune`` on the three stored workloads, and the cost of recording the histogram.

For each workload in ``benchmarks/workloads/`` (10,000 decode steps each), on an H200-class
deployment (``--gpu-memory-gib 141``, tp 1: SGLang's default decode list has 36 sizes up to 256):

* padding waste of SGLang's default list and of the tuned list with the same number of graphs,
  side by side, and their ratio;
* the number of graphs the tuned list needs for at most 1 % waste;
* the time the exact optimiser took.

Then the histogram's recording cost: ``RunnerStats.record_replay`` with the histogram counter
against the same method without it, timed alternately in one run (target: at most 1 µs per
``run``). Needs no GPU; the recording part needs torch only for importing the runtime package.

    python benchmarks/tune_bench.py [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("poisson", "bimodal", "uniform")
LAUNCH = ["--gpu-memory-gib", "141", "--tp-size", "1"]


def tune_workloads() -> list[dict[str, Any]]:
    """Default vs tuned (equal count) and the graphs for ≤ 1 % waste, per workload."""
    from cgconfig.api import request_and_meta
    from cgconfig.tune import histogram
    from cgconfig.tune.plan_tuner import tune_plan

    rows = []
    for name in WORKLOADS:
        path = ROOT / "benchmarks" / "workloads" / f"{name}.json"
        hist = histogram.load(path)
        request, _ = request_and_meta(list(LAUNCH))
        t0 = time.perf_counter()
        result = tune_plan(request, hist, str(path.relative_to(ROOT)))
        seconds = time.perf_counter() - t0
        d, t = result.default_metrics, result.tuned_metrics
        rows.append({
            "workload": name, "graphs": d.graphs,
            "default_waste": d.waste, "tuned_waste": t.waste,
            "waste_ratio": (d.waste / t.waste) if t.waste else float("inf"),
            "graphs_for_1pct": result.graphs_for_1pct,
            "tuned_sizes": result.tuned_sizes, "tune_seconds": seconds,
        })
    return rows


def recording_cost(calls: int = 200_000, repeats: int = 7) -> dict[str, float]:
    """ns per ``record_replay`` with and without the histogram counter, alternated."""
    from cgconfig.runtime.stats import RunnerStats

    class WithoutHistogram(RunnerStats):
        def record_replay(self, size: int, padded: int, launches: int) -> None:
            self.replays[padded] += 1
            self.real_rows += size
            self.padded_rows += padded - size
            self.fill_launches += launches

    sizes = [(s % 200) + 1 for s in range(calls)]
    results: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(repeats):
        for label, stats in (("with", RunnerStats()), ("without", WithoutHistogram())):
            record = stats.record_replay
            t0 = time.perf_counter()
            for s in sizes:
                record(s, s + 3, 1)
            results[label].append((time.perf_counter() - t0) / calls * 1e9)
    med = {k: sorted(v)[len(v) // 2] for k, v in results.items()}
    return {"with_ns": med["with"], "without_ns": med["without"],
            "histogram_ns": med["with"] - med["without"]}


def main() -> int:
    """Print both tables; ``--json FILE`` also writes the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    rows = tune_workloads()
    print(f"deployment: {' '.join(LAUNCH)} (SGLang default decode list: {rows[0]['graphs']} sizes)")
    print("| workload | graphs | default waste | tuned waste | default/tuned | graphs for ≤ 1 % "
          "| tune time |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['workload']} | {r['graphs']} | {100 * r['default_waste']:.2f} % | "
              f"{100 * r['tuned_waste']:.2f} % | {r['waste_ratio']:.1f}x | "
              f"{r['graphs_for_1pct']} | {r['tune_seconds']:.2f} s |")
    cost: dict[str, float] | None = None
    try:
        cost = recording_cost()
    except ImportError as exc:  # torch missing: the runtime package cannot load
        print(f"recording cost: skipped ({exc})", file=sys.stderr)
    if cost:
        print(f"\nRunnerStats.record_replay: {cost['with_ns']:.0f} ns with the histogram, "
              f"{cost['without_ns']:.0f} ns without: the histogram adds "
              f"{cost['histogram_ns']:.0f} ns per run (target ≤ 1000 ns)")
    if args.json:
        Path(args.json).write_text(json.dumps({"workloads": rows, "recording": cost}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
