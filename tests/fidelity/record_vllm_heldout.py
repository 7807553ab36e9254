"""Record a held-out batch of whole `vllm serve` lines for one vLLM release
(``vllm_heldout_<release>.jsonl``), answered by that release's own engine path.

Run by hand, never in CI (CI replays it, ``test_vllm_heldout_fidelity.py``), with an oracle copy
whose ``vllm_engine_oracle.py`` runs the release named by ``ORACLE_VLLM_VERSION``::

    python tests/fidelity/record_vllm_heldout.py --oracle /path/to/oracle-copy --version 0.27.1 \
        [--cases 160] [--seed 8100]

The lines mix the two generators the corpora already use, on the same seed for every release
(so one line is answered by each release): half from ``vllm_engine_generate.case`` (``-O``
levels, ``--enforce-eager``, attention backends, compilation-config documents, DP/EP with
``--all2all-backend``, PP, TP, speculative configs and ``--spec-*``, ``--performance-mode``,
capture-size flags, ``--async-scheduling``, ``--max-model-len``, ``--kv-cache-dtype``), half from
``record_vllm_window.case`` (``--max-num-seqs`` around the ceiling, GPU memory unknown, each
speculative method with k = 1..7 as a document, dotted keys or ``--spec-*``). Each is then put
on one of a few machines (H100/H200/H20/B200/A100, memory unknown on a fifth of them) and a
quarter of the Hopper lines set ``VLLM_USE_V2_MODEL_RUNNER`` to 0 or 1. Not reached: ROCm,
SM 86/89/120 machines, ``VLLM_ATTENTION_BACKEND`` (given as ``--attention-backend`` instead),
LoRA, multi-node flags. The machine set is small on purpose: each (SM, environment) pair costs
the oracle one warm process. Standard library only; deterministic for a seed.

``--batch 2`` (``vllm_heldout2_<release>.jsonl``, seed 8300) draws the same mix for three lines
in five and, for the other two, :func:`pp_case`: pipeline parallelism (2 or 4) with a draft, which
batch 1 barely reached: an MTP draft on DeepSeek-V3 (``deepseek_mtp`` / ``mtp``), Qwen3-Next
(``qwen3_next_mtp`` / ``mtp``) or GLM-4.5 (``glm4_moe_mtp`` / ``mtp``), EAGLE / EAGLE-3 with a
draft model on Llama, or n-gram; as a JSON document or ``--spec-*``; with TP, DP/EP, a mode,
``--max-num-seqs`` and the V2-runner variable sometimes.

``--batch 3`` (``vllm_heldout3_<release>.jsonl``, seed 8500) is the same two draws, one line in
five a :func:`pp_case`, recorded after the draft pipeline-size fix so that no line of it was seen
while that code was written.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import check_vllm_oracle as check_oracle
import record_vllm_window as window
from record_vllm_engine import _keep_models, _trim, _zygote_key, run_batch
from vllm_engine_generate import case as engine_case

HERE = Path(__file__).parent
#: (name, GPU memory GiB or None for unknown, SM).
MACHINES: tuple[tuple[str, float | None, int], ...] = (
    ("unknown", None, 90), ("H100-80GB", 80, 90), ("H200", 141, 90), ("H20", 96, 90),
    ("B200", 180, 100), ("A100-80GB", 80, 80), ("A100-40GB", 40, 80),
)


def case(rng: random.Random, cid: int) -> dict[str, Any]:
    """One held-out case: a generator's line on one of :data:`MACHINES`."""
    c = engine_case(rng, cid) if rng.random() < 0.5 else window.case(rng, cid + 10_000)
    gpu, memory, sm = rng.choice(MACHINES)
    argv = list(c["argv"])
    backend = c["env"].get("VLLM_ATTENTION_BACKEND")
    if backend and c["platform"] == "cuda":
        argv += ["--attention-backend", backend]
    if c["platform"] != "cuda" and "--attention-backend" in argv:  # a ROCm backend
        at = argv.index("--attention-backend")
        del argv[at:at + 2]
    env: dict[str, str] = {}
    if sm == 90 and rng.random() < 0.25:
        env["VLLM_USE_V2_MODEL_RUNNER"] = rng.choice(["0", "1"])
    return {"id": cid, "platform": "cuda", "gpu": gpu, "gpu_memory_gib": memory, "sm": sm,
            "model": c["model"], "env": env, "argv": argv}


