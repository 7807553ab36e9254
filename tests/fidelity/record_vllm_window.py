"""Record the vLLM capture-window corpus (``vllm_window_cases_<release>.jsonl``): `vllm serve` lines that
move vLLM 0.33.0's FULL decode window, answered by its whole engine path including the graphs
the model runner captures (the oracle's ``capture``: FULL uniform-decode and mixed lists).

Run by hand, never in CI (CI replays it, ``compare_vllm_engine.py --corpus
vllm_window_cases_0.33.0.jsonl``)::

    python tests/fidelity/record_vllm_window.py --oracle /path/to/oracle [--cases 640] [--seed 36]
    python tests/fidelity/record_vllm_window.py --oracle /path/to/oracle-copy --version 0.31.0
    python tests/fidelity/record_vllm_window.py --oracle DIR --version 0.31.0 --append-blackwell-fa 20

The lines: ``--max-num-seqs`` below and above the capture ceiling (or unset), GPU memory unknown
(the oracle reports 0 bytes, as vLLM's ``get_batch_defaults`` falls back when the query fails)
and each default tier (A100 included), speculative decoding (eagle, eagle3, mtp, ngram with
k = 1..7, as a JSON document, dotted keys or ``--spec-*``), explicit ``--cudagraph-capture-sizes``
and ``--max-cudagraph-capture-size``, every ``-cc.cudagraph_mode``, ``--attention-backend``
(FLASH_ATTN on Blackwell included), ``--max-num-batched-tokens``. Standard library only;
deterministic for a seed.
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
from record_vllm_engine import _trim, _zygote_key, run_batch

HERE = Path(__file__).parent
CASES = HERE / "vllm_window_cases_0.33.0.jsonl"  # the oracle's default release
#: (name, GPU memory GiB or None for unknown, SM): unknown and every default tier.
MACHINES: tuple[tuple[str, float | None, int], ...] = (
    ("unknown", None, 90), ("H100-80GB", 80, 90), ("H200", 141, 90), ("B200", 180, 100),
    ("A100-80GB", 80, 80), ("A100-40GB", 40, 80), ("L40S", 48, 89), ("RTX-PRO-6000", 96, 120),
)
SEQS = (None, None, 1, 3, 8, 20, 32, 64, 100, 128, 200, 256, 300, 512, 600, 1024, 2048)
MODES = ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "FULL", "PIECEWISE", "NONE")
SIZES = (1, 2, 3, 4, 5, 8, 12, 16, 24, 32, 48, 64, 96, 100, 128, 200, 256, 384, 512, 1024)


#: (method, k) of the first cases, so that each method is drawn with every k = 1..7.
SPEC_CHOICES = tuple((m, k) for m in ("eagle", "eagle3", "mtp", "ngram") for k in range(1, 8))


def _spec(rng: random.Random, model: str, fixed: tuple[str, int] | None = None) -> list[str]:
    k = rng.randint(1, 7)
    method = rng.choice(["mtp", "ngram"] if model == "deepseek_v3" else
                        ["eagle", "eagle3", "ngram", "ngram"])
    if fixed is not None:
        method, k = fixed
    doc: dict[str, Any] = {"method": method, "num_speculative_tokens": k}
    if method in ("eagle", "eagle3"):
        doc["model"] = "@llama_" + method
    if method == "ngram":
        doc["prompt_lookup_max"] = 4
    style = rng.random()
    if style < 0.5:
        return ["--speculative-config", json.dumps(doc)]
    if style < 0.8:
        return [w for key, value in doc.items()
                for w in (f"--speculative-config.{key}", str(value))]
    out = ["--spec-method", method, "--spec-tokens", str(k)]
    return out + (["--spec-model", doc["model"]] if "model" in doc else [])


def case(rng: random.Random, cid: int) -> dict[str, Any]:
    """One case: machine, model template and `vllm serve` line."""
    gpu, memory, sm = rng.choice(MACHINES)
    fixed = SPEC_CHOICES[cid] if cid < len(SPEC_CHOICES) else None
    model = rng.choice(["llama", "llama", "llama", "qwen3_moe", "deepseek_v3"])
    if fixed is not None:
        model = "deepseek_v3" if fixed[0] == "mtp" else "llama"
    argv = ["vllm", "serve", f"@{model}"]
    seqs = rng.choice(SEQS)
    if seqs is not None:
        argv += ["--max-num-seqs", str(seqs)]
    if fixed is not None or rng.random() < 0.5:
        argv += _spec(rng, model, fixed)
    if rng.random() < 0.5:
        argv.append(f"-cc.cudagraph_mode={rng.choice(MODES)}")
    if rng.random() < 0.2:
        argv += ["--cudagraph-capture-sizes", *map(str, sorted(rng.sample(SIZES, 4)))]
    elif rng.random() < 0.2:
        argv += ["--max-cudagraph-capture-size", str(rng.choice([16, 64, 100, 256, 1000, 2048]))]
    if rng.random() < 0.15:
        argv += ["--max-num-batched-tokens", str(rng.choice([2048, 4096, 8192, 16384]))
                 if seqs is None or seqs <= 2048 else "4096"]
    if rng.random() < 0.2 and model != "deepseek_v3":
        argv += ["--attention-backend", rng.choice(["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN"])]
    if rng.random() < 0.1:
        argv.append(rng.choice(["-O0", "-O1", "-O3"]))
    return {"id": cid, "platform": "cuda", "gpu": gpu, "gpu_memory_gib": memory, "sm": sm,
            "model": model, "env": {}, "argv": argv}


def blackwell_fa_case(rng: random.Random, cid: int) -> dict[str, Any]:
    """A case of ``--append-blackwell-fa``: ``--attention-backend FLASH_ATTN`` on a B200, mostly
    with ``-cc.cudagraph_mode=FULL`` (FlashAttention 4's support level decides the mode)."""
    c = case(rng, cid)
    argv = [w for w in c["argv"] if not w.startswith("-cc.cudagraph_mode=")]
    if "--attention-backend" in argv:
        at = argv.index("--attention-backend")
        del argv[at:at + 2]
    argv += ["--attention-backend", "FLASH_ATTN",
             f"-cc.cudagraph_mode={rng.choice(['FULL', 'FULL', 'FULL', *MODES])}"]
    return {**c, "gpu": "B200", "gpu_memory_gib": 180, "sm": 100,
            "argv": argv}


def oracle_case(c: dict[str, Any]) -> dict[str, Any]:
    """Unknown GPU memory is 0 bytes to the oracle (vLLM's fallback when the query fails)."""
    return {**c, "gpu_memory_gib": 0 if c["gpu_memory_gib"] is None else c["gpu_memory_gib"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--cases", type=int, default=640)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--version", help="an older release the oracle runs (ORACLE_VLLM_VERSION): "
                        "the corpus is vllm_window_cases_VERSION.jsonl")
    parser.add_argument("--append-blackwell-fa", type=int, default=0, metavar="N",
                        help="add N FLASH_ATTN lines on a B200 to the corpus (seed + 1)")
    args = parser.parse_args()
    out = HERE / f"vllm_window_cases_{args.version}.jsonl" if args.version else CASES
    old: list[dict[str, Any]] = []
    if args.append_blackwell_fa:
        old = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
        rng = random.Random(args.seed + 1)
        start = max(c["id"] for c in old) + 1
        cases = [blackwell_fa_case(rng, start + i) for i in range(args.append_blackwell_fa)]
    else:
        rng = random.Random(args.seed)
        cases = sorted((case(rng, i) for i in range(args.cases)), key=_zygote_key)
    answers: dict[int, dict[str, Any]] = {}
    run_batch(args.oracle, [oracle_case(c) for c in cases], answers, threading.Lock(),
              args.version)
    tag = {"vllm_version": args.version} if args.version else {}
    rows = old + [dict(c, answer=_trim(answers[c["id"]]), **tag)
                  for c in sorted(cases, key=lambda c: c["id"]) if c["id"] in answers]
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} cases in {out.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
