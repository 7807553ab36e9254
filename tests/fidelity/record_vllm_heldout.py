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
import record_vllm_window as window
from record_vllm_engine import _trim, _zygote_key, run_batch
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


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [case(rng, i) for i in range(n)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--version", required=True, help="the release the oracle runs")
    parser.add_argument("--cases", type=int, default=160)
    parser.add_argument("--seed", type=int, default=8100)
    args = parser.parse_args()
    out = HERE / f"vllm_heldout_{args.version}.jsonl"
    cases = sorted(generate(args.cases, args.seed), key=_zygote_key)
    answers: dict[int, dict[str, Any]] = {}
    run_batch(args.oracle, [window.oracle_case(c) for c in cases], answers, threading.Lock(),
              args.version)
    rows = [dict(c, answer=_trim(answers[c["id"]]), vllm_version=args.version, seed=args.seed)
            for c in sorted(cases, key=lambda c: c["id"]) if c["id"] in answers]
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} cases in {out.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
