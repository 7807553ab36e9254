"""Re-ask SGLang the corpus cases filed as ``deliberate:oracle-xpu-stub``, on an XPU that answers
``torch.xpu.get_device_properties`` (an Intel Max 1550: ``has_fp64``), and compare cgconfig.

Run by hand with the oracle's interpreter (never in CI)::

    ORACLE=/path/to/oracle
    $ORACLE/vendor/venv/bin/python tests/fidelity/probe_xpu.py --oracle $ORACLE > /tmp/xpu.jsonl
    python tests/fidelity/probe_xpu.py --compare /tmp/xpu.jsonl

The recording harness stubs the XPU's name and count but not its properties, so SGLang 0.5.23's
XMX probe (``utils/common.py:xpu_has_xmx_support``) fails there with "Torch not compiled with
XPU enabled"; on a real XPU it answers, and these cases resolve.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CATEGORY = "deliberate:oracle-xpu-stub"


def _case_ids() -> list[int]:
    listed = json.loads((HERE / "known_differences.json").read_text())["sglang"]
    return sorted(int(cid) for cid, why in listed.items() if why == CATEGORY)


def ask(oracle: Path) -> None:
    """Print SGLang's answer for each listed case, one JSON line each (oracle interpreter)."""
    sys.path.insert(0, str(oracle))
    import sglang_oracle

    sglang_oracle._STATE["platform"] = "xpu"
    sglang_oracle._setup()
    import torch

    class MaxSeries:
        has_fp64 = True
        name = "Intel(R) Data Center GPU Max 1550"

    torch.xpu.get_device_properties = lambda *a, **k: MaxSeries()
    main = HERE / "sglang_cases_0.5.23.jsonl"  # the main corpus (compare.CORPUS_RELEASE)
    cases = {c["id"]: c for c in map(json.loads, main.open())}
    for cid in _case_ids():
        case = cases[cid]
        argv = ["--gpu-memory-gib", str(case["gpu_memory_gib"]), "--sm", str(case["sm"]),
                "--model-arch", case["model"], *case["argv"]]
        answer = sglang_oracle.run_one(argv)
        print(json.dumps({"id": cid, **{k: answer.get(k) for k in
                                         ("decode", "prefill", "locked", "error")}}))


def compare_answers(path: Path) -> int:
    """cgconfig against the re-asked answers; exit status 1 on any difference."""
    sys.path.insert(0, str(HERE))
    import compare

    cases = {c["id"]: c for c in compare.load("sglang")}
    differ = 0
    for line in path.open():
        want: dict[str, Any] = json.loads(line)
        case = dict(cases[want["id"]], answer=want)
        why = compare.sglang_mismatch(case)
        print(want["id"], why or "agrees")
        differ += why is not None
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", type=Path, help="ask SGLang (run with the oracle's python)")
    parser.add_argument("--compare", type=Path, help="compare cgconfig with the saved answers")
    args = parser.parse_args()
    if args.oracle:
        ask(args.oracle)
        return 0
    if args.compare:
        return compare_answers(args.compare)
    parser.error("give --oracle or --compare")
    return 2


if __name__ == "__main__":
    sys.exit(main())
