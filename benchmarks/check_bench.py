"""``cgconfig check`` on 1,000 launch lines, on one core, and the per-line cost of the resolver.

Writes a scratch repository of 100 shell scripts with 10 launch lines each (SGLang, vLLM and
TensorRT-LLM lines with varied flags, some with findings), then:

* runs ``cgconfig check -o json DIR`` in a subprocess pinned to one core (``taskset -c 0``
  where it exists) and prints its wall and CPU time (target: under 10 s);
* in process, times resolving each line (``cgconfig.files.plan.resolve_launch``, the resolver
  every launch goes through) and checking it (``cgconfig.lint.checker.check_launch``, the
  resolver plus the findings), and prints the medians per line.

    python benchmarks/check_bench.py [--lines 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SGLANG = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3"
LINES = (
    SGLANG + " --tp {tp} --max-running-requests {mrr} --cuda-graph-max-bs-decode {bs} "
    "--gpu-memory-gib 141",
    SGLANG + " --tp {tp} --attention-backend flashinfer --gpu-memory-gib 80 --port 30000",
    SGLANG + " --tp {tp} --disaggregation-mode prefill --gpu-memory-gib 141",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp {tp} --max-num-seqs {mrr} "
    "--gpu-memory-utilization 0.9",
    "vllm serve m -tp {tp} --max-num-seqs {bs} --max-cudagraph-capture-size {bs} "
    "--enforce-eager",
    "trtllm-serve m --max_batch_size {mrr} --tp_size {tp}",
    SGLANG + " --tp {tp} --speculative-algorithm EAGLE --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --gpu-memory-gib 141",
    SGLANG + " --tp {tp} --cuda-graph-max-bs {bs}",
    "vllm serve m --max-num-seqs {mrr} -cc '{{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}}'",
    SGLANG + " --tp {tp} --enable-dp-attention --dp {tp} --gpu-memory-gib 141",
)


def write_repo(root: Path, lines: int) -> None:
    """``lines`` launch lines, 10 to a script."""
    per_file = len(LINES)
    for index in range(0, lines, per_file):
        text = ["#!/bin/bash", "set -e"]
        for offset, template in enumerate(LINES[: min(per_file, lines - index)]):
            n = index + offset
            text.append(template.format(tp=(1, 2, 4, 8)[n % 4], mrr=(64, 256, 512, 1024)[n % 4],
                                        bs=(32, 128, 256, 512)[n % 4]))
        (root / f"run_{index // per_file:04d}.sh").write_text("\n".join(text) + "\n")


def run_cli(root: Path) -> tuple[float, float, dict[str, int]]:
    """Wall and CPU seconds of one ``cgconfig check`` run on one core, and its summary."""
    cmd = [sys.executable, "-m", "cgconfig.cli", "check", "-o", "json", "--fail-on", "never",
           str(root)]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    env = dict(os.environ, CGCONFIG_NO_GPU_PROBE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary: dict[str, int] = json.loads(done.stdout)["summary"]
    return wall, cpu, summary


def per_line(root: Path, sample: int) -> tuple[float, float]:
    """Median CPU seconds per line: resolving it, and checking it (resolve + findings)."""
    os.environ["CGCONFIG_NO_GPU_PROBE"] = "1"
    from cgconfig.cli.check_bounds import running_bound
    from cgconfig.errors import CgConfigError
    from cgconfig.files.launch import find_launches
    from cgconfig.files.plan import resolve_launch
    from cgconfig.lint.checker import CheckOptions, check_launch

    launches = []
    for path in sorted(root.glob("*.sh")):
        launches += find_launches(str(path), path.read_text())
        if len(launches) >= sample:
            break
    options = CheckOptions(bound=running_bound)
    for launch in launches[:10]:  # warm: imports, rule packs, flag tables
        check_launch(launch, options)
    resolve_times, check_times = [], []
    for launch in launches[:sample]:
        start = time.process_time()
        with contextlib.suppress(CgConfigError):  # a refusal is resolver work too
            resolve_launch(launch, [], environ={})
        resolve_times.append(time.process_time() - start)
        start = time.process_time()
        check_launch(launch, options)
        check_times.append(time.process_time() - start)
    return statistics.median(resolve_times), statistics.median(check_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=200, help="lines timed one by one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_repo(root, args.lines)
        wall, cpu, summary = run_cli(root)
        resolve_s, check_s = per_line(root, args.sample)
    print(f"cgconfig check: {summary['launches']} launch lines in {summary['files']} files: "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU on one core (target < 10 s); "
          f"{summary['findings']} findings")
    print(f"per line (median of {args.sample}): resolve {resolve_s * 1000:.2f} ms, "
          f"check (resolve + findings) {check_s * 1000:.2f} ms")


if __name__ == "__main__":
    main()