#: pp_case's drafts: (model template, methods; None for a draft-model method on Llama).
PP_DRAFTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("deepseek_v3", ("deepseek_mtp", "mtp")), ("qwen3_next", ("qwen3_next_mtp", "mtp")),
    ("glm4_5", ("glm4_moe_mtp", "mtp")), ("llama", ("eagle3", "eagle", "ngram")),
    ("qwen3_moe", ("ngram",)),
)
#: The MoE templates of pp_case, which may add DP/EP.
PP_MOE = ("deepseek_v3", "qwen3_next", "glm4_5", "qwen3_moe")


def pp_case(rng: random.Random, cid: int) -> dict[str, Any]:
    """A pipeline-parallel line with a speculative draft on one of :data:`MACHINES`."""
    model, methods = rng.choices(PP_DRAFTS, [4, 3, 3, 3, 1])[0]
    method = rng.choice(methods)
    k = rng.choice([1, 1, 2, 3, 4])
    argv = ["vllm", "serve", f"@{model}", "--pipeline-parallel-size", rng.choice(["2", "2", "4"])]
    doc: dict[str, Any] = {"method": method, "num_speculative_tokens": k}
    if method == "eagle3":
        doc["model"] = "@llama_eagle3"
    elif method == "eagle":
        doc["model"] = "@llama_eagle"
    elif method == "ngram":
        doc["prompt_lookup_max"] = 4
    if rng.random() < 0.25 and method != "ngram":
        argv += ["--spec-method", method, "--spec-tokens", str(k)]
        if "model" in doc:
            argv += ["--spec-model", doc["model"]]
    else:
        argv += ["--speculative-config", json.dumps(doc)]
    if rng.random() < 0.3:
        argv += ["--tensor-parallel-size", rng.choice(["1", "2", "4"])]
    if model in PP_MOE and rng.random() < 0.3:
        argv += ["--data-parallel-size", rng.choice(["2", "4"])]
        if rng.random() < 0.7:
            argv.append("--enable-expert-parallel")
    if rng.random() < 0.3:
        argv.append(f"-cc.cudagraph_mode={rng.choice(window.MODES)}")
    if rng.random() < 0.4:
        argv += ["--max-num-seqs", str(rng.choice([1, 8, 64, 128, 256, 512, 1024]))]
    if rng.random() < 0.1:
        argv.append(rng.choice(["-O0", "-O1", "--enforce-eager", "--async-scheduling"]))
    gpu, memory, sm = rng.choice(MACHINES)
    env: dict[str, str] = {}
    if sm == 90 and rng.random() < 0.25:
        env["VLLM_USE_V2_MODEL_RUNNER"] = rng.choice(["0", "1"])
    return {"id": cid, "platform": "cuda", "gpu": gpu, "gpu_memory_gib": memory, "sm": sm,
            "model": model, "env": env, "argv": argv}


#: Ids of the ``--check`` lines in the oracle batch (never written).
CHECK_ID = 1_000_000
#: Per batch: (file-name stem, default seed, share of pp_case lines).
BATCHES: dict[int, tuple[str, int, float]] = {1: ("vllm_heldout", 8100, 0.0),
                                              2: ("vllm_heldout2", 8300, 0.4),
                                              3: ("vllm_heldout3", 8500, 0.2)}


