"""cgconfig's plans against the engines' own answers, recorded in the fidelity corpus.

Each file is named for the release that answered it: ``sglang_cases_<X>.jsonl`` holds random
inputs answered by the unmodified resolution code of SGLang X (the main corpus, kind
``sglang``, is ``compare.CORPUS_RELEASE``'s; ``record.py`` says how),
``vllm_compilation_cases_<X>.jsonl`` vLLM X's ``CompilationConfig`` answers, and every case is
answered by cgconfig as the release it was recorded from;
``sglang_heldout_<X>.jsonl`` are fresh batches per release, recorded after the code that
answers them was written (``record.py --heldout``). The open
differences are listed in ``known_differences.json``; this test is a ratchet: any new difference
fails, and so does a listed one that now agrees (remove it with ``compare.py --update-known``),
so the list only shrinks and always says exactly where cgconfig and the engine part ways.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare

KINDS = ["sglang", "vllm", *compare.version_kinds(), *compare.heldout_kinds()]


@pytest.mark.parametrize("kind", KINDS)
def test_corpus_matches_recorded_answers(kind: str) -> None:
    found = compare.mismatches(kind)
    listed = compare.known()[kind]
    new = {cid: why for cid, why in found.items() if cid not in listed}
    fixed = sorted(cid for cid in listed if cid not in found)
    assert not new, (f"{len(new)} {kind} cases now differ from the engine "
                     f"(first: {sorted(new.items())[:10]}); "
                     f"inspect with: python tests/fidelity/compare.py --ids ID {kind}")
    assert not fixed, f"{len(fixed)} listed {kind} differences now agree {fixed[:10]}: " \
        "run python tests/fidelity/compare.py --update-known"
    moved = {cid: (listed[cid], why) for cid, why in found.items()
             if cid in listed and listed[cid] != why}
    assert not moved, f"{len(moved)} listed {kind} differences changed category: {moved}"


@pytest.mark.parametrize("kind", ["sglang", "vllm"])
def test_corpus_size(kind: str) -> None:
    # The issue asks for at least 3,000 SGLang and 1,000 vLLM recorded cases.
    assert len(compare.load(kind)) >= (3000 if kind == "sglang" else 1000)


def test_every_older_sglang_release_has_its_corpus() -> None:
    # A few hundred cases per other release, answered by that release's own code.
    from cgconfig.line.versions import SUPPORTED

    older = [v for v in SUPPORTED["sglang"] if v != compare.CORPUS_RELEASE["sglang"]]
    assert compare.version_kinds() == [f"sglang@{v}" for v in older]
    for version in older:
        cases = compare.load(f"sglang@{version}")
        assert len(cases) >= 300 and all(c["engine_version"] == version for c in cases)


def test_every_sglang_release_has_a_fresh_batch_of_300_lines() -> None:
    """Issue #31 item 6: 300+ fresh lines per release (seed 7300), recorded after the code,
    a third of them drawing the start-up checks (``generate.py`` focus ``startupchecks``)."""
    from cgconfig.line.versions import SUPPORTED

    for version in SUPPORTED["sglang"]:
        if version not in ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"):
            continue  # releases added later bring their own batches
        cases = compare.load(f"fresh@{version}")
        assert len(cases) >= 300
        assert sum("startupchecks" in c["batch"] for c in cases) >= 100


def test_every_sglang_release_has_its_start_up_batches() -> None:
    """Issue #31 item 6, with the oracle's start-up stage (the decode runner's
    ``get_batch_sizes_to_capture`` run after ``check_server_args``): per release 0.5.19-0.5.23
    a batch measured before the fixes for it (fresh2@, seed 8400) and one recorded after them
    (fresh3@, seed 8600), 300 lines each, 100 drawing the start-up checks; the held-out one
    agrees on at least 99.5 % of its lines (every difference listed in known_differences.json,
    checked by test_corpus_matches_recorded_answers)."""
    for version in ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"):
        for batch in ("fresh2", "fresh3", "fresh4"):
            cases = compare.load(f"{batch}@{version}")
            assert len(cases) == 300
            assert sum("startupchecks" in c["batch"] for c in cases) == 100
        listed = compare.known()[f"fresh4@{version}"]
        assert len(listed) <= 1, (version, listed)  # 299/300 = 99.7 %


@pytest.mark.parametrize(("batch", "version"), [
    ("heldout2", "0.5.10"), ("heldout2", "0.5.11"), ("heldout2", "0.5.12"),
    ("heldout3", "0.5.11"), ("heldout3", "0.5.12"),
    ("heldout4", "0.5.11"), ("heldout4", "0.5.13"), ("heldout4", "0.5.14"),
    ("heldout4", "0.5.15"), ("heldout4", "0.5.16"), ("heldout4", "0.5.17"),
    ("heldout4", "0.5.18"),
    ("heldout5", "0.5.14"), ("heldout5", "0.5.15"), ("heldout5", "0.5.16")])
def test_older_sglang_releases_have_their_start_up_held_out_batches(batch: str,
                                                                     version: str) -> None:
    """Issue #37: the older releases' held-out batches recorded with the oracle's start-up
    stage (``oracle_ext/sglang/startup-stage.patch``) in each release's own flags, after the
    code: heldout2 (seeds 9610-9612), heldout3 (seeds 9711, 9712; recorded after heldout2's
    fixes), heldout4 (0.5.11 seed 9911, 0.5.13-0.5.18 seeds 99131-99181: blind, recorded after
    heldout3's fixes; docs/fidelity.md), heldout5 (0.5.14-0.5.16 seeds 992141-992161,
    recorded after heldout4's fixes), 300 lines each, 100 drawing the start-up checks; at
    least 99.5 % agree (every difference listed in known_differences.json, checked by
    test_corpus_matches_recorded_answers)."""
    cases = compare.load(f"{batch}@{version}")
    assert len(cases) == 300
    assert sum("startupchecks" in c["batch"] for c in cases) == 100
    assert all("in its own flags" in c["batch"] for c in cases)
    if batch in ("heldout4", "heldout5"):
        # the start-up stage ran (0.5.16's first recording of it did not: the request-pool
        # stand-in lacked server_args, oracle_ext/sglang/README.md, worker-stage.patch)
        assert any(c["answer"].get("error_stage") == "startup" for c in cases)
    assert f"{batch}@{version}" in compare.heldout_kinds()
    listed = compare.known()[f"{batch}@{version}"]
    assert len(listed) <= 1, (batch, version, listed)  # 299/300 = 99.7 %
