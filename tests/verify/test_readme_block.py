"""The README's "Check a running server" example prints what the README shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cgconfig.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_example_is_real(capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Check a running server", 1)[1].split("\n## ", 1)[0]
    (command, shown), = re.findall(r"```console\n\$ (.*?)\n(.*?)```", section, re.S)
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[:2] == ["cgconfig", "verify"]
    assert main(argv[1:]) == 4  # warn: 240 steps ran without a graph
    assert capsys.readouterr().out == shown
