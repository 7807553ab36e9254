"""Record the golden plans: ``python tests/golden/generate.py`` from the repository root.

Run it only to record a deliberate change of behaviour; the diff of ``plans.jsonl`` is the review.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    """Write ``tests/golden/plans.jsonl``: one case with its result per line."""
    os.environ["CGCONFIG_NO_GPU_PROBE"] = "1"
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT / "tests" / "golden"))
    from cases import cases, run_case

    lines = [json.dumps({**case, **run_case(case)}, sort_keys=True, ensure_ascii=False)
             for case in cases()]
    (ROOT / "tests" / "golden" / "plans.jsonl").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} cases")


if __name__ == "__main__":
    main()
