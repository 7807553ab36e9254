"""Where the breakable path and capture spend their time (needs CUDA): issue #25's profile.

Three reports on the example decoder (``--quick``: the benchmark's 4-layer model; otherwise the
default 24-layer one):

* host time per call of each piece of ``PhaseRunner.run`` on the breakable backend (checks,
  routing, filling the static buffers, replay, slicing) next to the hand-made segments' copies
  and replay, at decode bs 1 / 8 / 64 and prefill 128 / 512 / 2048 tokens;
* ``torch.profiler`` (CPU and CUDA activities) over 20 steps of the breakable runner and of the
  hand-made segments at decode bs 8 and prefill 128: the CUDA runtime calls (launches, graph
  launches, synchronisations, event records) and aten ops per step, and the GPU busy time;
* capture of SGLang's 36 default decode sizes on the default model: the runner against a
  hand-made loop (largest first, one shared pool, two warm-ups per size), per size, alternated
  twice, then ``cProfile``'s top entries for one runner capture.

Usage: ``python benchmarks/runtime_profile.py [--quick] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import importlib.util
import inspect
import io
import pstats
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from cgconfig.runtime import PhaseCapture, ShapeKey

HERE = Path(__file__).resolve().parent


def load_bench() -> ModuleType:
    """benchmarks/runtime_bench.py as a module (workloads, hand-made segments)."""
    spec = importlib.util.spec_from_file_location("runtime_bench", HERE / "runtime_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime_bench"] = module
    spec.loader.exec_module(module)
    return module


def host_us(fn: Callable[[], Any], n: int = 200) -> float:
    """Host microseconds per call of ``fn`` while issuing ``n`` calls (device drained after)."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    spent = time.perf_counter() - t0
    torch.cuda.synchronize()
    return spent / n * 1e6


def pieces(bench: ModuleType, runner: Any, batch: dict[str, torch.Tensor], size: int,
           requests: int | None, hand: Callable[[], Any]) -> dict[str, float]:
    """Host cost of each part of ``runner.run`` and of the hand-made step."""
    from cgconfig.runtime.buffers import RowCounts
    from cgconfig.runtime.checks import check_batch

    decode = runner.decode
    req = size if decode else (requests or 0)
    counts = RowCounts(size, size, req, runner.request_rows(size))
    graph = runner.graphs.get(ShapeKey(size))
    out: dict[str, float] = {}
    with torch.no_grad():
        out["check_batch"] = host_us(lambda: check_batch(runner.buffers.slots, batch, size,
                                                         requests, decode=decode))
        out["route"] = host_us(lambda: runner.guards.route(size, req, ()))
        # As run() calls it: the shapes were checked just before (where fill can skip that).
        skip = ({"check_shapes": False}
                if "check_shapes" in inspect.signature(runner.buffers.fill).parameters else {})
        out["fill"] = host_us(lambda: runner.buffers.fill(batch, counts, **skip))
        out["replay"] = host_us(graph.replay)
        out["run_total"] = host_us(lambda: runner.run(batch, size, num_requests=requests))
        out["hand_total"] = host_us(hand)
    return out


def profile_steps(step: Callable[[], Any], steps: int = 20) -> dict[str, Any]:
    """CUDA runtime calls and aten ops per step, host and GPU time per step."""
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad():
        for _ in range(3):
            step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t0 = time.perf_counter()
        with torch.no_grad():
            for _ in range(steps):
                step()
        host = time.perf_counter() - t0
        torch.cuda.synchronize()
    calls: Counter[str] = Counter()
    gpu_us = 0.0
    for event in prof.events():
        name = event.name
        if event.device_type.name == "CUDA":
            gpu_us += float(event.device_time_total)
        elif name.startswith(("cuda", "aten::")):
            calls[name] += 1
    per = {k: round(v / steps, 1) for k, v in calls.most_common(18)}
    return {"host_ms_per_step_profiled": round(host / steps * 1e3, 3),
            "gpu_busy_ms_per_step": round(gpu_us / steps / 1e3, 3), "calls_per_step": per}


