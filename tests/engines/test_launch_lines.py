"""Real launch lines from the engines' docs, cookbooks and recipes split cleanly under their tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cgconfig.engines import find_entry_point, split_line

LINES = Path(__file__).resolve().parent.parent / "data" / "launch_lines" / "lines.jsonl"
ENTRIES: list[dict[str, Any]] = [json.loads(line) for line in LINES.read_text().splitlines() if line.strip()]


def test_the_corpus_is_large_and_sourced() -> None:
    assert len(ENTRIES) >= 40
    assert {e["engine"] for e in ENTRIES} == {"sglang", "vllm", "trtllm"}
    assert len({e["line"] for e in ENTRIES}) == len(ENTRIES)
    for entry in ENTRIES:
        assert entry["source"].startswith("https://"), entry["id"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_line_splits_with_no_unknown_flag(entry: dict[str, Any]) -> None:
    found = find_entry_point(entry["line"])
    assert found is not None and found.dialect == entry["engine"]
    split = split_line(found.dialect, found.argv)
    assert split.errors == [], [str(e) for e in split.errors]


SGLANG = [e for e in ENTRIES if e["engine"] == "sglang"]


@pytest.mark.parametrize("entry", SGLANG, ids=[e["id"] for e in SGLANG])
def test_sglang_line_has_the_engines_answer(entry: dict[str, Any]) -> None:
    oracle = entry["oracle"]
    answer = oracle["answer"]
    # SGLang's own argparse accepted every recorded line, as split_line does.
    assert answer["error_stage"] != "argparse"
    assert "--model-arch" in oracle["options"]
    if answer["error"] is None:
        assert answer["decode"]["backend"] in ("full", "breakable", "disabled")
        assert answer["prefill"]["backend"] in ("full", "breakable", "disabled")
