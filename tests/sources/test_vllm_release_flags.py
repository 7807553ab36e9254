"""A `vllm serve` flag the chosen release does not have yet is that release's own error."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv
from cgconfig.errors import InputError
from cgconfig.line import versions
from cgconfig.line.table import load_table

OLDEST = versions.SUPPORTED["vllm"][0]


def _new_flag() -> str:
    """A flag the newest release has and the oldest does not (from the shipped tables)."""
    old, new = load_table("vllm", OLDEST), load_table("vllm")
    return next(o for o in sorted(new.by_spelling) if o.startswith("--") and old.lookup(o) is None
                and not old.prefix_matches(o) and new.lookup(o) is not None
                and new.lookup(o).nargs == 0)


def test_a_flag_newer_than_the_release_is_refused_naming_the_release_that_added_it() -> None:
    flag = _new_flag()
    with pytest.raises(InputError) as raised:
        request_from_argv(["vllm", "serve", "m", flag, "--engine-version", OLDEST])
    message = str(raised.value)
    assert "\n" not in message and "is new in vLLM" in message and f"vLLM {OLDEST}" in message


def test_the_same_flag_is_read_on_the_newest_release() -> None:
    request_from_argv(["vllm", "serve", "m", _new_flag()])


def test_flags_every_release_has_pass_on_the_oldest() -> None:
    request = request_from_argv(["vllm", "serve", "m", "--max-num-seqs", "8",
                                 "--compilation_config.mode", "3", "--engine-version", OLDEST])
    assert request.engine_version is not None and request.engine_version.version == OLDEST
