"""The splitter's per-tables cache follows the tables, not the id of the tuple holding them
(#35: ``test_every_table_flag.py`` failed 12 vLLM cases when run whole and passed alone — a
fresh tuple of tables took a freed tuple's id and got the claims of another line's tables, so
``vllm serve M --model X`` had its ``--model`` claimed by SGLang's dialect table)."""

from __future__ import annotations

from cgconfig.line.split import DialectFlags, split_argv


def _owner_of(flag: str, dialects: tuple[DialectFlags, ...]) -> list[str]:
    split = split_argv([flag, "v"], dialects)
    return sorted(owner for owner, part in split.parts.items() if flag in part.tokens)


def test_a_fresh_tuple_of_other_tables_gets_its_own_claims() -> None:
    for round_ in range(200):  # freed tuples' ids are reused at once by CPython
        first = DialectFlags(f"first{round_}", {"--x": 1})
        second = DialectFlags(f"second{round_}", {"--x": 1})
        assert _owner_of("--x", (first,)) == [first.owner]
        assert _owner_of("--x", (second,)) == [second.owner]
