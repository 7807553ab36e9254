"""``$(( ... ))`` with bash's operators (issue #33: InferenceX launch scripts compute
``--max-running-requests`` with ``>`` and ``?:``, and went unread). Expected values are what
bash 5 prints for ``CONC=4 N=0 X= ; echo $((...))``."""

from __future__ import annotations

import pytest

from cgconfig.errors import InputError
from cgconfig.files.expand import expand_text

ENV = {"CONC": "4", "N": "0", "X": ""}

BASH = [("CONC * 3 / 2 > 8 ? CONC * 3 / 2 : 8", "8"), ("CONC < 8 ? CONC : CONC / 8", "4"),
        ("2**10", "1024"), ("1<<4|1", "17"), ("N > 0 ? 10 / N : 0", "0"), ("-7/2", "-3"),
        ("-7%2", "-1"), ("!0 && 3 || 0", "1"), ("(1+2)*3 == 9", "1"),
        ("5 > 3 ? 1 : 2 ? 3 : 4", "1"), ("~5", "-6"), ("0 && 1/0", "0"), ("X + 1", "1"),
        ("2 ** 3 ** 2", "512"), ("7 & 3 ^ 1", "2"), ("10 - 2 - 3", "5"), ("1 != 2", "1")]


@pytest.mark.parametrize(("expression", "expected"), BASH)
def test_arithmetic_as_bash_computes_it(expression: str, expected: str) -> None:
    assert expand_text(f"$(({expression}))", ENV.get, "t.sh").text == expected


def test_an_unknown_name_leaves_the_value_unknown_and_is_named() -> None:
    found = expand_text("$(( CONC > 8 ? MISSING : 8 ))", ENV.get, "t.sh")
    assert not found.resolved and found.names == ("MISSING",)


@pytest.mark.parametrize(("expression", "error"), [
    ("N = 3", "is not read"), ("CONC++", "is not read"), ("1, 2", "is not read"),
    ("10 / N", "division by zero"), ("5 > 3 ? 1", "without ':'"), ("2 ** -1", "negative"),
    ("1 << 64", "shift by 64"), ("3 ** 70", "overflows"), ("1 +", "needs a value")])
def test_what_is_not_read_is_one_clear_error(expression: str, error: str) -> None:
    with pytest.raises(InputError, match=error):
        expand_text(f"$(({expression}))", ENV.get, "t.sh")
