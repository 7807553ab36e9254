"""The hostile-input campaign (issue #23): a fresh catalogue, run the way an attacker would.

Run by hand, not in CI (it takes several minutes)::

    python tests/hostile/campaign.py                 # every family, a new seed
    python tests/hostile/campaign.py --seed 7 --workers 3 --api 6000 --runtime 3000
    python tests/hostile/campaign.py --family escape --show 20

Each CLI case is a subprocess under 20 s of CPU time (``RLIMIT_CPU``) and a 4 GiB address-space
limit, in its own directory with a private cache (``CGCONFIG_CACHE_DIR``) and an empty
``HF_HOME``; the in-process API and runtime calls (CPU build) run in worker subprocesses under
the same memory limit, each call under 20 s of CPU time (``ITIMER_PROF``). The wall clock is
only a safety net against a hang (``tests.bounds.HANG_S``), so a busy machine cannot turn an
honest case into a "hang". Every result is classified:

``clean``      the documented outcome (a result, or exit 2 with one line / the API's
               ``InputError`` family / the runtime's ``ValueError``)
``traceback``  a traceback, an undocumented exception or exit code
``hang``       past 20 s of CPU, or still running after the hang net
``memory``     ``MemoryError`` or killed by the address-space limit
``misread``    exit 0 where the input had to be refused, or a value read wrongly
``security``   a planted file overwritten, a device replaced, raw terminal controls printed
``other``      a promise broken otherwise (several error lines, a temporary left behind)

The figures print at the end; exit 0 only when every case is clean.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bounds import HANG_S, ran_out_of_cpu  # noqa: E402
from tests.hostile import campaign_cases as cc  # noqa: E402
from tests.hostile import campaign_more as cm  # noqa: E402

TIMEOUT_S = 20
"""CPU seconds one case may use (RLIMIT_CPU of a CLI case, ITIMER_PROF of an in-process one):
the cost bound, the same at any load; the wall clock is only a safety net (``HANG_S``)."""
ADDRESS_SPACE = 4 << 30
CGCONFIG = [sys.executable, "-c", "from cgconfig.cli.main import console_main; console_main()"]
FAMILIES = {"numbers": cc.numbers, "yaml-1.1": cc.yaml_numbers, "yaml-tags": cc.yaml_tags,
            "escape": cc.escapes, "stdin": cc.stdin_reads, "write": cc.writes,
            "own-prefix": cc.own_flag_prefixes, "entry": cc.entry_points,
            "environment": cc.environments, "repeated": cc.repeated,
            "config.json": cm.model_configs, "gpu-probe": cm.gpu_tools,
            "rules": cm.rule_packs, "commands": cm.commands, "paths": cm.paths}
DOCUMENTED = {0, 2, 3, 10}


def _memory_limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _limits() -> None:
    """One CLI case: the memory limit and the CPU-time bound."""
    _memory_limit()
    resource.setrlimit(resource.RLIMIT_CPU, (TIMEOUT_S, TIMEOUT_S + 1))


# ------------------------------------------------------------------------------ files

def _plan_text() -> str:
    env = {**os.environ, "CGCONFIG_NO_GPU_PROBE": "1", "CGCONFIG_NO_CACHE": "1"}
    return subprocess.run([*CGCONFIG, "resolve", "-o", "json"], capture_output=True, text=True,
                          env=env, check=True).stdout


def _merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in patch.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(
            out.get(key), dict) and value else value
    return out


def materialize(case: cc.Case, d: Path, plan: str) -> None:
    for name, spec in case.files.items():
        path = d / name.replace("{d}/", "")
        path.parent.mkdir(parents=True, exist_ok=True)
        if spec == "PLAN":
            path.write_text(plan)
        elif isinstance(spec, tuple) and spec[0] == "PLAN":
            text = json.dumps(_merge(json.loads(plan), spec[1]))
            path.write_text(text.replace('"SURR"', '"\\ud800x"'))
        elif spec == "FIFO":
            os.mkfifo(path)
        elif spec in ("DIR", "DIR777"):
            path.mkdir(exist_ok=True)
            if spec == "DIR777":
                path.chmod(0o777)
        elif spec == "CHARDEV":
            try:
                os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
            except OSError:
                os.mkfifo(path)
        elif isinstance(spec, tuple) and spec[0].startswith("SYMLINK"):
            if spec[0] in ("SYMLINK1777", "SYMLINK777"):
                path.parent.chmod(0o1777 if spec[0] == "SYMLINK1777" else 0o777)
            path.symlink_to(d / spec[1])
            if spec[0] == "SYMLINK_OWNED" and spec[2] == "other" and os.geteuid() == 0:
                os.lchown(path, 4242, 4242)
        elif isinstance(spec, tuple) and spec[0] == "EXE":
            path.write_text(spec[1])
            path.chmod(0o755)
        elif isinstance(spec, bytes):
            path.write_bytes(spec)
        else:
            path.write_text(spec, encoding="utf-8", errors="surrogatepass")
    (d / "victim").exists() and (d / "victim").chmod(0o600)


# ------------------------------------------------------------------------------ CLI cases

def run_case(case: cc.Case, plan: str, keep: Path) -> tuple[str, str]:
    d = Path(tempfile.mkdtemp(prefix="case-", dir=keep))
    try:
        materialize(case, d, plan)
    except (OSError, ValueError) as exc:
        return "skipped", f"cannot build: {exc}"
    sub = lambda text: text.replace("{d}", str(d))  # noqa: E731
    args = [sub(a) for a in case.args]
    (d / "cache").mkdir(mode=0o700)
    (d / "hf").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CGCONFIG_", "HF_"))}
    env.update(CGCONFIG_NO_GPU_PROBE="1", CGCONFIG_CACHE_DIR=str(d / "cache"),
               HF_HOME=str(d / "hf"), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    for key, value in case.env.items():
        if value == "":
            env.pop(key, None)
        else:
            env[key] = sub(value)
    feed: dict[str, Any] = {"stdin": subprocess.DEVNULL}
    handle = None
    if isinstance(case.stdin, bytes):
        feed = {"input": case.stdin}
    elif case.stdin in ("/dev/zero", "/dev/urandom"):
        handle = open(case.stdin, "rb")  # noqa: SIM115
        feed = {"stdin": handle}
    elif case.stdin == "closed":
        args = ["-c", "import os, sys; os.close(0); sys.stdin = None; from cgconfig.cli.main "
                "import console_main; console_main()", *args]
    command = ([sys.executable, *args] if case.stdin == "closed" else [*CGCONFIG, *args])
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=d, env=env, capture_output=True,
                              timeout=HANG_S, preexec_fn=_limits, check=False, **feed)
    except subprocess.TimeoutExpired:
        return "hang", f"still running after {HANG_S} s"
    except OSError as exc:  # the line does not fit the kernel's ARG_MAX: not an input
        return "skipped", f"cannot start: {exc.strerror}"
    finally:
        if handle is not None:
            handle.close()
    took = time.monotonic() - start
    if ran_out_of_cpu(done.returncode) and done.returncode != -signal.SIGKILL:
        return "hang", f"used more than {TIMEOUT_S} s of CPU"
    err = done.stderr.decode("utf-8", "surrogateescape")
    verdict = classify(case, done.returncode, done.stdout, err, str(d))
    if verdict[0] == "clean":
        shutil.rmtree(d, ignore_errors=True)
    return verdict[0], f"{verdict[1]} ({took:.1f} s)"


def classify(case: cc.Case, code: int, out: bytes, err: str, d: str) -> tuple[str, str]:
    last = (err.strip().splitlines() or [""])[-1][:200]
    if "MemoryError" in err or code in (-9, -11, 137, 139) or "Cannot allocate" in err:
        return "memory", f"exit {code}: {last}"
    if "Traceback" in err:
        return "traceback", last
    if code not in DOCUMENTED and not (code == 1 and case.args[0] == "diff"):
        return "traceback", f"undocumented exit {code}: {last}"
    if case.check is not None:
        finding = case.check(code, out, err, d)
        if finding:
            kind, _, what = finding.partition(": ")
            return kind, what
    if case.expect == "bad" and code == 0:
        return "misread", "exit 0 for input that must be refused"
    if case.expect == "ok" and code != 0:
        return "other", f"exit {code}, expected 0: {last}"
    errors = [line for line in err.splitlines() if line.startswith("cgconfig: error:")]
    if code == 2 and case.args[0] != "rules" and len(errors) != 1:
        return "other", f"{len(errors)} error lines: {last}"
    if code == 2 and len(errors) > 22:
        return "other", f"{len(errors)} error lines"
    return "clean", last


# ------------------------------------------------------------------------------ in process

def run_workers(kind: str, count: int, seed: int, workers: int) -> list[tuple[str, str, str]]:
    chunk = max(1, -(-count // max(1, workers)))
    jobs = [(i, min(chunk, count - i)) for i in range(0, count, chunk)]

    def one(job: tuple[int, int]) -> list[tuple[str, str, str]]:
        start, n = job
        env = {**os.environ, "CGCONFIG_NO_GPU_PROBE": "1", "CGCONFIG_NO_CACHE": "1"}
        done = subprocess.run([sys.executable, __file__, "--worker", kind, "--seed",
                               str(seed + start), "--count", str(n)], capture_output=True,
                              text=True, env=env, preexec_fn=_memory_limit, check=False,
                              timeout=max(600, n * 2))
        rows = [tuple(json.loads(line)) for line in done.stdout.splitlines() if line]
        if len(rows) < n:
            rows.append((kind, "memory" if done.returncode < 0 else "traceback",
                         f"worker died (exit {done.returncode}): {done.stderr[-300:]}"))
        return rows  # type: ignore[return-value]

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [row for rows in pool.map(one, jobs) for row in rows]


def worker(kind: str, seed: int, count: int) -> None:
    from tests.hostile.campaign_calls import api_call, runtime_call

    rng = random.Random(seed)
    make = api_call if kind == "api" else runtime_call

    def alarm(signum: int, frame: Any) -> None:
        raise TimeoutError("hang")

    signal.signal(signal.SIGALRM, alarm)  # a hang: no CPU used, the wall clock's safety net
    signal.signal(signal.SIGPROF, alarm)  # the cost bound: CPU time of this process
    for _ in range(count):
        name, call, allowed = make(rng)
        signal.alarm(HANG_S)
        signal.setitimer(signal.ITIMER_PROF, TIMEOUT_S)
        try:
            call()
            verdict = ("clean", "")
        except allowed:
            verdict = ("clean", "")
        except TimeoutError:
            verdict = ("hang", name)
        except MemoryError:
            verdict = ("memory", name)
        except Exception as exc:  # the campaign's job is to catch these
            verdict = ("traceback", f"{name}: {type(exc).__name__}: {str(exc)[:150]}")
        finally:
            signal.alarm(0)
            signal.setitimer(signal.ITIMER_PROF, 0)
        print(json.dumps([f"{kind}:{name}", *verdict]), flush=True)


# ------------------------------------------------------------------------------ main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=max(1, min(4, (os.cpu_count() or 2))))
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--api", type=int, default=6000, help="in-process API calls")
    parser.add_argument("--runtime", type=int, default=2000, help="runtime calls (CPU build)")
    parser.add_argument("--show", type=int, default=10, help="findings shown per class")
    parser.add_argument("--keep", default=None, help="where failing cases' folders stay")
    parser.add_argument("--worker", choices=("api", "runtime"), help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    seed = opts.seed if opts.seed is not None else random.SystemRandom().randrange(10**6)
    if opts.worker:
        worker(opts.worker, seed, opts.count)
        return 0
    rng = random.Random(seed)
    cases = [c for name, family in FAMILIES.items() if not opts.family or name in opts.family
             for c in family(rng)]
    keep = Path(opts.keep or tempfile.mkdtemp(prefix="cgconfig-campaign-"))
    keep.mkdir(parents=True, exist_ok=True)
    plan = _plan_text()
    print(f"seed {seed}: {len(cases)} CLI cases, {opts.api} API calls, {opts.runtime} runtime "
          f"calls, {opts.workers} workers; failing cases kept in {keep}", flush=True)
    started = time.monotonic()
    done: list[int] = []

    def one(case: cc.Case) -> tuple[cc.Case, str, str]:
        verdict = run_case(case, plan, keep)
        done.append(1)
        if len(done) % 250 == 0:
            print(f"  {len(done)}/{len(cases)} CLI cases, {time.monotonic() - started:.0f} s",
                  flush=True)
        if verdict[0] not in ("clean", "skipped"):
            print(f"  {verdict[0]}: {case.family}: {' '.join(case.args)[:150]!r}: {verdict[1]}",
                  flush=True)
        return (case, *verdict)

    with ThreadPoolExecutor(max_workers=opts.workers) as pool:
        cli = list(pool.map(one, cases))
    rows = [(f"{c.family}: {' '.join(a[:60] for a in c.args[:8])[:160]}", v, why)
            for c, v, why in cli]
    families = Counter(c.family for c in cases)
    if opts.api and not opts.family:
        rows += run_workers("api", opts.api, seed, opts.workers)
    if opts.runtime and not opts.family:
        rows += run_workers("runtime", opts.runtime, seed + 10**6, opts.workers)
    return report(rows, families, time.monotonic() - started, opts.show)


def report(rows: list[tuple[str, str, str]], families: Counter[str], took: float,
           show: int) -> int:
    verdicts = Counter(v for _, v, _ in rows)
    print(f"\n{len(rows)} inputs in {took:.0f} s: " + ", ".join(
        f"{n} {v}" for v, n in verdicts.most_common()))
    print("CLI families: " + ", ".join(f"{f} {n}" for f, n in sorted(families.items())))
    for verdict in ("traceback", "hang", "memory", "misread", "security", "other"):
        found = [(name, why) for name, v, why in rows if v == verdict]
        for name, why in found[:show]:
            print(f"  {verdict}: {name!r}: {why}")
        if len(found) > show:
            print(f"  … {len(found) - show} more {verdict}")
    findings = sum(n for v, n in verdicts.items() if v not in ("clean", "skipped"))
    print(f"findings: {findings}")
    return 0 if findings == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
