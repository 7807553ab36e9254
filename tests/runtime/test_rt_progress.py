"""Capture progress: a rich bar on a terminal, one log line per size otherwise, per-size times."""

from __future__ import annotations

import io
import logging

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime import PhaseCapture, PhaseRunner, Slot  # noqa: E402
from cgconfig.runtime.progress import CaptureProgress  # noqa: E402


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _runner(progress: bool = True) -> PhaseRunner:
    slots = [Slot("x", torch.float32, trailing=(2,))]
    return PhaseRunner(PhaseCapture("decode", "full", (1, 2, 4)), lambda i: i["x"] * 2, slots,
                       device="cpu", progress=progress)


def test_off_a_terminal_one_log_line_per_size(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="cgconfig.runtime"):
        report = _runner().capture()
    lines = [r.getMessage() for r in caplog.records if "captured size" in r.getMessage()]
    assert [line.split("captured size ")[1].split(" (")[0] for line in lines] == ["4", "2", "1"]
    assert "(3/3)" in lines[-1]
    assert list(report["capture_seconds_by_size"]) == ["1", "2", "4"]
    assert report["group_size"] == 1


def test_progress_false_prints_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="cgconfig.runtime"):
        _runner(progress=False).capture()
    assert not [r for r in caplog.records if "captured size" in r.getMessage()]


def test_on_a_terminal_a_rich_bar(caplog: pytest.LogCaptureFixture) -> None:
    stream = Terminal()
    with caplog.at_level(logging.INFO, logger="cgconfig.runtime"), \
            CaptureProgress("decode", 2, enabled=True, stream=stream) as bar:
        bar.advance(8, 0.25)
        bar.advance(4, 0.125)
    text = stream.getvalue()
    assert "capture decode" in text and "2/2" in text and "size 4: 0.12 s" in text
    assert not [r for r in caplog.records if "captured size" in r.getMessage()]
