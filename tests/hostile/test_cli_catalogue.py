"""Every CLI row of the catalogue: exit 2, one stderr line, no traceback, within bounds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.catalogue import CLI_CASES, DIR, FIFO, Case
from tests.hostile.harness import Result, assert_one_line_exit_2, base_env, run_many


def materialize(case: Case, root: Path) -> Path:
    """Create the row's files in its own directory; returns the directory."""
    where = root / case.id
    where.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        path = where / name
        if content == FIFO:
            os.mkfifo(path)
        elif content == DIR:
            path.mkdir()
        elif isinstance(content, tuple):
            path.symlink_to(content[1])
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return where


def _args(case: Case, where: Path) -> list[Any]:
    return [a.replace("{d}", str(where)) if isinstance(a, str) else a for a in case.args]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    root = tmp_path_factory.mktemp("catalogue")
    cache = root / "cache"
    cache.mkdir(mode=0o700)
    jobs = {}
    for case in CLI_CASES:
        where = materialize(case, root)
        jobs[case.id] = (_args(case, where), {**base_env(cache), **case.env})
    return run_many(jobs, cwd=root)


def test_ids_are_unique() -> None:
    ids = [c.id for c in CLI_CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CLI_CASES, ids=lambda c: c.id)
def test_bad_input_is_one_line_and_exit_2(case: Case, results: dict[str, Result]) -> None:
    result = results[case.id]
    assert_one_line_exit_2(result, case.id)
    assert "SECRETHASH" not in result.stderr  # file content is never echoed
    assert b"SECRETHASH" not in result.stdout
