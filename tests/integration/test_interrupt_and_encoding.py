"""The process edges (#35): Ctrl-C inside a typer command is one "interrupted" line and exit 130
every time (O5: typer turned it into a silent 130); an output encoding that is not ASCII-
compatible (``PYTHONIOENCODING=utf-16``) never puts NUL bytes on the terminal; ``__complete``
with nothing to complete says so in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CGCONFIG = [sys.executable, "-c", "from cgconfig.cli.main import console_main; console_main()"]
LOG_LINE = b"[2026-01-01 00:00:00] Decode batch. #running-req: 3, #token: 100, cuda graph: True\n"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CGCONFIG_", "PYTHONIO"))}
    (tmp_path / "hf").mkdir(exist_ok=True)
    return {**env, "CGCONFIG_CACHE_DIR": str(tmp_path / "cache"), "HF_HOME": str(tmp_path / "hf"),
            "CGCONFIG_NO_GPU_PROBE": "1", **extra}


def _reading_stdin(pid: int) -> bool:
    """Whether the process is blocked in read(0, ...) (Linux ``/proc/PID/syscall``): it is
    inside the command, past start-up, waiting for the rest of its log."""
    try:
        return Path(f"/proc/{pid}/syscall").read_text().split()[:2] == ["0", "0x0"]
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/syscall").exists(), reason="needs /proc/PID/syscall")
@pytest.mark.parametrize("lines", [1, 500])
@pytest.mark.parametrize("command", [
    ["histogram", "--sglang-log", "-"],
    ["verify", "-", "--", "python3", "-m", "sglang.launch_server", "--model-path", "m"],
])
def test_ctrl_c_inside_a_typer_command_is_one_line_and_130(
        tmp_path: Path, command: list[str], lines: int) -> None:
    proc = subprocess.Popen([*CGCONFIG, *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env(tmp_path))
    assert proc.stdin is not None
    proc.stdin.write(LOG_LINE * lines)
    proc.stdin.flush()
    polls = 0
    while not _reading_stdin(proc.pid) and proc.poll() is None and polls < 6000:
        time.sleep(0.01)  # a readiness poll, not a bound on cost
        polls += 1
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    assert (proc.returncode, err) == (130, b"cgconfig: interrupted\n")


@pytest.fixture
def sigint_restored() -> Iterator[None]:
    """console_main ignores a second Ctrl-C once it reports one: give pytest its handler back."""
    saved = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, saved)


def _interrupt(*args: object, **kwargs: object) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize(("module", "name", "argv"), [
    ("cgconfig.cli.tune_cmd", "run_tune", ["tune", "--histogram", "h.json"]),  # inside typer
    ("cgconfig.cli.resolve_cmd", "run_resolve", ["resolve", "--tp", "2"]),  # the fast path
    ("cgconfig.cli.main", "_prepare_streams", ["version"]),  # before any command
    ("cgconfig.cli.app", "run_app", ["version"]),
])
def test_ctrl_c_at_each_point_is_one_line_and_130(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        sigint_restored: None, module: str, name: str, argv: list[str]) -> None:
    import importlib

    from cgconfig.cli.main import console_main

    monkeypatch.setattr(importlib.import_module(module), name, _interrupt)
    monkeypatch.setattr(sys, "argv", ["cgconfig", *argv])
    with pytest.raises(SystemExit) as exited:
        console_main()
    assert exited.value.code == 130
    assert capsys.readouterr().err == "cgconfig: interrupted\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-16-le", "cp037"])
def test_an_encoding_that_is_not_ascii_compatible_never_reaches_the_terminal(
        tmp_path: Path, encoding: str) -> None:
    done = subprocess.run([*CGCONFIG, "resolve", "--tp", "x"], capture_output=True,
                          env=_env(tmp_path, PYTHONIOENCODING=encoding), check=False)
    assert b"\0" not in done.stderr
    assert done.stderr.startswith(b"cgconfig: error: --tp:") and done.stderr.count(b"\n") == 1
    assert done.returncode == 2
    plan = subprocess.run([*CGCONFIG, "resolve", "--tp", "2"], capture_output=True,
                          env=_env(tmp_path, PYTHONIOENCODING=encoding), check=False)
    assert plan.returncode == 0 and b"\0" not in plan.stdout
    assert plan.stdout.startswith(b"cgconfig plan")


def test_an_ascii_compatible_encoding_is_kept(tmp_path: Path) -> None:
    done = subprocess.run([*CGCONFIG, "resolve", "--tp", "é"], capture_output=True,
                          env=_env(tmp_path, PYTHONIOENCODING="latin-1"), check=False)
    assert done.returncode == 2 and b"\0" not in done.stderr
    assert done.stderr.startswith(b"cgconfig: error: --tp:") and done.stderr.count(b"\n") == 1


@pytest.mark.parametrize("argv", [[], ["x"], ["²"], ["1234567"]])
def test_complete_without_a_word_index_is_one_error_line(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    from cgconfig.cli.main import main

    assert main(["__complete", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cgconfig: error: __complete: expects CWORD") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["verify"], ["verify", "--"]])
def test_bare_verify_is_one_error_line(capsys: pytest.CaptureFixture[str],
                                       argv: list[str]) -> None:
    """Found by round three's argv-shape family (also #35 O8): usage and exit 2, no error."""
    from cgconfig.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cgconfig: error: cgconfig verify: LOG is required (a file, or - for "
                          "standard input)") and err.count("\n") == 1
