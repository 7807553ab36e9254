"""Measure what capturing a plan's graphs costs (pool memory, seconds) with ``cgconfig.runtime``.

Calibration input for ``cgconfig/cost`` (issue #34). Each model is a decoder rebuilt from a
public Hugging Face ``config.json`` (hidden size, layers, heads, KV heads, MLP width, vocabulary;
random bf16 weights, nothing downloaded): pre-norm layers with fused QKV and gate/up
projections, grouped-query attention through ``scaled_dot_product_attention`` marked
:func:`~cgconfig.runtime.eager_on_graph` (so breakable graphs run it between segments), a
per-request KV cache, and an LM head over the whole vocabulary. ``--tp N`` builds the per-rank
shapes of N-way tensor parallelism (heads, KV heads, MLP and vocabulary divided by N) without the
all-reduce, so a TP rank's activations are measured on one GPU.

Every case captures one phase's size list (SGLang 0.5.23's default grids, written by
``--write-cases`` from ``cgconfig.engines.sglang.grid``) with a :class:`PhaseRunner`, and records
the runner's ``capture_report()`` numbers plus the device's free-memory drop over the capture
(``torch.cuda.mem_get_info``, what SGLang's and vLLM's boot logs measure).

Usage::

    python benchmarks/capture_cost_bench.py --write-cases cases.json       # here (no GPU)
    python benchmarks/capture_cost_bench.py --cases cases.json --out r.jsonl   # on the GPU
    python benchmarks/capture_cost_bench.py --write-cases hf.json --hf         # third batch
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

#: Public config.json values (Hugging Face model pages), the fields the decoder needs.
MODELS: dict[str, dict[str, Any]] = {
    "Qwen/Qwen2.5-0.5B-Instruct": dict(hidden_size=896, intermediate_size=4864,
                                       num_hidden_layers=24, num_attention_heads=14,
                                       num_key_value_heads=2, vocab_size=151936),
    "meta-llama/Llama-3.2-1B": dict(hidden_size=2048, intermediate_size=8192,
                                    num_hidden_layers=16, num_attention_heads=32,
                                    num_key_value_heads=8, vocab_size=128256),
    "meta-llama/Llama-3.2-3B": dict(hidden_size=3072, intermediate_size=8192,
                                    num_hidden_layers=28, num_attention_heads=24,
                                    num_key_value_heads=8, vocab_size=128256),
    "meta-llama/Llama-3.1-8B-Instruct": dict(hidden_size=4096, intermediate_size=14336,
                                             num_hidden_layers=32, num_attention_heads=32,
                                             num_key_value_heads=8, vocab_size=128256),
    "Qwen/Qwen2.5-14B-Instruct": dict(hidden_size=5120, intermediate_size=13824,
                                      num_hidden_layers=48, num_attention_heads=40,
                                      num_key_value_heads=8, vocab_size=152064),
    "Qwen/Qwen2.5-32B-Instruct": dict(hidden_size=5120, intermediate_size=27648,
                                      num_hidden_layers=64, num_attention_heads=40,
                                      num_key_value_heads=8, vocab_size=152064),
    "meta-llama/Llama-3.3-70B-Instruct": dict(hidden_size=8192, intermediate_size=28672,
                                              num_hidden_layers=80, num_attention_heads=64,
                                              num_key_value_heads=8, vocab_size=128256),
}
MODELS.update({
    "TinyLlama/TinyLlama-1.1B-Chat-v1.0": dict(hidden_size=2048, intermediate_size=5632,
                                               num_hidden_layers=22, num_attention_heads=32,
                                               num_key_value_heads=4, vocab_size=32000),
    "mistralai/Mistral-7B-Instruct-v0.3": dict(hidden_size=4096, intermediate_size=14336,
                                               num_hidden_layers=32, num_attention_heads=32,
                                               num_key_value_heads=8, vocab_size=32768),
    "Qwen/Qwen2.5-7B-Instruct": dict(hidden_size=3584, intermediate_size=18944,
                                     num_hidden_layers=28, num_attention_heads=28,
                                     num_key_value_heads=4, vocab_size=152064),
})
#: (model, tp) pairs measured; 70B only as a TP-4 rank (its full weights are 141 GB).
RUNS = [("Qwen/Qwen2.5-0.5B-Instruct", 1), ("meta-llama/Llama-3.2-1B", 1),
        ("meta-llama/Llama-3.2-3B", 1), ("meta-llama/Llama-3.1-8B-Instruct", 1),
        ("Qwen/Qwen2.5-14B-Instruct", 1), ("Qwen/Qwen2.5-32B-Instruct", 1),
        ("meta-llama/Llama-3.3-70B-Instruct", 4), ("meta-llama/Llama-3.1-8B-Instruct", 2)]
DEVICE = os.environ.get("BENCH_DEVICE", "cuda")
"""Where the model is built (``cpu`` for a smoke test of this script without a GPU)."""
#: The second batch, recorded after the cost model was written and fitted: held out whole.
HOLDOUT_RUNS = [("TinyLlama/TinyLlama-1.1B-Chat-v1.0", 1), ("mistralai/Mistral-7B-Instruct-v0.3", 1),
                ("Qwen/Qwen2.5-7B-Instruct", 1), ("meta-llama/Llama-3.3-70B-Instruct", 8)]
CONTEXT = 64
"""KV positions per request row: decode attention reads this window (small, so the cache is)."""


def write_cases(path: str, second: bool = False, hf: bool = False, fourth: bool = False,
                fifth: bool = False, sixth: bool = False) -> None:
    """The size lists (SGLang 0.5.23's grids; the second batch adds vLLM 0.33.0's default
    list for 512) and the runs, as a JSON file for the GPU side. ``hf``: the third batch,
    real Hugging Face architectures (``capture_cost_hf.py``) on the first batch's cases."""
    from cgconfig.engines.sglang import grid

    def decode(m: int) -> list[int]:
        return grid.decode_sizes(m, speculative=False, padding=True)

    phases = [("decode", "full", decode(64)), ("decode", "full", decode(256)),
              ("decode", "full", decode(512)), ("decode", "breakable", decode(256)),
              ("prefill", "breakable", grid.prefill_sizes(4096))]
    if second:  # vLLM 0.33.0's default capture sizes up to 512: 1, 2, 4, 8..248 by 8, 256..512 by 16
        vllm = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]
        phases = [("decode", "full", vllm), ("decode", "breakable", decode(512)),
                  ("prefill", "breakable", grid.prefill_sizes(8192))]
    doc: dict[str, Any] = {"models": MODELS, "runs": HOLDOUT_RUNS if second else RUNS,
                           "cases": [{"phase": p, "backend": b, "sizes": s} for p, b, s in phases]}
    if hf or fourth or fifth or sixth:
        from capture_cost_hf import HF_MODELS, HF_RUNS, HF_RUNS_4

        doc.update(hf=True, runs=HF_RUNS_4 if fourth else HF_RUNS,
                   models={k: {**v[1], "model_type": v[0]} for k, v in HF_MODELS.items()})
    if fifth:  # decode full to 96 (SGLang grid) and vLLM's 35 to 256, breakable to 384, prefill to 2048
        from capture_cost_hf import HF_RUNS_5

        vllm = [1, 2, 4, *range(8, 257, 8)]
        doc["runs"] = HF_RUNS_5
        doc["cases"] = [{"phase": p, "backend": b, "sizes": s} for p, b, s in (
            ("decode", "full", decode(96)), ("decode", "full", vllm),
            ("decode", "breakable", decode(384)),
            ("prefill", "breakable", grid.prefill_sizes(2048)))]
    if sixth:  # decode full to 192 (SGLang grid) and vLLM's 43 to 384, breakable to 128, prefill to 3072
        from capture_cost_hf import HF_RUNS_6

        vllm = [1, 2, 4, *range(8, 257, 8), *range(272, 385, 16)]
        doc["runs"] = HF_RUNS_6
        doc["cases"] = [{"phase": p, "backend": b, "sizes": s} for p, b, s in (
            ("decode", "full", decode(192)), ("decode", "full", vllm),
            ("decode", "breakable", decode(128)),
            ("prefill", "breakable", grid.prefill_sizes(3072)))]
    if fourth:  # decode full to 128 (SGLang) and vLLM's 51 to 512, breakable to 160, prefill to 8192
        vllm = [1, 2, 4, *range(8, 256, 8), *range(256, 513, 16)]
        doc["cases"] = [{"phase": p, "backend": b, "sizes": s} for p, b, s in (
            ("decode", "full", decode(128)), ("decode", "full", vllm),
            ("decode", "breakable", decode(160)), ("prefill", "breakable", grid.prefill_sizes(8192)))]
    Path(path).write_text(json.dumps(doc))


