"""The files hand-checked for issue #33 (tests/data/lint/handchecked.json, SOURCES.md): check
each copy as its own repository would and compare with the findings recorded and judged true, so
a regression or a new false positive fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.lint.conftest import Run, findings

DATA = Path(__file__).parents[1] / "data" / "lint"


def test_every_hand_checked_file_gives_exactly_its_recorded_true_findings(
        check: Run, tmp_path: Path) -> None:
    recorded = json.loads((DATA / "handchecked.json").read_text())["files"]
    assert len(recorded) >= 50
    for entry in recorded:
        assert all(f["verdict"] == "true" for f in entry["findings"]), entry["path"]
        copy = tmp_path / entry["copy"]
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / entry["copy"], copy)
    for root in {Path(e["copy"]).parts[0] for e in recorded}:
        for entry in (e for e in recorded if Path(e["copy"]).parts[0] == root):
            rel = str(Path(entry["copy"]).relative_to(root))
            _, out, _ = check("-o", "json", "--fail-on", "never", f"{root}/{rel}")  # one file
            got = sorted((f["id"], f["line"]) for f in findings(out))
            assert got == sorted((f["id"], f["line"]) for f in entry["findings"]), entry["path"]
