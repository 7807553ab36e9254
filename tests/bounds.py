"""How a test bounds a child process: by the CPU time it may use, never by wall-clock time.

A cost bound must hold on a 2-core machine at load 8, where a child that needs 1.2 s of CPU
can take 10 s of wall time; so what a hostile input may cost is bounded by CPU time
(``RLIMIT_CPU``: the kernel stops the child once it has used that much, however busy the
machine), and ``timeout=`` is only a safety net against a hang (a child blocked on a FIFO uses
no CPU at all), far above what any child needs under any load.
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Callable

#: Wall-clock safety net of every subprocess a test runs: only a hang reaches it.
HANG_S = 300

#: CPU seconds a child may use on one hostile input (the cost bound the tests prove).
CPU_LIMIT_S = 10


def limits(cpu_s: int = CPU_LIMIT_S, address_space: int | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` setting the child's CPU-time limit (SIGXCPU past ``cpu_s``, SIGKILL a
    second later) and, when given, its address-space limit in bytes."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return apply


def ran_out_of_cpu(returncode: int) -> bool:
    """Whether a child was stopped by its CPU-time limit."""
    return returncode in (-signal.SIGXCPU, -signal.SIGKILL)


def child_cpu_seconds() -> float:
    """CPU seconds (user + system) used so far by this process's finished children: the
    difference around one ``subprocess.run`` is that child's cost, whatever the load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
