"""docs/engine-tables.md lists every supported release (``versions.SUPPORTED``) with its
table's flag count: the list of releases has one home, and the doc follows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED, label

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine-tables.md"
SECTION = DOC.read_text().split("## Every supported release", 1)[-1].split("\n## ", 1)[0]
ROWS = {row.split("|")[1].strip(): row.split("|")[2].strip()
        for row in SECTION.splitlines() if row.startswith("| ") and "|---" not in row}


@pytest.mark.parametrize(("engine", "release"), [(e, v) for e in ("sglang", "vllm")
                                                  for v in SUPPORTED[e]])
def test_every_release_has_a_row_with_its_flag_count(engine: str, release: str) -> None:
    name = label(engine, release)
    assert name in ROWS, f"docs/engine-tables.md: no row for {name}"
    assert ROWS[name] == str(len(load_table(engine, release).flags)), name


def test_no_row_names_a_release_that_is_not_supported() -> None:
    listed = {label(e, v) for e in ("sglang", "vllm") for v in SUPPORTED[e]}
    assert set(ROWS) - {"release"} <= listed
