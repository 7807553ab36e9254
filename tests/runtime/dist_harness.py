"""Run a function on several ranks in child processes, with a watchdog instead of a hang.

Each rank joins a ``torch.distributed`` group (gloo on CPU, NCCL with one GPU per rank), runs
``fn(rank, world, device)`` and sends back its JSON-able result, or the type and message of
the exception it raised. A rank that does not answer within ``timeout`` seconds fails the test
and every child is killed: a collective waiting for a peer that never comes must not hang CI.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import socket
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from tests.bounds import HANG_S


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _child(fn: Callable[..., Any], rank: int, world: int, backend: str, port: int,
           results: Any) -> None:
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
    try:
        if backend == "nccl":
            torch.cuda.set_device(rank)
            device = torch.device("cuda", rank)
            dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device)
        else:
            device = torch.device("cpu")
            dist.init_process_group("gloo", rank=rank, world_size=world)
        results.put((rank, "ok", fn(rank, world, device)))
    except BaseException as exc:  # reported to the parent, which fails the test
        results.put((rank, "error", {"type": type(exc).__name__, "message": str(exc),
                                     "traceback": traceback.format_exc()}))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def run_ranks(fn: Callable[..., Any], *, world: int = 2, backend: str = "gloo",
              timeout: float = HANG_S) -> list[tuple[str, Any]]:
    """``[(status, result_or_error), ...]`` per rank; fails the test if any rank times out."""
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_child, args=(fn, rank, world, backend, port, results),
                         daemon=True) for rank in range(world)]
    for p in procs:
        p.start()
    answers: dict[int, tuple[str, Any]] = {}
    try:
        while len(answers) < world:
            try:
                rank, status, value = results.get(timeout=timeout)
            except queue.Empty:
                missing = sorted(set(range(world)) - set(answers))
                pytest.fail(f"watchdog: ranks {missing} gave no answer within {timeout:.0f} s "
                            f"(a collective is waiting for a peer); answers so far: {answers}")
            answers[rank] = (status, value)
    finally:
        for p in procs:  # ranks that answered exit promptly; a stuck one is killed at once
            p.join(timeout=10 if len(answers) == world else 0)
            if p.is_alive():
                p.kill()
                p.join()
    return [answers[rank] for rank in range(world)]


def values(answers: list[tuple[str, Any]]) -> list[Any]:
    """The results of every rank, failing the test with the first rank's error if any."""
    for rank, (status, value) in enumerate(answers):
        if status != "ok":
            pytest.fail(f"rank {rank} raised {value['type']}: {value['message']}\n"
                        f"{value['traceback']}")
    return [value for _, value in answers]
