"""Generate the three stored decode workloads of ``benchmarks/tune_bench.py`` (deterministic).

* ``poisson``: a continuous-batching simulation. Requests arrive as a Poisson process (0.5 per
  decode step), each decodes a long-tailed number of tokens (log-normal, median 120, sigma 1.0,
  capped at 2048), at most 256 run at once; a step's batch is every running request. After
  5,000 warm-up steps, 10,000 steps are recorded: ``poisson_sequence.json`` holds them in order
  (the GPU replay uses it) and ``poisson.json`` their histogram.
* ``bimodal``: 60 % of steps near 8 requests (normal, sd 2), 40 % near 160 (sd 20).
* ``uniform``: every size 1..256 equally likely.

Each histogram holds 10,000 steps, sizes 1..256. Run: ``python benchmarks/workloads/make_workloads.py``.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
STEPS = 10_000
MAX_RUNNING = 256


def _poisson(rng: random.Random, lam: float) -> int:
    # Knuth's method: fine for a small rate.
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def poisson_sequence(seed: int = 1) -> list[int]:
    """Batch sizes of 10,000 decode steps of the continuous-batching simulation."""
    rng = random.Random(seed)
    running: list[int] = []  # tokens left per running request
    waiting = 0
    sizes: list[int] = []
    for step in range(5_000 + STEPS):
        waiting += _poisson(rng, 0.5)
        while waiting and len(running) < MAX_RUNNING:
            waiting -= 1
            running.append(min(2048, max(1, round(rng.lognormvariate(math.log(120), 1.0)))))
        if running and step >= 5_000:
            sizes.append(len(running))
        running = [left - 1 for left in running if left > 1]
    return sizes[:STEPS]


def bimodal(seed: int = 2) -> list[int]:
    """Short interactive bursts and a busy batch phase."""
    rng = random.Random(seed)
    out = []
    for _ in range(STEPS):
        mean, sd = (8, 2) if rng.random() < 0.6 else (160, 20)
        out.append(min(256, max(1, round(rng.gauss(mean, sd)))))
    return out


def uniform(seed: int = 3) -> list[int]:
    """No structure at all: the grid's worst case for a tuner."""
    rng = random.Random(seed)
    return [rng.randint(1, 256) for _ in range(STEPS)]


def _write_histogram(name: str, sizes: list[int], how: str) -> None:
    counts = Counter(sizes)
    doc = {"schema_version": 1, "source": f"benchmarks/workloads/make_workloads.py: {how}",
           "phases": {"decode": {str(k): v for k, v in sorted(counts.items())}}}
    (HERE / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")


def main() -> None:
    """Write the three histograms and the Poisson step sequence."""
    sequence = poisson_sequence()
    (HERE / "poisson_sequence.json").write_text(json.dumps(sequence) + "\n")
    _write_histogram("poisson", sequence, "continuous batching, Poisson arrivals 0.5/step, "
                     "log-normal output lengths (median 120), max 256 running")
    _write_histogram("bimodal", bimodal(), "60 % near 8 requests, 40 % near 160")
    _write_histogram("uniform", uniform(), "uniform 1..256")


if __name__ == "__main__":
    main()
