"""The example's Llama-shaped model: paged KV cache, attention marked for breakable graphs.

The model is small but has the parts that make graph capture delicate in a real server:

* a paged KV cache: each token's K/V live in a *slot* of one big pool, a request table maps
  (request row, position) to slots, and every step writes through an explicit slot-mapping
  tensor (``out_cache_loc``). Slot 0 and request row 0 are reserved dummies, which is what the
  ``ZERO`` padding policy points padded rows at;
* attention marked :func:`eager_on_graph`: decode attention has static shapes (it reads a fixed
  ``max_context`` window masked by ``seq_lens``) and is recorded inside full graphs; prefill
  attention loops over variable-length requests using host-side metadata, so the breakable
  backend runs it eagerly between graph segments;
* an eager tail for prefill (the LM head on each request's last token), as SGLang does;
* tensor and data parallelism through :mod:`tensor_parallel` (``LlamaDecoder.shard_``).

``llama_decoder.py`` beside it serves this model through the runtime.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import tensor_parallel
import torch
import torch.nn.functional as F
from tensor_parallel import Parallel
from torch import nn

from cgconfig.runtime import Axis, PaddingPolicy, Slot, eager_on_graph


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
