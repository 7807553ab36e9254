"""Round-trip ``--emit vllm`` through vLLM 0.33.0's own resolution code (run by hand).

For every recorded vLLM case where vLLM resolved and cgconfig agrees, take cgconfig's plan, build
the line ``examples/launch_vllm.sh`` hands ``vllm serve`` (the user's flags minus those cgconfig
owns, then the plan's ``--compilation-config`` merged into the user's non-graph keys), give it
with the case's machine facts (attention capability, Blackwell or not) to the oracle, and
record what vLLM resolved::

    python tests/fidelity/emit_roundtrip_vllm.py --oracle /path/to/oracle
    python tests/fidelity/emit_roundtrip_vllm.py --summary

Output: ``emit_roundtrip_vllm.jsonl`` beside this file, one ``{"id", "emitted", "notes",
"answer"}`` per case; ``test_emit_roundtrip.py`` replays it without the oracle. Where vLLM
cannot express the plan, the emitter's ``notes`` name what it dropped and the answer may differ.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from compare import (
    _COMPILATION_MODES,
    VLLM_MODE_PHASES,
    load,
    vllm_argv,
    vllm_expected,
    vllm_mismatch,
)
from record import _ask, _trim_vllm, vllm_oracle_argv

from cgconfig.api import resolve_args
from cgconfig.cli.launch_args import server_line, vllm_launch_args
from cgconfig.engines.vllm.splitting_ops import VLLM_ATTENTION_OPS

HERE = Path(__file__).parent
OUT = HERE / "emit_roundtrip_vllm.jsonl"
_MODE_NAMES = {number: name for name, number in _COMPILATION_MODES.items()}


def emission(case: dict[str, Any]) -> tuple[list[str], list[str], dict[str, Any]]:
    """The server's line for the case, the emitter's notes (what vLLM cannot say) and
    cgconfig's plan as a vLLM mode and size list."""
    argv = vllm_argv(case)
    plan = resolve_args(argv)
    graph_args, notes = vllm_launch_args(argv, plan)
    phases = (plan.config["decode"]["backend"], plan.config["prefill"]["backend"])
    mode = next(m for m, p in VLLM_MODE_PHASES.items() if p == phases)
    planned = {"mode": mode, "sizes": plan.config["decode"]["bs"] if mode != "NONE" else []}
    return server_line(argv) + graph_args, notes, planned


def emitted_case(case: dict[str, Any], emitted: list[str]) -> dict[str, Any]:
    """The emitted line in the corpus case's shape (what the oracle's options say): the
    ``--compilation-config`` from the line, the machine and scheduler facts from the case."""
    config = json.loads(emitted[emitted.index("--compilation-config") + 1])
    ops = config.get("splitting_ops")
    out = {key: case[key] for key in ("id", "support", "num_spec_tokens", "max_num_seqs",
                                      "max_num_batched_tokens", "enforce_eager", "blackwell")}
    out.update(cudagraph_mode=config["cudagraph_mode"],
               compilation_mode=_MODE_NAMES[config.get("mode", 3)],
               splitting_ops_attention="auto" if ops is None else "no" if ops == [] else "yes")
    if ops not in (None, [], list(VLLM_ATTENTION_OPS)):
        raise ValueError(f"case {case['id']}: splitting_ops {ops} has no oracle option")
    if "cudagraph_capture_sizes" in config:
        out["capture_sizes"] = config["cudagraph_capture_sizes"]
        out["max_capture_size"] = config["max_cudagraph_capture_size"]
    return out


def vllm_answer(case: dict[str, Any], emitted: list[str], answer: dict[str, Any]) -> dict[str, Any]:
    """vLLM's whole decision for the emitted line (``compare.vllm_expected``), mode and sizes."""
    want = vllm_expected({**emitted_case(case, emitted), "answer": _trim_vllm(answer)})
    if want["error"]:
        return {"error": want["error"][:300]}
    return {"mode": want["mode"], "sizes": want["sizes"] if want["mode"] != "NONE" else []}


def check_row(row: dict[str, Any], case: dict[str, Any]) -> tuple[str | None, bool]:
    """(None when a recorded round trip still holds today, else what changed; whether vLLM
    resolved the line exactly to the plan). It holds when vLLM resolved the line to the plan
    or the emitter named what it could not express."""
    emitted, notes, plan = emission(case)
    exact = row["answer"] == plan
    if emitted != row["emitted"] or notes != row["notes"]:
        return "today's emission differs from the recorded line (re-run this script)", exact
    if not exact and not notes:
        return (f"vLLM resolved the emitted line to {row['answer']}, the plan is {plan}, and "
                "the emitter named nothing it dropped"), exact
    return None, exact


def round_trip_cases() -> list[dict[str, Any]]:
    """Corpus cases vLLM resolved and cgconfig agrees on."""
    return [c for c in load("vllm") if not vllm_expected(c)["error"] and vllm_mismatch(c) is None]


def recorded() -> dict[int, dict[str, Any]]:
    """The recorded round trips by case id."""
    if not OUT.exists():
        return {}
    with open(OUT) as fh:
        return {row["id"]: row for row in map(json.loads, fh)}


def run(oracle: Path, python: str, cases: list[dict[str, Any]]) -> None:
    emitted = {c["id"]: emission(c)[:2] for c in cases}
    asked = [(c["id"], vllm_oracle_argv(emitted_case(c, emitted[c["id"]][0]))) for c in cases]
    answers = _ask(python, oracle / "vllm_oracle.py", asked, [])
    rows = recorded()
    for case in cases:
        cid = case["id"]
        line, notes = emitted[cid]
        rows[cid] = {"id": cid, "emitted": line, "notes": notes,
                     "answer": vllm_answer(case, line, answers[cid])}
    with open(OUT, "w") as out:
        for cid in sorted(rows):
            out.write(json.dumps(rows[cid], sort_keys=True) + "\n")


def summary() -> str:
    """The round-trip figure over the recorded rows."""
    eligible = round_trip_cases()
    by_id = {c["id"]: c for c in load("vllm")}
    rows = recorded()
    exact = named = failed = 0
    tags: Counter[str] = Counter()
    for cid, row in rows.items():
        problem, is_exact = check_row(row, by_id[cid])
        if problem:
            failed += 1
        elif is_exact:
            exact += 1
        else:
            named += 1
            tags.update(note.split("]")[0] + "]" for note in row["notes"])
    missing = len({c["id"] for c in eligible} - set(rows))
    return (f"--emit vllm round trip: {exact}/{len(rows)} recorded lines make vLLM 0.33.0 "
            f"resolve exactly cgconfig's plan, {named} differ with the difference named "
            f"({dict(tags)}), {failed} fail; {len(eligible)} eligible "
            f"cases, {missing} not recorded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path)
    parser.add_argument("--python", help="the oracle's interpreter (default: ORACLE/vendor/venv/bin/python)")
    parser.add_argument("--summary", action="store_true", help="print the figure and stop")
    args = parser.parse_args()
    if not args.summary:
        if args.oracle is None:
            parser.error("--oracle is required unless --summary")
        python = args.python or str(args.oracle / "vendor" / "venv" / "bin" / "python")
        run(args.oracle, python, round_trip_cases())
    print(summary())


if __name__ == "__main__":
    main()
