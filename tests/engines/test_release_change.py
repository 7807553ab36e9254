"""The one release-change format: ranges, values, and overlapping rows refused."""

import pytest

from cgconfig.engines.release_change import ReleaseChange, applies, holds_in, value_at

TIER = (
    ReleaseChange(None, "0.5.20", "20-35 GiB: decode max_bs 24", "memory_hook.py", 24),
    ReleaseChange("0.5.20", None, "20-35 GiB: decode max_bs 48", "memory_hook.py", 48),
)


def test_each_release_gets_the_value_of_its_range() -> None:
    assert value_at(TIER, "0.5.19") == 24
    assert value_at(TIER, "0.5.20") == 48
    assert value_at(TIER, "0.5.23") == 48


def test_until_is_exclusive_and_since_inclusive() -> None:
    row = ReleaseChange("0.5.10", "0.5.18", "piecewise prefill", "x.py")
    assert not applies(row, "0.5.9")
    assert applies(row, "0.5.10")
    assert applies(row, "0.5.17")
    assert not applies(row, "0.5.18")
    assert holds_in((row,), "0.5.12")
    assert not holds_in((row,), "0.5.8")


def test_overlapping_rows_are_refused() -> None:
    rows = (ReleaseChange(None, "0.5.21", "a", "x.py", 1), ReleaseChange("0.5.20", None, "b", "x.py", 2))
    with pytest.raises(ValueError, match="2 rows"):
        value_at(rows, "0.5.20")


def test_a_word_that_is_no_release_is_refused() -> None:
    with pytest.raises(ValueError, match="not a release number"):
        applies(TIER[0], "newest")
