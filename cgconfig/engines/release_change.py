"""The one format for what an engine does differently from one release to the next.

Every engine keeps its release behaviour as rows of :class:`ReleaseChange` in its own
``engines/<engine>/releases.py``: one behaviour is a tuple of rows whose release ranges
``[since, until)`` do not overlap, each with the value the releases in that range use. A step
asks :func:`value_at` (or :func:`applies` for a behaviour that is on or off) with the release the
line is answered for; there is no default release, so a caller cannot silently get the newest.
Stdlib only: the start-up path imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cgconfig.line.versions import version_key


class ReleaseChange(NamedTuple):
    """What the releases from ``since`` up to (not including) ``until`` do."""

    since: str | None
    """The first release that does it; ``None``: every release before ``until``."""
    until: str | None
    """The first release that no longer does it; ``None``: still done by the newest."""
    what: str
    """What those releases do, in a sentence."""
    cites: str
    """The engine's own file and function that does it, in ``since`` (or the oldest release)."""
    value: object = True
    """The value those releases use (a tier row, a cap, a list); ``True`` for a behaviour."""


def _key(release: str) -> tuple[int, ...]:
    key = version_key(release)
    if key is None:
        raise ValueError(f"not a release number: {release!r}")
    return key


def applies(change: ReleaseChange, release: str) -> bool:
    """Whether ``release`` lies in ``change``'s range."""
    key = _key(release)
    if change.since is not None and key < _key(change.since):
        return False
    return change.until is None or key < _key(change.until)


def value_at(rows: Sequence[ReleaseChange], release: str, *, default: object = None) -> object:
    """The value of the row of ``rows`` whose range holds ``release``; ``default`` when none
    does. Raises :class:`ValueError` when two rows hold it (the rows of one behaviour must not
    overlap)."""
    found = [row for row in rows if applies(row, release)]
    if len(found) > 1:
        raise ValueError(f"release {release} lies in {len(found)} rows of one behaviour: "
                         + "; ".join(row.what for row in found))
    return found[0].value if found else default


def holds_in(rows: Sequence[ReleaseChange], release: str) -> bool:
    """Whether a behaviour given by ``rows`` (each ``value`` ``True``) is done by ``release``."""
    return bool(value_at(rows, release, default=False))
