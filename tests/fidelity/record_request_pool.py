"""Record the SGLang request-pool corpus: DP-attention lines answered by each release's own
request-pool function and decode capture filter (``sglang_request_pool.jsonl``).

Run by hand, never in CI (``test_sglang_request_pool.py`` replays the recorded answers)::

    python tests/fidelity/record_request_pool.py --oracle ORACLE [--versions 0.5.8 0.5.10 ...]
    python tests/fidelity/record_request_pool.py --oracle ORACLE --heldout   # the second grid

ORACLE is the oracle folder patched with ``oracle_ext/sglang/older-releases.patch``,
``startup-stage.patch`` and ``request-pool.patch`` (its README): ``--req-pool-size release``
makes the harness size the worker's ``req_to_token_pool`` with the release's own function
(0.5.8 ``ModelRunnerKVCacheMixin.init_memory_pool``, 0.5.10-0.5.15
``ModelRunnerKVCacheMixin._resolve_max_num_reqs``, 0.5.16+
``KVCacheConfigurator.resolve_max_num_reqs``) and run the release's
``get_batch_sizes_to_capture`` with it (``answer.runtime.capture_bs``).

The lines are a fixed grid (no random draw): DP attention on and off, (TP, DP) from (4, 2) to
(16, 8), ``--max-running-requests`` unset, below and above the decode max_bs times DP, not a
multiple of DP and below DP, EAGLE speculative decoding on some.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OUT = HERE / "sglang_request_pool.jsonl"
HELDOUT = HERE / "sglang_request_pool_heldout.jsonl"
VERSIONS = ("0.5.8", "0.5.10", "0.5.11", "0.5.12", "0.5.17", "0.5.19", "0.5.23")
#: 0.5.20 removed the deprecated --cuda-graph-max-bs alias (0.5.23 finds it ambiguous).
DECODE_MAX_BS_FLAG = {"0.5.23": "--cuda-graph-max-bs-decode"}
EAGLE_ARGS = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "@llama",
        "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4"]


def par(tp: int, dp: int | None, attn: bool) -> list[str]:
    """The parallel flags of a line (TP above 8 spans two nodes)."""
    out = ["--tp-size", str(tp)] + (["--nnodes", "2"] if tp > 8 else [])
    if dp is not None:
        out += ["--dp-size", str(dp)]
    return out + (["--enable-dp-attention"] if attn else [])


def mrr(n: int | None) -> list[str]:
    """``--max-running-requests N``, or nothing for ``None``."""
    return [] if n is None else ["--max-running-requests", str(n)]


def grid(version: str) -> list[list[str]]:
    """The launch lines of one release (its own decode max_bs flag)."""
    flag = DECODE_MAX_BS_FLAG.get(version, "--cuda-graph-max-bs")
    lines: list[list[str]] = []

    # no DP attention: the pool is the whole value
    for n in (None, 48, 1000):
        lines.append([*par(8, None, False), flag, "128", *mrr(n)])
    lines.append([*par(4, 2, False), flag, "128", *mrr(100)])
    # DP attention: unset, below and above max_bs x dp
    for tp, dp in ((4, 2), (4, 4), (8, 2), (8, 4), (8, 8), (16, 8)):
        for n in (None, 64 * dp // 2, 64 * dp * 2):
            lines.append([*par(tp, dp, True), flag, "64", *mrr(n)])
    lines.append([*par(8, 4, True), flag, "64", *mrr(130)])     # not a multiple of DP
    lines.append([*par(8, 8, True), flag, "64", *mrr(4)])       # below DP: a share of 0
    lines.append(par(8, 8, True) + mrr(256))                    # the release's default max_bs
    lines.append([*par(8, 2, True), flag, "512", *mrr(9000)])   # a share above 4096
    lines.append([*par(8, None, False), flag, "8192", *mrr(9000)])  # whole value above 4096
    # speculative decoding (request width 4)
    for n in (None, 64, 1024):
        lines.append([*par(8, 4, True), flag, "64", *mrr(n), *EAGLE_ARGS])
    lines.append([*par(8, None, False), flag, "64", *mrr(24), *EAGLE_ARGS])
    return lines


def heldout_grid(version: str) -> list[list[str]]:
    """A second fixed grid with other values, recorded after cgconfig's fix (``--heldout``)."""
    flag = DECODE_MAX_BS_FLAG.get(version, "--cuda-graph-max-bs")

    lines = [[*par(4, None, False), flag, "96", *mrr(n)] for n in (None, 20, 300)]
    lines.append([*par(4, None, False), flag, "80", *EAGLE_ARGS])           # speculative's 48
    for tp, dp in ((2, 2), (8, 8), (16, 4), (4, 2)):
        for n in (None, 100, 1000):
            lines.append([*par(tp, dp, True), flag, "48", *mrr(n)])
    lines.append([*par(8, 4, True), flag, "48", *mrr(3)])             # a share of 0
    lines.append([*par(8, 8, True), flag, "48", *mrr(8)])             # a share of 1
    lines.append([*par(4, 2, True), flag, "32", *EAGLE_ARGS])               # speculative's 48 // 2
    lines.append([*par(4, 4, True), *mrr(64)])                        # default max_bs
    return lines


def ask(oracle: Path, version: str, lines: list[list[str]]) -> list[dict[str, Any]]:
    python = oracle / "vendor" / "venv" / "bin" / "python"
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        for i, argv in enumerate(lines):
            fh.write(json.dumps({"id": i, "argv": [*argv, "--req-pool-size", "release"]}) + "\n")
    proc = subprocess.run([str(python), str(oracle / "sglang_oracle.py"), "--sglang-version",
                           version, "--batch", fh.name], capture_output=True, text=True,
                          cwd=oracle, check=True)
    answers = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    assert len(answers) == len(lines), (version, len(answers), proc.stderr[-2000:])
    return answers


def record(oracle: Path, versions: tuple[str, ...], heldout: bool = False) -> list[dict[str, Any]]:
    cases = []
    for version in versions:
        lines = heldout_grid(version) if heldout else grid(version)
        for argv, ans in zip(lines, ask(oracle, version, lines), strict=True):
            keep = {k: ans.get(k) for k in ("error", "error_stage", "decode", "runtime")}
            cases.append({"id": len(cases), "engine_version": version, "argv": argv,
                          "model": "llama", "platform": "cuda", "gpu_memory_gib": 80, "sm": 90,
                          "batch": f"request pool, SGLang {version}, "
                                   + ("held-out grid" if heldout else "fixed grid"),
                          "answer": keep})
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oracle", required=True, type=Path)
    ap.add_argument("--versions", nargs="+", default=list(VERSIONS))
    ap.add_argument("--heldout", action="store_true",
                    help="the second grid, recorded after the code (sglang_request_pool_heldout.jsonl)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    out = a.out or (HELDOUT if a.heldout else OUT)
    cases = record(a.oracle, tuple(a.versions), a.heldout)
    out.write_text("".join(json.dumps(c, sort_keys=True) + "\n" for c in cases))
    print(f"{len(cases)} cases -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
