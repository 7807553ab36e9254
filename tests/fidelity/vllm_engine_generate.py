"""Random whole `vllm serve` lines for the vLLM whole-engine corpus (``record_vllm_engine.py``).

Each case is a machine (platform, GPU memory, SM), a model template (a config.json the oracle
writes and ``models/`` keeps) and a `vllm serve` line over the inputs that change vLLM 0.33.0's
capture plan: ``-O``/``--optimization-level``, ``--enforce-eager``, ``--attention-backend`` (and
``VLLM_ATTENTION_BACKEND``), ``--all2all-backend`` with DP/EP, ``--pipeline-parallel-size``,
``--speculative-config`` and ``--spec-*``, ``--max-num-seqs``/``--max-num-batched-tokens``,
``--performance-mode``, the capture-size flags, ``--async-scheduling``, the compilation config
(nested documents included), and a few flags vLLM reads elsewhere. About a tenth are lines vLLM
refuses. Standard library only; deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

#: (platform, name, GPU memory GiB, SM): the machines the corpus runs on.
MACHINES: tuple[tuple[str, str, float, int], ...] = (
    ("cuda", "H100-80GB", 80, 90), ("cuda", "H200", 141, 90), ("cuda", "B200", 180, 100),
    ("cuda", "A100-80GB", 80, 80), ("cuda", "A100-40GB", 40, 80), ("cuda", "L40S", 48, 89),
    ("cuda", "RTX-4090", 24, 89), ("cuda", "A10", 24, 86), ("cuda", "H20", 96, 90),
    ("cuda", "RTX-PRO-6000", 96, 120), ("rocm", "MI300X", 192, 90),
)
#: Model templates (oracle ``@NAME``) and their weight.
MODELS: tuple[tuple[str, int], ...] = (
    ("llama", 8), ("llama-2", 2), ("qwen3_moe", 5), ("deepseek_v3", 5), ("qwen3_vl", 3),
    ("gpt_oss", 3), ("qwen3_next", 2), ("llama_1b", 1),
)
MOE_MODELS = ("qwen3_moe", "deepseek_v3", "gpt_oss", "qwen3_next")
MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
ATTENTION = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION")
MLA_ATTENTION = ("FLASHMLA", "CUTLASS_MLA", "TRITON_MLA", "FLASH_ATTN_MLA", "FLASHINFER_MLA")
ROCM_ATTENTION = ("ROCM_ATTN", "ROCM_AITER_FA", "TRITON_ATTN", "ROCM_AITER_UNIFIED_ATTN")
A2A = ("allgather_reducescatter", "deepep_high_throughput", "deepep_low_latency", "naive",
       "pplx", "flashinfer_all2allv", "deepep_v2")
SEQS = (1, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
TOKENS = (16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([n for n, _ in weighted], [w for _, w in weighted])[0]


def _cc(rng: random.Random) -> list[str]:
    """A compilation config, in one of vLLM's spellings."""
    style = rng.random()
    if style < 0.4:
        return [f"-cc.cudagraph_mode={rng.choice(MODES)}"]
    if style < 0.6:
        doc: dict[str, Any] = {"cudagraph_mode": rng.choice(MODES)}
        if rng.random() < 0.3:
            doc["mode"] = rng.choice(["NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE",
                                      "VLLM_COMPILE", 0, 3])
        return ["--compilation-config", json.dumps(doc)]
    if style < 0.7:
        return ["-cc.mode=" + rng.choice(["NONE", "VLLM_COMPILE", "STOCK_TORCH_COMPILE"])]
    if style < 0.8:
        return ["--compilation-config", json.dumps({"cudagraph_capture_sizes":
                                                    sorted(rng.sample([1, 2, 4, 8, 16, 32, 64,
                                                                       128, 256], 4))})]
    if style < 0.9:
        # nested documents: vLLM validates them (pydantic), a bad key is a refusal
        key = rng.choice(["no_such_key", "fuse_norm_quant", "eliminate_noops", "fuse_attn_quant"])
        return ["--compilation-config", json.dumps({"pass_config": {key: True}})]
    return ["--compilation-config", json.dumps({rng.choice(["no_such_field", "cudagraph_mode"]):
                                                rng.choice(["FULL", "bogus", 3])})]


