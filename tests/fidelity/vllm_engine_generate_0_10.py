"""Random whole `vllm serve` lines in vLLM 0.10's own flags (``record_vllm_versions.py
--version 0.10.2`` / ``--version 0.10.1``).

0.10.2's parser has none of the newer spellings the shared generator (``vllm_engine_generate``)
writes: no ``--attention-backend`` (the backend is ``VLLM_ATTENTION_BACKEND``), no
``--all2all-backend`` (``VLLM_ALL2ALL_BACKEND``), no ``-cc`` / ``--optimization-level`` /
``--performance-mode`` / ``--cudagraph-capture-sizes`` / ``--max-cudagraph-capture-size``, and no
``--spec-*`` shorthands. Its compilation config is ``--compilation-config`` / ``-O`` (``-O3`` is
``level`` 3, ``-O.key=value`` a dotted key), with ``level`` (0-3) instead of ``mode``, and the
deprecated ``full_cuda_graph`` / ``use_cudagraph`` next to ``cudagraph_mode``; the scheduler's
``--cuda-graph-sizes`` gives the capture list. These lines use those spellings, over the same
machines, models and knobs as the shared generator, so that a 0.10 corpus measures that
release's CUDA-graph decisions. Standard library only; deterministic for a seed.

``release="0.10.1"`` adds what only 0.10.1 decides differently, so that its corpus reaches it:
machines below compute capability 8.0 (0.10.1's ``engine/arg_utils.py
EngineArgs._is_v1_supported_oracle`` falls back to V0 there; 0.10.2 dropped that check) and a
hybrid attention + Mamba model (the same function's "Mamba" fallback to V0; 0.10.2 runs it on
V1). Lines for 0.10.2 are drawn exactly as before (the recorded 0.10.2 corpus is regenerated
from them, ``test_vllm_0_10_corpus.py``).
"""

from __future__ import annotations

import json
import random
from typing import Any

from vllm_engine_generate import (
    MACHINES,
    MLA_ATTENTION,
    MODELS,
    MODES,
    MOE_MODELS,
    SEQS,
    TOKENS,
    _pick,
)

#: ``VLLM_ATTENTION_BACKEND`` values: 0.10.2's V1 names (``engine/arg_utils.py``
#: ``_is_v1_supported_oracle`` V1_BACKENDS) and two that only V0 serves (XFORMERS, TRITON_ATTN).
ATTENTION_0_10 = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN_VLLM_V1", "FLEX_ATTENTION",
                  "FLASH_ATTN_VLLM_V1", "XFORMERS", "TRITON_ATTN", "TREE_ATTN")
#: ``VLLM_ALL2ALL_BACKEND`` values (0.10.2 ``envs.py``).
A2A_0_10 = ("naive", "pplx", "deepep_high_throughput", "deepep_low_latency",
            "allgather_reducescatter")
LEVELS = (0, 1, 2, 3)
#: Machines only the 0.10.1 lines use: Turing and Volta (compute capability 7.5 and 7.0).
OLD_MACHINES_0_10_1: tuple[tuple[str, str, float, int], ...] = (
    ("cuda", "T4", 16, 75), ("cuda", "V100-32GB", 32, 70))
#: Model templates only the 0.10.1 lines use (oracle ``@NAME``, ``vllm_0_10.patch``): Jamba, a
#: hybrid of attention, Mamba and MoE layers (``has_inner_state``).
HYBRID_0_10_1: tuple[tuple[str, int], ...] = (("jamba", 3),)
#: 0.10.1's MLA pool adds FLASHMLA_VLLM_V1 (a backend name 0.10.1's V1 list lacks, with
#: FLASH_ATTN_MLA and FLASHINFER_MLA); its all2all pool weights DeepEP high-throughput double
#: (0.10.1 turns it, with DP > 1, into enforce_eager; 0.10.2 into PIECEWISE).
MLA_ATTENTION_0_10_1 = (*MLA_ATTENTION, "FLASHMLA_VLLM_V1")
A2A_0_10_1 = (*A2A_0_10, "deepep_high_throughput")


def _cc(rng: random.Random) -> list[str]:
    """A compilation config, in one of 0.10.2's spellings."""
    style = rng.random()
    if style < 0.3:
        return [f"-O.cudagraph_mode={rng.choice(MODES)}"]
    if style < 0.5:
        doc: dict[str, Any] = {"cudagraph_mode": rng.choice(MODES)}
        if rng.random() < 0.35:
            doc["level"] = rng.choice(LEVELS)
        return ["--compilation-config", json.dumps(doc)]
    if style < 0.6:
        doc = {"full_cuda_graph": True}
        if rng.random() < 0.3:
            doc["level"] = rng.choice(LEVELS)
        if rng.random() < 0.1:
            doc["cudagraph_mode"] = rng.choice(MODES)
        return ["--compilation-config", json.dumps(doc)]
    if style < 0.65:
        return ["--compilation-config", json.dumps({"use_cudagraph": False})]
    if style < 0.75:
        return ["--compilation-config", json.dumps({"cudagraph_capture_sizes":
                                                    sorted(rng.sample([1, 2, 4, 8, 16, 32, 64,
                                                                       128, 256], 4))})]
    if style < 0.8:
        return ["--compilation-config", json.dumps({"level": 3, "splitting_ops": []})]
    if style < 0.88:
        key = rng.choice(["no_such_key", "enable_fusion", "enable_noop", "enable_attn_fusion"])
        return ["--compilation-config", json.dumps({"pass_config": {key: True}})]
    return ["--compilation-config", json.dumps({rng.choice(["no_such_field", "cudagraph_mode",
                                                            "level"]):
                                                rng.choice(["FULL", "bogus", 3, 7])})]