def capture_compare(bench: ModuleType, llama: ModuleType, rounds: int = 2) -> dict[str, Any]:
    """The runner against a hand-made loop over SGLang's 36 default decode sizes."""
    cfg = llama.ModelConfig()
    work = bench.Workload(llama, cfg)
    sizes = bench.DEFAULT_DECODE_256
    model = work.model
    plan = PhaseCapture("decode", "full", sizes)

    def runtime_once() -> tuple[float, dict[int, float], int]:
        runner = bench.runner_for(work, plan, decode=True)
        report = runner.report()
        seconds = report["capture_seconds"]
        per = {int(k): v for k, v in report["capture_seconds_by_size"].items()}
        reserved = report["reserved_bytes"]
        runner.release()
        return seconds, per, reserved

    def hand_once() -> tuple[float, dict[int, float], int]:
        slots = llama.decode_slots()
        bufs = {s.name: torch.full((sizes[-1],), s.fill_value, dtype=s.dtype, device="cuda")
                for s in slots}
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        res0 = torch.cuda.memory_reserved()
        pool = torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
        graphs = []
        per: dict[int, float] = {}
        t0 = time.perf_counter()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.no_grad():
            for size in reversed(sizes):
                ts = time.perf_counter()
                views = {k: v[:size] for k, v in bufs.items()}
                for _ in range(2):
                    model.decode_forward(views)
                g = torch.cuda.CUDAGraph()
                g.capture_begin(pool=pool)
                model.decode_forward(views)  # output dropped: its block goes back to the pool
                g.capture_end()
                graphs.append(g)
                per[size] = time.perf_counter() - ts
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        torch.cuda.empty_cache()
        reserved = torch.cuda.memory_reserved() - res0
        del graphs
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        return seconds, per, reserved

    # Throwaway captures first: the capture streams' cuBLAS workspaces, kernel loading.
    bench.runner_for(work, PhaseCapture("decode", "full", (1,)), decode=True).release()
    hand_once()
    results: dict[str, list[Any]] = {"runtime": [], "hand": []}
    for _ in range(rounds):
        results["runtime"].append(runtime_once())
        results["hand"].append(hand_once())
    prof = cProfile.Profile()
    prof.enable()
    runtime_once()
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(22)
    return {"sizes": list(sizes), "results": results, "cprofile": text.getvalue()}


def main(argv: list[str] | None = None) -> int:
    """Run the three reports; print a short summary, write the details under ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4-layer model for the first two")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--no-capture", action="store_true")
    args = parser.parse_args(argv)
    bench = load_bench()
    llama = bench.load_example()
    if args.quick:
        cfg = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=4, vocab=4096,
                                max_context=256, max_requests=129)
    else:
        cfg = llama.ModelConfig()
    bench.warm_gpu(1.0)
    work = bench.Workload(llama, cfg)
    decode_plan, prefill_plan, _ = bench.resolved_plans(max(bench.DECODE_BS),
                                                        bench.PREFILL_TOKENS)
    brk = bench.runner_for(work, dataclasses.replace(decode_plan, backend="breakable"), True)
    lines = ["| phase | size | check_batch | route | fill | replay | run total | hand total |",
             "|---|---|---|---|---|---|---|---|"]
    profiles: dict[str, Any] = {}
    for bs in bench.DECODE_BS:
        batch = work.decode_batch(bs)
        hand = bench.hand_segments(work, batch, decode=True)
        p = pieces(bench, brk, batch, bs, None, hand)
        lines.append(f"| decode | {bs} | " + " | ".join(f"{v:.1f}" for v in p.values()) + " |")
        if bs == 8:
            profiles["decode8_runtime"] = profile_steps(partial(brk.run, batch, 8))
            profiles["decode8_hand"] = profile_steps(hand)
    brk.release()
    pre = bench.runner_for(work, prefill_plan, decode=False)
    for tokens in bench.PREFILL_TOKENS:
        batch, meta = work.prefill_batch(tokens)
        work.model.prefill_meta = meta
        hand = bench.hand_segments(work, batch, decode=False)
        p = pieces(bench, pre, batch, tokens, None, hand)
        lines.append(f"| prefill | {tokens} | " + " | ".join(f"{v:.1f}" for v in p.values())
                     + " |")
        if tokens == 128:
            profiles["prefill128_runtime"] = profile_steps(partial(pre.run, batch, 128))
            profiles["prefill128_hand"] = profile_steps(hand)
    pre.release()
    print("\nHost microseconds per call (issuing 200 calls back to back)")
    print("\n".join(lines))
    for name, prof in profiles.items():
        print(f"\n{name}: host {prof['host_ms_per_step_profiled']} ms/step (profiled), "
              f"GPU busy {prof['gpu_busy_ms_per_step']} ms/step")
        print("  " + ", ".join(f"{k} {v}" for k, v in prof["calls_per_step"].items()))
    if not args.no_capture:
        del work
        torch.cuda.empty_cache()
        cap = capture_compare(bench, llama)
        print("\nCapture of 36 decode sizes, default model (seconds; per size: runtime/hand)")
        for i, (rt, hd) in enumerate(zip(cap["results"]["runtime"], cap["results"]["hand"],
                                         strict=True)):
            print(f"round {i}: runtime {rt[0]:.3f} s ({rt[2] >> 20} MiB), hand {hd[0]:.3f} s "
                  f"({hd[2] >> 20} MiB), ratio {rt[0] / hd[0]:.3f}")
        rt, hd = cap["results"]["runtime"][-1], cap["results"]["hand"][-1]
        print("per size (last round) size:runtime/hand ms: " + ", ".join(
            f"{s}:{rt[1][s] * 1e3:.0f}/{hd[1][s] * 1e3:.0f}" for s in sorted(hd[1])))
        print(cap["cprofile"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
