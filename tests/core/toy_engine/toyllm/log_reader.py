"""ToyLLM's log: ``toyllm 1.0 starting`` and one ``toyllm captured decode graph bs=N`` a graph."""

from __future__ import annotations

from cgconfig.verify.record import LogRecord
from cgconfig.verify.text import int_after


class ToyReader:
    engine = "toyllm"

    def __init__(self) -> None:
        self.record = LogRecord(engine="toyllm")
        self._sizes: list[int] = []

    def feed(self, line: int, rank: str, text: str) -> bool:
        del rank
        if "toyllm captured decode graph bs=" in text:
            size = int_after(text, "bs=")
            if size is None:
                return False
            self._sizes.append(size)
            self.record.capture("decode", line).backend = "full"
        elif text.startswith("toyllm ") and text.endswith(" starting"):
            self.record.version, self.record.version_line = text.split(" ")[1], line
        else:
            return False
        self.record.evidence += 1
        return True

    def finish(self) -> LogRecord:
        if self._sizes:
            capture = self.record.capture("decode", 0)
            capture.sizes = sorted(self._sizes)
            capture.size_source = "toyllm captured decode graph bs=..."
        return self.record


def make_reader(interval: int = 40) -> ToyReader:
    del interval
    return ToyReader()
