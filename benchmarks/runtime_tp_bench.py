"""Benchmark the runtime under tensor parallelism: graphs with NCCL all-reduces inside, and the vote.

Launch with ``torchrun --nproc-per-node 2 benchmarks/runtime_tp_bench.py [--quick] [--json F]``
on two GPUs. On the example Llama-shaped decoder (24 layers, hidden 1024, bf16), sharded TP=2
(column-parallel QKV and gate/up, row-parallel output and down projections with an all-reduce,
vocab-parallel head), one run prints, for decode at batch 1 / 8 / 64, timed round-robin:

* eager TP=2, the runtime's full backend TP=2 (fill + replay + slice), a hand-made TP=2 graph
  (one ``torch.cuda.CUDAGraph`` with a ``copy_`` per input), and the runtime step preceded by
  the data-parallel vote on a gloo group and on the NCCL group;
* beside them, the same model unsharded on one GPU (eager and runtime full), so the TP speed-up
  is visible;
* the vote alone: host microseconds per vote on each group, with the GPU idle.

Times are rank 0's; both ranks run the same steps in the same order (their collectives pair up).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import sys
import time
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
import torch.distributed as dist

from cgconfig.runtime import PhaseRunner

ROOT = Path(__file__).resolve().parent


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


bench = _load("runtime_bench")  # timing helpers, the workload and the hand-made graph


def vote_micros(runner: PhaseRunner, group: Any, size: int, iters: int) -> float:
    """Host microseconds per vote on ``group`` (GPU idle; ranks call it in lockstep)."""
    for _ in range(20):
        runner.vote(size, group)
    dist.barrier(group)
    t0 = time.perf_counter()
    for _ in range(iters):
        runner.vote(size, group)
    return (time.perf_counter() - t0) / iters * 1e6


def single_gpu(llama: ModuleType, cfg: Any, plan: Any, iters: int,
               repeats: int) -> dict[int, dict[str, float]]:
    """The unsharded model on this rank's GPU alone: eager and runtime full, per batch size."""
    work = bench.Workload(llama, cfg)
    runner = PhaseRunner(plan, work.model.decode_forward, llama.decode_slots(), progress=False)
    runner.capture()
    out = {}
    for bs in bench.DECODE_BS:
        batch = work.decode_batch(bs)
        with torch.no_grad():
            out[bs] = bench.medians(bench.time_many(
                {"eager": partial(work.model.decode_forward, batch),
                 "full": partial(runner.run, batch, bs)}, iters, repeats))
    runner.release()
    del work
    torch.cuda.empty_cache()
    return out


def tp_rows(work: Any, runner: PhaseRunner, votes: Any, iters: int,
            repeats: int) -> list[dict[str, Any]]:
    """The TP=2 decode table: one row per batch size."""
    model = work.model
    world = dist.group.WORLD
    rows = []
    for bs in bench.DECODE_BS:
        batch = work.decode_batch(bs)

        def with_vote(group: Any, batch: Any = batch, bs: int = bs) -> Any:
            return runner.run(batch, bs, vote=runner.vote(bs, group))

        with torch.no_grad():
            steps = {
                "eager": partial(model.decode_forward, batch),
                "full": partial(runner.run, batch, bs),
                "hand_graph": bench.hand_graph(model.decode_forward, batch),
                "full_vote_gloo": partial(with_vote, votes),
                "full_vote_nccl": partial(with_vote, world),
            }
            # Every rank runs the same variant at the same time: time_many's order is a
            # function of the repeat index only.
            row: dict[str, Any] = {"bs": bs,
                                   **bench.medians(bench.time_many(steps, iters, repeats))}
            want = model.decode_forward(batch).float()
            got = runner.run(batch, bs).float()
            row["full_rel_err"] = ((got - want).norm() / want.norm()).item()
        rows.append(row)
    return rows


