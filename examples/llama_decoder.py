"""A Llama-shaped decoder served through ``cgconfig.runtime``: resolve a plan, capture, serve.

The model lives in ``llama_model.py`` (paged KV cache, attention marked ``@eager_on_graph``,
tensor-parallel sharding); this script builds random prefill and decode batches against its KV
pool and serves them through a decode runner (full graphs) and a prefill runner (breakable).

Run ``python examples/llama_decoder.py`` on a GPU (bf16, 24 layers) or anywhere with
``--small`` (fp32, 2 layers; chosen automatically without CUDA, where the runtime runs the
graph path eagerly and says so). ``torchrun --nproc-per-node N examples/llama_decoder.py --tp N``
shards the model over N GPUs (see ``tensor_parallel.py``) and captures graphs with the
all-reduces inside; ``--dp-attention`` gives each rank its own batches and votes every step.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from cgconfig.runtime import PhaseRunner, ShapeKey, capture_report, phase_capture, write_histograms
from cgconfig.runtime.distributed import gather_json

# Loaded by path (tests, benchmarks) this file is not on sys.path; its siblings must be.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import tensor_parallel  # noqa: E402
from llama_model import (  # noqa: E402
    KVPool,
    LlamaDecoder,
    ModelConfig,
    Parallel,
    PrefillMeta,
    decode_slots,
    prefill_slots,
)

__all__ = ["KVPool", "LlamaDecoder", "ModelConfig", "Parallel", "PrefillMeta", "Server",
           "build_runners", "decode_slots", "main", "prefill_slots", "resolve_plan", "serve",
           "tensor_parallel"]

def build_runners(model: LlamaDecoder, plan: Any, device: torch.device,
                  group: Any = None) -> dict[str, PhaseRunner]:
    """A decode and a prefill runner for ``model`` following ``plan`` (on ``group`` if sharded)."""
    cfg = model.cfg

    def prepare_decode(key: ShapeKey) -> None:
        model.par.pad_rows = 0  # graphs hold the bucket's rows on every rank: no extra padding

    def prepare_prefill(key: ShapeKey) -> None:
        model.par.pad_rows = 0
        model.prefill_meta = PrefillMeta.dummy(key.size, cfg.max_context)

    return {
        "decode": PhaseRunner(phase_capture(plan, "decode"), model.decode_forward,
                              decode_slots(), device=device, group=group,
                              prepare_capture=prepare_decode),
        "prefill": PhaseRunner(phase_capture(plan, "prefill"), model.prefill_forward,
                               prefill_slots(), device=device, prepare_capture=prepare_prefill,
                               group=group),
    }


def shard_problem(cfg: ModelConfig, tp: int, dp_attention: bool) -> str | None:
    """Why ``cfg`` cannot be split over ``tp`` ranks (None when it can), as ``shard_`` splits it.

    The MLP is always sharded; heads, hidden width and vocabulary only without
    ``--dp-attention``.
    """
    dims = [("mlp", cfg.mlp)]
    if tp > 1 and not dp_attention:
        dims += [("heads", cfg.heads), ("hidden", cfg.hidden), ("vocab", cfg.vocab)]
    for what, n in dims:
        if n % tp:
            small = " (--small has 4 heads: add --dp-attention)" if what == "heads" else ""
            return f"--tp {tp}: {what} ({n}) is not divisible by the tensor-parallel size{small}"
    return None


def resolve_plan(max_bs: int, prefill_sizes: Sequence[int]) -> tuple[Any, str]:
    """The plan from cgconfig's resolver, or a built-in one (with the reason) without it."""
    argv = ["--cuda-graph-max-bs-decode", str(max_bs),
            "--cuda-graph-bs-prefill", *map(str, prefill_sizes)]
    try:
        from cgconfig import resolve_args
    except ImportError as exc:
        print(f"note: cgconfig's resolver is not importable ({exc}); using a built-in plan",
              file=sys.stderr)
        decode = [s for s in (1, 2, 4, 8, 12, *range(16, 257, 8)) if s <= max_bs]
        plan = {"schema_version": 1, "options": {},
                "capture": {"decode": {"backend": "full", "sizes": decode},
                            "prefill": {"backend": "breakable", "sizes": list(prefill_sizes)}}}
        return plan, "builtin"
    return resolve_args(argv), "resolver: " + " ".join(argv)


@dataclass
class Request:
    """A live request: its table row, the KV slots it owns, and its last token."""

    row: int
    slots: list[int]
    last_token: int


