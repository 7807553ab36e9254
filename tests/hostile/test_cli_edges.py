"""The process edges: Ctrl-C, readers that leave, closed or full stdout, odd encodings, and
user text that looks like rich markup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.harness import (
    ADDRESS_SPACE_BYTES,
    TIMEOUT_S,
    _limit_memory,
    assert_one_line_exit_2,
    base_env,
    run_cli,
)


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    return base_env(cache)


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path, env: dict[str, str]) -> None:
    # The interrupt arrives while main() runs, as a real Ctrl-C would.
    code = ("import cgconfig.cli.main as m\n"
            "def interrupted():\n    raise KeyboardInterrupt\n"
            "m.main = interrupted\nm.console_main()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S,
                          preexec_fn=_limit_memory, check=False)
    assert done.returncode == 130
    assert done.stderr.strip().splitlines() == ["cgconfig: interrupted"]
    assert ADDRESS_SPACE_BYTES == 1 << 30


@pytest.mark.parametrize("args", [["resolve"], ["resolve", "-o", "json"],
                                  ["explain", "--all"], ["rules", "list"]],
                         ids=" ".join)
def test_a_reader_that_leaves_is_a_quiet_success(tmp_path: Path, env: dict[str, str],
                                                 args: list[str]) -> None:
    result = run_cli(args, cwd=tmp_path, env=env, shell_pipe="true")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize("args", [["resolve"], ["resolve", "-o", "json"], ["explain"],
                                  ["rules", "list"], ["version"], ["schema"]], ids=" ".join)
def test_full_stdout_is_one_line_exit_2(tmp_path: Path, env: dict[str, str],
                                        args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        result = run_cli(args, cwd=tmp_path, env=env, stdout=full.fileno())
    assert_one_line_exit_2(result, " ".join(args))
    assert "cannot write output" in result.stderr


@pytest.mark.parametrize("args", [["resolve"], ["rules", "list"], ["version"]], ids=" ".join)
def test_closed_stdout_is_one_line_exit_2(tmp_path: Path, env: dict[str, str],
                                          args: list[str]) -> None:
    from tests.hostile.harness import CGCONFIG

    done = subprocess.run(["bash", "-c", '"$@" >&-', "bash", *CGCONFIG, *args], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_ascii_stdout_still_gets_valid_json(tmp_path: Path, env: dict[str, str]) -> None:
    result = run_cli(["resolve", "-o", "json"], cwd=tmp_path,
                     env={**env, "PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout.decode("ascii"))


def test_markup_in_a_path_is_shown_verbatim(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "x[/red]" / "[prod]"
    folder.mkdir(parents=True)
    config = folder / "c.json"
    config.write_text('{"decode": {"max_bs": 8}}', encoding="utf-8")
    result = run_cli(["resolve", "--cuda-graph-config", str(config)], cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert "[prod]" in result.stdout.decode("utf-8")


def test_markup_in_a_pack_title_is_shown_verbatim(tmp_path: Path, env: dict[str, str]) -> None:
    from tests.hostile.catalogue import pack

    path = tmp_path / "p.yaml"
    path.write_text(pack("{eq: {path: facts.tp_size, value: 1}}", "[{warn: true}]",
                         title="[/]"), encoding="utf-8")
    env = {**env, "COLUMNS": "200"}
    result = run_cli(["rules", "list", "--rules", str(path)], cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8")
    assert "h.rule" in out and "[/]" in out


@pytest.mark.parametrize("cword", ["\u00b2", "\u0668", "9" * 5000, "-1", ""])
def test_completion_ignores_a_word_index_that_is_not_a_small_ascii_number(cword: str) -> None:
    from cgconfig.cli.main import main

    assert main(["__complete", cword, "resolve"]) == 2
