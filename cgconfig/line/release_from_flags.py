"""The release a line's own flags name, when nothing else does: the releases whose parser
accepts every flag of the line, answered for the newest of them.

The lowest entry of ``version_source.PRECEDENCE``. A flag table is one release's parser
(``table.load_table(engine, release)``); a release accepts a spelling its table has, or, when
its parser allows abbreviations (argparse's ``allow_abbrev``), a unique prefix of one. A
spelling no supported release has (cgconfig's own ``--gpu-memory-gib``, a typo, a flag older
than every table) is no evidence: the chosen release's own parser check names it later.

Cost: a line whose every flag the newest release accepts is answered for the newest (the
default), reading no table beyond the newest's, and none when the caller vouches for every
spelling (``LineFlags.plain``: cgconfig's own spellings, which are the newest release's). Only
a line the newest release refuses reads the older tables, newest first. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from cgconfig.line.versions import NAMES, SUPPORTED, EngineVersion

if TYPE_CHECKING:
    from cgconfig.line.table import EngineTable

#: How a plan names a release chosen from the line's own flags.
SOURCE = "the line's flags"


class LineFlags(NamedTuple):
    """The long-option spellings of a line's engine words, as its parser reads them."""

    names: tuple[str, ...]
    """Each ``--flag`` as written (no ``=value``; vLLM's ``_`` → ``-`` and dotted keys folded
    into their flag by the caller, as vLLM's ``FlexibleArgumentParser`` does)."""
    plain: Callable[[str], bool] | None = None
    """Spellings the caller knows the newest release accepts, or that are cgconfig's own: when
    every name is plain, no table is read at all."""


def option_names(words: Sequence[str], *, dotted: bool = False) -> tuple[str, ...]:
    """The long options among ``words`` (``--x=1`` → ``--x``), up to a bare ``--``; with
    ``dotted`` (vLLM) ``--compilation-config.mode`` is ``--compilation-config`` and
    underscores are dashes."""
    names: list[str] = []
    for at, word in enumerate(words):
        if word == "--":
            break
        if dotted and word.startswith(("-cc", "-O")):
            # the compilation config's short spelling: -cc from vLLM 0.12.0, -O JSON before
            # (-O3, -O 3 parse on both, as a mode or a level; 0.12.0 also reads -O.KEY)
            root = word.split("=", 1)[0].split(".", 1)[0]
            document = word == "-O" and not (at + 1 < len(words) and words[at + 1] in (
                "0", "1", "2", "3"))
            if root == "-cc" or document:
                names.append(root)
            continue
        if not word.startswith("--") or len(word) < 3:
            continue
        name = word.split("=", 1)[0]
        if dotted:
            name = "--" + name[2:].split(".", 1)[0].replace("_", "-")
        names.append(name)
    return tuple(dict.fromkeys(names))


def accepts(table: EngineTable, name: str) -> bool:
    """Whether ``table``'s release parses the option ``name``: an exact spelling, or a unique
    prefix of one where the parser allows abbreviations."""
    if table.lookup(name) is not None:
        return True
    return table.allow_abbrev and len(table.prefix_matches(name)) == 1


def releases_accepting(engine: str, names: Sequence[str]) -> tuple[tuple[str, ...],
                                                                   tuple[str, ...]]:
    """(the supported releases of ``engine`` that accept every name some release has, oldest
    first; the names that narrowed them). Reads every release's table."""
    from cgconfig.line.table import load_table

    releases = SUPPORTED[engine]
    tables = [load_table(engine, v) for v in reversed(releases)]  # newest first
    accepted = set(releases)
    narrowing: list[str] = []
    for name in names:
        having = {t.version for t in tables if accepts(t, name)}
        if not having:
            continue  # no release's parser has it: not evidence of a release
        if having != set(releases):
            narrowing.append(name)
        accepted &= having
    return tuple(v for v in releases if v in accepted), tuple(narrowing)


def describe(engine: str, accepted: Sequence[str]) -> str:
    """``SGLang ≤ 0.5.19`` (from the oldest supported), ``SGLang 0.5.20 to 0.5.21``,
    ``SGLang 0.5.21 only``, or a list."""
    releases = SUPPORTED[engine]
    at = [releases.index(v) for v in accepted]
    name = NAMES[engine]
    if at[0] == 0 and at == list(range(len(at))):
        return f"{name} ≤ {accepted[-1]}"
    if len(at) == 1:
        return f"{name} {accepted[0]} only"
    if at != list(range(at[0], at[-1] + 1)):
        return f"{name} {', '.join(accepted)}"
    return f"{name} {accepted[0]} to {accepted[-1]}"


def infer(engine: str, flags: LineFlags) -> EngineVersion | None:
    """The release ``flags`` name: the newest release whose parser accepts them, with one line
    saying so (``EngineVersion.said``), or ``None`` when the newest release accepts them (the
    default answers) or no release accepts them all (the newest's parser names the flag)."""
    if engine not in SUPPORTED or len(SUPPORTED[engine]) < 2 or not flags.names:
        return None
    plain = flags.plain
    rest = [n for n in flags.names if plain is None or not plain(n)]
    if not rest:
        return None  # every spelling is cgconfig's own: the newest release's
    from cgconfig.line.table import load_table  # only now: a line of cgconfig's spellings reads none

    newest = load_table(engine, SUPPORTED[engine][-1])
    if all(accepts(newest, n) for n in rest):
        return None
    accepted, narrowing = releases_accepting(engine, flags.names)
    if not accepted or accepted[-1] == SUPPORTED[engine][-1]:
        return None
    chosen = accepted[-1]
    shown = ", ".join(narrowing[:3]) + (", …" if len(narrowing) > 3 else "")
    said = (f"this line parses on {describe(engine, accepted)}: answered for {chosen} "
            f"(from {shown}; --engine-version names another)")
    return EngineVersion(engine, chosen, SOURCE, said=said)