def _spec(rng: random.Random, model: str) -> list[str]:
    """Speculative decoding, as 0.10.2's ``--speculative-config`` document."""
    n = rng.choice([1, 2, 3, 4, 5, 7])
    r = rng.random()
    if model == "deepseek_v3" and r < 0.4:
        method = rng.choice(["deepseek_mtp", "mtp"])
        return ["--speculative-config", json.dumps({"method": method, "num_speculative_tokens": n})]
    if r < 0.5:
        return ["--speculative-config", json.dumps(
            {"method": "ngram", "num_speculative_tokens": n, "prompt_lookup_max": 4})]
    if r < 0.75 and model in ("llama", "llama_1b"):
        doc: dict[str, Any] = {"method": "eagle3", "num_speculative_tokens": n}
        if rng.random() < 0.85:
            doc["model"] = "@llama_eagle3"
        return ["--speculative-config", json.dumps(doc)]
    return ["--speculative-config", json.dumps({"method": "ngram", "num_speculative_tokens": n})]


def _parallel(rng: random.Random, model: str, env: dict[str, str],
              a2a: tuple[str, ...] = A2A_0_10) -> list[str]:
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
            env["VLLM_ALL2ALL_BACKEND"] = rng.choice(a2a)
    elif rng.random() < 0.1:
        out += ["--data-parallel-size", "2"]
    return out


def case(rng: random.Random, cid: int, release: str = "0.10.2") -> dict[str, Any]:
    """One random case in the release's flags: machine, model template, environment, line."""
    machines = [m for m in MACHINES if m[0] == "cuda"]
    models, mla, a2a = MODELS, MLA_ATTENTION, A2A_0_10
    if release == "0.10.1":
        machines += OLD_MACHINES_0_10_1
        models, mla, a2a = MODELS + HYBRID_0_10_1, MLA_ATTENTION_0_10_1, A2A_0_10_1
    platform, gpu, memory, sm = rng.choice(machines)
    model = _pick(rng, models)
    argv = ["vllm", "serve", f"@{model}"]
    env: dict[str, str] = {}
    if rng.random() < 0.25:
        argv.append(rng.choice(["-O0", "-O1", "-O2", "-O3", "-O=3", "-O"]))
        if argv[-1] == "-O":
            argv.append(rng.choice(["0", "1", "2", "3"]))
    if rng.random() < 0.08:
        argv.append("--enforce-eager")
    # 0.10.1: MLA lines name a backend more often (their default and V1 list differ most)
    if rng.random() < (0.6 if release == "0.10.1" and model == "deepseek_v3" else 0.3):
        pool = mla if model == "deepseek_v3" and rng.random() < 0.8 else ATTENTION_0_10
        env["VLLM_ATTENTION_BACKEND"] = rng.choice(pool)
    if rng.random() < 0.45:
        argv += _cc(rng)
    if rng.random() < 0.35:
        argv += _parallel(rng, model, env, a2a)
    if rng.random() < 0.25:
        argv += _spec(rng, model)
    if rng.random() < 0.35:
        argv += ["--max-num-seqs", str(rng.choice(SEQS))]
    if rng.random() < 0.3:
        argv += ["--max-num-batched-tokens", str(rng.choice(TOKENS))]
    if rng.random() < 0.15:
        sizes = ([rng.choice([1, 8, 16, 64, 100, 256, 512, 1024])] if rng.random() < 0.6
                 else sorted(rng.sample([1, 2, 4, 8, 16, 24, 32, 64, 128, 256, 512], 3)))
        argv += ["--cuda-graph-sizes", *map(str, sizes)]
    if rng.random() < 0.1:
        argv.append(rng.choice(["--async-scheduling", "--no-async-scheduling"]))
    if rng.random() < 0.08:
        argv += ["--max-model-len", str(rng.choice([2048, 4096, 32768]))]
    if rng.random() < 0.06:
        argv += ["--kv-cache-dtype", rng.choice(["fp8", "auto"])]
    return {"id": cid, "platform": platform, "gpu": gpu, "gpu_memory_gib": memory, "sm": sm,
            "model": model, "env": env, "argv": argv}


def generate(n: int, seed: int, start: int = 0, release: str = "0.10.2") -> list[dict[str, Any]]:
    """``n`` cases with ids ``start``.. from ``seed``, for ``release`` (0.10.2 or 0.10.1)."""
    if release not in ("0.10.1", "0.10.2"):
        raise ValueError(f"no 0.10 generator for vLLM {release}")
    rng = random.Random(seed)
    return [case(rng, start + i, release) for i in range(n)]
