"""Cost of the engine flag tables, measured side by side in one run.

1. Cold start: ``python -c "import cgconfig.line; load_table('sglang')"`` against
   ``python -c "import cgconfig"`` (interleaved runs, medians, ratio): what loading the 531-flag
   SGLang table adds to a CLI start.
2. Splitting: median in-process time of ``split_command_line`` (the one splitter, with the
   release chosen first) over every SGLang line of the launch-line corpus against SGLang's argv
   reader alone (``engines/sglang/argv.parse_argv(..., ignore_unknown=True)``) on the same
   engine argvs, and their ratio.

    python benchmarks/engines_bench.py [--runs 21]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINES = ROOT / "tests" / "data" / "launch_lines" / "lines.jsonl"


def wall(code: str) -> float:
    """Seconds one ``python -c CODE`` takes."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def median_call(fn: object, argvs: list[list[str]], runs: int) -> float:
    """Median seconds of one pass of ``fn`` over all argvs."""
    assert callable(fn)
    for argv in argvs:
        fn(argv)  # warm caches and imports
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for argv in argvs:
            fn(argv)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--runs", type=int, default=21)
    args = cli.parse_args()

    base, table = [], []
    for _ in range(args.runs):
        base.append(wall("import cgconfig"))
        table.append(wall("import cgconfig.line as e; e.load_table('sglang')"))
    b, t = statistics.median(base), statistics.median(table)
    print(f"cold start: import cgconfig {b * 1e3:.1f} ms | + load_table('sglang') {t * 1e3:.1f} ms "
          f"| ratio {t / b:.2f}")

    from cgconfig.engines.sglang.argv import parse_argv
    from cgconfig.line import find_entry_point, tokenize
    from cgconfig.line.versions import newest
    from cgconfig.sources.command_line import split_command_line

    lines, argvs = [], []
    for line in LINES.read_text().splitlines():
        entry = json.loads(line)
        found = find_entry_point(entry["line"]) if entry["engine"] == "sglang" else None
        if found is not None:
            lines.append(tokenize(entry["line"]))
            argvs.append(found.argv)
    ours = median_call(lambda a: split_command_line(list(a), environ={}), lines, args.runs)
    release = newest("sglang")
    theirs = median_call(lambda a: parse_argv(list(a), release=release, ignore_unknown=True),
                         argvs, args.runs)
    per = 1e6 / len(argvs)
    print(f"split {len(argvs)} SGLang lines: split_command_line {ours * per:.1f} us/line | "
          f"parse_argv --ignore-unknown-args {theirs * per:.1f} us/line | ratio {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
