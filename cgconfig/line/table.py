"""Engine flag tables: every flag an engine version's own parser knows, loaded from package data.

The JSON tables next to this module are written by ``scripts/gen_engine_tables.py`` from the
installed engines (SGLang's ``ServerArgs.add_cli_args``, vLLM's ``vllm serve`` parser,
trtllm-serve's click options) and carry cgconfig's classification of each flag. Stdlib only:
loading a table is one ``json.load``, cached per engine.
"""

from __future__ import annotations

import bisect
import difflib
import json
from functools import cache, cached_property
from typing import Any, NamedTuple

from cgconfig.line import registry

# No dataclasses or pathlib here: importing dataclasses alone costs more than loading a table.

#: Engine name → the prefix of its table files (its name in messages: ``versions.NAMES``).
ENGINES = registry.Column(lambda row: row.table_prefix)


class EngineFlag(NamedTuple):
    """One flag (or the positional model) as the engine's parser defines it."""

    options: tuple[str, ...]
    """Every option string, long and short (empty for a positional)."""
    dest: str
    nargs: int | str | None
    """argparse ``nargs``: ``None`` (one value), ``0`` (switch), ``'?'``, ``'*'``, ``'+'`` or a count."""
    takes_value: bool
    type: str
    """Normalised value type: flag, int, float, str, json, bool, choice, other, or ``<type>_list``."""
    type_name: str | None
    """The engine's own type callable's name (``int``, ``human_readable_int``, ``loads``...)."""
    choices: tuple[str, ...] | None
    default: Any
    deprecated: bool
    status: str
    """``modelled`` (cgconfig reads it) or ``ignored`` (known to the engine, not read by cgconfig)."""
    cgconfig: str | None
    """The cgconfig key or fact a modelled flag feeds."""
    graph_effect: bool
    """The engine reads it while deciding CUDA graphs (modelled or not yet)."""
    sample: str | None
    """A value the engine's parser accepted when the table was generated."""
    help: str = ""
    note: str | None = None

    @property
    def name(self) -> str:
        """The primary spelling (first option string, or the positional's name)."""
        return self.options[0] if self.options else self.dest

    @property
    def positional(self) -> bool:
        """Whether this is a positional argument (the model)."""
        return not self.options

    @property
    def modelled(self) -> bool:
        """Whether cgconfig reads this flag."""
        return self.status == "modelled"


class EngineTable:
    """Every flag of one engine version, with lookups by any spelling."""

    def __init__(self, engine: str, version: str, generated: str, generator: str, source: str,
                 parser: dict[str, Any], flags: tuple[EngineFlag, ...]) -> None:
        self.engine = engine
        self.version = version
        self.generated = generated
        """Date the table was generated from the installed engine."""
        self.generator = generator
        self.source = source
        """The engine file and function the flags were read from."""
        self.parser = parser
        """Parser rules: kind (argparse/click), allow_abbrev, vLLM's rewrites."""
        self.flags = flags

    @property
    def label(self) -> str:
        """The engine and version as messages name them: ``SGLang 0.5.23``, or for a table
        read from a commit of the main branch ``TensorRT-LLM (main, commit 00209af)``."""
        from cgconfig.line.versions import label

        return label(self.engine, self.version)

    @property
    def allow_abbrev(self) -> bool:
        """Whether the engine's parser accepts unique prefixes of long options."""
        return bool(self.parser.get("allow_abbrev"))

    @cached_property
    def by_spelling(self) -> dict[str, EngineFlag]:
        """Option string → flag, for every spelling."""
        return {option: flag for flag in self.flags for option in flag.options}

    @cached_property
    def positionals(self) -> tuple[EngineFlag, ...]:
        """The positional arguments, in order."""
        return tuple(flag for flag in self.flags if flag.positional)

    def lookup(self, spelling: str) -> EngineFlag | None:
        """The flag with exactly this option string, or ``None``."""
        return self.by_spelling.get(spelling)

    @cached_property
    def sorted_spellings(self) -> tuple[str, ...]:
        """Every option string, sorted: the strings with one prefix are one run of it."""
        return tuple(sorted(self.by_spelling))

    def prefix_matches(self, prefix: str) -> list[str]:
        """Long option strings that start with ``prefix`` (argparse's abbreviation candidates),
        found by bisection: O(log flags + matches) per token, so a line of 100,000 unknown
        ``--x`` costs no more than reading it."""
        spellings = self.sorted_spellings
        at = bisect.bisect_left(spellings, prefix)
        end = at
        while end < len(spellings) and spellings[end].startswith(prefix):
            end += 1
        return list(spellings[at:end])

    def arity(self, spelling: str) -> int | str | None:
        """The ``nargs`` of a flag given by any exact spelling (KeyError when unknown)."""
        return self.by_spelling[spelling].nargs

    def check_choice(self, flag: EngineFlag, value: str) -> str | None:
        """``None`` when the engine accepts ``value`` for ``flag``, else a one-line reason."""
        if flag.choices is None or value in flag.choices:
            return None
        return f"{value!r} is not a choice of {flag.name} in {self.label}"

    def did_you_mean(self, name: str) -> str | None:
        """The closest spelling among THIS engine's flags, or ``None`` when none is close."""
        spelling = name.split("=", 1)[0]
        pool = list(self.by_spelling)
        if self.parser.get("underscore_dashes") and spelling.startswith("--"):
            spelling = "--" + spelling[2:].replace("_", "-")  # vLLM accepts either
        close = difflib.get_close_matches(spelling, pool, n=1, cutoff=0.75)
        if close:
            return close[0]
        prefixed = self.prefix_matches(spelling) if len(spelling) >= 6 else []
        return prefixed[0] if prefixed else None


def _flag(row: dict[str, Any]) -> EngineFlag:
    choices = row.get("choices")
    return EngineFlag(
        options=tuple(row["options"]), dest=row["dest"], nargs=row.get("nargs"),
        takes_value=bool(row["takes_value"]), type=row["type"], type_name=row.get("type_name"),
        choices=tuple(str(c) for c in choices) if choices is not None else None,
        default=row.get("default"), deprecated=bool(row.get("deprecated")), status=row["status"],
        cgconfig=row.get("cgconfig"), graph_effect=bool(row.get("graph_effect")),
        sample=row.get("sample"), help=row.get("help") or "", note=row.get("note"))


def table_path(engine: str, version: str | None = None) -> str:
    """The checked-in table file of ``engine`` at ``version`` (default: the newest supported,
    ``versions.SUPPORTED``)."""
    from cgconfig.line.versions import SUPPORTED, newest

    if engine not in ENGINES:
        raise KeyError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    version = version or newest(engine)
    if version not in SUPPORTED[engine]:
        raise KeyError(f"{engine} {version} is not a supported version: {SUPPORTED[engine]}")
    return registry.table_files(engine)[version]


def load_table(engine: str, version: str | None = None) -> EngineTable:
    """The flag table of ``engine`` (``sglang``, ``vllm`` or ``trtllm``) at ``version`` (default:
    the newest supported), loaded once per version."""
    if version is None:
        from cgconfig.line.versions import newest

        version = newest(engine) if engine in ENGINES else ""
    return _load_table(engine, version)


@cache
def _load_table(engine: str, version: str) -> EngineTable:
    with open(table_path(engine, version or None), encoding="utf-8") as handle:
        data = json.load(handle)
    return EngineTable(engine=data["engine"], version=data["version"], generated=data["generated"],
                       generator=data["generator"], source=data["source"], parser=data["parser"],
                       flags=tuple(_flag(row) for row in data["flags"]))
