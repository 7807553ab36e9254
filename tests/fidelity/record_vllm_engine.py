"""Record the vLLM whole-engine corpus: random `vllm serve` lines answered by vLLM 0.33.0's own
engine-configuration path.

Run by hand, never in CI (CI replays the recorded answers, ``compare_vllm_engine.py``)::

    python tests/fidelity/record_vllm_engine.py --oracle /path/to/oracle [--cases 3200] \
        [--seed 2033] [--jobs 2] [--append]

``--oracle`` is a folder with ``vllm_engine_oracle.py``: it runs ``vllm serve``'s parser,
``EngineArgs.from_cli_args``, ``create_engine_config()`` (``VllmConfig.__post_init__``), the
attention backend the model's layers select with its ``get_cudagraph_support()``, and the
worker's ``resolve_cudagraph_mode_and_sizes``, with vLLM's unmodified sources (GPU facts stubbed).
Output: ``vllm_engine_cases_0.33.0.jsonl`` beside this file (one case per line with its ``answer``),
and each model template's ``config.json`` under ``models/`` (``engine-<template>.json``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from vllm_engine_generate import generate

HERE = Path(__file__).parent
CASES = HERE / "vllm_engine_cases_0.33.0.jsonl"  # the release the oracle runs
ABLATIONS = HERE / "vllm_engine_ablations.jsonl"
#: Flags of the corpus lines that cgconfig lists as having no graph effect: each is removed from
#: recorded lines to show (``--ablate``) whether vLLM's answer changes without it.
ABLATED = ("--max-model-len", "--kv-cache-dtype", "--async-scheduling", "--no-async-scheduling",
           "--max-num-seqs", "--tensor-parallel-size")
KEPT = ("cudagraph_mode", "cudagraph_mode_engine", "compilation_mode", "optimization_level",
        "cudagraph_capture_sizes", "max_cudagraph_capture_size", "max_num_seqs",
        "max_num_batched_tokens", "attention_backend", "cg_support", "enforce_eager",
        "num_speculative_tokens", "speculative_method", "performance_mode", "use_mla",
        "is_multimodal", "is_hybrid", "is_moe", "max_model_len", "tp", "pp", "dp",
        "enable_expert_parallel", "all2all_backend", "async_scheduling", "model_runner",
        "uniform_decode_query_len", "splitting_ops_contain_attention", "capture", "error",
        "error_stage", "model")


def oracle_line(case: dict[str, Any]) -> dict[str, Any]:
    """The oracle's batch line for a case."""
    return {"id": case["id"], "argv": case["argv"], "gpu_memory_gib": case["gpu_memory_gib"],
            "sm": case["sm"], "platform": case["platform"], "env": case["env"]}


def _zygote_key(case: dict[str, Any]) -> str:
    return json.dumps([case["platform"], case["sm"], sorted(case["env"].items())])


def run_batch(oracle: Path, cases: list[dict[str, Any]], out: dict[int, dict[str, Any]],
              lock: threading.Lock, version: str | None = None,
              harness_env: dict[str, str] | None = None) -> None:
    """Answer ``cases`` with one oracle process (``version``: the vLLM release it runs, the
    oracle's ``ORACLE_VLLM_VERSION``; None: its default; ``harness_env``: the harness's own
    switches, such as ``ORACLE_OLD_V2``) and store each answer by id."""
    python = oracle / "vendor" / "venv" / "bin" / "python"
    env = {"CG_MAIN": str(HERE.parent.parent), "PATH": "/usr/bin:/bin",
           **({"ORACLE_VLLM_VERSION": version} if version else {}), **(harness_env or {})}
    proc = subprocess.Popen([str(python), str(oracle / "vllm_engine_oracle.py"), "--batch", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdin and proc.stdout
    feed = "".join(json.dumps(oracle_line(c)) + "\n" for c in cases)
    threading.Thread(target=lambda: (proc.stdin.write(feed), proc.stdin.close()),  # type: ignore[union-attr]
                     daemon=True).start()
    for line in proc.stdout:
        answer = json.loads(line)
        with lock:
            out[answer["id"]] = answer
            if len(out) % 100 == 0:
                print(f"{len(out)} answered", file=sys.stderr, flush=True)
    proc.wait()


def _trim(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: answer.get(k) for k in KEPT}


def _keep_models(answers: dict[int, dict[str, Any]], cases: list[dict[str, Any]]) -> None:
    """Each template's config.json, as the oracle wrote it, under ``models/engine-<name>.json``."""
    for case in cases:
        model = answers.get(case["id"], {}).get("model")
        target = HERE / "models" / f"engine-{case['model']}.json"
        if model and not target.exists() and (Path(model) / "config.json").exists():
            shutil.copyfile(Path(model) / "config.json", target)


def ablations(cases: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """Twins of recorded cases, each without one :data:`ABLATED` flag (and its value)."""
    twins: list[dict[str, Any]] = []
    for case in cases:
        argv = case["argv"]
        for i, word in enumerate(argv):
            if word in ABLATED and len(twins) < limit:
                takes_value = word not in ("--async-scheduling", "--no-async-scheduling")
                rest = argv[:i] + argv[i + 1 + takes_value:]
                twins.append({**{k: v for k, v in case.items() if k != "answer"},
                              "id": 100_000 + len(twins), "of": case["id"], "removed": word,
                              "argv": rest})
    return twins


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--cases", type=int, default=3200)
    parser.add_argument("--seed", type=int, default=2033)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--append", action="store_true", help="add to the recorded corpus")
    parser.add_argument("--ablate", type=int, default=0,
                        help="record this many twins of recorded cases without one flag")
    args = parser.parse_args()
    if args.ablate:
        recorded = [json.loads(line) for line in CASES.read_text().splitlines()]
        twins = sorted(ablations(recorded, args.ablate), key=_zygote_key)
        answers: dict[int, dict[str, Any]] = {}
        run_batch(args.oracle, twins, answers, threading.Lock())
        ABLATIONS.write_text("".join(json.dumps(dict(t, answer=_trim(answers[t["id"]])),
                                                sort_keys=True) + "\n"
                                     for t in twins if t["id"] in answers))
        return 0
    old = ([json.loads(line) for line in CASES.read_text().splitlines()]
           if args.append and CASES.exists() else [])
    start = max((c["id"] for c in old), default=-1) + 1
    cases = generate(args.cases, args.seed, start)
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        groups.setdefault(_zygote_key(c), []).append(c)
    shares: list[list[dict[str, Any]]] = [[] for _ in range(args.jobs)]
    for group in sorted(groups.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    answers: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()
    threads = [threading.Thread(target=run_batch, args=(args.oracle, share, answers, lock))
               for share in shares if share]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _keep_models(answers, cases)
    rows = old + [dict(c, answer=_trim(answers[c["id"]])) for c in cases if c["id"] in answers]
    CASES.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} cases in {CASES.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
