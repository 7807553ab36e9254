"""The held-out lines of the releases before 0.5.19 are written in each release's own flags."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from release_lines import in_release_flags, option_groups

from cgconfig.line.table import load_table

HERE = Path(__file__).parent


def test_a_flag_the_release_lacks_is_dropped_or_respelled() -> None:
    # --enable-hicache is new in 0.5.23; --cuda-graph-max-bs-decode exists in 0.5.18.
    line = ["--tp-size", "2", "--enable-hicache", "--cuda-graph-max-bs-decode", "64"]
    assert in_release_flags(line, "0.5.18") == ["--tp-size", "2", "--cuda-graph-max-bs-decode",
                                                "64"]


@pytest.mark.parametrize("release", ["0.5.8", "0.5.9", "0.5.10", "0.5.11", "0.5.12", "0.5.13", "0.5.14",
                                     "0.5.15", "0.5.16",
                                     "0.5.17", "0.5.18"])
def test_a_pre_0_5_19_heldout_batch_uses_only_its_release_flags(release: str) -> None:
    table = load_table("sglang", release)
    with open(HERE / f"sglang_heldout_{release}.jsonl") as fh:
        cases = [json.loads(line) for line in fh]
    assert len(cases) >= 150
    for case in cases:
        for group in option_groups(case["argv"]):
            assert table.lookup(group[0].split("=", 1)[0]) is not None, (case["id"], group)
