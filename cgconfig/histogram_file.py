"""The batch-size histogram file's document, as the runtime writes it (version 1,
``docs/histogram-format.md``): step counts per batch size, per phase. Part of the stdlib base:
``runtime/`` writes it without importing ``tune/``, which reads and validates the files
(``cgconfig/tune/histogram.py``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
PHASES = ("decode", "prefill")

Counts = dict[int, int]


@dataclass
class Histogram:
    """Step counts per batch size, per phase (sizes ascending)."""

    phases: dict[str, Counts] = field(default_factory=dict)
    source: str | None = None
    notes: list[str] = field(default_factory=list)
    """What the conversion from a log skipped, for stderr (not part of the file)."""

    def phase(self, name: str) -> Counts:
        """The counts of one phase (empty when the file has none)."""
        return self.phases.get(name, {})

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document (sizes as decimal strings, ascending)."""
        doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
        if self.source:
            doc["source"] = self.source
        doc["phases"] = {name: {str(size): count for size, count in sorted(counts.items())}
                         for name, counts in self.phases.items() if name in PHASES}
        return doc


def dumps(histogram: Histogram) -> str:
    """The file's text: one phase per line block, deterministic."""
    return json.dumps(histogram.to_dict(), indent=1) + "\n"


def write(path: str | os.PathLike[str], histogram: Histogram, where: str = "histogram") -> None:
    """Write ``histogram`` to ``path`` through :func:`cgconfig.safe_write.write_text` (replaced
    atomically; a planted symlink, a device or a FIFO is refused, an InputError on failure)."""
    from cgconfig.safe_write import write_text

    write_text(path, dumps(histogram), where=where)


