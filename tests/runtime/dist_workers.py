"""What each rank runs in the multi-process tests (CPU with gloo, GPUs with NCCL).

Each function takes ``(rank, world, device)`` inside an initialised group and returns plain
data for the parent test to check. On the CPU the runners use their eager stand-ins (same
buckets, fills, votes and slicing); on GPUs they capture real graphs with the collectives inside.
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
import torch.distributed as dist

from cgconfig.runtime import (
    Axis,
    CaptureSettingsError,
    PaddingPolicy,
    PhaseCapture,
    PhaseRunner,
    PlanMismatchError,
    Slot,
)
from cgconfig.runtime import distributed as rt_dist

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOY_SIZES = (1, 2, 4, 8, 16, 24, 32, 40, 48)
TP_SIZES = (1, 2, 4, 8, 12, 16, 24, 32)


def load_example() -> ModuleType:
    """examples/llama_decoder.py as module ``llama_decoder``."""
    if "llama_decoder" in sys.modules:
        return sys.modules["llama_decoder"]
    spec = importlib.util.spec_from_file_location("llama_decoder", EXAMPLES / "llama_decoder.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["llama_decoder"] = module
    spec.loader.exec_module(module)
    return module


# -- the vote on a toy forward with a collective inside ----------------------------------


def toy_runner(device: torch.device, group: Any, backend: str = "full",
               sizes: tuple[int, ...] = TOY_SIZES) -> PhaseRunner:
    """``y = x + sum over ranks of sum(x rows)``: one all_reduce, padded rows zero."""
    slots = [Slot("x", torch.float32, trailing=(4,), axis=Axis.TOKENS,
                  policy=PaddingPolicy.ZERO)]

    def forward(inputs: Any) -> torch.Tensor:
        x = inputs["x"]
        total = x.sum(0, keepdim=True)
        dist.all_reduce(total, group=group)
        return x + total

    return PhaseRunner(PhaseCapture("decode", backend, sizes), forward, slots, device=device,
                       group=group, unsupported_features=("lora",), progress=False)


def toy_x(tag: int, rank: int, n: int) -> torch.Tensor:
    """Rank ``rank``'s input at step ``tag`` (any rank can rebuild any other's)."""
    return torch.randn(n, 4, generator=torch.Generator().manual_seed(tag * 1000 + rank),
                       dtype=torch.float64)


def vote_scenarios(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """Fixed scenarios from the issue, then 100 random steps with independent sizes."""
    group = dist.group.WORLD
    runner = toy_runner(device, group)
    runner.capture()
    worst = 0.0

    def step(tag: int, sizes: list[int], features: tuple[str, ...] = ()) -> Any:
        nonlocal worst
        n = sizes[rank]
        vote = runner.vote(n, group, features=features)
        got = runner.run({"x": toy_x(tag, rank, n).float().to(device)}, n, vote=vote)
        total = sum(toy_x(tag, r, sizes[r]).sum(0) for r in range(world))
        want = toy_x(tag, rank, n) + total
        worst = max(worst, float((got.double().cpu() - want).abs().max()) if n else 0.0)
        return vote

    out: dict[str, Any] = {}
    for name, tag, sizes, features in (
        ("basic", 1, [5, 37], ()),
        ("over", 2, [3, 60], ()),
        ("unsupported", 3, [7, 7], ("lora",) if rank == 0 else ()),
        ("idle", 4, [0, 9], ()),
    ):
        runner.stats.reset()
        vote = step(tag, sizes, features)
        out[name] = {"padded": vote.padded, "reason": vote.reason,
                     "replays": dict(runner.stats.replays),
                     "fallbacks": dict(runner.stats.fallbacks)}
    routes = []
    for i in range(100):
        sizes = []
        for r in range(world):
            rng = random.Random(50_000 + i * 10 + r)
            sizes.append(rng.choice([0, rng.randint(1, 48), rng.randint(1, 48),
                                     rng.randint(1, 60)]))
        lora = random.Random(90_000 + i * 10 + rank).random() < 0.05
        vote = step(100 + i, sizes, ("lora",) if lora else ())
        routes.append(vote.padded)
    out["routes"] = routes
    out["max_error"] = worst
    return out


def vote_any_world(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """For any number of ranks: one rank over the largest size sends every rank eager.

    Then the last rank idles while the others replay the largest rank's bucket.
    """
    group = dist.group.WORLD
    runner = toy_runner(device, group)
    runner.capture()
    out: dict[str, Any] = {}
    over = [3 + r for r in range(world)]
    over[world // 2] = 60  # TOY_SIZES stop at 48
    ordinary = [5 + 3 * r for r in range(world)]
    ordinary[-1] = 0
    for name, sizes in (("over", over), ("ordinary", ordinary)):
        runner.stats.reset()
        n = sizes[rank]
        vote = runner.vote(n, group)
        got = runner.run({"x": toy_x(7, rank, n).float().to(device)}, n, vote=vote)
        total = sum(toy_x(7, r, sizes[r]).sum(0) for r in range(world))
        error = float((got.double().cpu() - (toy_x(7, rank, n) + total)).abs().max()) if n else 0.0
        out[name] = {"padded": vote.padded, "reason": vote.reason, "error": error,
                     "replays": dict(runner.stats.replays),
                     "fallbacks": dict(runner.stats.fallbacks)}
    return out


def vote_latency(rank: int, world: int, device: torch.device) -> float:
    """Microseconds per vote, back to back with no other work (median of 5 chunks of 200).

    Not a test: ``benchmarks/RESULTS.md`` records how it was run (through ``dist_harness``).
    """
    group = dist.group.WORLD
    runner = toy_runner(device, group)
    runner.capture()
    chunks = []
    for _ in range(5):
        dist.barrier(group)
        t0 = time.perf_counter()
        for _ in range(200):
            runner.vote(4, group)
        chunks.append((time.perf_counter() - t0) / 200 * 1e6)
    return sorted(chunks)[2]


# -- agreement: plan digest and settings --------------------------------------------------


def plan_mismatch(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """Rank 1 holds another plan; a settings problem on rank 1; a gloo group for graphs."""
    group = dist.group.WORLD
    sizes = (1, 2, 4) if rank == 0 else (1, 2, 8)
    out: dict[str, Any] = {}
    try:
        toy_runner(device, group, sizes=sizes).capture()
        out["mismatch"] = None
    except PlanMismatchError as exc:
        out["mismatch"] = str(exc)
    try:  # a rank whose plan disables the phase still takes part in the agreement
        toy_runner(device, group, backend="disabled" if rank == 1 else "full",
                   sizes=() if rank == 1 else (1, 2)).capture()
        out["disabled"] = None
    except PlanMismatchError as exc:
        out["disabled"] = str(exc)
    try:
        rt_dist.agree(group, "decode", "same", "made-up problem" if rank == 1 else None)
        out["settings"] = None
    except CaptureSettingsError as exc:
        out["settings"] = str(exc)
    if device.type == "cuda":
        gloo = dist.new_group(backend="gloo")
        try:
            toy_runner(device, gloo).capture()
            out["gloo_graphs"] = None
        except CaptureSettingsError as exc:
            out["gloo_graphs"] = str(exc)
    # The group still works after the errors: nothing is left half-way through a collective.
    ok = toy_runner(device, group, sizes=(1, 2))
    ok.capture()
    out["after"] = ok.run({"x": torch.ones(2, 4, device=device)}, 2).sum().item()
    return out


# -- the example model, tensor-parallel --------------------------------------------------


class Models:
    """The full example model and this rank's shard of it, with the same KV contents."""

    def __init__(self, rank: int, world: int, device: torch.device, *, layers: int,
                 dp_attention: bool = False) -> None:
        self.llama = llama = load_example()
        self.dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        self.cfg = cfg = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=layers,
                                           vocab=1024, max_context=64, max_requests=61)
        torch.manual_seed(0)
        self.full = llama.LlamaDecoder(cfg, self.dtype, device).eval()
        gen = torch.Generator(device=device).manual_seed(1)
        kv = self.full.kv
        kv.k.normal_(generator=gen)
        kv.v.normal_(generator=gen)
        rows = cfg.max_requests - 1
        perm = torch.randperm(cfg.num_slots - 1, device=device, generator=gen)
        kv.req_to_token[1:] = (perm[: rows * cfg.max_context] + 1).view(rows, cfg.max_context)
        par = llama.Parallel(rank=rank, size=world, group=dist.group.WORLD,
                             dp_attention=dp_attention)
        self.sharded = copy.deepcopy(self.full).shard_(par)
        self.device = device

    def batch(self, n: int, seed: int) -> dict[str, torch.Tensor]:
        """A decode batch of ``n`` requests with random history lengths."""
        rng = random.Random(seed)
        cfg, table = self.cfg, self.full.kv.req_to_token
        rows = rng.sample(range(1, cfg.max_requests), n)
        lens = [rng.randint(1, cfg.max_context) for _ in rows]

        def t(v: list[int]) -> torch.Tensor:
            return torch.tensor(v, dtype=torch.int64, device=self.device)

        return {"input_ids": t([rng.randrange(cfg.vocab) for _ in rows]),
                "positions": t([x - 1 for x in lens]),
                "out_cache_loc": t([int(table[r, x - 1]) for r, x in zip(rows, lens,
                                                                         strict=True)]),
                "req_pool_indices": t(rows), "seq_lens": t(lens)}

    def runner(self, backend: str, sizes: tuple[int, ...] = TP_SIZES) -> PhaseRunner:
        """A captured decode runner of the shard on the world group."""
        runner = PhaseRunner(PhaseCapture("decode", backend, sizes), self.sharded.decode_forward,
                             self.llama.decode_slots(), device=self.device,
                             group=dist.group.WORLD, progress=False)
        runner.capture()
        return runner


