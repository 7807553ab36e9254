"""Which release printed a log, from its ``server_args`` field names (a log that prints no
version line). The dumps are each release's own ``server_args=`` line, recorded from its code
(``tests/fidelity/record_server_args.py``) for one plain line."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED
from cgconfig.verify.args_release import ARGS_MATCH_SLACK, nearest_release, score
from cgconfig.verify.check import verify
from cgconfig.verify.read import read_lines
from cgconfig.verify.release import judge_release

DUMPS = [json.loads(line) for line in
         (Path(__file__).parents[1] / "data" / "server_args" / "sglang.jsonl").read_text().splitlines()]
MODELLED = [d for d in DUMPS if d["release"] in SUPPORTED["sglang"]]
UNMODELLED = [d for d in DUMPS if d["release"] not in SUPPORTED["sglang"]]
CAPTURE = ("Capture cuda graph begin. This can take up to several minutes. avail mem=60.10 GB",
           "Capture cuda graph end. Time elapsed: 9.43 s. mem usage=1.02 GB. avail mem=59.08 GB.")


def _record(dump: dict[str, str], *more: str):
    return read_lines([f"[2026-11-02 09:00:01] {dump['line']}",
                       *(f"[2026-11-02 09:00:40 TP0] {text}" for text in more)], "the test log",
                      engine="sglang")


@pytest.mark.parametrize("dump", MODELLED, ids=lambda d: d["release"])
def test_each_release_dump_names_its_release(dump: dict[str, str]) -> None:
    release = judge_release(_record(dump))
    assert release.judged and release.shown, release.reason
    assert release.chosen is not None and release.chosen.version == dump["release"]
    assert "server_args" in release.chosen.source and "line 1" in release.chosen.source
    assert release.chosen.said and dump["release"] in release.chosen.said


#: Supported releases whose tables are within ARGS_MATCH_SLACK of each other: adjacent releases
#: only (no release between them but 0.5.8.post1, which cgconfig answers as 0.5.8), so a dump
#: that fits both is one of the two, and the nearer decides. SGLang 0.5.9 adds four flags to
#: 0.5.8's and drops one (docs/engine-tables.md).
CLOSE_PAIRS = {frozenset({"0.5.8", "0.5.9"})}


def _dests(release: str) -> frozenset[str]:
    return frozenset(f.dest for f in load_table("sglang", release).flags)


def test_dumps_are_near_their_release_and_far_from_the_others() -> None:
    assert len(MODELLED) >= 8
    for dump in MODELLED:
        record = _record(dump)
        match = nearest_release("sglang", record.args or {})
        assert match.release == dump["release"] and match.whole and match.accepted, match
        assert match.score <= 5 and match.runner_up is not None, match
        if frozenset({match.release, match.runner_up}) in CLOSE_PAIRS:
            # what is no flag prints alike under both: the runner-up is farther by exactly
            # the two tables' own difference (0.5.8's and 0.5.9's dumps: 3 against 8)
            distance = score("sglang", match.runner_up, _dests(match.release))
            assert match.runner_up_score == match.score + distance and distance >= 5, match
        else:
            assert (match.runner_up_score or 0) >= 11, match


@pytest.mark.skipif(not UNMODELLED, reason="every recorded dump's release is supported "
                    "(0.5.8, the oldest recorded, is supported since issue #37)")
def test_an_unmodelled_release_is_not_judged_by_its_nearest() -> None:
    """SGLang 0.5.8's dump prints the legacy ``ServerArgs(...)`` repr and fits none of the
    modelled tables: it cannot be judged, with the nearest named, instead of taking 0.5.23's
    (or the nearest's) rules."""
    for dump in UNMODELLED:
        record = _record(dump, *CAPTURE)
        release = judge_release(record)
        assert not release.judged and not release.shown
        assert "fit no release cgconfig models" in release.reason and "nearest SGLang" in release.reason
        assert "--engine-version" in release.reason
        verdict = verify(record, [])
        assert verdict.level == "cannot judge"
        named = judge_release(record, f"sglang=={SUPPORTED['sglang'][0]}")
        assert named.judged and named.chosen is not None


def test_a_shortened_dump_leaves_the_release_to_the_formats() -> None:
    """A bug report's hand-cut ``server_args`` (a few fields) says nothing about the fields it
    leaves out: the formats decide, as before (an SGLang 0.5.19+ dict line, no version: the
    newest, shown)."""
    newest = next(d for d in MODELLED if d["release"] == SUPPORTED["sglang"][-1])
    short = dict(newest, line="server_args={'model_path': '/models/Llama-3-8B', 'tp_size': 2, "
                              "'max_running_requests': 256}")
    record = _record(short)
    assert record.args_complete and not nearest_release("sglang", record.args or {}).whole
    release = judge_release(record)
    assert release.chosen is not None and release.chosen.version == SUPPORTED["sglang"][-1]
    assert release.chosen.source.startswith("default")


def test_the_version_line_and_engine_version_come_first() -> None:
    dump = next(d for d in MODELLED if d["release"] == "0.5.20")
    record = _record(dump)
    assert judge_release(record, "sglang==0.5.22").chosen.version == "0.5.22"  # type: ignore[union-attr]
    record.version, record.version_line = "0.5.21", 3
    assert judge_release(record).chosen.version == "0.5.21"  # type: ignore[union-attr]


def test_supported_tables_stay_apart_by_more_than_the_slack() -> None:
    """A dump of release R's exact flags must not fit any other supported release within the
    slack, or the field set alone could not tell them apart: adding a release whose flags
    differ from a neighbour's by ARGS_MATCH_SLACK or fewer fails here, unless the two are
    adjacent releases listed in CLOSE_PAIRS (then the nearer decides, and each one's exact
    flags still score 0 on its own table and more on the other's)."""
    dests = {r: _dests(r) for r in SUPPORTED["sglang"]}
    order = list(SUPPORTED["sglang"])
    for a, b in combinations(SUPPORTED["sglang"], 2):
        if frozenset({a, b}) in CLOSE_PAIRS:
            assert abs(order.index(a) - order.index(b)) == 1, (a, b)
            assert score("sglang", b, dests[a]) > 0 and score("sglang", a, dests[b]) > 0, (a, b)
            continue
        assert score("sglang", b, dests[a]) > ARGS_MATCH_SLACK, (a, b)
        assert score("sglang", a, dests[b]) > ARGS_MATCH_SLACK, (b, a)
    for r in SUPPORTED["sglang"]:
        assert score("sglang", r, dests[r]) == 0, r


def test_a_partial_dump_reader_never_claims_completeness() -> None:
    """vLLM prints only its non-default arguments: its record is never read by field set."""
    record = read_lines(["INFO 11-02 09:00:01 [utils.py:233] non-default args: {'model': 'm', "
                         "'max_num_seqs': 64}"], "the test log", engine="vllm")
    assert not record.args_complete