def _spec(rng: random.Random, model: str) -> list[str]:
    """Speculative decoding, as a JSON document or the ``--spec-*`` shorthands."""
    n = rng.choice([1, 2, 3, 4, 5, 7])
    r = rng.random()
    if model == "deepseek_v3" and r < 0.35:
        method = rng.choice(["deepseek_mtp", "mtp"])
        return ["--speculative-config", json.dumps({"method": method, "num_speculative_tokens": n})]
    if r < 0.3:
        return ["--speculative-config", json.dumps(
            {"method": "ngram", "num_speculative_tokens": n, "prompt_lookup_max": 4})]
    if r < 0.55:
        out = ["--spec-method", "ngram", "--spec-tokens", str(n)]
        return out if rng.random() < 0.85 else ["--spec-tokens", str(n)]
    if r < 0.75 and model in ("llama", "llama_1b"):
        doc = {"method": "eagle3", "num_speculative_tokens": n}
        if rng.random() < 0.85:
            doc["model"] = "@llama_eagle3"
        return ["--speculative-config", json.dumps(doc)]
    if r < 0.85:
        return ["--spec-method", "ngram", "--spec-tokens", str(n), "--spec-model", "@llama"]
    return ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": n})]


def _parallel(rng: random.Random, model: str) -> list[str]:
    out: list[str] = []
    if rng.random() < 0.35:
        out += ["--tensor-parallel-size", str(rng.choice([1, 2, 4, 8]))]
    if rng.random() < 0.15:
        out += ["--pipeline-parallel-size", str(rng.choice([2, 4]))]
    if model in MOE_MODELS and rng.random() < 0.7:
        out += ["--data-parallel-size", str(rng.choice([1, 2, 4, 8]))]
        if rng.random() < 0.8:
            out.append("--enable-expert-parallel")
        if rng.random() < 0.8:
            out += ["--all2all-backend", rng.choice(A2A)]
    elif rng.random() < 0.1:
        out += ["--data-parallel-size", "2"]
    return out


def case(rng: random.Random, cid: int) -> dict[str, Any]:
    """One random case: machine, model template, environment and `vllm serve` line."""
    platform, gpu, memory, sm = rng.choice(MACHINES)
    model = _pick(rng, MODELS)
    argv = ["vllm", "serve", f"@{model}"]
    env: dict[str, str] = {}
    if rng.random() < 0.35:
        argv.append(rng.choice(["-O0", "-O1", "-O2", "-O3", "--optimization-level=1",
                                "-O", "--optimization-level"]))
        if argv[-1] in ("-O", "--optimization-level"):
            argv.append(rng.choice(["0", "1", "2", "3", "4"]))
    if rng.random() < 0.08:
        argv.append("--enforce-eager")
    if rng.random() < 0.35:
        pool = (ROCM_ATTENTION if platform == "rocm"
                else MLA_ATTENTION if model == "deepseek_v3" and rng.random() < 0.8 else ATTENTION)
        backend = rng.choice(pool)
        if rng.random() < 0.1:
            env["VLLM_ATTENTION_BACKEND"] = backend
        else:
            argv += ["--attention-backend", backend]
    if rng.random() < 0.4:
        argv += _cc(rng)
    if rng.random() < 0.35:
        argv += _parallel(rng, model)
    if rng.random() < 0.25:
        argv += _spec(rng, model)
    if rng.random() < 0.35:
        argv += ["--max-num-seqs", str(rng.choice(SEQS))]
    if rng.random() < 0.3:
        argv += ["--max-num-batched-tokens", str(rng.choice(TOKENS))]
    if rng.random() < 0.15:
        argv += ["--performance-mode", rng.choice(["balanced", "interactivity", "throughput"])]
    if rng.random() < 0.1:
        argv += ["--cudagraph-capture-sizes",
                 *map(str, sorted(rng.sample([1, 2, 4, 8, 16, 24, 32, 64, 128, 256, 512], 3)))]
    if rng.random() < 0.1:
        argv += ["--max-cudagraph-capture-size", str(rng.choice([1, 16, 64, 100, 256, 1024]))]
    if rng.random() < 0.1:
        argv.append(rng.choice(["--async-scheduling", "--no-async-scheduling"]))
    if rng.random() < 0.08:
        argv += ["--max-model-len", str(rng.choice([2048, 4096, 32768]))]
    if rng.random() < 0.05:
        argv += ["--kv-cache-dtype", rng.choice(["fp8", "auto"])]
    return {"id": cid, "platform": platform, "gpu": gpu, "gpu_memory_gib": memory, "sm": sm,
            "model": model, "env": env, "argv": argv}


def generate(n: int, seed: int, start: int = 0) -> list[dict[str, Any]]:
    """``n`` cases with ids ``start``.. from ``seed``."""
    rng = random.Random(seed)
    return [case(rng, start + i) for i in range(n)]