class Server:
    """Builds random prefill and decode batches against the model's KV pool and serves them."""

    def __init__(self, model: LlamaDecoder, runners: Mapping[str, PhaseRunner],
                 seed: int = 0, check: bool = False, votes: Any = None) -> None:
        self.model = model
        self.runners = runners
        self.votes = votes
        """With data-parallel attention: the group every step is voted on (None otherwise)."""
        self.rng = random.Random(seed)
        self.live: list[Request] = []
        self.check = check
        self.max_error = 0.0

    def _tensor(self, values: Sequence[int]) -> torch.Tensor:
        return torch.tensor(values, dtype=torch.int64, device=self.model.kv.k.device)

    def _compare(self, got: torch.Tensor, want: torch.Tensor) -> None:
        err = (got.float() - want.float()).abs().max().item() if got.numel() else 0.0
        self.max_error = max(self.max_error, err)

    def _route(self, phase: str, size: int, requests: int) -> tuple[bool, dict[str, Any]]:
        """(whether to run, extra ``run`` arguments). Without a vote group: run non-empty batches.

        With data-parallel attention every rank votes every step, idle ones with size 0, and
        all ranks skip the step together only when every rank is idle. An eager step pads the
        MLP's gather to the largest rank's rows.
        """
        if self.votes is None:
            return size > 0, {}
        vote = self.runners[phase].vote(size, self.votes, num_requests=requests)
        # Read only by eager forwards (fallbacks and --check); a replay runs no Python.
        self.model.par.pad_rows = vote.max_size
        return vote.max_size > 0, {"vote": vote}

    def prefill(self, lengths: Sequence[int]) -> None:
        """Admit requests with these prompt lengths in one prefill batch."""
        kv, cfg = self.model.kv, self.model.cfg
        ids: list[int] = []
        positions: list[int] = []
        locs: list[int] = []
        meta = PrefillMeta()
        new: list[Request] = []
        for n in lengths:
            row = kv.free_rows.pop()
            slots = kv.take_slots(n)
            kv.req_to_token[row, :n] = self._tensor(slots)
            ids += [self.rng.randrange(cfg.vocab) for _ in range(n)]
            positions += range(n)
            locs += slots
            meta.requests.append((row, 0, n))
            new.append(Request(row, slots, 0))
        batch = {"input_ids": self._tensor(ids), "positions": self._tensor(positions),
                 "out_cache_loc": self._tensor(locs)}
        self.model.prefill_meta = meta
        go, extra = self._route("prefill", len(ids), len(lengths))
        if not go:
            return
        hidden = self.runners["prefill"].run(batch, len(ids), num_requests=len(lengths),
                                             **extra)
        last = self._tensor([end - 1 for end in itertools.accumulate(lengths)])
        logits = self.model.head(hidden.index_select(0, last))
        if self.check:
            self._compare(logits, self.model.head(
                self.model.prefill_forward(batch).index_select(0, last)))
        for req, token in zip(new, logits.argmax(-1).tolist(), strict=True):
            req.last_token = token
        self.live += new

    def decode(self, n: int) -> None:
        """One decode step for ``n`` live requests (fewer when fewer are live)."""
        kv = self.model.kv
        reqs = self.live[:n]
        go, extra = self._route("decode", len(reqs), len(reqs))
        if not go:
            return
        locs = kv.take_slots(len(reqs))
        for req, loc in zip(reqs, locs, strict=True):
            kv.req_to_token[req.row, len(req.slots)] = loc
            req.slots.append(loc)
        batch = {
            "input_ids": self._tensor([r.last_token for r in reqs]),
            "positions": self._tensor([len(r.slots) - 1 for r in reqs]),
            "out_cache_loc": self._tensor(locs),
            "req_pool_indices": self._tensor([r.row for r in reqs]),
            "seq_lens": self._tensor([len(r.slots) for r in reqs]),
        }
        logits = self.runners["decode"].run(batch, len(reqs), **extra)
        if self.check:
            self._compare(logits, self.model.decode_forward(batch))
        for req, token in zip(reqs, logits.argmax(-1).tolist(), strict=True):
            req.last_token = token

    def retire(self, keep_below: int) -> None:
        """Finish requests near the context limit, and random ones, returning their rows/slots."""
        kv, cap = self.model.kv, self.model.cfg.max_context
        still: list[Request] = []
        for req in self.live:
            if len(req.slots) >= keep_below or len(req.slots) >= cap - 1 or self.rng.random() < 0.1:
                kv.free_rows.append(req.row)
                kv.free_slots += req.slots
            else:
                still.append(req)
        self.live = still


