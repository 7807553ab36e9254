"""A command line's sources: split it once, let its dialect choose the sources, gather them.

A line may start the server through an engine entry point anywhere in it (``python -m
sglang.launch_server``, ``sglang serve``, ``vllm serve MODEL``, ``trtllm-serve MODEL``, after
``VAR=value`` prefixes): the entry point then names the dialect, the engine's own flag table
claims the engine's flags, and the engine's environment variables are read. A line without one
is cgconfig's own flags plus SGLang's, as before (``--dialect`` or a dialect's flags choose).

The order below is the precedence of facts and settings (later sources override earlier ones);
the precedence of config values is by layer (:data:`cgconfig.provenance.PRECEDENCE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from cgconfig.errors import InputError, did_you_mean
from cgconfig.line import has_engine_variables, registry
from cgconfig.line.entry import EntryPoint, find_entry_point, might_have_entry_point
from cgconfig.line.plugins import part as engine_part
from cgconfig.line.registry import names as dialects
from cgconfig.line.split import ArgvSplit, DialectFlags, Part, split_argv
from cgconfig.line.tokens import ENGINE_PARSERS, is_option
from cgconfig.line.versions import EngineVersion
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Source, gather
from cgconfig.sources.dialect_flags import dialect_flags, engine_flags, entry_only_flags
from cgconfig.sources.machine import MachineFacts
from cgconfig.sources.model_config import ModelConfigFile
from cgconfig.sources.own_flags import refuse_own_abbreviation

if TYPE_CHECKING:
    from cgconfig.line.release_from_flags import LineFlags


def _dialect_tables() -> tuple[DialectFlags, ...]:
    """Each non-SGLang dialect's flags: what the splitter carves out of a line for that
    engine's own source (its plug-in part ``line_source``; only a line of that dialect loads
    it)."""
    return tuple(dialect_flags().values())


@cache
def _entry_tables(dialect: str, release: str) -> tuple[DialectFlags, ...]:
    """The tables that split an entry-point line of ``dialect`` answered for ``release``: the
    dialect's own flags (plus the entry-only ones), then every flag of that release's table."""
    own = dialect_flags()[dialect]
    extra = entry_only_flags(dialect)
    if extra:
        own = DialectFlags(own.owner, {**own.flags, **extra}, own.prefixes)
    return own, engine_flags(dialect, release)


#: The split's part that holds ``--engine-version``'s value (cgconfig's own flag, read by
#: :func:`request_from_split` before any source, wherever it stands in the line).
VERSION_PART = "engine-version"
#: The host dialect (SGLang): it reads the words no dialect's table claims.
HOST = registry.host()


def _take_engine_version(argv: list[str]) -> tuple[list[str], Part | None]:
    """``argv`` without ``--engine-version V`` / ``--engine-version=V``, and its value."""
    from cgconfig.line.version_source import FLAG
    from cgconfig.line.versions import oldest

    kept: list[str] = []
    found: Part | None = None
    i = 0
    while i < len(argv):
        name, eq, inline = argv[i].partition("=")
        if name != FLAG:
            kept.append(argv[i])
            i += 1
            continue
        if not eq and (i + 1 >= len(argv) or is_option(argv[i + 1], ENGINE_PARSERS[HOST])):
            raise InputError(f"expects a version (sglang=={oldest('sglang')}, or "
                             f"{oldest('sglang')})", where=FLAG)
        if found is not None:
            raise InputError("given twice", where=FLAG, hint="name each engine once: "
                             f"--engine-version sglang=={oldest('sglang')}")
        found = Part([inline if eq else argv[i + 1]], [i])
        i += 1 if eq else 2
    return kept, found


def split_command_line(argv: list[str], host: DialectFlags | None = None, *,
                       environ: Mapping[str, str] | None = None,
                       log_version: str | None = None,
                       engine_version: EngineVersion | None = None) -> ArgvSplit:
    """Split ``argv`` once into the SGLang part, the dialect's part and the host's part
    (``--engine-version`` into its own part, :data:`VERSION_PART`), reading it with the
    tables of the release it is answered for.

    The release comes first, from the raw words (``line.version_source.PRECEDENCE``:
    ``--engine-version``, ``CGCONFIG_ENGINE_VERSION`` in ``environ``, ``log_version``, a
    docker image tag before the entry point, the installed package; ``engine_version`` names
    it outright): no release's table reads a word before it is chosen. The line's engine is
    its entry point's; a line without one is split by the dialects' own flag lists, which no
    release changes, and its SGLang words are grouped with the chosen release's table."""
    version = None
    if any(token.startswith("--engine-version") for token in argv):
        argv, version = _take_engine_version(list(argv))
    entry = find_entry_point(argv) if might_have_entry_point(argv) else None
    if entry is None:
        split = split_argv(list(argv), _dialect_tables(), host, unclaimed=refuse_own_abbreviation)
        split.line, split.origins = list(argv), list(range(len(argv)))
        flags = _line_flags(split.parts["sglang"].tokens if split.dialect == "sglang"
                            and "sglang" in split.parts else [], "sglang")
        chosen = engine_version or _select(split.dialect, version, split.wrapper, None,
                                           environ, log_version, flags)
        split.engine_version = chosen
    else:
        line = list(argv)
        wrapper = [*line[:entry.start]]
        if entry.program_at < len(line):
            wrapper.append(line[entry.program_at])  # an image whose entrypoint is the engine's
        chosen = engine_version or _select(entry.dialect, version, wrapper, host, environ,
                                           log_version, _line_flags(entry.argv, entry.dialect))
        split = _split_entry_line(argv, host, entry, chosen)
    if version is not None:
        split.parts[VERSION_PART] = version
    return _group_sglang(split, entry.dialect if entry is not None else HOST)


