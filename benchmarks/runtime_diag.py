"""Take the breakable step and the capture apart, piece by piece (needs CUDA): issue #25.

Two reports on the example decoder (``--quick``: the benchmark's 4-layer model):

* **step**: at decode bs 1 / 8 / 64 and prefill 128 / 512 / 2048, variants that each add one
  piece of the runner's path to the hand-made segments, timed interleaved (many repeats, the
  median of per-repeat ratios to the hand-made step; ``hand_again`` is the A/A spread):
  the runner's whole ``run``; its graph's ``replay()`` alone (buffers filled once); the hand
  copies followed by the runner's replay; the hand-made segments calling attention with weak
  views of their arguments, as the runner's breaks do. Then ``torch.profiler`` over prefill
  128 for the runner and the hand-made step: host time per aten op, side by side.
* **capture**: the runner (frozen gc, and with the plan's ``enable_gc``) against hand-made
  loops with the same gc handling (none; the runner's collect + freeze + disable; SGLang's
  ``freeze_gc`` around ``torch.cuda.graph`` per size), rounds rotated, plus what one
  ``gc.collect()`` costs in this process.

Usage: ``python benchmarks/runtime_diag.py [--quick] [--out DIR] [--skip-capture]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from cgconfig.runtime import PhaseCapture

HERE = Path(__file__).resolve().parent


def load_bench() -> ModuleType:
    """benchmarks/runtime_bench.py as a module (workloads, hand-made steps, timing)."""
    spec = importlib.util.spec_from_file_location("runtime_bench", HERE / "runtime_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime_bench"] = module
    spec.loader.exec_module(module)
    return module


def ratios(samples: dict[str, list[float]], base: str) -> dict[str, float]:
    """Median per-repeat ratio of every variant to ``base``."""
    return {name: round(statistics.median(x / y for x, y in zip(vals, samples[base],
                                                                 strict=True)), 4)
            for name, vals in samples.items()}


def step_variants(bench: ModuleType, work: Any, runner: Any, batch: dict[str, torch.Tensor],
                  size: int, decode: bool) -> dict[str, Callable[[], Any]]:
    """The hand-made step, its twin, the runner and the pieces in between."""
    graph = runner._by_size[size]
    with torch.no_grad():
        runner.run(batch, size)  # fills the buffers once, for the replay-only variant
    views = runner.buffers.views(size, runner.request_rows(size))
    keys = list(batch)

    def hand_copies_runner_replay() -> Any:
        for k in keys:
            views[k][: batch[k].shape[0]].copy_(batch[k])
        return graph.replay()

    return {
        "hand": bench.hand_segments(work, batch, decode=decode),
        "hand_again": bench.hand_segments(work, batch, decode=decode),
        "hand_weak_args": bench.hand_segments(work, batch, decode=decode, weak_args=True),
        "runner_run": partial(runner.run, batch, size),
        "runner_replay_only": graph.replay,
        "hand_copies_runner_replay": hand_copies_runner_replay,
    }


def op_table(step: Callable[[], Any], steps: int) -> dict[str, tuple[int, float]]:
    """aten op -> (calls per step, host µs per step) under torch.profiler (CPU + CUDA)."""
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad():
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
    table: dict[str, tuple[int, float]] = {}
    for ev in prof.key_averages():
        if ev.device_type.name == "CUDA":
            continue
        table[ev.key] = (round(ev.count / steps), round(ev.self_cpu_time_total / steps, 1))
    gpu = sum(float(getattr(e, "self_device_time_total", 0.0)) for e in prof.key_averages()
              if e.device_type.name == "CUDA")
    table["__gpu_busy_us"] = (0, round(gpu / steps, 1))
    return table


def step_report(bench: ModuleType, llama: ModuleType, cfg: Any, out: Path,
                repeats: int) -> dict[str, Any]:
    """Per size: the variants' medians and ratios; prefill 128: the op tables and traces."""
    work = bench.Workload(llama, cfg)
    decode_plan, prefill_plan, _ = bench.resolved_plans(max(bench.DECODE_BS),
                                                        bench.PREFILL_TOKENS)
    result: dict[str, Any] = {}
    brk = bench.runner_for(work, dataclasses.replace(decode_plan, backend="breakable"), True)
    for bs in bench.DECODE_BS:
        steps = step_variants(bench, work, brk, work.decode_batch(bs), bs, True)
        samples = bench.time_many(steps, 20, repeats)
        result[f"decode{bs}"] = {"ms": bench.medians(samples), "vs_hand": ratios(samples, "hand")}
        print(f"decode {bs}: " + json.dumps(result[f"decode{bs}"]["vs_hand"]), flush=True)
    brk.release()
    pre = bench.runner_for(work, prefill_plan, decode=False)
    for tokens in bench.PREFILL_TOKENS:
        batch, meta = work.prefill_batch(tokens)
        work.model.prefill_meta = meta
        steps = step_variants(bench, work, pre, batch, tokens, False)
        samples = bench.time_many(steps, 5, repeats)
        entry: dict[str, Any] = {"ms": bench.medians(samples), "vs_hand": ratios(samples, "hand")}
        print(f"prefill {tokens}: " + json.dumps(entry["vs_hand"]), flush=True)
        if tokens == 128:
            tables = {name: op_table(steps[name], 20) for name in ("runner_run", "hand")}
            entry["ops"] = tables
            rows = sorted(set(tables["runner_run"]) | set(tables["hand"]),
                          key=lambda k: -tables["runner_run"].get(k, (0, 0.0))[1])
            print("prefill 128 under torch.profiler, per step: op | calls runner/hand | "
                  "host µs runner/hand")
            for key in rows[:28]:
                r, h = tables["runner_run"].get(key, (0, 0.0)), tables["hand"].get(key, (0, 0.0))
                print(f"  {key[:44]:44s} {r[0]:4d}/{h[0]:<4d} {r[1]:8.1f}/{h[1]:<8.1f}")
            from torch.profiler import ProfilerActivity, profile
            for name in ("runner_run", "hand"):
                with torch.no_grad(), profile(activities=[ProfilerActivity.CPU,
                                                          ProfilerActivity.CUDA]) as prof:
                    for _ in range(3):
                        steps[name]()
                    torch.cuda.synchronize()
                prof.export_chrome_trace(str(out / f"trace_prefill128_{name}.json"))
        result[f"prefill{tokens}"] = entry
    pre.release()
    return result


