"""Replay each vLLM release's corpus (``vllm_cases_<version>.jsonl``) through cgconfig
answering for that release.

Each case is a whole `vllm serve` line answered by that release's own engine-configuration
path (``record_vllm_versions.py``). cgconfig gets the same line, the machine as deployment facts
and the model's ``config.json`` (``compare_vllm_engine.cgconfig_argv``), with
``engine_version`` set to the release. Compared as for the 0.33.0 whole-engine corpus: the final
``cudagraph_mode``, the capture sizes, and whether vLLM refused the line.

    python tests/fidelity/compare_vllm_versions.py                 # every release: agreement
    python tests/fidelity/compare_vllm_versions.py 0.27.1 --ids 3  # cases in full
    python tests/fidelity/compare_vllm_versions.py --update-known
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import compare_vllm_engine as cve

from cgconfig.line.versions import SUPPORTED, choose

HERE = Path(__file__).parent
KNOWN = HERE / "known_vllm_version_differences.json"


def corpus_path(version: str) -> Path:
    return HERE / f"vllm_cases_{version}.jsonl"


def versions() -> list[str]:
    """The supported vLLM releases (all of them have a corpus)."""
    return list(SUPPORTED["vllm"])


@cache
def load(version: str) -> list[dict[str, Any]]:
    path = corpus_path(version)
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def outcome(case: dict[str, Any]) -> dict[str, Any]:
    """cgconfig's answer for a case, as the release the case was recorded from."""
    return cve.outcome(case, choose("vllm", case["vllm_version"], "corpus"))


def mismatch(case: dict[str, Any]) -> str | None:
    """The category of the difference, or None when cgconfig agrees."""
    return cve.mismatch(case, choose("vllm", case["vllm_version"], "corpus"))


@cache
def mismatches(version: str) -> dict[int, str]:
    return {c["id"]: why for c in load(version) if (why := mismatch(c))}


def known() -> dict[str, dict[int, str]]:
    """Release → case id → the category of a listed, explained difference."""
    if not KNOWN.exists():
        return {}
    data = json.loads(KNOWN.read_text())
    return {v: {int(k): why for k, why in cases.items()} for v, cases in data.items()}


def agreement(version: str) -> tuple[int, int, int, int]:
    """(plans agreeing, plans, refusals agreeing, refusals) of a release's corpus, by vLLM's
    answer: a plan agrees when cgconfig plans the same mode and sizes, a refusal when cgconfig
    refuses too."""
    found = mismatches(version)
    cases = load(version)
    refused = [c for c in cases if c["answer"]["error"]]
    planned = [c for c in cases if not c["answer"]["error"]]
    return (sum(c["id"] not in found for c in planned), len(planned),
            sum(c["id"] not in found for c in refused), len(refused))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--update-known"]:
        data = {v: {str(k): why for k, why in sorted(mismatches(v).items())}
                for v in versions() if mismatches(v)}
        KNOWN.write_text(json.dumps(data, indent=1) + "\n")
        return 0
    if len(argv) >= 2 and argv[1] == "--ids":
        by_id = {c["id"]: c for c in load(argv[0])}
        for cid in argv[2:]:
            case = by_id[int(cid)]
            print("line:", " ".join(case["argv"]), case["gpu"], case["answer"].get("model_runner"))
            print("cgconfig argv:", " ".join(cve.cgconfig_argv(case)))
            print("vLLM:", json.dumps(cve.expected(case)), case["answer"]["error"] or "")
            print("cgconfig:", json.dumps(outcome(case)))
        return 0
    for version in argv or versions():
        plans_ok, plans, refusals_ok, refusals = agreement(version)
        print(f"vLLM {version}: plans {plans_ok}/{plans}, refusals {refusals_ok}/{refusals}")
        for why, n in Counter(mismatches(version).values()).most_common():
            print(f"  {n:5d}  {why}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main(sys.argv[1:]))
