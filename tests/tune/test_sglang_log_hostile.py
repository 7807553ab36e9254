"""The SGLang log converter on hostile input: linear time, no int-limit error, ASCII digits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.engines.sglang.tune_log import histogram_from_lines, histogram_from_log
from cgconfig.errors import InputError


def test_repeated_markers_scan_in_linear_time() -> None:
    """30 lines of 'Decode batch ' x 5000 took 40 s with the old regular expression."""
    start = time.process_time()
    with pytest.raises(InputError, match="no 'Decode batch'"):
        histogram_from_lines(["Decode batch " * 5000] * 30)
    assert time.process_time() - start < 1.0


def test_a_huge_number_is_one_error_line() -> None:
    """A 5,000-digit #running-req is past Python's 4,300-digit int limit: no ValueError."""
    with pytest.raises(InputError, match=r"log:2: #running-req a number of more than 12 digits"):
        histogram_from_lines(["Decode batch, #running-req: 3, cuda graph: True",
                              "Decode batch, #running-req: " + "9" * 5000])


def test_non_ascii_digits_are_not_numbers() -> None:
    hist = histogram_from_lines(["Decode batch, #running-req: \u0668, cuda graph: True",
                                 "Decode batch, #running-req: 7, cuda graph: True"], interval=1)
    assert hist.phases == {"decode": {7: 1}}


def test_overlong_lines_and_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "server.log"
    log.write_text("x" * 200_000 + "Decode batch, #running-req: 99\n"
                   "\x1b[32m[2026-01-01 00:00:00 TP0] Decode batch, #running-req: 5, cuda graph: "
                   "True\x1b[0m\n", encoding="utf-8")
    assert histogram_from_log(str(log), interval=1).phases == {"decode": {5: 1}}
    assert main(["histogram", "--sglang-log", str(tmp_path / "nope.log")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
