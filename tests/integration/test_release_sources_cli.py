"""Issue #37 "What done means" item 2 through the CLI, with the issue's own examples: the release
a line is answered for comes from ``--engine-version``, the environment, a log, an image tag
(with suffixes, or a digest), a pip pin in the line's file, the installed engine, and else the
line's own flags; a release outside the range is one line naming the range and
``--engine-version``. The API-level tests (tests/engines/test_release_from_flags.py,
test_version_selection.py, tests/files/test_pins.py) test each reader; these run the command a
user runs and read what it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.line import version_source
from cgconfig.line.versions import SUPPORTED, label, newest

SGLANG = ["python", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]
VLLM = ["vllm", "serve", "m", "--gpu-memory-gib", "80", "--model-arch", "LlamaForCausalLM"]
DIGEST = "sha256:" + "0123456789abcdef" * 4


def _range(engine: str) -> str:
    return f"{label(engine, SUPPORTED[engine][0])} to {SUPPORTED[engine][-1]}"


def resolved(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    """The plan's ``engine_version`` and what went to stderr."""
    code = main(["resolve", "-o", "json", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    plan = json.loads(out)
    if isinstance(plan, list):  # --from FILE: one entry per launch
        (plan,) = [entry["result"] for entry in plan]
    return plan["engine_version"], err


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of a refused command."""
    code = main(["resolve", *argv])
    err = capsys.readouterr().err
    lines = [row for row in err.splitlines() if row.startswith("cgconfig: error:")]
    assert code == 2 and len(lines) == 1, err
    return lines[0]


@pytest.fixture(autouse=True)
def _nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(version_source.ENV_VAR, raising=False)
    monkeypatch.setattr(version_source, "installed_version", lambda engine, read_text: None)


def test_engine_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    got, _ = resolved(["--engine-version", "sglang==0.5.12", *SGLANG], capsys)
    assert (got["version"], got["source"]) == ("0.5.12", "--engine-version")


def test_the_environment(monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(version_source.ENV_VAR, "sglang==0.5.12,vllm==0.15.1")
    got, _ = resolved(SGLANG, capsys)
    assert (got["version"], got["source"]) == ("0.5.12", version_source.ENV_VAR)
    got, _ = resolved(VLLM, capsys)
    assert got["version"] == "0.15.1"


@pytest.mark.parametrize(("image", "version"), [
    ("lmsysorg/sglang:v0.5.15-cu129", "0.5.15"),
    (f"lmsysorg/sglang:v0.5.15-cu129@{DIGEST}", "0.5.15"),
])
def test_an_image_tag_with_suffixes(image: str, version: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    got, _ = resolved(["docker", "run", "--gpus", "all", image, *SGLANG], capsys)
    assert got["version"] == version and got["source"] == f"docker image {image}"


def test_a_digest_alone_names_no_release(capsys: pytest.CaptureFixture[str]) -> None:
    got, err = resolved(["docker", "run", f"lmsysorg/sglang@{DIGEST}", *SGLANG], capsys)
    assert got["version"] == newest("sglang")
    assert "a digest names no release" in err and "--engine-version" in err


def test_an_image_tag_below_the_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["docker", "run", "lmsysorg/sglang:v0.5.5.post3-cu129-amd64", *SGLANG],
                   capsys)
    assert "SGLang v0.5.5.post3 (docker image lmsysorg/sglang:v0.5.5.post3-cu129-amd64)" in line
    assert _range("sglang") in line and "--engine-version sglang==VERSION" in line


@pytest.mark.parametrize(("pin", "engine", "line"), [
    ('pip install "sglang[all]==0.4.2.post4"', "sglang", SGLANG),
    ("pip install vllm==0.10.1+gptoss", "vllm", VLLM),
])
def test_a_pip_pin_in_the_lines_file(pin: str, engine: str, line: list[str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\n{pin}\n{' '.join(line)}\n", encoding="utf-8")
    pinned = pin.split()[-1].strip('"')
    version = pinned.split("==")[1]
    if version.split("+")[0] in SUPPORTED[engine]:  # once supported, it is answered for
        got, _ = resolved(["--from", str(script)], capsys)
        assert got["version"] == version.split("+")[0] and "pip pin" in got["source"]
        return
    error = refused(["--from", str(script)], capsys)
    assert f"{label(engine, version)} (pip pin {pinned} (" in error
    assert _range(engine) in error and f"--engine-version {engine}==VERSION" in error
    pinned_ok = script.read_text().replace(version, SUPPORTED[engine][-2])
    script.write_text(pinned_ok, encoding="utf-8")
    got, _ = resolved(["--from", str(script)], capsys)
    assert got["version"] == SUPPORTED[engine][-2] and "pip pin" in got["source"]


def test_the_installed_engine(monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(version_source, "installed_version",
                        lambda engine, read_text: "0.15.1" if engine == "vllm" else None)
    got, _ = resolved(VLLM, capsys)
    assert (got["version"], got["source"]) == ("0.15.1", "installed package vllm")
    monkeypatch.setattr(version_source, "installed_version",
                        lambda engine, read_text: "0.9.2" if engine == "vllm" else None)
    line = refused(VLLM, capsys)
    assert "vLLM 0.9.2 (installed package vllm)" in line and _range("vllm") in line
    assert "--engine-version vllm==VERSION (or CGCONFIG_ENGINE_VERSION) overrides it" in line
    got, _ = resolved(["--engine-version", "0.15.1", *VLLM], capsys)
    assert got["version"] == "0.15.1"


def test_a_log_names_the_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = Path(__file__).resolve().parents[1] / "data" / "verify_logs" / \
        "vllm_0.26.0_mrv2_t4.log"
    code = main(["verify", str(source), "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 4) and out["release"]["version"] == "0.26.0"
    assert out["release"]["source"] == version_source.LOG_SOURCE


def test_a_line_with_no_version_is_answered_for_the_newest_release_that_parses_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    got, err = resolved([*SGLANG, "--cuda-graph-max-bs", "128"], capsys)
    assert (got["version"], got["source"]) == ("0.5.19", "the line's flags")
    notes = [row for row in err.splitlines() if "parses on" in row]
    assert notes == ["cgconfig: note: this line parses on SGLang ≤ 0.5.19: answered for 0.5.19 "
                     "(from --cuda-graph-max-bs; --engine-version names another)"]
    got, err = resolved([*VLLM, "--cuda-graph-sizes", "8", "16"], capsys)
    assert got["source"] == "the line's flags" and "this line parses on vLLM ≤" in err
    got, err = resolved(SGLANG, capsys)  # every flag parses on the newest: no note
    assert got["version"] == newest("sglang") and "parses on" not in err
