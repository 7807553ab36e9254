"""Check a rebuilt multi-release vLLM oracle against answers it recorded before: re-ask a sample
of a release's recorded lines and report every field that differs.

Run by hand, never in CI (it needs the oracle copy)::

    python tests/fidelity/check_vllm_oracle.py --oracle /path/to/oracle-copy --version 0.27.1 \
        [--per-kind 8] [--total 40]

The sample is drawn from ``vllm_heldout_<release>.jsonl`` and ``vllm_cases_<release>.jsonl`` (the
files that exist), deterministic: up to ``--per-kind`` lines of each kind (refused by vLLM, on
the V2 runner, speculative, DP/EP, pipeline parallel, the V2-runner variable set), then the rest
in file order up to ``--total``. A line agrees when every recorded answer field but ``model``
(the oracle folder's path; also read out of error texts) is the same. Exit 1 when any differs.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from record_vllm_engine import _zygote_key, run_batch

HERE = Path(__file__).parent

KINDS = {
    "refused": lambda c: bool(c["answer"]["error"]),
    "v2 runner": lambda c: c["answer"].get("model_runner") == "v2",
    "speculative": lambda c: bool(c["answer"].get("speculative_method")),
    "dp/ep": lambda c: (c["answer"].get("dp") or 1) > 1 or bool(c["answer"].get("enable_expert_parallel")),
    "pp": lambda c: (c["answer"].get("pp") or 1) > 1,
    "v2 variable": lambda c: "VLLM_USE_V2_MODEL_RUNNER" in (c.get("env") or {}),
}


def sample(version: str, per_kind: int, total: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in (f"vllm_heldout_{version}.jsonl", f"vllm_cases_{version}.jsonl"):
        path = HERE / name
        if path.exists():
            rows += [dict(json.loads(line), _file=name) for line in path.read_text().splitlines()]
    picked: dict[tuple[str, int], dict[str, Any]] = {}
    for test in KINDS.values():
        for row in [r for r in rows if test(r)][:per_kind]:
            picked[(row["_file"], row["id"])] = row
    for row in rows:
        if len(picked) >= total:
            break
        picked.setdefault((row["_file"], row["id"]), row)
    return list(picked.values())


def _unpath(value: Any) -> Any:
    """An error's text names the oracle folder's model path: compared without it."""
    return re.sub(r"/\S*/vendor/models/", "MODELS/", value) if isinstance(value, str) else value


def differences(asked: list[dict[str, Any]],
                answers: dict[int, dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """(line, what differs) for each asked line whose answer is not its recorded one."""
    out = []
    for row in asked:
        # every field the line recorded (a 0.10 corpus also keeps v0_decode_graphs)
        new = answers.get(row["id"], {"error": "no answer"})
        diff = {k: (v, new.get(k)) for k, v in row["answer"].items()
                if k != "model" and _unpath(new.get(k)) != _unpath(v)}
        if diff:
            out.append((row, json.dumps(diff)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--per-kind", type=int, default=8)
    parser.add_argument("--total", type=int, default=40)
    args = parser.parse_args()
    rows = sample(args.version, args.per_kind, args.total)
    asks = []
    for n, row in enumerate(rows):
        memory = row.get("gpu_memory_gib")
        asks.append({**row, "id": n, "gpu_memory_gib": 0 if memory is None else memory})
    answers: dict[int, dict[str, Any]] = {}
    run_batch(args.oracle, sorted(asks, key=_zygote_key), answers, threading.Lock(), args.version)
    found = differences(asks, answers)
    bad = len(found)
    counts = {k: sum(test(r) for r in rows) for k, test in KINDS.items()}
    for row, diff in found:
        print(f"DIFF {row['_file']} id {rows[row['id']]['id']}: {diff[:600]}")
    print(f"{args.version}: {len(rows) - bad}/{len(rows)} as recorded ({counts})")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