def serve(args: argparse.Namespace) -> dict[str, Any]:
    """Resolve, capture, serve ``args.steps`` rounds; returns the report that ``main`` prints.

    With ``--tp N`` (under torchrun) every rank builds the same full model and keeps its shard.
    Plain tensor parallelism serves the same batches on every rank; ``--dp-attention`` gives
    each rank its own random batch sizes (a per-rank seed) while the schedule, how many prefill
    and decode steps each round has, stays shared so every rank votes the same number of times.
    """
    cuda = torch.cuda.is_available() and not args.cpu
    small = args.small or not cuda
    cfg = ModelConfig.small() if small else ModelConfig()
    dtype = torch.bfloat16 if cuda else torch.float32
    par, votes = Parallel(), None
    if args.tp > 1:
        par, votes = tensor_parallel.init_from_env(args.tp, args.dp_attention, cuda)
    device = torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu")
    torch.manual_seed(args.seed)
    model = LlamaDecoder(cfg, dtype, device).eval().shard_(par)
    max_bs = min(args.max_bs, cfg.max_requests - 1)
    prefill_sizes = [16, 32, 64, 128] if small else [128, 256, 512, 1024, 2048]
    plan, source = resolve_plan(max_bs, prefill_sizes)
    runners = build_runners(model, plan, device, group=par.group)
    for runner in runners.values():
        runner.capture()
    dp = par.dp_attention and par.size > 1
    own_seed = args.seed + (par.rank if dp else 0)
    server = Server(model, runners, seed=own_seed, check=args.check, votes=votes if dp else None)
    schedule, sizes = random.Random(args.seed), random.Random(own_seed)
    max_prompt = min(cfg.max_context // 2, prefill_sizes[-1] // 2)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        admit = min(sizes.randint(1, 4), len(model.kv.free_rows))
        if admit or dp:
            server.prefill([sizes.randint(1, max_prompt) for _ in range(admit)])
        for _ in range(schedule.randint(1, 4)):
            server.decode(sizes.randint(1, max_bs))
        server.retire(keep_below=cfg.max_context - 8)
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    if args.histogram and par.rank == 0:  # the sizes served, for `cgconfig tune --histogram FILE`
        write_histograms(args.histogram, {phase: r.stats for phase, r in runners.items()})
    stats = {phase: r.stats.to_dict() for phase, r in runners.items()}
    error = server.max_error if args.check else None
    report: dict[str, Any] = {
        "plan_source": source,
        "device": str(device),
        "model": {"layers": cfg.layers, "hidden": cfg.hidden, "dtype": str(dtype)},
        "parallel": {"tp": par.size, "dp_attention": dp},
        "capture": capture_report(runners),
        "stats": stats,
        "serve_seconds": round(elapsed, 3),
        "max_abs_error_vs_eager": error,
    }
    if par.size > 1:  # every rank's counters and error, gathered for rank 0's report
        report["ranks"] = gather_json({"stats": stats, "max_abs_error": error}, votes)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: prints the capture report and the runners' counters as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="tiny fp32 model (automatic "
                        "without CUDA)")
    parser.add_argument("--cpu", action="store_true", help="run on the CPU even if CUDA exists")
    parser.add_argument("--steps", type=int, default=20, help="serving rounds")
    parser.add_argument("--max-bs", type=int, default=64, help="decode max batch size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true",
                        help="also run every batch eagerly and report the largest difference")
    parser.add_argument("--histogram", metavar="FILE",
                        help="write the served batch sizes here (input of cgconfig tune)")
    parser.add_argument("--tp", type=int, default=1,
                        help="tensor-parallel size; launch with torchrun --nproc-per-node N")
    parser.add_argument("--dp-attention", action="store_true",
                        help="with --tp: attention data-parallel (each rank its own batches, one "
                        "vote per step), MLP tensor-parallel")
    args = parser.parse_args(argv)
    if args.tp < 1:
        parser.error(f"--tp must be at least 1, got {args.tp}")
    if args.dp_attention and args.tp < 2:
        parser.error("--dp-attention needs --tp 2 or more")
    cuda = torch.cuda.is_available() and not args.cpu
    problem = shard_problem(ModelConfig.small() if args.small or not cuda else ModelConfig(),
                            args.tp, args.dp_attention)
    if problem:  # refused here, on every rank, before any process group exists
        parser.error(problem)
    rank = int(os.environ.get("RANK", "0"))
    if rank == 0:  # capture progress, one line per size off a terminal
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    report = serve(args)
    if rank == 0:
        print(json.dumps(report, indent=2))
    if args.tp > 1:
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
