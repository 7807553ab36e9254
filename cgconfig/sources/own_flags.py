"""cgconfig's own flags: which of cgconfig's flags are its own (read on every line) rather
than SGLang's spellings (read on an SGLang line, or a line of cgconfig's flags alone), and the
check the splitter runs on each ``--`` flag no table claims (``line.split.split_argv``'s
``unclaimed``): cgconfig's own flags are never abbreviated."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from cgconfig.errors import InputError
from cgconfig.limits import short
from cgconfig.line.split import DialectFlags

if TYPE_CHECKING:
    from cgconfig.fields.flags import Flag


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


@lru_cache(maxsize=1)
def own_facts() -> frozenset[str]:
    """The facts whose flags are cgconfig's own rather than SGLang's: those that stand in for
    what cgconfig would otherwise probe, infer or read (the machine's platform and GPUs, the
    model's ``config.json``, an engine environment variable). Every other fact flag is an
    SGLang server argument only."""
    from cgconfig.line.env import engine_env_vars
    from cgconfig.sources.machine import MACHINE_FACTS
    from cgconfig.sources.model_config import MODEL_FACTS

    return frozenset((*MACHINE_FACTS, *MODEL_FACTS,
                      *(v.fact for v in engine_env_vars() if v.fact is not None)))


def is_own_flag(flag: Flag) -> bool:
    """Whether ``flag`` is cgconfig's own, read on every line (``--strict``, ``--gpu-sm``),
    rather than an SGLang spelling (a graph key's flag, an SGLang fact such as ``--tp-size``),
    which only an SGLang line (or a line of cgconfig's own flags) takes."""
    if flag.kind == "setting":
        return True
    return flag.kind == "fact" and flag.writes[0][0].split(".", 1)[1] in own_facts()
