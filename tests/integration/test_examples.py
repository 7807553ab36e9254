"""The examples run as documented (the launch script with a stand-in server command)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = ROOT / "examples" / "launch_sglang.sh"
needs_cli = pytest.mark.skipif(shutil.which("cgconfig") is None, reason="cgconfig not on PATH")


def _run(cmd: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=HANG_S)


@needs_cli
def test_launch_script_execs_the_server_with_resolved_flags() -> None:
    out = _run([str(LAUNCH), "--model-path", "m", "--tp-size", "8", "--port", "30000",
                "--cuda-graph-max-bs-decode", "64"], SGLANG_SERVER_CMD="echo SERVER")
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line.startswith("SERVER --model-path m --tp-size 8 --port 30000 --cuda-graph-config ")
    assert "--cuda-graph-max-bs-decode" not in line  # replaced by the resolved JSON
    assert '"bs":[1,2,4,8,12,16,24,32,40,48,56,64]' in line


@needs_cli
def test_launch_script_refuses_a_silent_downgrade() -> None:
    out = _run([str(LAUNCH), "--model-path", "m", "--disaggregation-mode", "prefill"],
               SGLANG_SERVER_CMD="echo SERVER", CGCONFIG_CHECK="any")
    assert out.returncode == 10
    assert "SERVER" not in out.stdout
    assert "role.prefill-instance-no-decode" in out.stderr


@needs_cli
def test_launch_script_fails_fast_on_bad_input() -> None:
    out = _run([str(LAUNCH), "--model-path", "m", "--cuda-graph-max-bs-decode", "abc"],
               SGLANG_SERVER_CMD="echo SERVER")
    assert out.returncode == 2
    assert "expected an integer, got 'abc'" in out.stderr


def test_embed_argparse_example() -> None:
    out = _run([sys.executable, "examples/embed_argparse.py", "--model-path", "m",
                "--tp-size", "8", "--cuda-graph-max-bs-decode", "128",
                "--disaggregation-mode", "decode"])
    assert out.returncode == 0, out.stderr
    assert "decode: backend=full" in out.stdout
    assert "prefill: backend=disabled" in out.stdout
    assert "role.decode-instance-no-prefill" in out.stdout


def test_api_example() -> None:
    out = _run([sys.executable, "examples/api_resolve.py"])
    assert out.returncode == 0, out.stderr
    assert "object: locked ['decode.max_bs'] decode disabled" in out.stdout


@needs_cli
def test_readme_main_job() -> None:
    out = _run(["cgconfig", "resolve", "--deployment", "examples/deployment.yaml",
                "--cuda-graph-config", "examples/graph_config.yaml", "-o", "json"])
    assert out.returncode == 0, out.stderr
    assert '"schema_version": 1' in out.stdout
