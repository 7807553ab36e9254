"""Benchmark cgconfig.runtime against hand-written graphs, eager and torch.compile (needs CUDA).

One run prints three tables on the example Llama-shaped decoder (24 layers, hidden 1024, bf16):

* decode step latency at batch 1 / 8 / 64: eager, the runtime's full and breakable backends
  (fill + replay + slice), a raw ``torch.cuda.CUDAGraph`` with hand copies, hand-made graph
  segments around eager attention, and ``torch.compile(mode="reduce-overhead")``;
* prefill latency at 128 / 512 / 2048 tokens: eager, the breakable backend, hand-made segments
  and torch.compile (full graphs and raw graphs do not apply: prefill attention reads
  per-request host metadata, which a whole-forward graph would freeze at capture);
* capture time and memory for SGLang's default decode list at max_bs 256: the runner (largest
  first into one pool) against hand-made loops doing the same, and smallest first into separate
  pools, against the largest graph alone.

Usage: ``python benchmarks/runtime_bench.py [--quick] [--json out.json] [--compile-budget S]``.
``--quick`` shrinks the model (4 layers, hidden 256) and the capture list (6 sizes) and gives
torch.compile 20 s instead of 130 s; the timing method is the same.
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
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from cgconfig.runtime import PhaseCapture, PhaseRunner, ShapeKey, phase_capture

try:  # the runtimes before it time each size with a synchronisation instead
    from cgconfig.runtime.memory import SizeClock
except ImportError:  # pragma: no cover - only the older runtime in A/B runs
    SizeClock = None  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parents[1]
DECODE_BS = (1, 8, 64)
PREFILL_TOKENS = (128, 512, 2048)
DEFAULT_DECODE_256 = (1, 2, 4, 8, 12, *range(16, 257, 8))
# Variants compared with each other run back to back (see time_many).
DECODE_GROUPS = [["eager"], ["full", "raw_graph"], ["breakable", "hand_segments", "hand_again"]]
PREFILL_GROUPS = [["eager"], ["breakable", "hand_segments", "hand_again"]]


def load_example() -> ModuleType:
    """examples/llama_decoder.py as a module."""
    spec = importlib.util.spec_from_file_location("llama_decoder", ROOT / "examples" /
                                                  "llama_decoder.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["llama_decoder"] = module
    spec.loader.exec_module(module)
    return module


def time_ms(step: Callable[[], Any], iters: int, repeats: int) -> float:
    """Median per-step milliseconds of one step function (see :func:`time_many`)."""
    return statistics.median(time_many({"step": step}, iters, repeats)["step"])


def time_many(steps: Mapping[str, Callable[[], Any]], iters: int, repeats: int,
              groups: list[list[str]] | None = None) -> dict[str, list[float]]:
    """Per repeat, the mean milliseconds of ``iters`` back-to-back calls, for every step.

    Back-to-back calls measure what a serving loop sees: host overhead and device time overlap
    and the longer one sets the pace. ``groups`` lists the variants that are compared with
    each other (``brk/hand``, ``A/A``); a group's members run one right after the other, so
    the host's slow and fast stretches (on the lent machine the same block varies by ±30 %
    between repeats) fall on both sides of a ratio alike. Within each repeat the groups, and
    the members of each group, are rotated by one, and every other repeat runs in reverse, so
    every variant takes every position; :func:`paired` turns two variants' samples into a
    ratio per repeat. Every step runs under ``torch.no_grad()`` (the runner's own mode), with
    the garbage collector off so that a collection lands on no variant in particular.
    """
    grouped = groups or [[name] for name in steps]
    assert sorted(n for g in grouped for n in g) == sorted(steps), "groups must cover steps"
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        with torch.no_grad():
            for step in steps.values():
                for _ in range(3):
                    step()
            torch.cuda.synchronize()
            samples: dict[str, list[float]] = {name: [] for name in steps}
            for repeat in range(repeats):
                order: list[str] = []
                for group in grouped[repeat % len(grouped):] + grouped[:repeat % len(grouped)]:
                    k = repeat % len(group)
                    order += group[k:] + group[:k]
                for name in order if repeat % 2 == 0 else reversed(order):
                    step = steps[name]
                    start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                    end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                    start.record()
                    for _ in range(iters):
                        step()
                    end.record()
                    end.synchronize()
                    samples[name].append(start.elapsed_time(end) / iters)
    finally:
        if was_enabled:
            gc.enable()
    return samples


def medians(samples: Mapping[str, list[float]]) -> dict[str, float]:
    """Median milliseconds per variant."""
    return {name: statistics.median(values) for name, values in samples.items()}


def paired(samples: Mapping[str, list[float]], a: str, b: str) -> float:
    """Median over repeats of ``a``'s time over ``b``'s time in the same repeat.

    The two were timed next to each other, so a slow stretch of the host inflates both; the
    ratio of medians can mix a fast repeat of one with a slow repeat of the other.
    """
    return statistics.median(x / y for x, y in zip(samples[a], samples[b], strict=True))


def spread(samples: Mapping[str, list[float]], a: str, b: str) -> tuple[float, float]:
    """The quartiles (25th, 75th percentile) of the per-repeat ratios ``a`` / ``b``."""
    values = [x / y for x, y in zip(samples[a], samples[b], strict=True)]
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def top_kernels(step: Callable[[], Any], count: int = 4) -> list[str]:
    """The device kernels that dominate two calls of ``step``, with ms per call.

    Used to explain a surprising timing (for example a compiled step slower than eager).
    """
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        step()
        torch.cuda.synchronize()

    def device_us(event: Any) -> float:
        return float(getattr(event, "device_time_total", 0.0)
                     or getattr(event, "cuda_time_total", 0.0))

    events = sorted(prof.key_averages(), key=device_us, reverse=True)[:count]
    return [f"{e.key[:70]}: {device_us(e) / 2000:.3f} ms/call" for e in events]


def warm_gpu(seconds: float) -> None:
    """Keep the GPU busy for a moment so the first timings do not run at idle clocks."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            a @ a
        torch.cuda.synchronize()


# -- workloads ---------------------------------------------------------------------------


class Workload:
    """The model plus prebuilt decode and prefill batches over random KV history."""

    def __init__(self, llama: ModuleType, cfg: Any) -> None:
        torch.manual_seed(0)
        self.llama = llama
        self.cfg = cfg
        self.model = llama.LlamaDecoder(cfg, torch.bfloat16, torch.device("cuda")).eval()
        kv = self.model.kv
        kv.k.normal_()
        kv.v.normal_()
        rows, cap = cfg.max_requests - 1, cfg.max_context
        slots = torch.randperm(cfg.num_slots - 1, device="cuda")[: rows * cap] + 1
        kv.req_to_token[1:] = slots.view(rows, cap)
        self.gen = torch.Generator(device="cuda").manual_seed(0)

    def decode_batch(self, n: int) -> dict[str, torch.Tensor]:
        """``n`` requests with 200 tokens of history (or the context minus one)."""
        length = min(200, self.cfg.max_context)
        rows = torch.arange(1, n + 1, device="cuda")
        lens = torch.full((n,), length, device="cuda")
        return {
            "input_ids": torch.randint(0, self.cfg.vocab, (n,), device="cuda",
                                       generator=self.gen),
            "positions": lens - 1,
            "out_cache_loc": self.model.kv.req_to_token[rows, length - 1],
            "req_pool_indices": rows,
            "seq_lens": lens,
        }

    def prefill_batch(self, tokens: int) -> tuple[dict[str, torch.Tensor], Any]:
        """``tokens`` new tokens in requests of at most 256 tokens, no cached prefix."""
        meta = self.llama.PrefillMeta()
        locs, positions = [], []
        row, left = 1, tokens
        while left:
            new = min(left, 256, self.cfg.max_context)
            meta.requests.append((row, 0, new))
            locs.append(self.model.kv.req_to_token[row, :new])
            positions.append(torch.arange(new, device="cuda"))
            row, left = row + 1, left - new
        batch = {"input_ids": torch.randint(0, self.cfg.vocab, (tokens,), device="cuda",
                                            generator=self.gen),
                 "positions": torch.cat(positions), "out_cache_loc": torch.cat(locs)}
        return batch, meta


def hand_graph(forward: Callable[[Mapping[str, torch.Tensor]], torch.Tensor],
               batch: Mapping[str, torch.Tensor]) -> Callable[[], torch.Tensor]:
    """What a careful person writes by hand: static inputs, one graph, copy_ per input."""
    static = {k: v.clone() for k, v in batch.items()}
    stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        for _ in range(2):
            forward(static)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        out = forward(static)
    n = next(iter(batch.values())).shape[0]
    keys = list(batch)

    def step() -> torch.Tensor:
        for k in keys:
            static[k].copy_(batch[k])
        graph.replay()
        return out[:n]

    return step


def hand_segments(work: Workload, batch: Mapping[str, torch.Tensor],
                  decode: bool, weak_args: bool = False) -> Callable[[], torch.Tensor]:
    """Hand-made breakable graph: one graph per stretch between attentions, eager attention.

    The same split the runtime's breakable backend makes, written directly: layer i's
    attention runs eagerly on tensors segment i left behind and writes a preallocated bridge
    that segment i+1 was captured reading. ``weak_args`` hands attention non-owning views of
    its tensor arguments, as the runtime's breaks do (``runtime_diag.py`` compares the two).
    """
    model, cfg = work.model, work.cfg
    attention = model.attention.__wrapped__
    static = {k: v.clone() for k, v in batch.items()}
    n = static["input_ids"].shape[0]
    extra: tuple[torch.Tensor, ...] = ((static["req_pool_indices"], static["seq_lens"]) if decode
                                      else ())
    bridges = [torch.empty(n, cfg.hidden, dtype=torch.bfloat16, device="cuda")
               for _ in model.layers]
    state: dict[str, Any] = {}
    qkv: list[tuple[torch.Tensor, ...]] = []

    def seg0() -> None:
        pos = static["positions"]
        state["cos"] = model.rope_cos[pos][:, None, :]
        state["sin"] = model.rope_sin[pos][:, None, :]
        state["h"] = [model.embed(static["input_ids"])]
        qkv.append(model.layers[0].pre_attention(state["h"][0], state["cos"], state["sin"]))

    def seg(i: int) -> Callable[[], None]:
        def run() -> None:
            h = model.layers[i].post_attention(state["h"][i], bridges[i])
            state["h"].append(h)
            if i + 1 < len(model.layers):
                qkv.append(model.layers[i + 1].pre_attention(h, state["cos"], state["sin"]))
            else:
                normed = torch.nn.functional.rms_norm(h, (cfg.hidden,), model.norm, 1e-6)
                state["out"] = model.lm_head(normed) if decode else normed
        return run

    def attend(i: int) -> None:
        q, k, v = qkv[i]
        bridges[i].copy_(attention(model, i, q, k, v, static["out_cache_loc"], *extra))

    pieces = [seg0, *(seg(i) for i in range(len(model.layers)))]
    # Warm up the whole sequence eagerly, then capture each piece; attention between pieces
    # runs for real so the next piece's inputs exist.
    stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
    stream.wait_stream(torch.cuda.current_stream())
    pool = torch.cuda.graph_pool_handle()
    graphs = []
    with torch.cuda.stream(stream), torch.no_grad():
        for i, piece in enumerate(pieces):
            if i:
                attend(i - 1)
            piece()
        state["h"], qkv[:] = [], []
        for i, piece in enumerate(pieces):
            if i:
                attend(i - 1)
            g = torch.cuda.CUDAGraph()
            g.capture_begin(pool=pool)
            piece()
            g.capture_end()
            graphs.append(g)
    torch.cuda.current_stream().wait_stream(stream)
    keys = list(batch)
    if weak_args:
        from cgconfig.runtime.weak_tensor import weak_view

        qkv[:] = [tuple(weak_view(t) for t in entry) for entry in qkv]
        loc = weak_view(static["out_cache_loc"])
        extra = tuple(weak_view(t) for t in extra)

        def attend(i: int) -> None:  # the same call on weak views
            q, k, v = qkv[i]
            bridges[i].copy_(attention(model, i, q, k, v, loc, *extra))

    def step() -> torch.Tensor:
        for k in keys:
            static[k].copy_(batch[k])
        graphs[0].replay()
        for i in range(len(model.layers)):
            attend(i)
            graphs[i + 1].replay()
        out: torch.Tensor = state["out"][:n]
        return out

    return step


# -- torch.compile with a time budget ----------------------------------------------------


class CompileBudget:
    """Runs torch.compile warm-ups while the budget lasts; reports n/a with a reason after.

    A compile cannot be interrupted, so the budget is checked before each one: a compile
    starts only if the time left exceeds the longest compile seen so far.
    """

    def __init__(self, seconds: float) -> None:
        self.total = seconds
        self.left = seconds
        self.longest = 0.0
        self.compiled: dict[str, Any] = {}

    def step(self, name: str, fn: Callable[[Any], Any],
             batch: Any) -> tuple[Callable[[], Any] | None, str]:
        """A timed step for ``fn(batch)`` under reduce-overhead, or None and why not."""
        if self.total <= 0:
            return None, "n/a: not compiled (--compile-budget 0)"
        if self.left <= max(self.longest, 1.0):
            return None, (f"n/a: not compiled: {max(self.left, 0.0):.0f} s of the "
                          f"{self.total:.0f} s --compile-budget left, less than the longest "
                          f"compile so far ({self.longest:.0f} s)")
        compiled = self.compiled.get(name)
        if compiled is None:
            compiled = self.compiled[name] = torch.compile(fn, mode="reduce-overhead",
                                                           dynamic=False)
        counters = torch._dynamo.utils.counters["inductor"]
        skips_before = counters.get("cudagraph_skips", 0)
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                for _ in range(3):
                    compiled(batch)
            torch.cuda.synchronize()
        except Exception as exc:  # reported in the table, not fatal to the run
            return None, f"n/a: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
        finally:
            spent = time.perf_counter() - t0
            self.left -= spent
            self.longest = max(self.longest, spent)
        skipped = counters.get("cudagraph_skips", 0) - skips_before
        note = f"compiled in {spent:.1f} s" + (" (inductor skipped its cudagraphs)"
                                               if skipped else "")

        def step() -> Any:
            with torch.no_grad():
                return compiled(batch)

        return step, note


# -- the three tables --------------------------------------------------------------------


def runner_for(work: Workload, plan: PhaseCapture, decode: bool,
               synced: bool = False) -> PhaseRunner:
    """A captured runner of the example model for ``plan``.

    ``synced`` (decode only) waits for the capture stream before each size's warm-up runs.
    """
    model = work.model
    if decode:
        def wait(key: ShapeKey) -> None:
            torch.cuda.current_stream().synchronize()

        runner = PhaseRunner(plan, model.decode_forward, work.llama.decode_slots(),
                             prepare_capture=wait if synced else None)
    else:
        def prepare(key: ShapeKey) -> None:
            model.prefill_meta = work.llama.PrefillMeta.dummy(key.size, work.cfg.max_context)

        runner = PhaseRunner(plan, model.prefill_forward, work.llama.prefill_slots(),
                             prepare_capture=prepare)
    runner.capture()
    return runner


def resolved_plans(max_bs: int, prefill: tuple[int, ...]) -> tuple[PhaseCapture, PhaseCapture,
                                                                   str]:
    """Decode and prefill capture lists from the resolver (built-in lists without it)."""
    llama = sys.modules["llama_decoder"]
    plan, source = llama.resolve_plan(max_bs, prefill)
    return phase_capture(plan, "decode"), phase_capture(plan, "prefill"), source


def decode_table(work: Workload, decode_plan: PhaseCapture, budget: CompileBudget,
                 iters: int, repeats: int) -> list[dict[str, Any]]:
    """Decode step latency per batch size and backend."""
    model = work.model
    full = runner_for(work, dataclasses.replace(decode_plan, backend="full"), decode=True)
    breakable = runner_for(work, dataclasses.replace(decode_plan, backend="breakable"),
                           decode=True)
    rows = []
    for bs in DECODE_BS:
        batch = work.decode_batch(bs)
        with torch.no_grad():
            steps: dict[str, Callable[[], Any]] = {
                "eager": partial(model.decode_forward, batch),
                "full": partial(full.run, batch, bs),
                "breakable": partial(breakable.run, batch, bs),
                "raw_graph": hand_graph(model.decode_forward, batch),
                "hand_segments": hand_segments(work, batch, decode=True),
                # A second, identical hand-made build: its ratio to the first is the spread
                # of the method itself (an A/A test).
                "hand_again": hand_segments(work, batch, decode=True),
            }
            samples = time_many(steps, iters, repeats, DECODE_GROUPS)
            row: dict[str, Any] = {"bs": bs, **medians(samples),
                                   "full_raw": paired(samples, "full", "raw_graph"),
                                   **segment_ratios(samples), "samples": samples}
            # Spot check of the runtime against eager on this batch.
            want = model.decode_forward(batch).float()
            got = full.run(batch, bs).float()
            row["full_rel_err"] = ((got - want).norm() / want.norm()).item()
        rows.append(row)
    for row in rows:
        step, note = budget.step("decode", model.decode_forward, work.decode_batch(row["bs"]))
        row["compile"] = time_ms(step, iters, repeats) if step else None
        row["compile_note"] = note
        if step is not None and row["bs"] == DECODE_BS[0]:
            row["compile_top_kernels"] = top_kernels(step)
    row_stats = {"full": full.stats.to_dict(), "breakable": breakable.stats.to_dict()}
    rows.append({"stats": row_stats, "capture": {"full": full.report(),
                                                 "breakable": breakable.report()}})
    full.release()
    breakable.release()
    return rows


def segment_ratios(samples: Mapping[str, list[float]]) -> dict[str, Any]:
    """Breakable against the hand-made segments, and the hand-made A/A: median and quartiles."""
    return {"brk_hand": paired(samples, "breakable", "hand_segments"),
            "a_a": paired(samples, "hand_again", "hand_segments"),
            "brk_hand_iqr": spread(samples, "breakable", "hand_segments"),
            "a_a_iqr": spread(samples, "hand_again", "hand_segments")}


def prefill_table(work: Workload, prefill_plan: PhaseCapture, budget: CompileBudget,
                  iters: int, repeats: int) -> list[dict[str, Any]]:
    """Prefill latency per token count and backend."""
    model = work.model
    runner = runner_for(work, prefill_plan, decode=False)
    rows: list[dict[str, Any]] = []
    for tokens in PREFILL_TOKENS:
        batch, meta = work.prefill_batch(tokens)
        model.prefill_meta = meta
        with torch.no_grad():
            steps: dict[str, Callable[[], Any]] = {
                "eager": partial(model.prefill_forward, batch),
                "breakable": partial(runner.run, batch, tokens),
                "hand_segments": hand_segments(work, batch, decode=False),
                "hand_again": hand_segments(work, batch, decode=False),
            }
            samples = time_many(steps, iters, repeats, PREFILL_GROUPS)
            row: dict[str, Any] = {"tokens": tokens, **medians(samples),
                                   **segment_ratios(samples), "samples": samples}
            rows.append(row)
    for row in rows:
        batch, meta = work.prefill_batch(row["tokens"])
        model.prefill_meta = meta
        step, note = budget.step(f"prefill{row['tokens']}", model.prefill_forward, batch)
        row["compile"] = time_ms(step, iters, repeats) if step else None
        row["compile_note"] = note + (" (specialised to this batch's request layout)"
                                      if step else "")
    rows.append({"stats": runner.stats.to_dict(), "capture": runner.report()})
    runner.release()
    return rows


_HAND_STREAMS: list[torch.cuda.Stream] = []


def hand_stream() -> torch.cuda.Stream:
    """One side stream for every hand-made capture loop, as the runner keeps one.

    cuBLAS keeps a 32 MiB workspace per (handle, stream) for the life of the process, and
    ``torch.cuda.Stream()`` hands out the pool's streams in turn: a fresh stream per loop would
    charge some loops a new workspace (time and reserved memory) and not others.
    """
    if not _HAND_STREAMS:
        _HAND_STREAMS.append(torch.cuda.Stream())  # type: ignore[no-untyped-call]
    return _HAND_STREAMS[0]


def hand_capture(work: Workload, sizes: tuple[int, ...], *, recipe: str) -> dict[str, Any]:
    """A hand-made capture loop: largest first, one shared pool, two warm-ups per size.

    ``recipe`` is the garbage-collector handling: ``plain`` none (the collector runs whenever
    it likes); ``frozen_gc`` the runner's default (freeze and disable, no collection);
    ``collect`` the runner's with ``enable_cudagraph_gc`` (one ``gc.collect()``, the collector
    left on); ``sglang`` SGLang 0.5.23's loop (``base_cuda_graph_runner.freeze_gc``: collect,
    freeze, the collector left on, unfreeze and collect again after the loop; each size
    captured inside ``torch.cuda.graph``, whose ``__enter__`` synchronises and empties the
    allocator's cache). The graphs' outputs are dropped (their blocks go back to the pool, as
    the runner's weak views let them), so the memory matches the runner's. Per-size times use
    the runner's clock (no wait between sizes) where the runtime under test has one, else the
    host's clock.
    """
    model = work.model
    slots = work.llama.decode_slots()
    bufs = {s.name: torch.full((sizes[-1],), s.fill_value, dtype=s.dtype, device="cuda")
            for s in slots}
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    reserved0 = torch.cuda.memory_reserved()
    graphs: list[torch.cuda.CUDAGraph] = []
    was_enabled = gc.isenabled()
    stream = hand_stream()
    t0 = time.perf_counter()
    if recipe in ("collect", "sglang"):
        gc.collect()
    if recipe in ("frozen_gc", "sglang"):
        gc.freeze()
    if recipe == "frozen_gc":
        gc.disable()
    try:
        pool = torch.cuda.graph_pool_handle()
        stream.wait_stream(torch.cuda.current_stream())
        clock = SizeClock(stream) if SizeClock is not None else None
        t_size = time.perf_counter()
        by_size: dict[int, float] = {}
        with torch.cuda.stream(stream), torch.no_grad():
            for size in reversed(sizes):
                views = {name: buf[:size] for name, buf in bufs.items()}
                for _ in range(2):
                    model.decode_forward(views)
                graph = torch.cuda.CUDAGraph()
                if recipe == "sglang":
                    with torch.cuda.graph(graph, pool=pool, stream=stream):
                        model.decode_forward(views)
                else:
                    graph.capture_begin(pool=pool)
                    model.decode_forward(views)
                    graph.capture_end()
                graphs.append(graph)
                if clock is not None:
                    clock.done(size)
                else:
                    by_size[size] = time.perf_counter() - t_size
                    t_size = time.perf_counter()
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        if clock is not None:
            by_size = clock.seconds()
    finally:
        if recipe in ("frozen_gc", "sglang"):
            if was_enabled:
                gc.enable()
            gc.unfreeze()
    if recipe == "sglang":
        gc.collect()
        seconds = time.perf_counter() - t0
    torch.cuda.empty_cache()
    reserved = torch.cuda.memory_reserved() - reserved0
    del graphs
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return {"capture_seconds": round(seconds, 4), "reserved_bytes": reserved,
            "capture_seconds_by_size": {str(k): round(v, 4) for k, v in sorted(by_size.items())}}


# Capture variants, and the pairs compared: the runner against a loop with no collector
# handling at all (the target), each runner against the hand-made loop with the same
# handling and against SGLang's loop, the runner with a stream synchronisation before every
# size against the runner (what the per-size wait that runners before SizeClock did costs),
# and the plain loop against itself (the A/A spread of the method).
CAPTURE_VARIANTS = ("runner", "runner_synced", "runner_enable_gc", "hand_frozen_gc",
                    "hand_collect", "hand_sglang", "hand_plain", "hand_plain_again")
CAPTURE_PAIRS = (("runner", "hand_plain"), ("runner", "hand_frozen_gc"),
                 ("runner_enable_gc", "hand_collect"), ("runner", "hand_sglang"),
                 ("runner_synced", "runner"), ("hand_plain_again", "hand_plain"))


def timed_collect(times: int = 3) -> list[float]:
    """Seconds of one full ``gc.collect()`` in this process, ``times`` times."""
    spent = []
    for _ in range(times):
        t0 = time.perf_counter()
        gc.collect()
        spent.append(round(time.perf_counter() - t0, 4))
    return spent


def capture_table(work: Workload, sizes: tuple[int, ...], rounds: int = 6) -> dict[str, Any]:
    """Capture time and memory: the runner against hand-made loops, separate pools, largest alone.

    Every variant captures ``sizes`` largest first into one pool; they run ``rounds`` times,
    each round starting with the next variant (the first capture of a round pays first-use
    costs per shape), and the ratios are medians of the per-round ratios. ``runner`` follows
    the plan's default (``enable_cudagraph_gc`` off) and ``runner_enable_gc`` sets it (see
    ``cgconfig.runtime.gc_freeze`` for what each does in the runtime under test).
    """
    def plan(s: tuple[int, ...], enable_gc: bool = False) -> PhaseCapture:
        return PhaseCapture("decode", "full", s, enable_gc=enable_gc)

    out: dict[str, Any] = {"sizes": len(sizes), "max": sizes[-1], "rounds": rounds}
    # Throwaway captures first: the capture streams' cuBLAS workspaces, and the first use of
    # every shape (kernel and GEMM-heuristic choices; the first pass saw the first round's
    # first variant take 2.5x as long), would otherwise be charged to whichever variant runs
    # first in the first round.
    runner_for(work, plan((sizes[0],)), decode=True).release()
    hand_capture(work, sizes, recipe="plain")
    alone = runner_for(work, plan((sizes[-1],)), decode=True)
    out["largest_alone"] = alone.report()
    alone.release()

    def one(name: str) -> dict[str, Any]:
        if name.startswith("runner"):
            shared = runner_for(work, plan(sizes, enable_gc=name == "runner_enable_gc"),
                                decode=True, synced=name == "runner_synced")
            report: dict[str, Any] = shared.report()
            shared.release()
            return report
        return hand_capture(work, sizes, recipe=name.removeprefix("hand_").removesuffix(
            "_again"))

    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in CAPTURE_VARIANTS}
    names = list(CAPTURE_VARIANTS)
    for index in range(rounds):
        for name in names[index % len(names):] + names[:index % len(names)]:
            runs[name].append(one(name))
    for name, reports in runs.items():
        entry = dict(reports[-1])
        entry["capture_seconds"] = statistics.median(r["capture_seconds"] for r in reports)
        entry["rounds_seconds"] = [r["capture_seconds"] for r in reports]
        entry["capture_seconds_by_size"] = {
            key: statistics.median(r["capture_seconds_by_size"][key] for r in reports)
            for key in reports[0]["capture_seconds_by_size"]}
        out[name] = entry
    out["ratios"] = {}
    for a, b in CAPTURE_PAIRS:
        values = [x["capture_seconds"] / y["capture_seconds"]
                  for x, y in zip(runs[a], runs[b], strict=True)]
        out["ratios"][f"{a}/{b}"] = {"median": statistics.median(values),
                                     "min": min(values), "max": max(values)}
    out["gc_collect_seconds"] = timed_collect()
    separate = []
    for size in sizes:  # smallest first, one pool each (each runner owns its own pool)
        separate.append(runner_for(work, plan((size,)), decode=True))
    reports = [r.report() for r in separate]
    out["separate_smallest_first"] = {
        "capture_seconds": round(sum(r["capture_seconds"] for r in reports), 4),
        "reserved_bytes": sum(r["reserved_bytes"] for r in reports),
        "allocated_bytes": sum(r["allocated_bytes"] for r in reports),
    }
    for r in separate:
        r.release()
    return out


