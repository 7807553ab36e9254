"""Make the ranks of a process group capture the same graphs, and check that capture can work.

A graph that holds a collective is only correct when every rank of the group replays a graph
issuing the same collectives with the same shapes in the same order. Before capture the ranks
therefore (1) check the settings that collectives inside CUDA graphs need, (2) compare a digest
of the plan they are about to capture, gathered from every rank, and (3) meet at a barrier, so
that capture walks the same sizes in the same order everywhere. Every failure is raised on every
rank with the same message: one rank failing alone would leave the others blocked inside the
first captured collective.

The transport is ``torch.distributed`` itself (NCCL for graphs; gloo works for the eager
stand-ins on machines without CUDA).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Mapping
from typing import Any

import torch
import torch.distributed as dist

from .plan_view import PhaseCapture

# NCCL learned to run inside CUDA graphs in 2.9.6 (NCCL release notes, "Add support for CUDA
# graphs"); older builds fail or hang at replay.
MIN_NCCL_FOR_GRAPHS = (2, 9, 6)

# Environment settings that make collectives inside graphs fail, and why. Checked at capture.
# Blocking wait makes the host wait for each collective to finish; a captured collective does
# not run until replay, so the wait can only time out. Graph mixing (NCCL's default, 1) is what
# lets the eager collectives of fallbacks and of the vote share communicators with replays.
FORBIDDEN_ENV: Mapping[str, tuple[str, str]] = {
    "TORCH_NCCL_BLOCKING_WAIT": ("1", "blocking wait makes the host wait for each collective, "
                                 "and a captured collective only runs at replay"),
    "NCCL_BLOCKING_WAIT": ("1", "the older name of TORCH_NCCL_BLOCKING_WAIT: blocking wait "
                           "makes the host wait for each collective, and a captured collective "
                           "only runs at replay"),
    "NCCL_GRAPH_MIXING_SUPPORT": ("0", "the runtime runs eager collectives (fallbacks, the vote) "
                                  "on the same communicators as graph replays, which NCCL only "
                                  "supports with graph mixing on (its default)"),
}


class PlanMismatchError(RuntimeError):
    """The ranks of a group hold different capture plans; raised on every rank."""


class CaptureSettingsError(RuntimeError):
    """A setting that collectives inside CUDA graphs need is missing or wrong."""


def plan_digest(plan: PhaseCapture, *, runtime_backend: str, max_requests: int,
                unsupported: Collection[str]) -> str:
    """A short hash of everything that decides which graphs a rank captures and how it routes.

    The phase's capture section (backend, sizes, compile sizes, padding and debug options) plus
    what the runner adds: the backend it actually uses (a rank without CUDA would use the eager
    stand-ins), the request rows of prefill graphs and the features its graphs do not support
    (the vote encodes those as flags, so their order must agree).
    """
    data: dict[str, Any] = {
        "phase": plan.phase, "backend": plan.backend, "sizes": list(plan.sizes),
        "compile_sizes": list(plan.compile_sizes), "disable_padding": plan.disable_padding,
        "debug": plan.debug, "runtime_backend": runtime_backend, "max_requests": max_requests,
        "unsupported": sorted(unsupported),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def mismatch_message(phase: str, digests: list[str]) -> str | None:
    """The error for gathered digests (index = rank in the group), or None when all agree.

    The ranks are grouped by digest; the group holding rank 0 is taken as the reference, and the
    message names every rank that differs from it.
    """
    if len(set(digests)) <= 1:
        return None
    reference = digests[0]
    differ = [rank for rank, d in enumerate(digests) if d != reference]
    by_digest: dict[str, list[int]] = {}
    for rank, d in enumerate(digests):
        by_digest.setdefault(d, []).append(rank)
    groups = "; ".join(f"{d}: ranks {ranks}" for d, ranks in by_digest.items())
    return (f"{phase} capture plans differ between ranks: ranks {differ} differ from rank 0 "
            f"({groups}). Every rank must resolve the same plan (same engine flags, same "
            f"cgconfig version) and build its runner with the same options, or the collectives "
            f"inside the graphs would hang or mix data")


def settings_problems(*, backend_name: str, device: torch.device, current_device: int | None,
                      nccl_version: tuple[int, ...] | None,
                      environ: Mapping[str, str]) -> list[str]:
    """Every reason why collectives cannot be captured with these settings (empty when fine).

    Pure, so it is testable without GPUs; :func:`check_capture_settings` feeds it the live values.
    """
    problems = []
    if backend_name != "nccl":
        problems.append(f"the process group's backend is {backend_name!r}; collectives inside "
                        "CUDA graphs need 'nccl' (init_process_group(backend='nccl'))")
    if device.type == "cuda" and current_device is not None and device.index is not None \
            and device.index != current_device:
        problems.append(f"the runner's device is {device} but the current CUDA device is "
                        f"cuda:{current_device}; call torch.cuda.set_device({device.index}) "
                        "before creating the group, as NCCL issues collectives on the current "
                        "device")
    if nccl_version is not None and tuple(nccl_version) < MIN_NCCL_FOR_GRAPHS:
        have = ".".join(map(str, nccl_version))
        need = ".".join(map(str, MIN_NCCL_FOR_GRAPHS))
        problems.append(f"NCCL {have} cannot run collectives inside CUDA graphs; need >= {need}")
    for name, (bad, why) in FORBIDDEN_ENV.items():
        if environ.get(name, "").strip() == bad:
            problems.append(f"{name}={bad} is set: {why}; unset it")
    return problems


def _nccl_version() -> tuple[int, ...] | None:
    try:
        version = torch.cuda.nccl.version()  # type: ignore[no-untyped-call]
    except (AttributeError, RuntimeError):
        return None
    return tuple(version) if isinstance(version, tuple) else None


def capture_settings_problem(group: Any, device: torch.device) -> str | None:
    """What stops this rank from capturing collectives on ``group`` (None when nothing does).

    Only asked when the runner records real graphs: the eager stand-ins run collectives eagerly,
    which any backend can do. The answer is gathered by :func:`agree`, so a problem found on one
    rank is raised on every rank.
    """
    current = torch.cuda.current_device() if device.type == "cuda" else None
    problems = settings_problems(backend_name=str(dist.get_backend(group)), device=device,
                                 current_device=current, nccl_version=_nccl_version(),
                                 environ=os.environ)
    return "; ".join(problems) or None


def agree(group: Any, phase: str, digest: str, local_problem: str | None) -> None:
    """Gather every rank's digest (and local settings problem), raise the same error everywhere.

    One gather, so no rank can be left waiting: either every rank proceeds or every rank raises.
    """
    gathered = gather_json([digest, local_problem], group)
    problems = [(rank, p) for rank, (_, p) in enumerate(gathered) if p]
    if problems:
        detail = "; ".join(f"rank {rank}: {p}" for rank, p in problems)
        raise CaptureSettingsError(f"{phase} graphs with collectives cannot be captured "
                                   f"(raised on every rank): {detail}")
    message = mismatch_message(phase, [d for d, _ in gathered])
    if message:
        raise PlanMismatchError(message)


def _wire_device(group: Any) -> torch.device:
    """Where a collective's tensors must live: the current CUDA device for NCCL, else the CPU."""
    if dist.get_backend(group) == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def gather_json(value: Any, group: Any) -> list[Any]:
    """Every rank's JSON-able ``value``, in rank order, on every rank.

    Two small collectives (lengths, then bytes padded to the longest). Unlike
    ``all_gather_object`` it needs neither pickle nor numpy.
    """
    device = _wire_device(group)
    world = dist.get_world_size(group)
    data = json.dumps(value).encode()
    length = torch.tensor([len(data)], dtype=torch.int64, device=device)
    lengths = [torch.zeros_like(length) for _ in range(world)]
    dist.all_gather(lengths, length, group=group)
    sizes = [int(t.item()) for t in lengths]
    payload = torch.zeros(max(sizes), dtype=torch.uint8)
    payload[: len(data)] = torch.tensor(list(data), dtype=torch.uint8)
    payload = payload.to(device)
    parts = [torch.empty_like(payload) for _ in range(world)]
    dist.all_gather(parts, payload, group=group)
    return [json.loads(bytes(part[:n].tolist()).decode()) for part, n in zip(parts, sizes,
                                                                            strict=True)]


def barrier(group: Any, device: torch.device) -> None:
    """A barrier on ``group``; NCCL is told the device so it does not guess one."""
    if dist.get_backend(group) == "nccl" and device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        dist.barrier(group=group, device_ids=[index])
    else:
        dist.barrier(group=group)


def is_reporting_rank() -> bool:
    """True on the process that prints progress: global rank 0, or any process without a group."""
    if not (dist.is_available() and dist.is_initialized()):
        return True
    return dist.get_rank() == 0
