"""``--emit trtllm`` is exact: the recorded round trips through TensorRT-LLM's code still hold.

``emit_roundtrip_trtllm.py`` (run by hand with the oracle) recorded, for each corpus case that
cgconfig plans, the options file ``--emit trtllm`` prints and what TensorRT-LLM captures from it
with the case's size flags. Here, without the oracle: today's emission must be that file, and
TensorRT-LLM's captured list and padding must be the plan's.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from compare_trtllm import load
from emit_roundtrip_trtllm import emitted, recorded


def test_every_recorded_round_trip_reproduces_the_plan() -> None:
    rows = recorded()
    failed: dict[int, str] = {}
    planned = 0
    with tempfile.TemporaryDirectory() as folder:
        for case in load():
            got = emitted(case, folder)
            if got is None:
                continue
            planned += 1
            row = rows.get(case["id"])
            if row is None:
                failed[case["id"]] = "no recorded round trip"
            elif row["emitted"] != got[0]:
                failed[case["id"]] = "the emitted options file changed"
            elif row["answer"]["error"] or row["answer"]["captured"] != got[1]:
                failed[case["id"]] = f"TensorRT-LLM captures {row['answer']['captured']}"
    assert planned >= 2000
    assert not failed, (f"{len(failed)} round trips no longer hold (re-run "
                        f"tests/fidelity/emit_roundtrip_trtllm.py); first: "
                        f"{next(iter(failed.items()))}")
