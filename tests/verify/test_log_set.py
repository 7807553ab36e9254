"""Every excerpt of the real-log set (tests/verify/log_set.py, each with its source): engine,
format, version and graph counts read as the excerpt shows them, and the verdict a careful
operator gives."""

from __future__ import annotations

import pytest

from tests.verify.log_set import CASES, LOGS, LogCase


def test_the_set_is_forty_real_logs_of_every_engine() -> None:
    real = [c for c in CASES if not c.name.startswith("gen_")]
    assert len(real) >= 40
    assert {c.engine for c in real} == {"sglang", "vllm", "trtllm"}
    assert len({c.name for c in CASES}) == len(CASES)
    assert all((LOGS / c.name).is_file() for c in CASES)
    assert all(c.url for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_log_is_read_and_judged_as_an_operator_would(case: LogCase) -> None:
    from cgconfig.verify.check import verify
    from cgconfig.verify.read import read_log

    record = read_log(str(LOGS / case.name), interval=case.interval)
    assert (record.engine, record.era, record.version) == (case.engine, case.era,
                                                          case.version), case.url
    for group, graphs in case.graphs.items():
        assert record.captures[group].graphs == graphs, (case.url, group)
    for group, sizes in case.lists.items():
        assert record.captures[group].sizes == sizes, (case.url, group)
    verdict = verify(record, list(case.line))
    assert verdict.level == case.operator, (case.url, verdict.reasons)
    if case.operator != "matches":
        assert verdict.reasons and verdict.reasons[0].startswith(
            "cannot judge" if case.operator == "cannot judge" else ""), verdict.reasons