def print_tables(result: dict[str, Any]) -> None:
    """Rank 0's summary."""
    fmt, ratio = bench.fmt, bench.ratio
    print(f"\n# {result['device']} x{result['world']} | torch {result['torch']} | "
          f"model {result['model']}")
    print(f"# plan: {result['plan_source']}")
    print("\nDecode step, ms, TP=2 (runtime: fill + replay + slice) beside one GPU")
    head = ("bs", "eager tp2", "full tp2", "hand graph tp2", "full/hand", "eager/full",
            "+vote gloo", "+vote nccl", "eager 1gpu", "full 1gpu", "1gpu/tp2 full")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in result["tp"]:
        one = result["single_gpu"][row["bs"]]
        cells = [str(row["bs"]), fmt(row["eager"]), fmt(row["full"]), fmt(row["hand_graph"]),
                 ratio(row["full"], row["hand_graph"]), ratio(row["eager"], row["full"]),
                 f"{(row['full_vote_gloo'] - row['full']) * 1000:+.0f} us",
                 f"{(row['full_vote_nccl'] - row['full']) * 1000:+.0f} us",
                 fmt(one["eager"]), fmt(one["full"]), ratio(one["full"], row["full"])]
        print("| " + " | ".join(cells) + " |")
    print("\nfull vs eager TP=2 relative error: "
          + ", ".join(f"bs {r['bs']}: {r['full_rel_err']:.1e}" for r in result["tp"]))
    v = result["vote_us"]
    print(f"vote alone (GPU idle), host us per vote: gloo {v['gloo']:.1f}, nccl {v['nccl']:.1f}")
    cap = result["capture"]
    print(f"TP=2 capture of {len(cap['sizes'])} sizes: {cap['capture_seconds']:.2f} s, "
          f"reserved {cap['reserved_bytes'] / (1 << 20):.1f} MiB; per size (s): "
          + ", ".join(f"{s}: {t:.3f}" for s, t in cap["capture_seconds_by_size"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the TP benchmark on every rank; rank 0 prints and writes ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small model, few iterations")
    parser.add_argument("--json", type=Path, help="write the raw results here (rank 0)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available() or int(os.environ.get("WORLD_SIZE", "1")) < 2:
        print("runtime_tp_bench needs 2+ GPUs under torchrun --nproc-per-node N",
              file=sys.stderr)
        return 2
    llama = bench.load_example()
    world = int(os.environ["WORLD_SIZE"])
    par, votes = llama.tensor_parallel.init_from_env(world, False, True)
    if args.quick:
        cfg = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=4, vocab=4096,
                                max_context=256, max_requests=129)
        iters, repeats = 10, 3
    else:
        cfg, iters, repeats = llama.ModelConfig(), 50, 5
    t0 = time.perf_counter()
    bench.warm_gpu(1.0 if args.quick else 3.0)
    decode_plan, _, source = bench.resolved_plans(max(bench.DECODE_BS), bench.PREFILL_TOKENS)
    plan = dataclasses.replace(decode_plan, backend="full")
    result: dict[str, Any] = {
        "device": torch.cuda.get_device_name(), "world": world, "torch": torch.__version__,
        "model": f"{cfg.layers} layers, hidden {cfg.hidden}, mlp {cfg.mlp}, vocab {cfg.vocab}, "
                 f"bf16, context {cfg.max_context}",
        "plan_source": source, "decode_sizes": list(plan.sizes),
    }
    result["single_gpu"] = single_gpu(llama, cfg, plan, iters, repeats)
    dist.barrier()
    work = bench.Workload(llama, cfg)  # same seed on every rank: the same full model ...
    work.model.shard_(par)  # ... of which each rank keeps its slices
    runner = PhaseRunner(plan, work.model.decode_forward, llama.decode_slots(),
                         group=dist.group.WORLD)
    result["capture"] = runner.capture()
    result["tp"] = tp_rows(work, runner, votes, iters, repeats)
    result["vote_us"] = {"gloo": vote_micros(runner, votes, 8, 2000),
                         "nccl": vote_micros(runner, dist.group.WORLD, 8, 2000)}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    if par.rank == 0:
        print_tables(result)
        print(f"\ntotal {result['seconds']} s")
        if args.json:
            args.json.write_text(json.dumps(result, indent=2, default=str))
    runner.release()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