def build(cfg: dict[str, Any], tp: int) -> Any:
    """The decoder for ``cfg`` with per-rank shapes of ``tp``-way tensor parallelism."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    from cgconfig.runtime import eager_on_graph

    hidden, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    head_dim = cfg.get("head_dim") or hidden // cfg["num_attention_heads"]
    heads = cfg["num_attention_heads"] // tp
    kv_heads = max(1, cfg["num_key_value_heads"] // tp)
    mlp, vocab = cfg["intermediate_size"] // tp, cfg["vocab_size"] // tp

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n1 = nn.Parameter(torch.ones(hidden))
            self.n2 = nn.Parameter(torch.ones(hidden))
            self.qkv = nn.Linear(hidden, (heads + 2 * kv_heads) * head_dim, bias=False)
            self.o = nn.Linear(heads * head_dim, hidden, bias=False)
            self.gate_up = nn.Linear(hidden, 2 * mlp, bias=False)
            self.down = nn.Linear(mlp, hidden, bias=False)

    class Decoder(nn.Module):
        def __init__(self, rows: int) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = nn.Parameter(torch.ones(hidden))
            self.head = nn.Linear(hidden, vocab, bias=False)
            for p in self.parameters():
                if p.dim() > 1:
                    nn.init.normal_(p, std=0.02)
            shape = (layers, rows, kv_heads, CONTEXT, head_dim)
            self.k = torch.randn(shape) * 0.1
            self.v = torch.randn(shape) * 0.1

        @eager_on_graph
        def attention(self, i: int, q: Any, k: Any, v: Any, positions: Any,
                      decode: bool) -> Any:
            t = q.shape[0]
            if decode:  # one query per request row over its cache window
                rows = torch.arange(t, device=q.device)
                slot = positions % CONTEXT
                self.k[i][rows, :, slot] = k
                self.v[i][rows, :, slot] = v
                out = F.scaled_dot_product_attention(
                    q[:, :, None, :], self.k[i][:t], self.v[i][:t], enable_gqa=True)
                return out.reshape(t, heads * head_dim)
            qq, kk, vv = (x.transpose(0, 1)[None] for x in (q, k, v))
            out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=True, enable_gqa=True)
            return out[0].transpose(0, 1).reshape(t, heads * head_dim)

        def forward_for(self, decode: bool) -> Any:
            def forward(inputs: Any) -> Any:
                h = self.embed(inputs["input_ids"])
                for i, layer in enumerate(self.layers):
                    x = F.rms_norm(h, (hidden,), layer.n1, 1e-6)
                    q, k, v = layer.qkv(x).split(
                        [heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], dim=-1)
                    a = self.attention(i, q.reshape(-1, heads, head_dim),
                                       k.reshape(-1, kv_heads, head_dim),
                                       v.reshape(-1, kv_heads, head_dim),
                                       inputs["positions"], decode)
                    h = h + layer.o(a)
                    g, u = layer.gate_up(F.rms_norm(h, (hidden,), layer.n2, 1e-6)).chunk(2, -1)
                    h = h + layer.down(F.silu(g) * u)
                h = F.rms_norm(h, (hidden,), self.norm, 1e-6)
                return self.head(h) if decode else h
            return forward

    torch.set_default_dtype(torch.bfloat16)
    with torch.device(DEVICE):
        model = Decoder(rows=512).eval()
    torch.set_default_dtype(torch.float32)
    params = sum(p.numel() for p in model.parameters())
    return model, params


def measure(model: Any, case: dict[str, Any], report_path: str | None = None) -> dict[str, Any]:
    """Capture one case with a PhaseRunner; the report plus the free-memory drop."""
    import torch

    from cgconfig.runtime import Axis, PaddingPolicy, PhaseCapture, PhaseRunner, Slot

    decode = case["phase"] == "decode"
    slots = [Slot("input_ids", torch.int64, axis=Axis.TOKENS, policy=PaddingPolicy.COPY),
             Slot("positions", torch.int64, axis=Axis.TOKENS, policy=PaddingPolicy.COPY)]
    plan = PhaseCapture(case["phase"], case["backend"], tuple(case["sizes"]))
    runner = PhaseRunner(plan, model.forward_for(decode), slots, progress=False)
    torch.cuda.synchronize()
    gc.collect()
    torch.cuda.empty_cache()
    free0 = torch.cuda.mem_get_info()[0]
    t0 = time.perf_counter()
    report = runner.capture()
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    torch.cuda.empty_cache()
    free1 = torch.cuda.mem_get_info()[0]
    if report_path:  # the runtime's own report, as `cgconfig calibrate` reads it
        from cgconfig.runtime import capture_report

        Path(report_path).write_text(json.dumps(capture_report({case["phase"]: runner})))
    runner.release()
    del runner
    gc.collect()
    torch.cuda.empty_cache()
    return {"graphs": len(report["sizes"]), "max_size": max(case["sizes"]),
            "capture_seconds": report["capture_seconds"], "wall_seconds": round(wall, 4),
            "reserved_bytes": report["reserved_bytes"],
            "allocated_bytes": report["allocated_bytes"],
            "free_drop_bytes": free0 - free1, "runtime_backend": report["runtime_backend"]}


def run(cases_path: str, out: str, only: int | None, reports: str | None = None,
        start: int = 0) -> None:
    """Runs ``start..only`` × every case; one JSON line per measurement, flushed as it comes.
    The third batch (``hf``) first captures two throwaway graphs, so the process's one-time
    CUDA set-up (cuBLAS workspaces, allocator) is not charged to its first case."""
    import torch

    doc = json.loads(Path(cases_path).read_text())
    runs = doc["runs"][start:only]
    warm = bool(doc.get("hf"))
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}", flush=True)
    with open(out, "a") as sink:
        for name, tp in runs:
            cfg = doc["models"][name]
            t0 = time.perf_counter()
            if doc.get("hf"):
                from capture_cost_hf import build_hf

                try:
                    model, params = build_hf(name, tp, DEVICE)
                except Exception as exc:  # record it and go on with the next model
                    print(f"{name} tp{tp}: build failed: {type(exc).__name__}: {exc}", flush=True)
                    sink.write(json.dumps({"model": name, "tp": tp, "error":
                                           f"build: {type(exc).__name__}: {exc}"[:300]}) + "\n")
                    continue
            else:
                model, params = build(cfg, tp)
            built = time.perf_counter() - t0
            if warm:
                measure(model, {"phase": "decode", "backend": "full", "sizes": [1, 2]})
                warm = False
            for i, case in enumerate(doc["cases"]):
                report = None
                if reports:
                    tag = name.split("/")[-1].replace(".", "_")
                    report = f"{reports}/{tag}-tp{tp}-{i}.json"
                try:
                    row = measure(model, case, report)
                except Exception as exc:  # one failing case must not lose the others
                    row = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                row.update(model=name, tp=tp, phase=case["phase"], backend=case["backend"],
                           params_per_rank=params, layers=cfg["num_hidden_layers"],
                           hidden=cfg["hidden_size"], build_seconds=round(built, 2),
                           arch=cfg.get("model_type", "cgconfig-bench-decoder"),
                           gpu=torch.cuda.get_device_name(), torch=torch.__version__)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(f"{name} tp{tp} {case['phase']}/{case['backend']} "
                      f"n={row.get('graphs')} s={row.get('capture_seconds')} "
                      f"res={row.get('reserved_bytes', 0) / 2**20:.0f}MiB "
                      f"drop={row.get('free_drop_bytes', 0) / 2**20:.0f}MiB "
                      f"{row.get('error', '')}", flush=True)
            del model
            gc.collect()
            torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--write-cases`` here, ``--cases`` on the GPU."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write-cases")
    ap.add_argument("--cases")
    ap.add_argument("--out", default="capture_cost.jsonl")
    ap.add_argument("--only", type=int, help="the first N runs only")
    ap.add_argument("--start", type=int, default=0, help="skip the first N runs")
    ap.add_argument("--second", action="store_true", help="--write-cases: the second batch")
    ap.add_argument("--fourth", action="store_true",
                    help="--write-cases: the fourth batch (held out whole, after the refit)")
    ap.add_argument("--fifth", action="store_true",
                    help="--write-cases: the fifth batch (held out whole, after the freeze)")
    ap.add_argument("--sixth", action="store_true",
                    help="--write-cases: the sixth batch (held out whole, after the memory refit)")
    ap.add_argument("--hf", action="store_true",
                    help="--write-cases: the third batch (real Hugging Face architectures)")
    ap.add_argument("--reports", help="folder for each case's capture_report() JSON")
    args = ap.parse_args(argv)
    if args.write_cases:
        write_cases(args.write_cases, args.second, args.hf, args.fourth, args.fifth, args.sixth)
        return 0
    if not args.cases:
        ap.error("--cases or --write-cases")
    run(args.cases, args.out, args.only, args.reports, args.start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