def rel_err(got: torch.Tensor, want: torch.Tensor) -> float:
    """‖got − want‖ / ‖want‖ in float32 (inf when got is not finite)."""
    got, want = got.float(), want.float()
    if not torch.isfinite(got).all():
        return float("inf")
    return float((got - want).norm() / want.norm()) if got.numel() else 0.0


def tp_decode(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """Every decode size 1..32 (captured and in between), full and breakable, TP=world."""
    m = Models(rank, world, device, layers=4 if device.type == "cuda" else 2)
    out: dict[str, Any] = {}
    # Every size on GPUs; on the CPU (eager stand-ins, two ranks on few cores) each captured
    # size once plus sizes in between.
    sizes = range(1, TP_SIZES[-1] + 1) if device.type == "cuda" else (*TP_SIZES, 3, 13, 27)
    for backend in ("full", "breakable"):
        runner = m.runner(backend)
        vs_eager = vs_full = 0.0
        for n in sizes:
            batch = m.batch(n, seed=n)
            got = runner.run(batch, n).clone()
            vs_eager = max(vs_eager, rel_err(got, m.sharded.decode_forward(batch)))
            vs_full = max(vs_full, rel_err(got, m.full.decode_forward(batch)))
        out[backend] = {"vs_eager": vs_eager, "vs_full": vs_full,
                        "runtime_backend": runner.backend.value if runner.backend else None,
                        "replays": sorted(runner.stats.replays),
                        "fallbacks": dict(runner.stats.fallbacks)}
        runner.release()
    return out


def dp_decode(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """Data-parallel attention: own sizes per rank (some over the largest graph) vs the full model."""
    m = Models(rank, world, device, layers=2, dp_attention=True)
    runner = m.runner("full", sizes=(1, 2, 4, 8, 16))
    worst = 0.0
    routes = []
    for step in range(30 if device.type == "cuda" else 15):
        n = random.Random(7_000 + step * 10 + rank).randint(0, 20)
        vote = runner.vote(n, dist.group.WORLD)
        routes.append(vote.padded)
        if not vote.max_size:  # every rank idle: every rank skips the step
            continue
        m.sharded.par.pad_rows = vote.max_size
        batch = m.batch(n, seed=step * 10 + rank)
        got = runner.run(batch, n, vote=vote)
        if n:
            worst = max(worst, rel_err(got, m.full.decode_forward(batch)))
    return {"max_rel_err": worst, "routes": routes, "fallbacks": dict(runner.stats.fallbacks)}


def tp_recapture(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """20 recaptures of a TP decode runner: allocated/reserved memory before and after."""
    m = Models(rank, world, device, layers=2)
    runner = m.runner("full", sizes=(1, 2, 4, 8))
    batch = m.batch(3, seed=3)
    reference = runner.run(batch, 3).clone()

    def settled() -> tuple[int, int]:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        return torch.cuda.memory_allocated(), torch.cuda.memory_reserved()

    before = settled()
    for _ in range(20):
        runner.recapture()
    after = settled()
    same = bool(torch.equal(runner.run(batch, 3), reference))
    return {"before": before, "after": after, "same_output": same}


def all_scenarios(rank: int, world: int, device: torch.device) -> dict[str, Any]:
    """Every scenario above in one start of the ranks (starting them costs more than running).

    Each scenario's result or error is kept under its name, so one failing scenario fails its
    own test only (unless it leaves a collective unmatched: then the watchdog fails them all).
    """
    out: dict[str, Any] = {}
    for fn in (vote_scenarios, plan_mismatch, tp_decode, dp_decode):
        try:
            out[fn.__name__] = {"ok": fn(rank, world, device)}
        except Exception as exc:  # reported by the test that reads this scenario
            out[fn.__name__] = {"error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"}
    return out
