"""Show capture progress: a rich progress bar on a terminal, one log line per size otherwise.

Capturing dozens of sizes of a large model takes minutes, and with several ranks each would
print the same thing; only the reporting rank (global rank 0, or a process without a group)
shows anything.
"""

from __future__ import annotations

import logging
import sys
from types import TracebackType
from typing import Any

logger = logging.getLogger("cgconfig.runtime")


class CaptureProgress:
    """Context manager around a capture loop; call :meth:`advance` after each size."""

    def __init__(self, phase: str, total: int, *, enabled: bool, stream: Any = None) -> None:
        self.phase = phase
        self.total = total
        self.enabled = enabled and total > 0
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> CaptureProgress:
        isatty = getattr(self.stream, "isatty", None)
        if self.enabled and callable(isatty) and isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(TextColumn("[bold]capture {task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.fields[last]}"),
                                 TimeElapsedColumn(), console=Console(file=self.stream),
                                 transient=False)
            self._bar.start()
            self._task = self._bar.add_task(self.phase, total=self.total, last="")
        return self

    def advance(self, size: int, seconds: float) -> None:
        """Record that ``size`` was captured in ``seconds``."""
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, advance=1, last=f"size {size}: {seconds:.2f} s")
        else:
            logger.info("cgconfig.runtime %s: captured size %d (%d/%d) in %.3f s",
                        self.phase, size, self.done, self.total, seconds)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
