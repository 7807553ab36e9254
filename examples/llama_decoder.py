"""A Llama-shaped decoder served through ``cgconfig.runtime``: resolve a plan, capture, serve.

The model is small but has the parts that make graph capture delicate in a real server:

* a paged KV cache: each token's K/V live in a *slot* of one big pool, a request table maps
  (request row, position) to slots, and every step writes through an explicit slot-mapping
  tensor (``out_cache_loc``). Slot 0 and request row 0 are reserved dummies, which is what the
  ``ZERO`` padding policy points padded rows at;
* attention marked :func:`eager_on_graph`: decode attention has static shapes (it reads a fixed
  ``max_context`` window masked by ``seq_lens``) and is recorded inside full graphs; prefill
  attention loops over variable-length requests using host-side metadata, so the breakable
  backend runs it eagerly between graph segments;
* an eager tail for prefill (the LM head on each request's last token), as SGLang does.

Run ``python examples/llama_decoder.py`` on a GPU (bf16, 24 layers) or anywhere with
``--small`` (fp32, 2 layers; chosen automatically without CUDA, where the runtime runs the
graph path eagerly and says so). ``torchrun --nproc-per-node N examples/llama_decoder.py --tp N``
shards the model over N GPUs (see ``tensor_parallel.py``) and captures graphs with the
all-reduces inside; ``--dp-attention`` gives each rank its own batches and votes every step.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import logging
import os
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from cgconfig.runtime import (
    Axis,
    PaddingPolicy,
    PhaseRunner,
    ShapeKey,
    Slot,
    capture_report,
    eager_on_graph,
    phase_capture,
)
from cgconfig.runtime.distributed import gather_json


def _sibling(name: str) -> ModuleType:
    """Import a module next to this file (the example also runs loaded by path, off sys.path)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before exec: its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


tensor_parallel = _sibling("tensor_parallel")
Parallel = tensor_parallel.Parallel


@dataclass(frozen=True)
class ModelConfig:
    """Model and cache dimensions. The defaults are the GPU example's Llama shape."""

    hidden: int = 1024
    heads: int = 16
    mlp: int = 2816
    layers: int = 24
    vocab: int = 32000
    max_context: int = 256
    """KV positions per request; decode attention always reads this many, masked."""
    max_requests: int = 129
    """Rows of the request table, row 0 being the dummy that padded requests point at."""

    @classmethod
    def small(cls) -> ModelConfig:
        """A CPU-sized configuration with the same structure."""
        return cls(hidden=64, heads=4, mlp=176, layers=2, vocab=256, max_context=48,
                   max_requests=17)

    @property
    def head_dim(self) -> int:
        """Per-head width."""
        return self.hidden // self.heads

    @property
    def num_slots(self) -> int:
        """KV slots in the pool: one per (real request row, position), plus dummy slot 0."""
        return (self.max_requests - 1) * self.max_context + 1


class KVPool:
    """Paged KV cache with page size 1: slot 0 and request row 0 are dummies.

    Real requests get rows from 1 and slots from a shuffled free list, so a request's slots are
    scattered across the pool as in a long-running server.
    """

    def __init__(self, cfg: ModelConfig, dtype: torch.dtype, device: torch.device,
                 seed: int = 0) -> None:
        shape = (cfg.layers, cfg.num_slots, cfg.heads, cfg.head_dim)
        # After tensor-parallel sharding each rank keeps only its heads (LlamaDecoder.shard_).
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.req_to_token = torch.zeros(cfg.max_requests, cfg.max_context, dtype=torch.int64,
                                        device=device)
        self.columns = torch.arange(cfg.max_context, device=device)
        rng = random.Random(seed)
        self.free_slots = list(range(1, cfg.num_slots))
        rng.shuffle(self.free_slots)
        self.free_rows = list(range(cfg.max_requests - 1, 0, -1))

    def take_slots(self, n: int) -> list[int]:
        """Pop ``n`` free slots."""
        if n > len(self.free_slots):
            raise RuntimeError("KV pool exhausted")
        taken, self.free_slots = self.free_slots[-n:], self.free_slots[:-n]
        return taken


