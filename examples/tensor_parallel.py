"""Tensor and data parallelism for the example decoder: which slice each rank holds, and the collectives.

Megatron-style tensor parallelism (what SGLang's and vLLM's ``ColumnParallelLinear`` /
``RowParallelLinear`` do): a column-parallel projection keeps a slice of the output features
(QKV by heads, gate/up by MLP columns), a row-parallel one the matching slice of the input
features (output projection, down projection), whose partial sums an ``all_reduce`` adds up.
The LM head is vocab-parallel: each rank computes a slice of the vocabulary and an
``all_gather`` joins them.

With data-parallel attention (SGLang's ``--enable-dp-attention``) each rank runs attention on its
own batch with full weights, and only the MLP is sharded: the ranks gather every rank's tokens
(padded to the same row count), each computes its MLP slice for all of them, an ``all_reduce``
sums the slices, and each rank keeps its own rows.

Every collective goes through ``torch.distributed`` on ``group``, so the runtime captures them
inside its graphs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F


@dataclass
class Parallel:
    """This rank's place in the group; the defaults mean one unsharded process."""

    rank: int = 0
    size: int = 1
    group: Any = None
    dp_attention: bool = False
    pad_rows: int = 0
    """Data-parallel attention, eager steps only: rows every rank pads its tokens to (the vote's
    largest size), so that the MLP's gather has the same shape on every rank. Captured graphs
    already have the bucket's rows on every rank; capture sets this to 0."""

    @property
    def sharded_attention(self) -> bool:
        """True when attention heads (QKV, output projection, KV cache) are split across ranks."""
        return self.size > 1 and not self.dp_attention

    def part(self, n: int, what: str) -> int:
        """This rank's share of ``n`` (which must divide evenly)."""
        if n % self.size:
            raise ValueError(f"{what} ({n}) is not divisible by the tensor-parallel size "
                             f"{self.size}")
        return n // self.size

    def span(self, n: int, what: str) -> slice:
        """The slice of ``n`` this rank holds."""
        k = self.part(n, what)
        return slice(self.rank * k, (self.rank + 1) * k)

    def all_reduce(self, t: torch.Tensor) -> torch.Tensor:
        """Sum ``t`` over the group in place (nothing on one process)."""
        if self.size > 1:
            dist.all_reduce(t, group=self.group)
        return t

    def gather(self, t: torch.Tensor) -> torch.Tensor:
        """Every rank's ``t`` stacked along dim 0, rank order (``[size * rows, ...]``)."""
        if self.size == 1:
            return t
        parts = [torch.empty_like(t) for _ in range(self.size)]
        dist.all_gather(parts, t.contiguous(), group=self.group)
        return torch.cat(parts)

    def gather_columns(self, t: torch.Tensor) -> torch.Tensor:
        """Join per-rank column slices ``[rows, cols]`` into ``[rows, size * cols]``."""
        if self.size == 1:
            return t
        rows = t.shape[0]
        return self.gather(t).view(self.size, rows, -1).transpose(0, 1).reshape(rows, -1)

    def dp_mlp(self, x: torch.Tensor, mlp: Any) -> torch.Tensor:
        """Run a sharded MLP over every rank's tokens and keep this rank's rows."""
        real = x.shape[0]
        rows = max(real, self.pad_rows)
        if rows > real:
            x = F.pad(x, (0, 0, 0, rows - real))
        out: torch.Tensor = self.all_reduce(mlp(self.gather(x)))
        return out[self.rank * rows: self.rank * rows + real]


def column_shard(weight: torch.Tensor, par: Parallel, what: str, groups: int = 1) -> torch.Tensor:
    """This rank's output rows of ``weight`` ``[out, in]``; ``groups`` stacked blocks (q/k/v)."""
    blocks = weight.view(groups, -1, weight.shape[1])
    span = par.span(blocks.shape[1], what)
    return blocks[:, span].reshape(-1, weight.shape[1]).clone()


def row_shard(weight: torch.Tensor, par: Parallel, what: str) -> torch.Tensor:
    """This rank's input columns of ``weight`` ``[out, in]``."""
    return weight[:, par.span(weight.shape[1], what)].clone()


def init_from_env(tp: int, dp_attention: bool, cuda: bool) -> tuple[Parallel, Any]:
    """Join the group torchrun describes; returns (parallel layout, a CPU group for votes).

    The graphs' collectives use NCCL on CUDA (gloo without). The vote of data-parallel attention
    runs on a gloo group: a CPU collective needs no device synchronisation.
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world != tp:
        raise SystemExit(f"error: --tp {tp} needs {tp} processes (torchrun --nproc-per-node "
                         f"{tp}), found WORLD_SIZE={world}")
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if cuda:
        if torch.cuda.device_count() < tp:
            raise SystemExit(f"error: --tp {tp} needs {tp} GPUs, found "
                             f"{torch.cuda.device_count()}")
        torch.cuda.set_device(local)
    backend = "nccl" if cuda else "gloo"
    kwargs: dict[str, Any] = {"device_id": torch.device("cuda", local)} if cuda else {}
    dist.init_process_group(backend, **kwargs)
    group = dist.group.WORLD
    votes = dist.new_group(backend="gloo") if cuda else group
    return Parallel(rank=dist.get_rank(), size=world, group=group,
                    dp_attention=dp_attention), votes
