"""Run the CLI as an attacker would: a subprocess under a CPU-time and an address-space limit.

Every case runs with a 10 s CPU-time limit (``RLIMIT_CPU``: what an input may cost, the same
on an idle machine and at load 8) and a 1 GiB ``RLIMIT_AS`` (both set in ``preexec_fn``), in a
private cache directory, without the GPU probe; the wall-clock ``timeout`` is only the safety
net against a hang (:data:`tests.bounds.HANG_S`). ``run_many`` runs a table of cases on a
thread pool so the catalogue stays quick.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.bounds import CPU_LIMIT_S, HANG_S, limits, ran_out_of_cpu

TIMEOUT_S = HANG_S
"""The safety net against a hang (wall clock); the cost bound is :data:`CPU_LIMIT_S`."""
ADDRESS_SPACE_BYTES = 1 << 30
CGCONFIG = [sys.executable, "-c", "from cgconfig.cli.main import console_main; console_main()"]


@dataclass(frozen=True)
class Result:
    """What one run did."""

    returncode: int
    stdout: bytes
    stderr: str
    timed_out: bool = False
    """It hung: still running after the :data:`TIMEOUT_S` safety net."""
    out_of_cpu: bool = False
    """It used more than :data:`CPU_LIMIT_S` seconds of CPU."""

    @property
    def stderr_lines(self) -> list[str]:
        """Non-empty lines on stderr."""
        return [line for line in self.stderr.splitlines() if line.strip()]


_limit_memory = limits(CPU_LIMIT_S, ADDRESS_SPACE_BYTES)
"""``preexec_fn`` of every case: the CPU-time and address-space limits."""


def base_env(cache_dir: Path) -> dict[str, str]:
    """The environment every case runs in: private cache, no GPU probe, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CGCONFIG_")}
    env.update(CGCONFIG_NO_GPU_PROBE="1", CGCONFIG_CACHE_DIR=str(cache_dir), NO_COLOR="1",
               PYTHONIOENCODING="utf-8")
    return env


def run_cli(args: Sequence[str | bytes], *, cwd: Path, env: dict[str, str],
            stdout: int | None = subprocess.PIPE, shell_pipe: str | None = None,
            stdin: int | bytes | None = None) -> Result:
    """``cgconfig ARGS`` under the limits; ``shell_pipe`` runs ``cgconfig ARGS | shell_pipe``;
    ``stdin`` is a descriptor or the bytes to feed."""
    if shell_pipe is not None:
        bash = shutil.which("bash") or "/bin/bash"
        quoted = " ".join("'" + str(a).replace("'", "'\\''") + "'" for a in [*CGCONFIG, *args])
        command: list[str | bytes] = [bash, "-c",
                                      f"{quoted} | {shell_pipe}; exit ${{PIPESTATUS[0]}}"]
    else:
        command = [*CGCONFIG, *args]
    try:
        feed = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
        done = subprocess.run(command, cwd=cwd, env=env, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S,
                              preexec_fn=_limit_memory, check=False, **feed)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode("utf-8", "replace") if exc.stderr else ""
        return Result(-1, b"", err, timed_out=True)
    return Result(done.returncode, done.stdout or b"", done.stderr.decode("utf-8", "replace"),
                  out_of_cpu=ran_out_of_cpu(done.returncode))


def run_many(jobs: dict[str, tuple[Sequence[str | bytes], dict[str, str]]], cwd: Path,
             workers: int | None = None) -> dict[str, Result]:
    """Run every job (name → (args, env)) concurrently, one per CPU (at most 4); name →
    result. Each child's bound is its own CPU time, so concurrency cannot push one past it."""
    workers = workers or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(run_cli, args, cwd=cwd, env=env)
                   for name, (args, env) in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


def assert_one_line_exit_2(result: Result, name: str) -> None:
    """The promise for bad input: exit 2, exactly one stderr line, no traceback, in bounds."""
    assert not result.timed_out, f"{name}: hung (still running after {TIMEOUT_S} s)"
    assert not result.out_of_cpu, f"{name}: used more than {CPU_LIMIT_S} s of CPU"
    assert "Traceback" not in result.stderr, f"{name}: traceback\n{result.stderr[-3000:]}"
    assert result.returncode == 2, (f"{name}: exit {result.returncode}, stderr "
                                    f"{result.stderr[-2000:]!r}")
    assert len(result.stderr_lines) == 1, f"{name}: stderr {result.stderr[-2000:]!r}"
    assert len(result.stderr) <= 1200, f"{name}: error line of {len(result.stderr)} chars"