def generate(n: int, seed: int, batch: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    share = BATCHES[batch][2]
    if not share:  # batch 1, as recorded: one draw stream, no pp_case draw
        return [case(rng, i) for i in range(n)]
    return [pp_case(rng, i) if rng.random() < share else case(rng, i) for i in range(n)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--version", required=True, help="the release the oracle runs")
    parser.add_argument("--cases", type=int, default=160)
    parser.add_argument("--batch", type=int, default=1, choices=sorted(BATCHES),
                        help="1: vllm_heldout_<release>.jsonl (seed 8100); 2: "
                        "vllm_heldout2_<release>.jsonl (seed 8300, pipeline-parallel drafts); 3: "
                        "vllm_heldout3_<release>.jsonl (seed 8500, one line in five a PP draft)")
    parser.add_argument("--seed", type=int, help="default: the batch's seed")
    parser.add_argument("--check", type=int, default=0, metavar="N",
                        help="also re-ask N lines this release's oracle recorded before "
                        "(check_vllm_oracle.sample) in the same oracle process; write nothing "
                        "when any answer differs from its recording")
    parser.add_argument("--reask-v2", metavar="IDS",
                        help="re-ask these ids of the batch already written (comma-separated), "
                        "each in its own oracle process with ORACLE_OLD_V2=1 (before 0.15 the "
                        "harness runs Model Runner V2's constructor only so, and only one line "
                        "a process), and replace their answers")
    args = parser.parse_args()
    if args.reask_v2:
        return reask_v2(args)
    stem, seed, _ = BATCHES[args.batch]
    args.seed = seed if args.seed is None else args.seed
    out = HERE / f"{stem}_{args.version}.jsonl"
    cases = sorted(generate(args.cases, args.seed, args.batch), key=_zygote_key)
    checks = [{**row, "id": CHECK_ID + n} for n, row in enumerate(
        check_oracle.sample(args.version, max(args.check // 5, 1), args.check))] if args.check else []
    answers: dict[int, dict[str, Any]] = {}
    run_batch(args.oracle, sorted([window.oracle_case(c) for c in cases + checks], key=_zygote_key),
              answers, threading.Lock(), args.version)
    if checks:
        bad = check_oracle.differences(checks, answers)
        print(f"check: {len(checks) - len(bad)}/{len(checks)} recorded lines answered as recorded",
              file=sys.stderr)
        if bad:
            for row, diff in bad:
                print(f"DIFF {row['_file']} id {row['id'] - CHECK_ID}: {diff[:600]}", file=sys.stderr)
            return 1
    _keep_models(answers, cases)
    rows = [dict(c, answer=_trim(answers[c["id"]]), vllm_version=args.version, seed=args.seed)
            for c in sorted(cases, key=lambda c: c["id"]) if c["id"] in answers]
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} cases in {out.name}", file=sys.stderr)
    return 0


def reask_v2(args: argparse.Namespace) -> int:
    """Replace the answers of ``--reask-v2``'s ids, each from its own ORACLE_OLD_V2=1 process;
    an id whose line the V2 constructor builds stays as recorded (the harness cannot run that
    runner's graph manager: ``HarnessGap``)."""
    out = HERE / f"{BATCHES[args.batch][0]}_{args.version}.jsonl"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    by_id = {row["id"]: row for row in rows}
    for cid in (int(i) for i in args.reask_v2.split(",")):
        row = by_id[cid]
        assert row["env"].get("VLLM_USE_V2_MODEL_RUNNER") == "1", cid
        answers: dict[int, dict[str, Any]] = {}
        case = {k: v for k, v in row.items() if k not in ("answer", "vllm_version", "seed")}
        run_batch(args.oracle, [window.oracle_case(case)], answers, threading.Lock(),
                  args.version, {"ORACLE_OLD_V2": "1"})
        answer = answers.get(cid)
        if answer is None or answer.get("error_stage") == "oracle":
            print(f"id {cid}: kept as recorded ({(answer or {}).get('error', 'no answer')[:120]})",
                  file=sys.stderr)
            continue
        row["answer"] = _trim(answer)
        print(f"id {cid}: re-asked: {str(answer.get('error'))[:160]}", file=sys.stderr)
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