def _line_flags(words: list[str], engine: str) -> LineFlags:
    """The line's engine spellings for ``line.release_from_flags`` (the lowest source of its
    release), cgconfig's own primary spellings (the newest SGLang release's, and cgconfig's
    facts) vouched for so that a line of them reads no table."""
    from cgconfig.fields.flags import flag_index
    from cgconfig.line.release_from_flags import LineFlags, option_names

    index = flag_index()

    def plain(name: str) -> bool:
        flag = index.get(name)
        return flag is not None and flag.name == name and not flag.replacement

    return LineFlags(option_names(words, dotted=engine == "vllm"), plain)


def _select(engine: str, flag: Part | None, words: list[str], host: DialectFlags | None,
            environ: Mapping[str, str] | None, log_version: str | None,
            line_flags: LineFlags | None = None) -> EngineVersion:
    """The release of ``engine`` the line is answered for (``version_source.select``); an
    unknown dialect's line (refused by :func:`request_from_split`) is answered for none."""
    from cgconfig.line.version_source import select
    from cgconfig.line.versions import SUPPORTED

    if engine not in SUPPORTED:
        return EngineVersion(engine, "", "unknown dialect")
    from cgconfig.docio import read_text_file

    words = _cgconfig_words(words, host)[1]  # not cgconfig's own flags: a wrapper's words
    return select(engine, flag=flag.tokens[0] if flag is not None else None, environ=environ,
                  log_version=log_version, wrapper=words, read_text=read_text_file,
                  line_flags=line_flags)


