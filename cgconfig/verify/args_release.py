"""The release a complete launch-argument dump was printed by, from its field names alone.

SGLang logs every ``ServerArgs`` field at start-up (``server_args=ServerArgs(...)`` up to 0.5.18,
``server_args={...}`` from 0.5.19, ``entrypoints/engine.py``) but not its own version. Each
release adds, renames or removes a few of those fields, so the set of names printed says which
release ran. The score of a release is how many of its flags print under none of their names
plus how many printed names are another release's flags and not its own; measured on the dumps
of SGLang 0.5.8-0.5.14 and 0.5.18-0.5.23 from each release's own code (one plain line each),
the release that printed the dump scores 2-5 and every other supported release 13 or more, but
for the adjacent 0.5.8 and 0.5.9, whose tables differ by 5 flags: each one's dump scores 3 on
its own table and 8 on the other's (what is no flag prints alike under both, so the nearer
decides).

Only a reader that knows its dump holds every field sets ``LogRecord.args_complete``; a partial
dump (vLLM's ``non-default args``) says nothing about the fields it leaves out.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import NamedTuple

from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED

ARGS_MATCH_SLACK = 8
"""The largest score a dump may have against the release it is said to be of. Above the 2-5 the
printing release scores (fields that are no flag, such as ``custom_sigquit_handler``; flags that
are no field, such as ``--config``) and below the 11 that separate any two supported tables but
the adjacent SGLang 0.5.8 and 0.5.9 (5 apart; between them the nearer decides, ``accepted``).
``tests/verify/test_args_release.py`` keeps that gap and lists the adjacent pairs inside it."""

MIN_COVERAGE = 0.75
"""The share of the nearest release's flags a dump must print to be read as a whole one. The
printing release's own dump prints all but 2-5; SGLang 0.5.8's printed 89 % of 0.5.10's flags
(when 0.5.10 was the oldest supported release); a hand-shortened line in a bug report, far fewer."""


class ArgsMatch(NamedTuple):
    """The supported release nearest a dump, and how near."""

    release: str
    score: int
    runner_up: str | None
    """The next nearest supported release (``None`` when the engine has one)."""
    runner_up_score: int | None
    coverage: float
    """The share of the nearest release's flags the dump prints."""

    @property
    def whole(self) -> bool:
        """Whether the dump is a whole one (a log's line, not a few fields cut out of it)."""
        return self.coverage >= MIN_COVERAGE

    @property
    def accepted(self) -> bool:
        """Whether the dump is this release's: within the slack and nearer than any other."""
        return self.score <= ARGS_MATCH_SLACK and (
            self.runner_up_score is None or self.runner_up_score > self.score)


def _names(options: Iterable[str], dest: str) -> frozenset[str]:
    """The field names a flag may print under: its ``dest`` and each long spelling with
    underscores (SGLang 0.5.13's ``--tp-size`` has dest ``tensor_parallel_size`` but prints as
    the field ``tp_size``)."""
    return frozenset({dest} | {o[2:].replace("-", "_") for o in options if o.startswith("--")})


@cache
def _release_names(engine: str, release: str) -> tuple[frozenset[str], ...]:
    return tuple(_names(f.options, f.dest) for f in load_table(engine, release).flags)


@cache
def _all_names(engine: str, release: str) -> frozenset[str]:
    return frozenset().union(*_release_names(engine, release))


@cache
def _every_name(engine: str) -> frozenset[str]:
    return frozenset().union(*(_all_names(engine, r) for r in SUPPORTED[engine]))


def score(engine: str, release: str, printed: frozenset[str]) -> int:
    """How far the printed field names are from ``release``'s flags (see the module text)."""
    missing = sum(1 for names in _release_names(engine, release) if not names & printed)
    foreign = len((printed & _every_name(engine)) - _all_names(engine, release))
    return missing + foreign


def nearest_release(engine: str, printed: Iterable[str]) -> ArgsMatch:
    """The supported release of ``engine`` whose flags the printed names fit best (ties: the
    newest, which ``accepted`` then refuses)."""
    names = frozenset(printed)
    ranked = sorted(((score(engine, r, names), -i, r) for i, r in enumerate(SUPPORTED[engine])))
    best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
    flags = _release_names(engine, best[2])
    coverage = sum(1 for n in flags if n & names) / max(len(flags), 1)
    return ArgsMatch(best[2], best[0], second[2] if second else None,
                     second[0] if second else None, coverage)
