"""Record the golden plans: ``python tests/golden/generate.py`` from the repository root.

Run it only to record a deliberate change of behaviour; the diff of ``plans.jsonl`` is the review.
``python tests/golden/generate.py vllm-`` re-records only the cases whose id starts with one of
the given prefixes and keeps every other line as recorded.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PLANS = ROOT / "tests" / "golden" / "plans.jsonl"


def _as_recorded(result: dict[str, Any]) -> dict[str, Any]:
    """The file predates the ``notes`` channel and the start-up cost: notes are recorded after
    the deprecations and the cost is left out, as ``test_golden`` folds them before comparing."""
    plan = result.get("plan")
    if plan is not None and "cost" in plan:  # left out, as test_golden leaves it out
        plan = {k: v for k, v in plan.items() if k != "cost"}
        result = {"plan": plan}
    if plan is None or "notes" not in plan:
        return result
    plan = dict(plan)
    plan["deprecations"] = [*plan["deprecations"], *plan.pop("notes")]
    return {"plan": plan}


def main(prefixes: list[str]) -> None:
    """Write ``tests/golden/plans.jsonl``: one case with its result per line (only the cases
    whose id starts with one of ``prefixes`` when any are given)."""
    os.environ["CGCONFIG_NO_GPU_PROBE"] = "1"
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT / "tests" / "golden"))
    from cases import cases, run_case

    recorded = {}
    if prefixes:
        recorded = {json.loads(line)["id"]: line for line in PLANS.read_text().splitlines()}
    lines = []
    for case in cases():
        if prefixes and not case["id"].startswith(tuple(prefixes)) and case["id"] in recorded:
            lines.append(recorded[case["id"]])
            continue
        lines.append(json.dumps({**case, **_as_recorded(run_case(case))}, sort_keys=True,
                                ensure_ascii=False))
    PLANS.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} cases")


if __name__ == "__main__":
    main(sys.argv[1:])