def _split_entry_line(argv: list[str], host: DialectFlags | None, entry: EntryPoint,
                      chosen: EngineVersion) -> ArgvSplit:
    """Split a line with an engine entry point, the engine's words by ``chosen``'s table."""
    line = list(argv)  # shell words: find_entry_point took them as given
    before, wrapper, origins = _cgconfig_words(line[:entry.start], host)
    engine_argv, model = list(entry.argv), None
    at = entry.args_at
    if entry.dialect == HOST:
        split = split_argv(before + engine_argv, _dialect_tables(), host, dialect=HOST,
                           parser=ENGINE_PARSERS[HOST], release=chosen.version,
                           unclaimed=refuse_own_abbreviation)
        as_written = engine_argv == line[at:]  # not after sglang serve's rewrite
        tail: list[int | None] = [at + k if as_written else None for k in range(len(engine_argv))]
    else:
        if engine_argv and not is_option(engine_argv[0], ENGINE_PARSERS[entry.dialect]):
            # vllm serve MODEL, trtllm-serve MODEL
            model, engine_argv, at = engine_argv[0], engine_argv[1:], at + 1
        moved = list(range(len(engine_argv)))
        from cgconfig.line.table import load_table

        table = load_table(entry.dialect, chosen.version)
        if table.parser.get("underscore_dashes"):
            # underscores, -O3: as vLLM's FlexibleArgumentParser reads them
            from cgconfig.line.flag_values import normalize_vllm_argv

            moved = []
            dotted = engine_part(entry.dialect, "dotted_o_is_cc")  # vLLM 0.12.0: -O.KEY is -cc.KEY
            short_o = table.lookup("-O")  # vLLM 0.11.2: a spelling of --compilation-config
            o_key = engine_part(entry.dialect, "short_o_key")  # vLLM 0.10.2: -O3 is -O.level=3
            engine_argv = normalize_vllm_argv(
                engine_argv, moved,
                short_o=short_o.dest if short_o is not None else "optimization_level",
                dotted_o=bool(dotted and dotted(chosen.version)),
                o_key=o_key(chosen.version) if o_key else "mode")
        split = split_argv(before + engine_argv, _entry_tables(entry.dialect, chosen.version),
                           host, dialect=entry.dialect, also_kept=(f"{entry.dialect}_engine",),
                           parser=ENGINE_PARSERS[entry.dialect], release=chosen.version,
                           unclaimed=refuse_own_abbreviation)
        tail = [at + k for k in moved]
    split.entry, split.wrapper, split.model = entry, wrapper, model
    split.engine_start, split.line = len(before), line
    split.origins = [*origins, *tail]
    split.engine_version = chosen
    return split


def _group_sglang(split: ArgvSplit, engine: str) -> ArgvSplit:
    """Group the SGLang part's tokens into runs with SGLang's parser's arity (the one part no
    flag table claimed), once: its reader and ``--emit`` take them from here."""
    part = split.parts.get(HOST)
    if part is not None:
        chosen = split.engine_version
        release = chosen.version if chosen is not None and chosen.engine == engine else None
        if release is None:
            from cgconfig.line.versions import newest

            release = newest(engine)  # a line of another dialect: only cgconfig's flags
        part.args = engine_part(HOST, "group_args")(part.tokens, engine, release,
                                                       part.positions)
    return split


def _cgconfig_words(words: list[str],
                    host: DialectFlags | None) -> tuple[list[str], list[str], list[int | None]]:
    """Words before an entry point: cgconfig's own flags with their values (``cgconfig
    resolve -o json vllm serve ...``) are kept, with their indices; the rest (``VAR=value``
    prefixes, a ``docker run`` wrapper) is not cgconfig's input."""
    from cgconfig.fields.flags import flag_index
    from cgconfig.line.containers import container_run

    index = flag_index()
    kept: list[str] = []
    at: list[int | None] = []
    wrapper: list[str] = []
    run = container_run(words)
    i = 0
    while i < len(words):
        name = words[i].split("=", 1)[0]
        if run is not None and i >= run.start:  # docker's --device, -v...: the runner's words
            wrapper.append(words[i])
            i += 1
            continue
        arity = host.arity(name) if host is not None else None
        if arity is None and name in index:
            arity = 1 if index[name].takes_value else 0
        if arity is None or not name.startswith("-"):
            wrapper.append(words[i])  # docker's -e VAR=1 included: the note names every word
            i += 1
            continue
        end = min(i + 1 + (0 if "=" in words[i] else int(arity)), len(words))
        kept += words[i:end]
        at += range(i, end)
        i = end
    return kept, [w for w in wrapper if w != "env"], at