# -- printing ----------------------------------------------------------------------------


def fmt(value: float | None, digits: int = 3) -> str:
    """Milliseconds or n/a."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def ratio(a: float | None, b: float | None) -> str:
    """a / b, or n/a."""
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def print_tables(result: dict[str, Any]) -> None:
    """The human-readable summary (the JSON holds everything)."""
    print(f"\n# {result['device']} | torch {result['torch']} | model {result['model']}")
    print(f"# plan: {result['plan_source']}")
    print("\nDecode step, ms (fill + replay + slice for the runtime; medians over repeats; "
          "full/raw, brk/hand and A/A: median of the per-repeat ratio, [quartiles])")
    head = ("bs", "eager", "full", "breakable", "raw graph", "hand segs", "compile",
            "full/raw", "brk/hand", "A/A hand", "eager/full")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in result["decode"]:
        if "bs" not in row:
            continue
        cells = [str(row["bs"]), fmt(row["eager"]), fmt(row["full"]), fmt(row["breakable"]),
                 fmt(row["raw_graph"]), fmt(row["hand_segments"]), fmt(row["compile"]),
                 f"{row['full_raw']:.3f}x", with_iqr(row, "brk_hand"), with_iqr(row, "a_a"),
                 ratio(row["eager"], row["full"])]
        print("| " + " | ".join(cells) + " |")
    notes = {r["compile_note"] for r in result["decode"] if "compile_note" in r}
    print("compile: " + "; ".join(sorted(notes)))
    for row in result["decode"]:
        for line in row.get("compile_top_kernels", []):
            print(f"  compiled bs {row['bs']} top kernel: {line}")
    print("\nPrefill, ms (full graph and raw graph: n/a, prefill attention reads host metadata)")
    head2 = ("tokens", "eager", "breakable", "hand segs", "compile", "brk/hand", "A/A hand",
             "eager/brk")
    print("| " + " | ".join(head2) + " |")
    print("|" + "---|" * len(head2))
    for row in result["prefill"]:
        if "tokens" not in row:
            continue
        cells = [str(row["tokens"]), fmt(row["eager"]), fmt(row["breakable"]),
                 fmt(row["hand_segments"]), fmt(row["compile"]), with_iqr(row, "brk_hand"),
                 with_iqr(row, "a_a"), ratio(row["eager"], row["breakable"])]
        print("| " + " | ".join(cells) + " |")
    notes = {r["compile_note"] for r in result["prefill"] if "compile_note" in r}
    print("compile: " + "; ".join(sorted(notes)))
    cap = result["capture"]
    mib = 1 << 20
    print(f"\nCapture, decode list of {cap['sizes']} sizes up to {cap['max']}")
    print("| variant | seconds | reserved MiB | vs largest alone |")
    print("|---|---|---|---|")
    base = cap["largest_alone"]["reserved_bytes"]
    for name in ("largest_alone", *CAPTURE_VARIANTS, "separate_smallest_first"):
        entry = cap[name]
        print(f"| {name} | {entry['capture_seconds']:.3f} | "
              f"{entry['reserved_bytes'] / mib:.1f} | {ratio(entry['reserved_bytes'], base)} |")
    print(f"ratios, median [min, max] of {cap['rounds']} rotated rounds: " + "; ".join(
        f"{pair} {r['median']:.3f}x [{r['min']:.3f}, {r['max']:.3f}]"
        for pair, r in cap["ratios"].items()))
    print("one gc.collect() in this process: " + ", ".join(
        f"{t * 1e3:.0f} ms" for t in cap["gc_collect_seconds"]))
    shown = ("runner", "runner_synced", "hand_frozen_gc", "hand_plain", "runner_enable_gc",
             "hand_collect", "hand_sglang")
    per = [cap[n]["capture_seconds_by_size"] for n in shown]
    print("per size, ms (" + " / ".join(shown) + "): " + ", ".join(
        f"{key}: " + "/".join(f"{p[key] * 1e3:.0f}" for p in per)
        for key in sorted(per[0], key=int)))
    print("totals, s: " + ", ".join(f"{n} {cap[n]['capture_seconds']:.3f} (sizes summed "
                                    f"{sum(cap[n]['capture_seconds_by_size'].values()):.3f})"
                                    for n in shown))


def with_iqr(row: Mapping[str, Any], key: str) -> str:
    """A paired ratio with its quartiles, e.g. ``1.012x [0.98-1.04]``."""
    low, high = row[f"{key}_iqr"]
    return f"{row[key]:.3f}x [{low:.2f}-{high:.2f}]"


def main(argv: list[str] | None = None) -> int:
    """Run every table and print them; ``--json`` also writes the raw numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small model, few iterations")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--compile-budget", type=float, default=None,
                        help="seconds torch.compile may spend in total (default 130, with "
                        "--quick 20); 0 skips it")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("runtime_bench needs CUDA; nothing to measure here.", file=sys.stderr)
        return 2
    llama = load_example()
    if args.quick:
        cfg = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=4, vocab=4096,
                                max_context=256, max_requests=129)
        iters, repeats, capture_sizes, rounds = 10, 31, (1, 2, 4, 8, 16, 32), 7
    else:
        cfg = llama.ModelConfig()
        iters, repeats, capture_sizes, rounds = 20, 21, DEFAULT_DECODE_256, 5
    t0 = time.perf_counter()
    warm_gpu(1.0 if args.quick else 3.0)
    work = Workload(llama, cfg)
    decode_plan, prefill_plan, source = resolved_plans(max(DECODE_BS), PREFILL_TOKENS)
    default_budget = 20.0 if args.quick else 130.0
    budget = CompileBudget(default_budget if args.compile_budget is None
                           else args.compile_budget)
    result: dict[str, Any] = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "model": f"{cfg.layers} layers, hidden {cfg.hidden}, mlp {cfg.mlp}, vocab {cfg.vocab}, "
                 f"bf16, context {cfg.max_context}",
        "plan_source": source,
        "decode_sizes": list(decode_plan.sizes),
        "prefill_sizes": list(prefill_plan.sizes),
    }
    result["capture"] = capture_table(work, capture_sizes, rounds)
    result["decode"] = decode_table(work, decode_plan, budget, iters, repeats)
    result["prefill"] = prefill_table(work, prefill_plan, budget, 3, repeats)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    print_tables(result)
    print(f"\ntotal {result['seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
