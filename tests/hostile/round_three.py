"""Round three's campaign (#35, helper hostile2): fresh CLI, API and runtime inputs from a seed.

Run by hand (CI runs a small fixed sample: ``test_round_three_sample.py``)::

    nice python tests/hostile/round_three.py --cli 2100 --api 5200 --runtime 1100 --seed 35

Each CLI case is a subprocess bounded by ``resource`` limits (CPU seconds, address space), not
by wall time (a watchdog far above the CPU bound only names a hang), in its own cache folder
(seeded from a warm one) with an empty ``HF_HOME`` and ``CGCONFIG_NO_GPU_PROBE=1``, at most
``--workers`` (2) at a time. A case is clean when it gives a plan (exit 0) or exits 2 with exactly
one ``cgconfig: error:`` line, with no traceback, no raw control character, no hang, and its
family's check finds no misread. API calls (``cgconfig.api``) and runtime calls (CPU torch) run
in one worker subprocess each, under the same limits; clean is a result or the documented
exceptions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hostile import round_three_cases as cases  # noqa: E402

CPU_SECONDS = 30
ADDRESS_SPACE = 4 << 30
WATCHDOG_S = 600  # far past the CPU bound: a process blocked without using CPU is a hang
CGCONFIG = [sys.executable, "-c", "from cgconfig.cli.main import console_main; console_main()"]
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def classify(code: int, out: bytes, err_bytes: bytes, case: cases.Case) -> tuple[str, str]:
    """(verdict, detail) of one CLI run."""
    err = err_bytes.decode("utf-8", "replace")
    text = out.decode("utf-8", "replace")
    if code in (-24, -9) or "MemoryError" in err:
        return "bound", f"killed by a resource limit (exit {code})"
    if "Traceback" in err or "Traceback" in text:
        return "traceback", err.strip().splitlines()[-1][:200]
    if RAW_CONTROL.search(text.replace("\r\n", "\n")) or RAW_CONTROL.search(err):
        return "control", repr(RAW_CONTROL.search(text + err).group())  # type: ignore[union-attr]
    errors = [line for line in err.splitlines() if line.startswith("cgconfig: error:")]
    if code == 0:
        if errors:
            return "other", "exit 0 with an error line"
    elif code == 2:
        if len(errors) != 1:
            return "other", f"exit 2 with {len(errors)} error lines: {err[:200]!r}"
    else:
        return "other", f"exit {code}: {err[-200:]!r}"
    if case.expect is not None:
        reason = case.expect(code, cases.plan_of(out), err)
        if reason is not None:
            return "misread", reason
    return "clean", ""


def run_cli(case: cases.Case, warm: Path, keep: Path) -> tuple[str, str]:
    """Run one case in its own folder; returns (verdict, detail)."""
    folder = Path(tempfile.mkdtemp(prefix="c-", dir=keep))
    try:
        shutil.copytree(warm, folder / "cache")
        (folder / "hf").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CGCONFIG_", "HF_"))}
        env.update(CGCONFIG_NO_GPU_PROBE="1", CGCONFIG_CACHE_DIR=str(folder / "cache"),
                   HF_HOME=str(folder / "hf"), NO_COLOR="1", PYTHONIOENCODING="utf-8",
                   **case.env)
        try:
            done = subprocess.run([*CGCONFIG, *case.args], input=case.stdin or b"",
                                  capture_output=True, env=env, cwd=folder,
                                  preexec_fn=_limits, timeout=WATCHDOG_S, check=False)
        except subprocess.TimeoutExpired:
            return "hang", f"no answer in {WATCHDOG_S} s"
        except OSError as error:  # E2BIG: the kernel refused the argv, cgconfig never ran
            return "skipped", f"cannot start: {error.strerror}"
        return classify(done.returncode, done.stdout, done.stderr, case)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cli_campaign(total: int, seed: int, workers: int, log: Any = None,
                 only: list[str] | None = None) -> dict[str, Counter[str]]:
    """Every family's cases, spread evenly over ``total``; verdict counts per family."""
    rng = random.Random(seed)
    per = max(1, total // len(cases.FAMILIES))
    todo = [case for name, gen in cases.FAMILIES.items() for case in gen(rng, per)
            if only is None or name in only]
    keep = Path(tempfile.mkdtemp(prefix="round-three-"))
    warm = keep / "warm"
    warm.mkdir()
    env = {**os.environ, "CGCONFIG_NO_GPU_PROBE": "1", "CGCONFIG_CACHE_DIR": str(warm)}
    subprocess.run([*CGCONFIG, "resolve"], capture_output=True, env=env, check=False)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    try:
        with ThreadPoolExecutor(workers) as pool:
            for done, (case, (verdict, detail)) in enumerate(zip(todo, pool.map(
                    lambda c: run_cli(c, warm, keep), todo), strict=True)):
                if done % 100 == 0:
                    print(f"{done}/{len(todo)} {time.strftime('%H:%M:%S')}", file=sys.stderr,
                          flush=True)
                counts[case.family]["cases"] += 1
                counts[case.family]["clean" if verdict == "clean" else
                                    f"{verdict}: {detail[:160]} <- {case.args[:12]}"] += 1
                if log is not None:  # kept as it goes: a crash of the runner loses nothing
                    log.write(json.dumps([case.family, verdict, detail[:300],
                                          [a[:80] for a in case.args[:30]]]) + "\n")
                    log.flush()
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    return counts


def in_process(kind: str, total: int, seed: int) -> dict[str, Counter[str]]:
    """API or runtime calls in one worker subprocess under the same limits."""
    done = subprocess.run([sys.executable, "-m", "tests.hostile.round_three_calls", kind,
                           str(total), str(seed)], capture_output=True, text=True, cwd=ROOT,
                          preexec_fn=_limits, check=False,
                          env={**os.environ, "CGCONFIG_NO_GPU_PROBE": "1"})
    if done.returncode != 0:
        return {kind: Counter({f"worker failed: {done.stderr[-400:]}": 1})}
    return {family: Counter(c) for family, c in json.loads(done.stdout).items()}


def main() -> int:
    """Run the campaign and print the counts per family."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=int, default=2100)
    parser.add_argument("--api", type=int, default=5200)
    parser.add_argument("--runtime", type=int, default=1100)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--family", action="append", help="only these CLI families")
    parser.add_argument("--log", type=Path, help="one JSON line per CLI case, as it runs")
    args = parser.parse_args()
    results: dict[str, Counter[str]] = {}
    if args.api:
        results.update(in_process("api", args.api, args.seed))
    if args.runtime:
        results.update(in_process("runtime", args.runtime, args.seed))
    if args.cli:
        with open(args.log or os.devnull, "w", encoding="utf-8") as log:
            results.update(cli_campaign(args.cli, args.seed, args.workers, log, args.family))
    bad = 0
    for family, counter in results.items():
        total = counter["cases"]
        print(f"{family:12} cases {total:5}  clean {counter['clean']:5}")
        for key, value in sorted(counter.items()):
            if key not in ("clean", "cases"):
                print(f"    {value:4}  {key}")
        bad += total - counter["clean"]
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
