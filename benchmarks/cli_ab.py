"""CLI start-up of two cgconfig installs, measured side by side in one run.

Runs each ``cgconfig`` executable on the same lines, interleaved (A, B, B, A, ...) so machine
noise hits both, and prints the median CPU time (user + system of the child) and wall time of
each, with the ratio B/A. Use it to check a change against the commit before it:

    git worktree add /tmp/base <commit> && python3 -m venv /tmp/base/.venv \\
        && /tmp/base/.venv/bin/pip install -q -e /tmp/base
    python3 -m venv /tmp/new && /tmp/new/bin/pip install -q -e .
    python benchmarks/cli_ab.py --a /tmp/base/.venv/bin/cgconfig --b /tmp/new/bin/cgconfig [--runs 21]

Make both installs the same way (same packages, same kind of install): every import searches
the environment's ``sys.path``, so a venv that also holds torch and the test tools is slower
for reasons that are not the code's. With ``PYTHONDONTWRITEBYTECODE`` set, every run compiles
the sources again and the ratio measures source size; unset it for the figure users see.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import time

#: The lines timed: a plain SGLang line, a `vllm serve` line and a trtllm-serve line.
LINES: dict[str, list[str]] = {
    "sglang": ["resolve", "-o", "json", "--tp-size", "8", "--gpu-memory-gib", "141",
               "--cuda-graph-max-bs-decode", "256", "--attention-backend", "fa3"],
    "vllm serve": ["resolve", "-o", "json", "vllm", "serve", "meta-llama/Llama-3.1-8B",
                   "--max-num-seqs", "128", "-O3", "--gpu-memory-gib", "80"],
    "trtllm-serve": ["resolve", "-o", "json", "trtllm-serve", "serve", "m",
                     "--max_batch_size", "64"],
}


def one_run(exe: str, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run; its exit status is not checked (a line one
    version refuses still measures start-up), its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([exe, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="the baseline cgconfig executable")
    parser.add_argument("--b", required=True, help="the cgconfig executable under test")
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    env = {**os.environ, "COLUMNS": "120", "CGCONFIG_NO_GPU_PROBE": "1"}
    print(f"{'line':14} {'A cpu ms':>9} {'B cpu ms':>9} {'B/A':>6} {'A wall ms':>10} "
          f"{'B wall ms':>10} {'B/A':>6}")
    for name, args in LINES.items():
        for exe in (options.a, options.b):  # warm the page cache and both rule caches
            one_run(exe, args, env)
        times: dict[str, list[tuple[float, float]]] = {"a": [], "b": []}
        for i in range(options.runs):
            order = ("a", "b") if i % 2 == 0 else ("b", "a")
            for which in order:
                times[which].append(one_run(getattr(options, which), args, env))
        cpu = {k: statistics.median(t[0] for t in v) * 1e3 for k, v in times.items()}
        wall = {k: statistics.median(t[1] for t in v) * 1e3 for k, v in times.items()}
        print(f"{name:14} {cpu['a']:9.1f} {cpu['b']:9.1f} {cpu['b'] / cpu['a']:6.3f} "
              f"{wall['a']:10.1f} {wall['b']:10.1f} {wall['b'] / wall['a']:6.3f}")


if __name__ == "__main__":
    main()
