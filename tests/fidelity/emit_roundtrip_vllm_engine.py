"""Round-trip ``--emit vllm`` through vLLM 0.33.0's whole engine path (run by hand).

For every whole-engine corpus case where vLLM resolved and cgconfig agrees, take cgconfig's plan,
build the line a launch script hands ``vllm serve`` (the user's line minus cgconfig's flags, then
the plan's ``--compilation-config``), give it with the case's machine to
``vllm_engine_oracle.py`` and record what vLLM resolved::

    python tests/fidelity/emit_roundtrip_vllm_engine.py --oracle /path/to/oracle
    python tests/fidelity/emit_roundtrip_vllm_engine.py --summary

Output: ``emit_roundtrip_vllm_engine.jsonl`` beside this file, one ``{"id", "emitted", "notes",
"answer"}`` per case; ``test_vllm_engine_fidelity.py`` replays it without the oracle. Where vLLM
cannot express the plan the emitter's ``notes`` name what it dropped.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import compare_vllm_engine as cve
from record_vllm_engine import _trim, _zygote_key, run_batch

from cgconfig.api import resolve_args
from cgconfig.cli.launch_args import server_line, vllm_launch_args

HERE = Path(__file__).parent
OUT = HERE / "emit_roundtrip_vllm_engine.jsonl"


def round_trip_cases() -> list[dict[str, Any]]:
    """The corpus cases vLLM resolved and cgconfig agrees on."""
    return [c for c in cve.load() if not c["answer"]["error"] and cve.mismatch(c) is None]


def emission(case: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The server's line for the case (model folders written back as ``@template``) and the
    emitter's notes."""
    argv = cve.cgconfig_argv(case)
    plan = resolve_args(argv, environ={})
    graph_args, notes = vllm_launch_args(argv, plan)
    root = str(cve.model_root()) + "/"
    line = [w.replace(root, "@") for w in server_line(argv) + graph_args]
    env = [f"{k}={v}" for k, v in sorted(case["env"].items())]
    return env + line, notes


def _as_case(case: dict[str, Any], emitted: list[str]) -> dict[str, Any]:
    env_words = [w for w in emitted if "=" in w and w.split("=", 1)[0].isupper()
                 and not w.startswith("-")]
    return {**case, "argv": [w for w in emitted if w not in env_words]}


def check_row(row: dict[str, Any], case: dict[str, Any]) -> tuple[str | None, bool]:
    """Whether a recorded round trip still holds: today's emission is the recorded line and
    vLLM's answer to it is cgconfig's plan, or the emitter's notes name the difference.
    Returns (problem or None, exact)."""
    emitted, notes = emission(case)
    if emitted != row["emitted"]:
        return f"emission changed: {emitted} != {row['emitted']}", False
    want = cve.expected(case)
    got = cve.expected({"answer": row["answer"]})
    if got == want:
        return None, True
    if notes:
        return None, False
    return f"vLLM resolved {got} from the emitted line, the plan is {want}", False


def recorded() -> dict[int, dict[str, Any]]:
    if not OUT.exists():
        return {}
    return {r["id"]: r for r in (json.loads(line) for line in OUT.read_text().splitlines()
                                 if line.strip())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--every", type=int, default=1,
                        help="round-trip every N-th eligible case (default: all of them)")
    args = parser.parse_args()
    by_id = {c["id"]: c for c in cve.load()}
    if args.summary or args.oracle is None:
        checked = [check_row(r, by_id[cid]) for cid, r in recorded().items()]
        print(f"{sum(e for _, e in checked)}/{len(checked)} exact; "
              f"{sum(1 for p, _ in checked if p)} broken;",
              Counter(p.split(":")[0] for p, _ in checked if p).most_common(5))
        return 0
    cases = round_trip_cases()[::args.every]
    print(f"{len(cases)} round trips", file=sys.stderr)
    emitted = {c["id"]: emission(c) for c in cases}
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        groups.setdefault(_zygote_key(c), []).append(_as_case(c, emitted[c["id"]][0]))
    shares: list[list[dict[str, Any]]] = [[] for _ in range(args.jobs)]
    for group in sorted(groups.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    answers: dict[int, dict[str, Any]] = {}
    lock = threading.Lock()
    threads = [threading.Thread(target=run_batch, args=(args.oracle, s, answers, lock)) for s in shares]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    OUT.write_text("".join(
        json.dumps({"id": cid, "emitted": emitted[cid][0], "notes": emitted[cid][1],
                    "answer": _trim(answers[cid])}, sort_keys=True) + "\n"
        for cid in sorted(answers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
