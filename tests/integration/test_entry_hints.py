"""Entry points and error hints name the line's own engine (#35, "error hints that point at the
wrong engine"; #31, Dynamo's workers as entry points), and a symlink loop on sys.path does not
fail a command (#35 O6)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError


def test_vllm_demo_api_server_is_a_vllm_entry_point() -> None:
    """``python -m vllm.entrypoints.api_server`` takes vLLM's engine arguments."""
    plan = resolve_args(["python", "-m", "vllm.entrypoints.api_server", "--model", "m"])
    assert plan.engine_version is not None and plan.engine_version["engine"] == "vllm"


@pytest.mark.parametrize(("module", "engine", "flags"), [
    ("dynamo.sglang", "sglang", ["--model-path", "m", "--tp-size", "2"]),
    ("dynamo.vllm", "vllm", ["--model", "m", "--tensor-parallel-size", "2"]),
    ("dynamo.trtllm", "trtllm", ["--model-path", "m"]),
])
def test_dynamo_workers_take_their_engines_flags_and_dynamos_own(
        module: str, engine: str, flags: list[str]) -> None:
    """A Dynamo worker's own flag (``--endpoint``) is in no engine table: ignored, listed."""
    plan = resolve_args(["python3", "-m", module, *flags, "--endpoint", "dyn://ns.c.e"])
    assert plan.engine_version is not None and plan.engine_version["engine"] == engine
    assert "--endpoint" in plan.ignored_args


def test_an_unknown_python_module_names_the_entry_points() -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["python3", "-m", "vllm.entrypoints.nosuch", "--model", "m"])
    text = str(raised.value)
    assert "names no engine entry point" in text and "dynamo.vllm" in text
    assert "SGLang" not in text


def test_a_near_miss_on_a_vllm_line_is_a_vllm_flag() -> None:
    """``--cuda-graph-capture-sizes`` is close to vLLM's ``--cudagraph-capture-sizes``, not
    SGLang's ``--cuda-graph-bs`` (``--cuda-graph-sizes`` itself is 0.12.0's flag: such a line
    is answered for 0.12.0)."""
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["vllm", "serve", "m", "--cuda-graph-capture-sizes", "8"])
    assert "--cudagraph-capture-sizes" in str(raised.value)
    assert "--cuda-graph-bs" not in str(raised.value)


def test_a_dist_info_symlink_loop_on_sys_path_fails_no_command(tmp_path) -> None:
    """O6: pydantic's plugin discovery walks every distribution; cgconfig uses no plugin."""
    loop = tmp_path / "sp"
    loop.mkdir()
    (loop / "a.dist-info").symlink_to(loop / "b.dist-info")
    (loop / "b.dist-info").symlink_to(loop / "a.dist-info")
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env.update(PYTHONPATH=str(loop), XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-m", "cgconfig.cli", "resolve", "--tp-size", "2",
                          "-o", "json"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
