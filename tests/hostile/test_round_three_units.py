"""Issue #35, hostile input round three, in process: one test per cause (S1, O4, M1, M7-M11,
round two's families), each against the mechanism that fixes it."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cgconfig import limits
from cgconfig.cli.main import main
from cgconfig.engines.sglang.tune_log import histogram_from_lines as sglang_histogram
from cgconfig.engines.vllm.tune_log import histogram_from_lines as vllm_histogram
from cgconfig.errors import InputError
from cgconfig.safe_write import write_text
from cgconfig.tune import histogram
from cgconfig.verify import record
from cgconfig.verify import text as log_text
from tests.bounds import HANG_S

# ------------------------------------------------------------------ S1, O4: the one writer


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604, 0o755])
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "h.json"
    target.write_text("old")
    target.chmod(mode)
    old = os.umask(0o022)
    try:
        write_text(target, "new", where="-o")
    finally:
        os.umask(old)
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_0666_less_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        write_text(tmp_path / "h.json", "new", where="-o")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "h.json").stat().st_mode) == 0o666 & ~umask


_SIGNALLED_WRITE = """
import os, signal, sys
import cgconfig.safe_write as sw
# As in a terminal (a background job of a script inherits SIGINT ignored): default handlers,
# or SIG_IGN for the signal when the test says so.
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
if sys.argv[4] == "ignored":
    signal.signal(getattr(signal, sys.argv[2]), signal.SIG_IGN)
real = os.fsync
SIGNAL = getattr(signal, sys.argv[2])
def interrupted(fd):  # the signal arrives while the temporary exists, as a kill would
    os.kill(os.getpid(), SIGNAL)
    real(fd)
