"""cgconfig's own flags are never abbreviated: the check the splitter runs on each ``--`` flag
no table claims (``line.split.split_argv``'s ``unclaimed``)."""

from __future__ import annotations

from cgconfig.errors import InputError
from cgconfig.limits import short
from cgconfig.line.split import DialectFlags


def refuse_own_abbreviation(name: str, host: DialectFlags | None, engine: str,
                            release: str | None = None) -> None:
    """An error when ``name`` (no flag exactly) abbreviates one of cgconfig's own flags: the
    host's (``--check``) or a flag the engine lacks (``--strict``). The engine's parser would
    complete it into one of the engine's flags (``--chec`` → ``--checkpoint-engine-…``), which
    is never what the user meant; cgconfig's own flags are never abbreviated. ``release`` is
    the release of ``engine`` whose flags count (``None``: the engine's newest, for a line of
    cgconfig's flags whose release is chosen after its dialect)."""
    from cgconfig.fields.flags import known_spellings

    spellings = (*(host.flags if host is not None else ()), *known_spellings())
    if name in spellings:
        return  # one of cgconfig's own flags, exactly (--tp, next to --tp-size)
    candidates = sorted({s for s in spellings if s.startswith(name)})
    if not candidates:
        return  # the common case, decided without loading an engine table
    from cgconfig.line import registry
    from cgconfig.line.table import load_table

    if engine not in registry.names():  # never another engine's table in its place
        raise InputError(f"unknown dialect {short(engine)!r}", where="--dialect",
                         allowed=registry.names())
    table = load_table(engine, release)
    if table.lookup(name) is not None:
        return
    own = [s for s in candidates if table.lookup(s) is None]
    if not own:
        return  # only the engine's own flags start so: its abbreviation is the engine's rule
    theirs = table.prefix_matches(name) if table.allow_abbrev else []
    listed = ", ".join(own[:4]) + (" …" if len(own) > 4 else "")
    what = f"ambiguous flag {short(name)}: cgconfig has {listed}"
    if theirs:
        what += f"; {table.label} has " + ", ".join(theirs[:4]) + (" …" if len(theirs) > 4
                                                                  else "")
    raise InputError(what, where="command line",
                     hint="write the flag in full (cgconfig's own flags are never abbreviated)")
