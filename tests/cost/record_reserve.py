"""Record SGLang's own ``mem_fraction_static`` for launch lines that move the graph reserve.

Run by hand, never in CI (``tests/cost/test_reserve_oracle.py`` replays the answers)::

    python tests/cost/record_reserve.py --oracle /path/to/oracle

Each case runs through the oracle (``sglang_oracle.py --batch``: SGLang's unmodified
``ServerArgs`` resolution, GPU facts stubbed) once per release in :data:`RELEASES`, on GPUs of
40 and 50 GiB: below SGLang's 60 GiB floor of a 10 GiB reserve, so the graph reserve
(``memory_hook.reserve_for_graph_mb``) shows in the fraction SGLang prints. Output:
``reserve_cases.jsonl`` beside this file, with each case's ``extra`` answer.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RELEASES = ("0.5.23", "0.5.22", "0.5.21", "0.5.20", "0.5.19")
LINES = [
    [], ["--cuda-graph-max-bs-decode", "8"], ["--cuda-graph-max-bs-decode", "64"],
    ["--cuda-graph-max-bs-decode", "512"], ["--cuda-graph-max-bs-prefill", "512"],
    ["--cuda-graph-max-bs-prefill", "2048"], ["--cuda-graph-backend-prefill", "disabled"],
    ["--cuda-graph-backend-decode", "disabled"], ["--disable-cuda-graph"],
    ["--tp-size", "2"], ["--tp-size", "8", "--cuda-graph-max-bs-decode", "256"],
    ["--chunked-prefill-size", "2048"], ["--chunked-prefill-size", "16384"],
    ["--enable-dp-attention", "--dp-size", "4", "--tp-size", "4"],
    ["--enable-dp-attention", "--dp-size", "2", "--tp-size", "2", "--cuda-graph-max-bs-decode",
     "512"],
    ["--disaggregation-mode", "prefill"], ["--disaggregation-mode", "decode"],
    ["--cuda-graph-bs-prefill", "256", "512", "1024"],
]
MODELS = ("llama", "deepseek_v3")


def cases() -> list[dict[str, Any]]:
    """Every (release, GPU, model, line) case, numbered."""
    out = []
    for release in RELEASES:
        for gib in (40, 50):
            for model in MODELS:
                for line in LINES:
                    out.append({"id": len(out), "engine_version": release, "gpu_memory_gib": gib,
                                "sm": 90, "model": model, "platform": "cuda", "argv": line})
    return out


def ask(oracle: Path, release: str, batch: list[dict[str, Any]]) -> dict[int, Any]:
    """The oracle's answers for one release's cases."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for c in batch:
            argv = ["--gpu-memory-gib", str(c["gpu_memory_gib"]), "--sm", str(c["sm"]),
                    "--model-arch", c["model"], *c["argv"]]
            fh.write(json.dumps({"id": c["id"], "argv": argv}) + "\n")
    proc = subprocess.run([str(oracle / "vendor/venv/bin/python"), "sglang_oracle.py",
                           "--sglang-version", release, "--platform", "cuda", "--batch", fh.name],
                          capture_output=True, text=True, check=True, cwd=oracle)
    answers = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    return {a["id"]: a for a in answers}


def main() -> None:
    """Answer every case and write ``reserve_cases.jsonl``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", type=Path, required=True)
    args = ap.parse_args()
    all_cases = cases()
    for release in RELEASES:
        mine = [c for c in all_cases if c["engine_version"] == release]
        answers = ask(args.oracle, release, mine)
        for c in mine:
            a = answers[c["id"]]
            c["answer"] = {"error": a.get("error"),
                           "mem_fraction_static": (a.get("extra") or {}).get("mem_fraction_static")}
    with open(HERE / "reserve_cases.jsonl", "w") as out:
        for c in all_cases:
            out.write(json.dumps(c, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
