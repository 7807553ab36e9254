"""Helpers for the ``cgconfig check`` tests: run the command in-process in a scratch folder."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cgconfig.cli.main import main

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def check(tmp_path: Path, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> Run:
    """``check(*args, files={name: text})`` → (exit code, stdout, stderr), run in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("CGCONFIG_ENGINE_VERSION", raising=False)

    def run(*args: str, files: dict[str, str] | None = None) -> tuple[int, str, str]:
        for name, text in (files or {}).items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        capsys.readouterr()
        code = main(["check", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def findings(out: str) -> list[dict[str, Any]]:
    """The findings of ``-o json`` output."""
    data: dict[str, Any] = json.loads(out)
    found: list[dict[str, Any]] = data["findings"]
    return found


def ids(out: str) -> list[tuple[str, int]]:
    """(id, line) of each finding of ``-o json`` output."""
    return [(f["id"], f["line"]) for f in findings(out)]


def no_probe() -> None:
    """The check never probes this machine's GPUs."""
    assert os.environ.get("CGCONFIG_NO_GPU_PROBE") == "1"
