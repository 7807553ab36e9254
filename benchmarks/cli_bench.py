"""Start-up and resolve latency of the CLI, measured side by side in one run.

Prints the median wall time of ``cgconfig resolve -o json`` and of
``python -c "from pydantic import BaseModel"`` (runs interleaved so machine noise hits both),
their ratio, and the median in-process resolve time. Targets: ratio <= 1.0, in-process <= 0.2 ms.

    python benchmarks/cli_bench.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

RESOLVE_ARGS = ["resolve", "-o", "json", "--tp-size", "8", "--gpu-memory-gib", "141",
                "--cuda-graph-max-bs-decode", "256", "--attention-backend", "fa3"]


def wall(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds one command takes, output discarded; fails loudly if the command fails."""
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def in_process(runs: int) -> float:
    """Median seconds of one in-process ``resolve_args`` call (rule packs already loaded)."""
    from cgconfig.api import resolve_args

    argv = RESOLVE_ARGS[3:]
    resolve_args(argv)  # warm: imports, pack cache, validators
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        resolve_args(argv)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    env = dict(os.environ, CGCONFIG_NO_GPU_PROBE="1")
    exe = shutil.which("cgconfig")
    cli = [exe] if exe else [sys.executable, "-m", "cgconfig.cli"]
    baseline = [sys.executable, "-c", "from pydantic import BaseModel"]
    wall(cli + RESOLVE_ARGS, env)  # populate the rule-pack cache and the pyc files
    cli_times, base_times = [], []
    for _ in range(args.runs):
        cli_times.append(wall(cli + RESOLVE_ARGS, env))
        base_times.append(wall(baseline, env))
    cli_ms = statistics.median(cli_times) * 1000
    base_ms = statistics.median(base_times) * 1000
    os.environ["CGCONFIG_NO_GPU_PROBE"] = "1"
    inproc_ms = in_process(500) * 1000
    ratio = cli_ms / base_ms
    print(f"{'measure':<44} {'median':>10}")
    print(f"{'cgconfig resolve -o json (subprocess)':<44} {cli_ms:>8.1f} ms")
    label = 'python -c "from pydantic import BaseModel"'
    print(f"{label:<44} {base_ms:>8.1f} ms")
    print(f"{'ratio (target <= 1.0)':<44} {ratio:>10.2f}  {'OK' if ratio <= 1.0 else 'MISSED'}")
    print(f"{'in-process resolve_args (target <= 0.2 ms)':<44} {inproc_ms:>8.3f} ms  "
          f"{'OK' if inproc_ms <= 0.2 else 'MISSED'}")
    print(f"runs: {args.runs} interleaved; python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
