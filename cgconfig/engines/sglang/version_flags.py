"""An SGLang line's flags as the chosen SGLang release's own parser reads them.

cgconfig's flag set holds every SGLang spelling it ever read (deprecated aliases such as
``--cuda-graph-max-bs`` and short forms such as ``--pp``); a release accepts only its own:
exact option strings, or a unique prefix of one (argparse's ``allow_abbrev``). A spelling the
release does not know, or finds ambiguous, is that release's error, named with the release
that removed or added it and the replacement where there is one (from the release tables and
the flags' declared replacements). cgconfig's own flags (``--gpu-memory-gib``, ``--strict``...)
are not SGLang's and are not checked.
"""

from __future__ import annotations

from cgconfig.engines.table import EngineTable, load_table
from cgconfig.engines.versions import SUPPORTED, EngineVersion, label, newest, version_key
from cgconfig.errors import InputError
from cgconfig.sources.split import ArgvSplit, Part


def _sglang_owned(name: str, table: EngineTable) -> str | None:
    """The SGLang flag a spelling stands for in cgconfig's flag set (itself, or the flag it is
    an alias of), or ``None`` for cgconfig's own flags and spellings nobody declares."""
    from cgconfig.fields.flags import REMOVED_FLAGS, flag_index

    if name in REMOVED_FLAGS:
        return None  # cgconfig's own parser refuses it, naming the replacement
    flag = flag_index().get(name)
    if flag is None:
        return None  # unknown to cgconfig: its own parser reports it (or the engine table's)
    if flag.replacement is not None:
        return name  # a deprecated SGLang alias
    newest = load_table("sglang")
    if newest.lookup(name) is not None or newest.lookup(flag.name) is not None \
            or table.lookup(flag.name) is not None:
        return name
    return None


def _history(name: str, chosen: str) -> str:
    """``removed in SGLang 0.5.20`` / ``new in SGLang 0.5.21`` from the release tables, or ``""``."""
    releases = SUPPORTED["sglang"]
    having = [v for v in releases if load_table("sglang", v).lookup(name) is not None]
    if not having:
        return ""
    key = version_key(chosen)
    older = [v for v in having if (version_key(v) or ()) < (key or ())]
    if older:
        gone = releases[releases.index(older[-1]) + 1]
        return f"was removed in {label('sglang', gone)}"
    return f"is new in {label('sglang', having[0])}"


def _replacement(name: str) -> str | None:
    from cgconfig.fields.flags import flag_index

    flag = flag_index().get(name)
    if flag is None:
        return None
    if flag.replacement:
        return f"use {flag.replacement}"
    return f"use {flag.name}" if flag.name != name else None


def _all_canonical(tokens: list[str]) -> bool:
    """Whether every flag in ``tokens`` is one of cgconfig's own primary spellings (the newest
    SGLang release's, ``tests/engines/test_tables.py`` checks), so none needs the table."""
    from cgconfig.fields.flags import flag_index

    index = flag_index()
    for token in tokens:
        if token.startswith("--"):
            flag = index.get(token.split("=", 1)[0])
            if flag is None or flag.name != token.split("=", 1)[0] or flag.replacement:
                return False
    return True


def check_sglang_spellings(tokens: list[str], version: EngineVersion) -> None:
    """Raise :class:`InputError` for the first SGLang flag in ``tokens`` that SGLang
    ``version`` refuses (unknown, or an ambiguous prefix), as that release's parser would."""
    if version.version == newest("sglang") and _all_canonical(tokens):
        return  # cgconfig's own spellings are the newest release's: no table to read
    table = load_table("sglang", version.version)
    for token in tokens:
        if not token.startswith("--") or len(token) < 3:
            continue
        name = token.split("=", 1)[0]
        if table.lookup(name) is not None or _sglang_owned(name, table) is None:
            continue
        matches = table.prefix_matches(name) if table.allow_abbrev else []
        if len(matches) == 1:
            continue  # argparse takes a unique prefix
        said = (f"ambiguous option: {name} could match {', '.join(matches[:4])}"
                + (", …" if len(matches) > 4 else "") if matches
                else f"unrecognized arguments: {name}")
        history = _history(name, version.version) or f"not a flag of {table.label}"
        source = ("the newest supported; --engine-version names another"
                  if version.source.startswith("default") else version.source)
        from cgconfig.engines.sglang.tc_piecewise import replacement_for

        raise InputError(f"{history}: {table.label} ({source}) refuses it ({said})",
                         where=name, hint=replacement_for(_replacement(name), version.version))


def check_spellings(split: ArgvSplit, version: EngineVersion, *, entry_point: bool) -> None:
    """The plug-in part ``check_spellings``: the release's own unknown and ambiguous
    spellings of the line's SGLang words."""
    del entry_point  # a line of cgconfig's flags is read by SGLang's parser too
    check_sglang_spellings(split.parts.get("sglang", Part()).tokens, version)