def request_from_split(split: ArgvSplit, *, allow_positionals: bool = False,
                       ignore_unknown: bool | None = None,
                       environ: Mapping[str, str] | None = None,
                       log_version: str | None = None,
                       engine_version: EngineVersion | None = None,
                       ) -> tuple[ResolveRequest, list[str]]:
    """Gather the sources the split's dialect chooses: SGLang's flags (with the files they
    name), the entry point's own input (the model, the engine's other flags, its environment
    variables from ``VAR=value`` prefixes and ``environ``), the machine (platform inferred,
    GPUs probed), the dialect's own source, then the model's ``config.json``.
    The engine version comes first (``line.version_source.PRECEDENCE``: ``--engine-version``,
    ``CGCONFIG_ENGINE_VERSION`` in ``environ``, ``log_version``, a docker image tag before the
    entry point, the installed package). Returns the request and the positionals."""
    if split.dialect not in dialects():
        raise InputError(f"unknown dialect {split.dialect!r}", where="--dialect",
                         allowed=dialects(), suggestion=did_you_mean(split.dialect, dialects()))
    entry = split.entry
    engine = entry.dialect if entry is not None else split.dialect
    version = engine_version or split.engine_version
    if version is None or version.engine != engine:
        version = engine_version_of(split, engine, environ, log_version)
    check = engine_part(engine, "check_spellings")  # the release's own parser's errors
    if check is not None:
        check(split, version, entry_point=entry is not None)
    if entry is not None and entry.dynamo and ignore_unknown is None:
        ignore_unknown = True  # Dynamo's own flags: in no engine table (entry.DYNAMO_MODULES)
    # SGLang is the host dialect: every line's unclaimed words are SGLang's and cgconfig's.
    sglang = engine_part(HOST, "line_source")(
        split.parts.get(HOST, Part()), entry_point=entry is not None, engine=engine,
        allow_positionals=allow_positionals, ignore_unknown=ignore_unknown)
    sources: list[Source] = [sglang]
    if entry is not None:
        from cgconfig.sources.entry_point import LaunchLine

        known = split.parts.get(f"{entry.dialect}_engine", Part())
        sources.append(LaunchLine(entry, split.model, known.args, split.wrapper))
    # What the engine's process sees: after `env -i`, `env -u VAR` or inside `docker run`,
    # not all of the caller's environment.
    seen_environ = entry.engine_environ(environ or {}) if entry is not None else (environ or {})
    if entry is not None or has_engine_variables(seen_environ):
        from cgconfig.sources.environment import EngineEnvironment

        sources.append(EngineEnvironment(engine, entry.env if entry else {}, seen_environ))
    # After the line's own input (a ROCm-only vLLM backend names the platform), before the
    # dialect's source (vLLM's grid reads the probed SM).
    sources.append(MachineFacts())
    if split.dialect in dialect_flags():
        sources.append(engine_part(split.dialect, "line_source")(
            split.parts.get(split.dialect, Part()), entry_point=entry is not None))
    sources.append(ModelConfigFile())
    request = gather(sources, version)
    return request, sglang.positionals


def engine_version_of(split: ArgvSplit, engine: str, environ: Mapping[str, str] | None,
                      log_version: str | None) -> EngineVersion:
    """The version of ``engine`` the split line is answered for (its sources in
    ``line.version_source.PRECEDENCE`` order)."""
    from cgconfig.line.containers import container_run
    from cgconfig.line.version_source import select

    flag = split.parts.get(VERSION_PART)
    wrapper = list(split.wrapper)
    entry = split.entry
    if entry is not None and entry.program_at < len(split.line):
        wrapper.append(split.line[entry.program_at])  # an image whose entrypoint is the engine's
        run = container_run(split.line[:entry.program_at + 1])
        if run is not None and run.image is not None:
            wrapper = [run.image]  # only the image's tag names a release, not a -v mount's
    from cgconfig.docio import read_text_file

    return select(engine, flag=flag.tokens[0] if flag is not None else None, environ=environ,
                  log_version=log_version, wrapper=wrapper, read_text=read_text_file)
