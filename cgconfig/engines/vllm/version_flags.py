"""A `vllm serve` line's flags as the chosen vLLM release's own parser reads them.

The line is split with the newest release's table (cgconfig reads its flags); a flag that the
chosen older release does not have yet is that release's ``unrecognized arguments`` error,
named with the release that added it. Dotted keys (``--compilation-config.mode``) are checked
by their flag (vLLM's ``FlexibleArgumentParser`` expands them into it).
"""

from __future__ import annotations

from collections.abc import Iterable

from cgconfig.errors import InputError
from cgconfig.line.split import ArgvSplit, Part
from cgconfig.line.table import load_table
from cgconfig.line.versions import SUPPORTED, EngineVersion, label, newest


def release_history(name: str, release: str) -> str:
    """``is new in vLLM 0.14.1`` / ``was removed in vLLM 0.13.0`` for a flag ``release``'s
    parser lacks and another supported release's has; ``""`` when none has it."""
    releases = SUPPORTED["vllm"]
    having = [v for v in releases if load_table("vllm", v).lookup(name) is not None]
    if not having or release in having:
        return ""
    older = [v for v in having if releases.index(v) < releases.index(release)]
    if older:
        return f"was removed in {label('vllm', releases[releases.index(older[-1]) + 1])}"
    return f"is new in {label('vllm', having[0])}"


def refuse_flag(name: str, version: EngineVersion) -> InputError:
    """The release's own parser's "unrecognized arguments" for ``name``."""
    table = load_table("vllm", version.version)
    history = release_history(name, version.version) or f"not a flag of {table.label}"
    source = ("the newest supported; --engine-version names another"
              if version.source.startswith("default") else version.source)
    return InputError(f"{history}: {table.label} ({source}) refuses it "
                      f"(unrecognized arguments: {name})", where=name)


def check_vllm_spellings(names: Iterable[str], version: EngineVersion) -> None:
    """Raise :class:`InputError` for the first flag name (as the splitter read it: dashes,
    no ``=value``) that vLLM ``version`` does not know, as that release's parser would."""
    from cgconfig.engines.vllm.flags import SHORT_CC_FLAGS

    table = load_table("vllm", version.version)
    for spelling in names:
        name = spelling.split(".", 1)[0] if table.parser.get("dotted_json") else spelling
        if name in SHORT_CC_FLAGS:  # the dialect claims both in every release
            if table.lookup(name) is None:
                raise refuse_flag(name, version)
            continue
        if version.version == newest("vllm"):
            continue  # the line was split with this release's own table
        if not name.startswith("--") or table.lookup(name) is not None:
            continue
        if table.allow_abbrev and len(table.prefix_matches(name)) == 1:
            continue
        raise refuse_flag(name, version)


def check_spellings(split: ArgvSplit, version: EngineVersion, *, entry_point: bool) -> None:
    """The plug-in part ``check_spellings``: on a `vllm serve` line, the release's own parser's
    "unrecognized arguments"."""
    if not entry_point:
        return
    check_vllm_spellings((arg.name for name in ("vllm", "vllm_engine")
                          for arg in split.parts.get(name, Part()).args or () if arg.name),
                         version)
