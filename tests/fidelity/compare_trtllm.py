"""Replay the TensorRT-LLM corpus through cgconfig and compare with the recorded answers.

    python tests/fidelity/compare_trtllm.py              # agreement and the differences
    python tests/fidelity/compare_trtllm.py --ids 3 17   # both sides of some cases
    python tests/fidelity/compare_trtllm.py --update-known

Compared per case: refusal (cgconfig exit 2 <-> an upstream exception), decode graphs on/off
(``cuda_graph_config: null``), the configured list (``config.decode.bs`` <-> the validated
``batch_sizes``), the captured list (``capture.decode.sizes`` <-> what
``_filter_cuda_graph_batch_sizes`` kept), padding, and every warning TensorRT-LLM logs (the
plan's warnings carry it, prefixed ``TensorRT-LLM:``).

One deliberate difference: a size of 0 or fewer requests (in ``batch_sizes``, or a bound of 0
that padding would capture) is left out by cgconfig with a warning; such a case agrees when
cgconfig's lists are TensorRT-LLM's without those sizes and it says so.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CASES = HERE / "trtllm_cases.jsonl"
KNOWN = HERE / "known_trtllm_differences.json"
DELIBERATE = "leaves them out"


def load(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def known() -> dict[str, str]:
    return json.loads(KNOWN.read_text()) if KNOWN.exists() else {}


def run_cgconfig(case: dict[str, Any], folder: str) -> dict[str, Any]:
    """cgconfig's answer for the case's trtllm-serve line (in process)."""
    from cgconfig import InputError, resolve_args

    path = Path(folder) / f"case{case['id']}.yaml"
    path.write_text(case["yaml"])
    argv = ["trtllm-serve", "MODEL", *case["argv"], "--extra_llm_api_options", str(path)]
    try:
        plan = resolve_args(argv)
    except InputError as exc:
        return {"error": str(exc).replace(str(path), "FILE")}
    return {"error": None, "backend": plan.config["decode"]["backend"],
            "bs": plan.config["decode"]["bs"], "captured": plan.capture["decode"]["sizes"],
            "disable_padding": plan.options["disable_padding"], "warnings": plan.warnings}


def _positive(sizes: list[int] | None) -> list[int] | None:
    return None if sizes is None else [s for s in sizes if s > 0]


def classify(answer: dict[str, Any], got: dict[str, Any]) -> str:
    """``agree``, ``agree-deliberate`` or what differs."""
    if answer["error"] or got["error"]:
        if answer["error"] and got["error"]:
            return "agree"
        return "only-cgconfig-refuses" if got["error"] else "only-trtllm-refuses"
    off = answer["batch_sizes"] is None
    if off or got["backend"] == "disabled":
        if off and got["backend"] == "disabled":
            return "agree"
        if not off and not _positive(answer["batch_sizes"]) and not got["captured"]:
            return "agree-deliberate"  # only sizes of 0 or fewer requests: decode off
        return "decode-on-off"
    diffs = []
    nonpositive = any(s <= 0 for s in [*answer["batch_sizes"], *answer["captured"]])
    want_bs = _positive(answer["batch_sizes"])
    if want_bs and got["bs"] != want_bs:
        diffs.append("configured")
    if got["captured"] != _positive(answer["captured"]):
        diffs.append("captured")
    if got["disable_padding"] == answer["enable_padding"]:
        diffs.append("padding")
    for line in answer["warnings"]:
        text = line.removeprefix("WARNING: ")
        if f"TensorRT-LLM: {text}" not in got["warnings"] and not (
                nonpositive and "pad batches to" in text):
            diffs.append("warnings")
            break
    if nonpositive and not any(DELIBERATE in w or "captures none" in w for w in got["warnings"]):
        diffs.append("silent-nonpositive")
    if diffs:
        return "differs:" + "+".join(diffs)
    return "agree-deliberate" if nonpositive else "agree"


def results(ids: set[int] | None = None, path: Path = CASES
            ) -> dict[int, tuple[str, dict[str, Any], dict[str, Any]]]:
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in load(path):
            if ids is not None and case["id"] not in ids:
                continue
            got = run_cgconfig(case, folder)
            out[case["id"]] = (classify(case["answer"], got), case, got)
    return out


def mismatches() -> dict[str, str]:
    """Case id → category, for every case that does not agree."""
    return {str(cid): kind for cid, (kind, _, _) in results().items()
            if not kind.startswith("agree")}


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--ids", type=int, nargs="*")
    cli.add_argument("--update-known", action="store_true")
    cli.add_argument("--cases", type=Path, default=CASES, help="another recorded set")
    args = cli.parse_args()
    found = results(set(args.ids) if args.ids else None, args.cases)
    if args.ids:
        for cid, (kind, case, got) in found.items():
            print(json.dumps({"id": cid, "class": kind, "argv": case["argv"], "yaml": case["yaml"],
                              "trtllm": case["answer"], "cgconfig": got}, indent=1))
        return 0
    counts: dict[str, int] = {}
    for kind, _, _ in found.values():
        counts[kind] = counts.get(kind, 0) + 1
    agree = sum(v for k, v in counts.items() if k.startswith("agree"))
    print(f"{len(found)} cases: {agree} agree ({100 * agree / len(found):.2f} %)")
    for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        first = next(cid for cid, (k, _, _) in found.items() if k == kind)
        print(f"  {kind}: {n} (first: id {first})")
    if args.update_known and args.cases == CASES:
        KNOWN.write_text(json.dumps({str(c): k for c, (k, _, _) in sorted(found.items())
                                     if not k.startswith("agree")}, indent=0, sort_keys=True)
                         + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