def timed_collect(times: int = 3) -> list[float]:
    """Seconds of a full ``gc.collect()`` in this process, ``times`` times."""
    spent = []
    for _ in range(times):
        t0 = time.perf_counter()
        gc.collect()
        spent.append(round(time.perf_counter() - t0, 4))
    return spent


def hand_loop_sglang(work: Any, sizes: tuple[int, ...]) -> dict[str, Any]:
    """SGLang's recipe by hand: ``freeze_gc`` (collect, freeze; gc stays enabled) around
    ``torch.cuda.graph(g, pool, stream)`` per size, largest first, two warm-ups per size."""
    model = work.model
    bufs = {s.name: torch.full((sizes[-1],), s.fill_value, dtype=s.dtype, device="cuda")
            for s in work.llama.decode_slots()}
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    reserved0 = torch.cuda.memory_reserved()
    graphs = []
    t0 = time.perf_counter()
    gc.collect()
    gc.freeze()
    try:
        pool = torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
        with torch.no_grad():
            for size in reversed(sizes):
                views = {name: buf[:size] for name, buf in bufs.items()}
                with torch.cuda.stream(stream):
                    for _ in range(2):
                        model.decode_forward(views)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, pool=pool, stream=stream):
                    model.decode_forward(views)
                graphs.append(graph)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    finally:
        gc.unfreeze()
    torch.cuda.empty_cache()
    reserved = torch.cuda.memory_reserved() - reserved0
    del graphs
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return {"capture_seconds": round(seconds, 4), "reserved_bytes": reserved}


def capture_report(bench: ModuleType, llama: ModuleType, cfg: Any, sizes: tuple[int, ...],
                   rounds: int) -> dict[str, Any]:
    """Capture seconds per variant (median over rotated rounds) and ratios to the runner."""
    work = bench.Workload(llama, cfg)

    def runner(enable_gc: bool) -> dict[str, Any]:
        r = bench.runner_for(work, PhaseCapture("decode", "full", sizes, enable_gc=enable_gc),
                             decode=True)
        report: dict[str, Any] = r.report()
        report["sum_of_sizes"] = round(sum(r.size_seconds.values()), 4)
        r.release()
        return report

    variants: dict[str, Callable[[], dict[str, Any]]] = {
        "runner": partial(runner, False),
        "runner_enable_gc": partial(runner, True),
        "hand_plain": partial(bench.hand_capture, work, sizes, freeze_gc=False),
        "hand_plain_again": partial(bench.hand_capture, work, sizes, freeze_gc=False),
        "hand_frozen_gc": partial(bench.hand_capture, work, sizes, freeze_gc=True),
        "hand_sglang": partial(hand_loop_sglang, work, sizes),
    }
    for fn in variants.values():  # throwaway: one-time costs
        fn()
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    names = list(variants)
    for index in range(rounds):
        for name in names[index % len(names):] + names[:index % len(names)]:
            runs[name].append(variants[name]())
    secs = {name: [r["capture_seconds"] for r in reports] for name, reports in runs.items()}
    out: dict[str, Any] = {
        "sizes": len(sizes), "rounds": rounds, "seconds": secs,
        "median": {n: statistics.median(v) for n, v in secs.items()},
        "gc_collect_seconds": timed_collect(),
        "gc_objects": len(gc.get_objects()),
        "runner_sum_of_sizes": [r["sum_of_sizes"] for r in runs["runner"]],
        "reserved_mib": {n: reports[-1]["reserved_bytes"] / 2**20 for n, reports in runs.items()},
    }
    out["vs"] = {f"{a}/{b}": round(statistics.median(
        x / y for x, y in zip(secs[a], secs[b], strict=True)), 4)
        for a, b in (("runner", "hand_frozen_gc"), ("runner", "hand_sglang"),
                     ("runner", "hand_plain"), ("runner_enable_gc", "hand_plain"),
                     ("hand_plain_again", "hand_plain"))}
    print(f"capture {len(sizes)} sizes: " + json.dumps({"median": out["median"], "vs": out["vs"],
                                                        "gc": out["gc_collect_seconds"]}),
          flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run both reports; print as it goes, write everything to ``--out/diag.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--skip-capture", action="store_true")
    parser.add_argument("--skip-step", action="store_true")
    args = parser.parse_args(argv)
    bench = load_bench()
    llama = bench.load_example()
    quick = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=4, vocab=4096,
                              max_context=256, max_requests=129)
    cfg = quick if args.quick else llama.ModelConfig()
    bench.warm_gpu(1.0)
    result: dict[str, Any] = {"torch": torch.__version__, "quick": args.quick}
    if not args.skip_step:
        result["step"] = step_report(bench, llama, cfg, args.out, args.repeats)
    if not args.skip_capture:
        result["capture_quick"] = capture_report(bench, llama, quick, (1, 2, 4, 8, 16, 32), 5)
        result["capture_full"] = capture_report(bench, llama, llama.ModelConfig(),
                                                bench.DEFAULT_DECODE_256, 3)
    (args.out / f"diag{'_quick' if args.quick else ''}.json").write_text(
        json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
