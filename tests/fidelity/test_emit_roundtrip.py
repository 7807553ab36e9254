"""``--emit sglang`` is exact: the recorded round trips through SGLang 0.5.23 still hold.

``emit_roundtrip.py`` (run by hand with the oracle) recorded, for each corpus case where SGLang
resolved and cgconfig agrees, the line a launch script hands the server and what SGLang resolved
from it. Here, without the oracle: today's emission must be that line, and SGLang's answer must
be cgconfig's plan (backends, max_bs and size lists of both phases).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from emit_roundtrip import ADVICE_BASE, cases_by_id, recorded, round_trip_cases, row_problem


def test_every_recorded_round_trip_still_reproduces_the_plan() -> None:
    by_id = cases_by_id()
    problems = {cid: row_problem(row, by_id[cid]) for cid, row in recorded().items()}
    failed = {cid: why for cid, why in problems.items() if why}
    assert not failed, (f"{len(failed)} round trips no longer hold (re-run "
                        f"tests/fidelity/emit_roundtrip.py --stale); first: "
                        f"{next(iter(failed.items()))}")


def test_the_recorded_round_trips_cover_the_corpus_and_the_advice_lines() -> None:
    rows = recorded()
    eligible = {c["id"] for c in round_trip_cases()}
    assert len(eligible) > 2000
    assert len(eligible & set(rows)) >= 0.99 * len(eligible), (
        f"{len(eligible - set(rows))} eligible cases have no recorded round trip (cgconfig now "
        "agrees with SGLang on them): run tests/fidelity/emit_roundtrip.py --oracle ... --stale")
    assert {cid for cid in rows if cid >= ADVICE_BASE} == {cid for cid in eligible
                                                          if cid >= ADVICE_BASE}


def test_an_advice_line_emits_the_advised_backend() -> None:
    """With --apply-advice the plan differs from SGLang's own decision; the emitted line pins it."""
    rows = recorded()
    case = cases_by_id()[ADVICE_BASE]
    assert "--apply-advice" in case["argv"] and "--apply-advice" not in rows[ADVICE_BASE]["emitted"]
    assert rows[ADVICE_BASE]["answer"]["decode"]["backend"] == "breakable"


def test_every_recorded_vllm_round_trip_reproduces_the_plan_or_names_the_difference() -> None:
    import emit_roundtrip_vllm as vllm
    from compare import load

    by_id = {c["id"]: c for c in load("vllm")}
    rows = vllm.recorded()
    checked = {cid: vllm.check_row(row, by_id[cid]) for cid, row in rows.items()}
    failed = {cid: why for cid, (why, _) in checked.items() if why}
    assert not failed, (f"{len(failed)} vLLM round trips no longer hold (re-run "
                        f"tests/fidelity/emit_roundtrip_vllm.py); first: {next(iter(failed.items()))}")
    eligible = {c["id"] for c in vllm.round_trip_cases()}
    assert len(eligible) > 1000 and len(eligible & set(rows)) >= 0.99 * len(eligible)
    assert sum(exact for _, exact in checked.values()) >= 0.98 * len(rows)
