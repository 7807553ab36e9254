"""The finding kinds ``cgconfig check`` reports: one stable id each, its default severity, and
what it means. Data only: the engine facts behind each finding live in the plan (its decisions,
provenance and units), never here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "note"]
#: Lowest first: ``--fail-on warning`` fails on warnings and errors.
SEVERITIES: tuple[Severity, ...] = ("note", "warning", "error")


_RANKS: dict[str, int] = {name: index for index, name in enumerate(SEVERITIES)}


def rank(severity: str) -> int:
    """Position of ``severity`` in :data:`SEVERITIES` (higher is worse)."""
    return _RANKS[severity]


@dataclass(frozen=True)
class Kind:
    """One kind of finding."""

    id: str
    """Stable id (``CG001``): what suppressions, baselines and severity overrides name."""
    name: str
    """Short name (``eager-requests``), also accepted wherever the id is."""
    severity: Severity
    """Default severity (``[tool.cgconfig] severity`` overrides it)."""
    title: str
    """One line: what the finding says."""
    opt_in: bool = False
    """Reported only when asked for (``--newest``)."""


KINDS: tuple[Kind, ...] = (
    Kind("CG001", "eager-requests", "warning",
         "the running-request bound is above the largest captured decode graph: the larger "
         "batches run without a CUDA graph"),
    Kind("CG002", "refused-flag", "error",
         "the pinned release refuses a flag on the line (unknown, removed or ambiguous there)"),
    Kind("CG003", "downgrade-by-setting", "warning",
         "a setting on the line made the engine downgrade or override the CUDA graphs"),
    Kind("CG004", "skips-incompatibility", "warning",
         "an explicit key keeps the engine from stepping around an incompatibility it knows"),
    Kind("CG005", "wrong-unit", "warning",
         "a capture size counts the wrong unit under speculative decoding (requests vs tokens)"),
    Kind("CG006", "unresolved-variable", "note",
         "a variable the plan depends on is not set in the file: the launch is not checked "
         "(--set VAR=VALUE checks it)"),
    Kind("CG007", "engine-refuses-line", "error",
         "the pinned release refuses the launch line (a value or combination it rejects)"),
    Kind("CG008", "unsupported-release", "note",
         "the release the file pins is outside the releases cgconfig answers for: not checked"),
    Kind("CG009", "newest-differs", "note",
         "the newest supported release would capture different graphs for the same line",
         opt_in=True),
    Kind("CG010", "unreadable-file", "note",
         "a file could not be read as a deployment file (syntax, size, encoding)"),
    Kind("CG011", "missing-input", "note",
         "a file the line names (an options or config file) could not be read: the launch is "
         "not checked"),
    Kind("CG012", "refused-at-newest", "warning",
         "the file pins no release, and the newest supported release refuses a flag on the "
         "line (the release the file runs may still take it)"),
    Kind("CG013", "sizes-never-captured", "note",
         "configured decode graph sizes above the running-request bound: the engine drops them "
         "(they are never captured)"),
    Kind("CG014", "graphs-never-replayed", "warning",
         "decode graphs captured for more requests than one decode step runs: they cost "
         "capture time and graph memory and are never replayed"),
)

BY_ID: dict[str, Kind] = {k.id: k for k in KINDS}
BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}


def lookup(text: str) -> Kind | None:
    """The kind an id (``CG001``, any case) or a name (``eager-requests``) names."""
    return BY_ID.get(text.strip().upper()) or BY_NAME.get(text.strip().lower())


def names() -> list[str]:
    """Every id and name, for did-you-mean suggestions."""
    return [k.id for k in KINDS] + [k.name for k in KINDS]
