"""One replay-or-eager decision for all data-parallel ranks, taken with one small collective.

With data-parallel attention every rank builds its own batch, but the graphs hold collectives,
so all ranks must take the same path: replay the same bucket, or all run eagerly. Each rank
contributes a ballot ``[size, requests, flag per unsupported feature]`` and one ``all_reduce``
with ``MAX`` combines them: the largest size and request count (SGLang pads every rank to the
largest rank's bucket) and, per feature, whether any rank uses it. Every rank then routes that
combined ballot through the same guards, so every rank reaches the same decision without a
second round. The reason is attributed per rank: the rank whose own batch is over the largest
size counts ``over_max_size``, the others ``peer_over_max_size``; likewise ``unsupported:<f>``
and ``peer_unsupported:<f>``.

The collective runs on whatever group it is given: a gloo group votes on CPU tensors (no device
synchronisation), an NCCL group on a small device tensor.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from .guards import Fallback, Guards, Route

PEER_PREFIX = "peer_"


@dataclass(frozen=True)
class VoteResult:
    """What the group decided for this rank's batch.

    ``padded`` is the bucket every rank replays, or None when every rank runs eagerly for
    ``reason`` (this rank's own reason, or a ``peer_`` one). ``max_size`` and ``max_requests`` are
    the largest over the ranks: a data-parallel forward that runs eagerly pads its collectives to
    ``max_size`` so that every rank's collectives have the same shape.
    """

    size: int
    requests: int
    padded: int | None
    reason: str | None
    max_size: int
    max_requests: int

    @property
    def route(self) -> Route:
        """The decision as the runner's route."""
        return Route(self.padded, self.reason)


def ballot(size: int, requests: int, features: Collection[str],
           vocabulary: Sequence[str]) -> list[int]:
    """This rank's ballot: size, request count, then 1/0 per feature in ``vocabulary``."""
    if size < 0 or requests < 0:
        raise ValueError(f"a vote needs non-negative counts, got size {size}, requests {requests}")
    used = set(features)
    return [size, requests, *(int(name in used) for name in vocabulary)]


def decide(guards: Guards, vocabulary: Sequence[str], own: Sequence[int],
           combined: Sequence[int]) -> VoteResult:
    """Route the combined (element-wise max) ballot; attribute a fallback to this rank or a peer.

    Pure: given the same ``combined`` ballot every rank reaches the same ``padded``.
    """
    size, requests, *own_flags = own
    max_size, max_requests, *any_flags = combined
    features = [name for name, flag in zip(vocabulary, any_flags, strict=True) if flag]
    route = guards.route(max_size, max_requests, features)
    reason = route.reason
    if reason is not None:
        if reason.startswith(Fallback.UNSUPPORTED.value + ":"):
            feature = reason.split(":", 1)[1]
            mine = bool(own_flags[list(vocabulary).index(feature)])
        else:
            own_features = [name for name, flag in zip(vocabulary, own_flags, strict=True) if flag]
            mine = guards.route(size, requests, own_features).reason == reason
        if not mine:
            reason = PEER_PREFIX + reason
    return VoteResult(size=size, requests=requests, padded=route.padded, reason=reason,
                      max_size=max_size, max_requests=max_requests)


class Voter:
    """Casts ballots on one group. The wire tensor lives on the device NCCL needs, or the CPU.

    On NCCL the ballot travels through a pinned host buffer and a device buffer kept between
    votes, so a vote costs two asynchronous copies, the collective and one stream synchronisation
    (which also waits for the work already queued on the stream: a gloo group avoids that).
    """

    def __init__(self, group: Any, device: torch.device) -> None:
        self.group = group
        nccl = dist.get_backend(group) == "nccl"
        if nccl and device.type != "cuda":
            raise ValueError(f"an NCCL group votes on a CUDA device, got {device}")
        self.device = device if nccl else torch.device("cpu")
        self._host: torch.Tensor | None = None
        self._wire: torch.Tensor | None = None

    def exchange(self, values: Sequence[int]) -> list[int]:
        """Element-wise max of ``values`` over the group (one ``all_reduce``)."""
        ballot = torch.tensor(values, dtype=torch.int64)
        if self.device.type == "cpu":
            dist.all_reduce(ballot, op=dist.ReduceOp.MAX, group=self.group)
            return list(ballot.tolist())
        if self._host is None or self._wire is None or self._host.numel() != len(values):
            self._host = torch.empty(len(values), dtype=torch.int64, pin_memory=True)
            self._wire = torch.empty(len(values), dtype=torch.int64, device=self.device)
        host, wire = self._host, self._wire
        host.copy_(ballot)
        wire.copy_(host, non_blocking=True)
        dist.all_reduce(wire, op=dist.ReduceOp.MAX, group=self.group)
        host.copy_(wire, non_blocking=True)
        torch.cuda.current_stream(self.device).synchronize()
        return list(host.tolist())


def cast_vote(voter: Voter, guards: Guards, vocabulary: Sequence[str], size: int,
              requests: int, features: Collection[str]) -> VoteResult:
    """Exchange this rank's ballot and decide; every rank of the group must call it."""
    own = ballot(size, requests, features, vocabulary)
    return decide(guards, vocabulary, own, voter.exchange(own))
