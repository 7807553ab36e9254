"""One pass over a log: every engine's reader sees each line; the one that recognised most wins.

A log in no known format is an :class:`InputError` naming what was looked for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from cgconfig.errors import InputError
from cgconfig.line.plugins import PACKAGES, part
from cgconfig.line.versions import NAMES
from cgconfig.verify.record import LogRecord, rank_of
from cgconfig.verify.text import open_log, strip_escapes

LOOKED_FOR = ("SGLang 'Capture ... CUDA graph' / 'Decode batch' / 'server_args='",
              "vLLM 'Capturing CUDA graphs' / 'Graph capturing finished' / 'non-default args:'",
              "TensorRT-LLM 'Creating CUDA graph instances' / 'CUDA graph warmup for batch size='")


#: Words of an error that stops a capture (Python's traceback, CUDA's and PyTorch's errors,
#: SGLang's ``Capture cuda graph failed``), whatever the engine.
CRASH_MARKERS = ("Traceback (most recent call last)", "CUDA error", "CUDA out of memory",
                 "OutOfMemoryError", "Capture cuda graph failed", "cudaErrorStreamCapture")
MAX_ERRORS = 8


def _capture_problems(record: LogRecord, errors: list[tuple[int, str]]) -> None:
    """An error after the first capture line is a crash during capture (named with the
    progress a bar had reached); a bar that stopped before its total with no error after it
    means the log ends during capture."""
    started = min((c.line for c in record.captures.values() if c.line), default=0)
    stopped = [c for c in record.captures.values() if c.incomplete]
    where = ", ".join(f"{c.group} at {c.done}/{c.count}" for c in stopped)
    after = [(n, t) for n, t in errors if started and n >= started]
    if after:
        # The error's own words (``RuntimeError: CUDA error: ...``) over the traceback header.
        worded = [(n, t) for n, t in after if not t.startswith("Traceback")]
        number, text = (worded or after)[0]
        at = f" ({where})" if where else ""
        record.note_problem("crash", number, f"the capture crashed{at}: {text[:160]}")
    elif stopped:
        last = max(c.line for c in stopped)
        record.note_problem("cut", last, f"the log ends while capturing ({where})")


class LogReader(Protocol):
    """What each engine's ``log_reader.make_reader`` returns: fed every line once."""

    engine: str
    record: LogRecord

    def feed(self, number: int, rank: str, text: str, /) -> bool: ...

    def finish(self) -> LogRecord: ...


def read_lines(lines: Iterable[str], where: str, *, interval: int = 40,
               engine: str | None = None) -> LogRecord:
    """Read a log's lines (already split); ``engine`` restricts the readers to one."""
    readers: list[LogReader] = [part(name, "log_reader")(interval) for name in PACKAGES
                                if engine is None or name == engine]
    count = 0
    errors: list[tuple[int, str]] = []
    for count, raw in enumerate(lines, 1):
        line = strip_escapes(raw)
        rank, start = rank_of(line)
        text = line[start:].lstrip()
        for reader in readers:
            reader.feed(count, rank, text)
        if len(errors) < MAX_ERRORS and any(marker in text for marker in CRASH_MARKERS):
            errors.append((count, text))
    best = max(readers, key=lambda r: r.record.evidence)
    record = best.finish()
    record.lines = count
    _capture_problems(record, errors)
    if record.evidence == 0:
        wanted = [s for s in LOOKED_FOR if engine is None or s.startswith(NAMES[engine])]
        raise InputError(f"no CUDA-graph lines of a known engine in {count:,} lines", where=where,
                         allowed="; ".join(wanted),
                         hint="pass the server's own log (INFO level), from its start")
    return record


def read_log(path: str, *, interval: int = 40, engine: str | None = None,
             flag: str = "LOG") -> LogRecord:
    """Read the log file ``path`` (``-`` for stdin), streamed."""
    where = f"{flag} {path}" if flag else path
    return read_lines(open_log(path, where), where, interval=interval, engine=engine)