os.fsync = interrupted
from cgconfig.cli.main import console_main  # the console script's entry: Ctrl-C is exit 130
sys.argv = ["cgconfig", "histogram", "--sglang-log", sys.argv[3], "-o", sys.argv[1]]
console_main()
"""


@pytest.mark.parametrize(("name", "status", "handler"), [
    ("SIGTERM", -15, "default"), ("SIGHUP", -1, "default"), ("SIGINT", 130, "default"),
    ("SIGHUP", 0, "ignored"), ("SIGINT", 0, "ignored")])
def test_a_signal_during_the_write_leaves_no_temporary(tmp_path: Path, name: str,
                                                       status: int, handler: str) -> None:
    """A signal that ends the process removes the temporary first (and the process still ends
    by that signal); one the process ignores (``nohup``) stays ignored and the write completes."""
    log = tmp_path / "s.log"
    log.write_text("[2026-01-01 TP0] Decode batch, #running-req: 8, #token: 9\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "h.json").write_text("before")
    done = subprocess.run([sys.executable, "-c", _SIGNALLED_WRITE, str(out / "h.json"), name,
                           str(log), handler], capture_output=True, text=True,
                          timeout=HANG_S, check=False)
    assert done.returncode == status, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["h.json"]  # no .h.json.<pid>.<hex>.tmp
    written = json.loads((out / "h.json").read_text()) if status == 0 else None
    if status:  # the write did not happen, nor half of it
        assert (out / "h.json").read_text() == "before"
    else:
        assert written is not None and written["phases"] == {"decode": {"8": 40}}


def test_every_writer_goes_through_safe_write() -> None:
    """No module of the product writes a file another way (a grep that fails on a new one)."""
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for folder in ("cgconfig", "cli", "runtime", "rules"):
        for path in (root / folder).rglob("*.py"):
            if path.name == "safe_write.py":
                continue
            source = path.read_text(encoding="utf-8")
            for needle in (".write_text(", ".write_bytes(", 'open(path, "w', "os.replace(",
                           "os.rename(", "json.dump(", "O_CREAT"):
                if needle in source:
                    offenders.append(f"{path.relative_to(root)}: {needle}")
    assert offenders == []


# ---------------------------------------------------------------- M1: the one line reader

@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64 * 1024])
def test_lf_cr_and_crlf_end_a_line_alike_at_any_chunk_boundary(
        chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_text, "_CHUNK", chunk)
    data = "a\rb\r\nc\nd\r\r\ne\u00e9\n\nf".encode()
    assert list(log_text.read_lines(io.BytesIO(data), "x")) == [
        "a", "b", "c", "d", "", "e\u00e9", "", "f"]


def test_an_overlong_line_is_cut_and_the_rest_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_text, "_CHUNK", 1000)
    data = b"x" * (3 * log_text.MAX_LINE) + b"\rnext\n"
    assert [len(s) for s in log_text.read_lines(io.BytesIO(data), "x")] == [log_text.MAX_LINE, 4]


def test_stdin_is_read_by_the_same_reader(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    data = b"[x TP0] Decode batch, #running-req: 18, #token: 1\r" \
           b"[x TP0] Decode batch, #running-req: 3, #token: 1\r"
    (tmp_path / "cr.log").write_bytes(data)
    by_path = list(log_text.open_log(str(tmp_path / "cr.log"), "log"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), newline="\n"))
    assert list(log_text.open_log("-", "stdin")) == by_path and len(by_path) == 2


# ----------------------------------------------- M10: a metrics table is not cut by one line

_TABLE = ["(EngineCore_DP0 pid=2) INFO 11-01 10:00:10 [loggers.py:259] **CUDAGraph Config "
          "Settings:**", "", "- Mode: FULL_AND_PIECEWISE", "- Capture sizes: [1, 2, 4, 8, 16]",
          "", "**CUDAGraph Stats:**", "",
          "| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |",
          "|-----------------|---------------|--------------|--------------|-------|",
          "| 3               | 4             | 1            | FULL         | 120   |"]


@pytest.mark.parametrize("between", [
    [""], ["(APIServer pid=1) INFO 11-01 10:00:10 [api_server.py:1] GET /metrics 200"],
    ["", "(APIServer pid=1) INFO a line from another process", ""]])
def test_a_blank_or_interleaved_line_does_not_drop_the_rest_of_the_table(
        between: list[str]) -> None:
    rows = ["| 16              | 16            | 0            | FULL         | 30    |",
            "| 40              | 40            | 0            | NONE         | 5     |"]
    hist = vllm_histogram([*_TABLE, *between, *rows])
    assert hist.phases == {"decode": {3: 120, 16: 30, 40: 5}}


def test_rows_that_vllm_does_not_write_are_not_counted() -> None:
    bad = ["| 3 | 9 | 1 | FULL | 7 |", "| 3x | 4 | 1 | FULL | 7 |", "| 3 | 4 | 1 | WHAT | 7 |"]
    assert vllm_histogram([*_TABLE, *bad]).phases == {"decode": {3: 120}}


# ---------------------------------------------------- M8, M9, O7: one bound for both sides

def test_one_step_bound_and_one_count_bound() -> None:
    assert histogram.MAX_SIZE == record.MAX_STEP_SIZE == limits.MAX_STEP_SIZE
    assert histogram.MAX_COUNT == limits.MAX_STEP_COUNT


def _row(size: int, count: int) -> str:
    return f"| {size} | {size} | 0 | FULL | {count} |"


def test_vllm_steps_above_the_bound_are_refused_not_dropped() -> None:
    with pytest.raises(InputError, match="above the limit of 1048576 tokens"):
        vllm_histogram([*_TABLE, _row(limits.MAX_STEP_SIZE + 1, 5)])


def test_what_histogram_writes_tune_reads() -> None:
    most = 10**log_text.MAX_DIGITS - 1  # the largest count one row can hold
    tables = -(-limits.MAX_STEP_COUNT // most) + 1  # tables add up: past the count bound
    with pytest.raises(InputError, match="per size"):
        vllm_histogram([*_TABLE[:-1], *[*_TABLE[7:9], _row(8, most)] * tables])
    hist = vllm_histogram([*_TABLE[:-1], *[*_TABLE[7:9], _row(limits.MAX_STEP_SIZE, most)] * 9])
    assert histogram.loads(histogram.dumps(hist), "h").phases == hist.phases


@pytest.mark.parametrize("lines", [[*_TABLE[:-1], _row(0, 9)],
                                   ["[x TP0] Decode batch, #running-req: 0, #token: 0"]])
def test_a_log_of_size_0_steps_is_an_error_not_an_empty_histogram(lines: list[str]) -> None:
    convert = vllm_histogram if lines[0].startswith("(Engine") else sglang_histogram
    with pytest.raises(InputError, match=r"size 0|0 tokens"):
        convert(lines)


# ------------------------------------------------- M11: SGLang step sizes are read whole

@pytest.mark.parametrize("value", ["1_0", "1e309", "12.5", "\u0663", "\uff18", "8x", "-3",
                                   "0x8"])
def test_sglang_step_sizes_are_read_whole_or_skipped_with_a_note(value: str) -> None:
    hist = sglang_histogram([f"[x TP0] Decode batch, #running-req: {value}, #token: 1",
                             "[x TP0] Decode batch, #running-req: 7, #token: 1",
                             f"[x TP0] Prefill batch, #new-seq: 1, #new-token: {value}"])
    assert hist.phases == {"decode": {7: 40}}
    assert hist.notes and "skipped 2 step lines" in hist.notes[0]


def test_size_after_reads_the_whole_value() -> None:
    size = log_text.size_after
    assert size("#running-req: 18, #token: 1", "#running-req:") == 18
    assert size("#running-req: 18", "#running-req:") == 18
    assert size("#running-req: 1_0, x", "#running-req:") == log_text.MALFORMED
    assert size("#running-req: " + "9" * 40, "#running-req:") == log_text.TOO_LONG
    assert size("#token: 1", "#running-req:") is None


# ---------------------------------------------------- round two's families: bounded work

def _cpu(call: object) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return time.process_time() - start


def test_tune_on_many_distinct_sizes_grows_linearly(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def run(n: int) -> float:
        path = tmp_path / f"h{n}.json"
        path.write_text(json.dumps({"schema_version": 1, "phases": {
            "decode": {str(s): 1 for s in range(1, n + 1)}}}))
        line = ["tune", "--histogram", str(path), "--gpu-memory-gib", "80", "python", "-m",
                "sglang.launch_server", "--model-path", "m", "-o", "json"]
        cost = _cpu(lambda: main(line))
        assert json.loads(capsys.readouterr().out)["tune"]
        return cost

    run(1000)  # imports and caches warm
    small, large = run(10_000), run(100_000)
    assert large < 20 * small + 0.5, (small, large)  # linear: ~10x; quadratic would be 100x


def test_thousands_of_unknown_flags_cost_linear_work(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    hist = tmp_path / "h.json"
    hist.write_text('{"schema_version": 1, "phases": {"decode": {"8": 4}}}')

    def run(n: int, command: str) -> float:
        head = ["tune", "--histogram", str(hist)] if command == "tune" else ["resolve"]
        line = [*head, "python", "-m", "sglang.launch_server", "--model-path", "m",
                "--gpu-memory-gib", "80", "--ignore-unknown-args", *["--x"] * n]
        cost = _cpu(lambda: main(line))
        assert "cgconfig: error" not in capsys.readouterr().err
        return cost

    for command in ("resolve", "tune"):
        run(100, command)
        small, large = run(3_000, command), run(30_000, command)
        assert large < 20 * small + 0.5, (command, small, large)