@dataclass
class PrefillMeta:
    """Host-side description of a prefill batch: (request row, cached prefix, new tokens)."""

    requests: list[tuple[int, int, int]] = field(default_factory=list)

    @classmethod
    def dummy(cls, tokens: int, max_context: int) -> PrefillMeta:
        """Capture-time stand-in: dummy-row requests covering ``tokens`` tokens."""
        parts = []
        while tokens > 0:
            n = min(tokens, max_context)
            parts.append((0, 0, n))
            tokens -= n
        return cls(parts)


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class Layer(nn.Module):
    """One pre-norm transformer layer, split around attention."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.input_norm = nn.Parameter(torch.ones(cfg.hidden))
        self.post_norm = nn.Parameter(torch.ones(cfg.hidden))
        self.qkv = nn.Linear(cfg.hidden, 3 * cfg.hidden, bias=False)
        self.o = nn.Linear(cfg.hidden, cfg.hidden, bias=False)
        self.gate_up = nn.Linear(cfg.hidden, 2 * cfg.mlp, bias=False)
        self.down = nn.Linear(cfg.mlp, cfg.hidden, bias=False)
        self.par = Parallel()
        self.heads = cfg.heads
        """Attention heads this rank computes (all of them unless heads are sharded)."""

    def shard_(self, par: Any) -> None:
        """Keep this rank's slices of the weights (see ``tensor_parallel``)."""
        self.par, cfg = par, self.cfg
        if par.sharded_attention:
            self.heads = par.part(cfg.heads, "heads")
            self.qkv.weight = nn.Parameter(tensor_parallel.column_shard(
                self.qkv.weight.data, par, "heads", groups=3))
            self.o.weight = nn.Parameter(tensor_parallel.row_shard(self.o.weight.data, par,
                                                                   "hidden"))
        self.gate_up.weight = nn.Parameter(tensor_parallel.column_shard(
            self.gate_up.weight.data, par, "mlp", groups=2))
        self.down.weight = nn.Parameter(tensor_parallel.row_shard(self.down.weight.data, par,
                                                                  "mlp"))

    def pre_attention(self, h: torch.Tensor, cos: torch.Tensor,
                      sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Norm, QKV projection and rotary embedding: ``[T, heads, head_dim]`` each."""
        cfg = self.cfg
        x = F.rms_norm(h, (cfg.hidden,), self.input_norm, 1e-6)
        q, k, v = self.qkv(x).view(-1, 3, self.heads, cfg.head_dim).unbind(1)
        return _rope(q, cos, sin), _rope(k, cos, sin), v

    def post_attention(self, h: torch.Tensor, attn: torch.Tensor) -> torch.Tensor:
        """Output projection, residual, gated MLP, residual (all-reduces when sharded)."""
        attn_out = self.o(attn)
        if self.par.sharded_attention:  # row-parallel: add up the ranks' partial sums
            attn_out = self.par.all_reduce(attn_out)
        h = h + attn_out
        x = F.rms_norm(h, (self.cfg.hidden,), self.post_norm, 1e-6)
        if self.par.dp_attention and self.par.size > 1:
            return h + self.par.dp_mlp(x, self.mlp)
        return h + self.par.all_reduce(self.mlp(x))

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        """Gated MLP on this rank's columns (a partial sum when sharded)."""
        gate, up = self.gate_up(x).chunk(2, -1)
        out: torch.Tensor = self.down(F.silu(gate) * up)
        return out


class LlamaDecoder(nn.Module):
    """The model: ``decode_forward`` gives logits per request, ``prefill_forward`` hidden states."""

    k_cache: torch.Tensor
    v_cache: torch.Tensor
    req_to_token: torch.Tensor
    kv_columns: torch.Tensor

    def __init__(self, cfg: ModelConfig, dtype: torch.dtype, device: torch.device) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.hidden)
        self.layers = nn.ModuleList(Layer(cfg) for _ in range(cfg.layers))
        self.norm = nn.Parameter(torch.ones(cfg.hidden))
        self.lm_head = nn.Linear(cfg.hidden, cfg.vocab, bias=False)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)
        self.to(device=device, dtype=dtype)
        inv = 1.0 / (10000.0 ** (torch.arange(0, cfg.head_dim, 2, device=device) / cfg.head_dim))
        angles = torch.outer(torch.arange(cfg.max_context, device=device).float(), inv)
        self.rope_cos = angles.cos().to(dtype)
        self.rope_sin = angles.sin().to(dtype)
        self.kv = KVPool(cfg, dtype, device)
        # Registered as (non-persistent) buffers too: the same tensors, but visible to
        # torch.compile as module state it may mutate in place.
        self.register_buffer("k_cache", self.kv.k, persistent=False)
        self.register_buffer("v_cache", self.kv.v, persistent=False)
        self.register_buffer("req_to_token", self.kv.req_to_token, persistent=False)
        self.register_buffer("kv_columns", self.kv.columns, persistent=False)
        # Read by prefill attention at run time (also during breakable replay), never frozen
        # into a graph: it is an attribute lookup inside the eager function.
        self.prefill_meta = PrefillMeta()
        self.par = Parallel()

    def shard_(self, par: Any) -> LlamaDecoder:
        """Keep only this rank's slices: weights, the vocabulary of the head and KV heads.

        Every rank builds the same full model (same seed) and shards it, so the sharded ranks
        together compute what the full model computes. The embedding stays replicated; with
        data-parallel attention so do attention and the head (each rank has its own tokens).
        """
        self.par = par
        for layer in cast(Sequence[Layer], self.layers):
            layer.shard_(par)
        if par.sharded_attention:
            self.lm_head.weight = nn.Parameter(tensor_parallel.column_shard(
                self.lm_head.weight.data, par, "vocab"))
            heads = par.span(self.cfg.heads, "heads")
            self.kv.k = self.kv.k[:, :, heads].contiguous()
            self.kv.v = self.kv.v[:, :, heads].contiguous()
            self.k_cache, self.v_cache = self.kv.k, self.kv.v
        return self

    @eager_on_graph
    def attention(self, layer: int, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                  out_cache_loc: torch.Tensor, req_pool_indices: torch.Tensor | None = None,
                  seq_lens: torch.Tensor | None = None) -> torch.Tensor:
        """Write this step's K/V at ``out_cache_loc``, then attend; ``[T, hidden]``.

        With ``req_pool_indices`` it is decode attention (one query per request, static
        shapes); without, prefill attention over :attr:`prefill_meta`.
        """
        kc, vc = self.k_cache[layer], self.v_cache[layer]
        kc.index_copy_(0, out_cache_loc, k)
        vc.index_copy_(0, out_cache_loc, v)
        if req_pool_indices is None or seq_lens is None:
            return self._prefill_attention(kc, vc, q)
        slots = self.req_to_token.index_select(0, req_pool_indices)
        keys = kc[slots].transpose(1, 2)
        values = vc[slots].transpose(1, 2)
        mask = (self.kv_columns < seq_lens[:, None])[:, None, None, :]
        out = F.scaled_dot_product_attention(q[:, :, None, :], keys, values, attn_mask=mask)
        return out.reshape(q.shape[0], -1)

    def _prefill_attention(self, kc: torch.Tensor, vc: torch.Tensor,
                           q: torch.Tensor) -> torch.Tensor:
        out = torch.zeros_like(q)
        offset = 0
        for row, prefix, new in self.prefill_meta.requests:
            slots = self.req_to_token[row, : prefix + new]
            keys, values = kc[slots].transpose(0, 1), vc[slots].transpose(0, 1)
            causal = torch.ones(new, prefix + new, dtype=torch.bool, device=q.device)
            causal = causal.tril(diagonal=prefix)
            qr = q[offset: offset + new].transpose(0, 1)
            o = F.scaled_dot_product_attention(qr, keys, values, attn_mask=causal)
            out[offset: offset + new] = o.transpose(0, 1)
            offset += new
        return out.reshape(q.shape[0], -1)

    def _body(self, inputs: Mapping[str, torch.Tensor], decode: bool) -> torch.Tensor:
        positions = inputs["positions"]
        cos, sin = self.rope_cos[positions][:, None, :], self.rope_sin[positions][:, None, :]
        h = self.embed(inputs["input_ids"])
        extra = (inputs["req_pool_indices"], inputs["seq_lens"]) if decode else ()
        for i, layer in enumerate(cast(Sequence[Layer], self.layers)):
            q, k, v = layer.pre_attention(h, cos, sin)
            h = layer.post_attention(h, self.attention(i, q, k, v, inputs["out_cache_loc"],
                                                       *extra))
        return F.rms_norm(h, (self.cfg.hidden,), self.norm, 1e-6)

    def decode_forward(self, inputs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """One decode step: logits ``[requests, vocab]``."""
        logits: torch.Tensor = self.lm_head(self._body(inputs, decode=True))
        if self.par.sharded_attention:  # vocab-parallel head: join the ranks' vocab slices
            logits = self.par.gather_columns(logits)
        return logits

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits for final hidden states (the prefill tail; gathers a vocab-parallel head)."""
        logits: torch.Tensor = self.lm_head(hidden)
        if self.par.sharded_attention:
            logits = self.par.gather_columns(logits)
        return logits

    def prefill_forward(self, inputs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """Prefill: final hidden states ``[tokens, hidden]`` (the LM head runs eagerly after)."""
        return self._body(inputs, decode=False)


def decode_slots() -> list[Slot]:
    """Static inputs of a decode step and why each has its padding policy."""
    i64 = torch.int64
    return [
        # Padded rows compute throw-away logits; stale ids and positions are valid inputs.
        Slot("input_ids", i64, axis=Axis.TOKENS, policy=PaddingPolicy.COPY),
        Slot("positions", i64, axis=Axis.TOKENS, policy=PaddingPolicy.COPY),
        # Padded rows must write the dummy slot 0, never a slot a live request owns.
        Slot("out_cache_loc", i64, axis=Axis.TOKENS, policy=PaddingPolicy.ZERO),
        # Padded requests read the dummy row 0 of the request table...
        Slot("req_pool_indices", i64, axis=Axis.REQUESTS, policy=PaddingPolicy.ZERO),
        # ...over one position: a short, valid attention instead of a stale long one.
        Slot("seq_lens", i64, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_SENTINEL,
             pad_value=1),
    ]


def prefill_slots() -> list[Slot]:
    """Static inputs of a prefill batch (request metadata stays on the host)."""
    i64 = torch.int64
    return [
        Slot("input_ids", i64, policy=PaddingPolicy.COPY),
        Slot("positions", i64, policy=PaddingPolicy.COPY),
        Slot("out_cache_loc", i64, policy=PaddingPolicy.ZERO),
    ]


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
