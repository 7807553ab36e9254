"""Cost of the plan's engine block, measured side by side in one run.

For each input, the median in-process ``resolve_args`` time with the pipeline's ``engine`` step
and without it (runs interleaved, so machine noise hits both), and their ratio. The step is cheap
unless a rule encoding a hook that SGLang runs after its memory hook fired: then the rules run a
second time to see the config the memory heuristic read.

    python benchmarks/engine_bench.py [--runs 301]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cgconfig.engines.sglang.pipeline as sglang_pipeline
from cgconfig.api import resolve_args

INPUTS = {
    "default (no later rule)": ["--gpu-memory-gib", "80", "--tp-size", "8"],
    "torch_native (later rule fires)": ["--gpu-memory-gib", "80",
                                        "--attention-backend", "torch_native"],
    "DP attention (later rule fires)": ["--gpu-memory-gib", "80", "--enable-dp-attention",
                                        "--dp-size", "2", "--tp-size", "2"],
}


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    resolve_args(argv)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=301)
    runs = parser.parse_args().runs
    with_step = sglang_pipeline.STEPS
    without_step = tuple(s for s in with_step if s[0] != "engine")
    for label, argv in INPUTS.items():
        resolve_args(argv)
        on: list[float] = []
        off: list[float] = []
        for _ in range(runs):
            sglang_pipeline.STEPS = with_step
            on.append(timed(argv))
            sglang_pipeline.STEPS = without_step
            off.append(timed(argv))
        sglang_pipeline.STEPS = with_step
        a, b = statistics.median(on), statistics.median(off)
        print(f"{label:34s} with engine {a * 1e3:.3f} ms, without {b * 1e3:.3f} ms, "
              f"ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
