"""Take the breakable step apart, piece by piece (needs CUDA): issue #25.

On the example decoder (``--quick``: the benchmark's 4-layer model), at decode bs 1 / 8 / 64
and prefill 128 / 512 / 2048, variants that each add one piece of the runner's path to the
hand-made segments, timed interleaved (many repeats, the median of per-repeat ratios to the
hand-made step; ``hand_again`` is the A/A spread): the runner's whole ``run``; its graph's
``replay()`` alone (buffers filled once); the hand copies followed by the runner's replay; the
hand-made segments calling attention with weak views of their arguments, as the runner's breaks
do. Then ``torch.profiler`` over prefill 128 for the runner and the hand-made step: host time
per aten op, side by side, and a chrome trace of three steps of each. (Capture is compared in
``runtime_bench.py``.)

Usage: ``python benchmarks/runtime_diag.py [--quick] [--out DIR] [--repeats N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from runtime_profile import load_bench  # the one loader of runtime_bench.py (same folder)

HERE = Path(__file__).resolve().parent


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


def main(argv: list[str] | None = None) -> int:
    """Run both reports; print as it goes, write everything to ``--out/diag.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    bench = load_bench()
    llama = bench.load_example()
    quick = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=4, vocab=4096,
                              max_context=256, max_requests=129)
    cfg = quick if args.quick else llama.ModelConfig()
    bench.warm_gpu(1.0)
    result: dict[str, Any] = {"torch": torch.__version__, "quick": args.quick}
    result["step"] = step_report(bench, llama, cfg, args.out, args.repeats)
    (args.out / f"diag{'_quick' if args.quick else ''}.json").write_text(
        json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
