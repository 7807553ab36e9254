"""``import cgconfig.rules`` (and ``.cli``, ``.runtime``) works from the repository root, where
the source folder ``cgconfig/`` shadows the installed package; the README's API snippet runs
there after ``pip install .`` and after ``pip install -e .``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]


def readme_api_snippet() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    return code.group(1) + (
        "import cgconfig.rules.loader, cgconfig.cli.main, cgconfig.runtime\n"
        "assert plan.config['decode']['max_bs'] == 64\n"
        "print(cgconfig.rules.loader.__file__)\n")


def run_from_root(python_args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *python_args, "-c", readme_api_snippet()],
                          capture_output=True, text=True, cwd=ROOT, timeout=HANG_S,
                          env={**os.environ, **env})


def test_snippet_runs_from_the_root_with_the_editable_install() -> None:
    out = run_from_root([])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(ROOT / "rules" / "loader.py")


def test_snippet_runs_from_the_root_without_any_mapping() -> None:
    """``-S`` skips site-packages' ``.pth`` files, so no editable finder maps the subpackages:
    exactly what ``import cgconfig`` from the root sees after a plain ``pip install .``."""
    site = sysconfig.get_paths()["purelib"]
    out = run_from_root(["-S"], PYTHONPATH=site)
    assert out.returncode == 0, out.stderr


def test_snippet_runs_from_the_root_after_pip_install(tmp_path: Path) -> None:
    """A real non-editable install (into a target folder), then the snippet from the root. The
    build runs on a copy, so the checkout gets no build/ folder."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("cgconfig", "rules", "cli", "runtime"):
        shutil.copytree(ROOT / folder, source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                            "--no-build-isolation", "--target", str(target), str(source)],
                           capture_output=True, text=True, timeout=HANG_S,
                           cwd=tmp_path)
    if build.returncode != 0:
        pytest.skip(f"pip cannot build here: {build.stderr.strip().splitlines()[-1:]}")
    assert (target / "cgconfig" / "rules" / "loader.py").is_file()
    site = sysconfig.get_paths()["purelib"]
    out = run_from_root(["-S"], PYTHONPATH=os.pathsep.join([str(target), site]))
    assert out.returncode == 0, out.stderr
