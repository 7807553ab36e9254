"""A small fixed sample of round three's campaign (``round_three.py``; the whole campaign is
run by hand): a few CLI cases per family, API calls and CPU runtime calls, all clean."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hostile import round_three as campaign
from tests.hostile import round_three_calls as calls
from tests.hostile import round_three_cases as cases

SEED = 3535


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    warm = tmp_path_factory.mktemp("warm")
    env = {"CGCONFIG_NO_GPU_PROBE": "1", "CGCONFIG_CACHE_DIR": str(warm),
           "PATH": "/usr/bin:/bin"}
    subprocess.run([*campaign.CGCONFIG, "resolve"], capture_output=True, env=env, check=False)
    return warm


@pytest.mark.parametrize("family", list(cases.FAMILIES))
def test_cli_sample_is_clean(family: str, warm_cache: Path, tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}-{family}")
    for case in cases.FAMILIES[family](rng, 2):
        verdict, detail = campaign.run_cli(case, warm_cache, tmp_path)
        assert verdict == "clean", (detail, case.args[:20])
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_api_sample_is_clean() -> None:
    counts = calls.run_api(200, SEED)["api"]
    assert counts["clean"] == counts["cases"] == 200, counts


def test_runtime_sample_is_clean() -> None:
    pytest.importorskip("torch")
    counts = calls.run_runtime(60, SEED)["runtime"]
    assert counts["clean"] == counts["cases"] == 60, counts


def test_a_broken_answer_is_not_clean() -> None:
    """The classifier can fail: a traceback, two error lines, a raw escape are not clean."""
    case = cases.Case("x", ["resolve"])
    assert campaign.classify(1, b"", b"Traceback (most recent call last):\n", case)[0] == \
        "traceback"
    assert campaign.classify(2, b"", b"cgconfig: error: a\ncgconfig: error: b\n", case)[0] == \
        "other"
    assert campaign.classify(0, b"\x1b[2J", b"", case)[0] == "control"
    assert campaign.classify(2, b"", b"cgconfig: error: a\n", case)[0] == "clean"
