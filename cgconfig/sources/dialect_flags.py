"""The flags the splitter carves out of a command line for each engine.

Each non-SGLang engine declares its dialect's own flags in its package (the plug-in parts
``dialect_flags`` and ``entry_only_flags``, ``cgconfig/engines/<engine>/flags.py``: stdlib and
the splitter only, so splitting any line loads no engine's source); :func:`engine_flags` makes
the table of every flag of an engine's own parser, for a line with its entry point.
"""

from __future__ import annotations

from functools import cache

from cgconfig.line.plugins import PACKAGES, part
from cgconfig.line.split import Arity, DialectFlags


def _arity(nargs: int | str | None, takes_value: bool) -> Arity:
    """The splitter's arity for an argparse/click ``nargs``."""
    if not takes_value:
        return 0
    if nargs in ("*", "+"):
        return "+"
    return nargs if isinstance(nargs, int) else 1


@cache
def engine_flags(engine: str, release: str) -> DialectFlags:
    """Every flag of ``engine``'s own table at ``release`` (``vllm serve``, trtllm-serve), owned by
    ``<engine>_engine``: on a line whose entry point names the engine, these tokens are the
    engine's, read by no dialect source (listed as ignored), except where the dialect's own
    table claims them first. Dotted forms of vLLM's JSON flags (``--speculative-config.x``)
    are claimed by prefix."""
    from cgconfig.line.table import load_table  # only an entry-point line needs the tables

    table = load_table(engine, release)
    flags = {option: _arity(flag.nargs, flag.takes_value)
             for flag in table.flags for option in flag.options}
    prefixes: tuple[str, ...] = ()
    if table.parser.get("dotted_json"):  # FlexibleArgumentParser takes --flag.key for any flag
        prefixes = tuple(f"{o}." for f in table.flags if f.takes_value for o in f.options)
    return DialectFlags(f"{engine}_engine", flags, prefixes)


@cache
def dialect_flags() -> dict[str, DialectFlags]:
    """Each non-SGLang dialect's own flags (SGLang's are cgconfig's flag table)."""
    return {engine: flags for engine in PACKAGES
            if (flags := part(engine, "dialect_flags")) is not None}


def entry_only_flags(engine: str) -> dict[str, Arity]:
    """Flags the dialect's source reads only on a line with the engine's entry point."""
    flags: dict[str, Arity] = part(engine, "entry_only_flags")
    return flags
