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

from collections.abc import Callable, Mapping
from functools import cache

from cgconfig.engines import has_engine_variables
from cgconfig.engines.entry import find_entry_point, might_have_entry_point
from cgconfig.engines.versions import EngineVersion
from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.constants import DIALECTS
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Source, gather
from cgconfig.sources.dialect_flags import ENTRY_ONLY_FLAGS, TRTLLM_FLAGS, VLLM_FLAGS, engine_flags
from cgconfig.sources.machine import MachineFacts
from cgconfig.sources.model_config import ModelConfigFile
from cgconfig.sources.sglang import SglangArgv
from cgconfig.sources.split import ArgvSplit, DialectFlags, Part, split_argv


def _vllm(part: Part, entry_point: bool) -> Source:
    from cgconfig.sources.vllm import VllmArgv  # only a vLLM line pays for vLLM's tables

    # A `vllm serve` line is read as vLLM's whole engine reads it (Model Runner V2, its
    # default in 0.33.0); `--dialect vllm` alone models CompilationConfig as the V1 runner.
    return VllmArgv(part.tokens, part.positions, whole_engine=entry_point)


def _trtllm(part: Part, entry_point: bool) -> Source:
    from cgconfig.sources.trtllm import TrtllmOptions

    return TrtllmOptions(part.tokens, needs_file=not entry_point)


#: Each non-SGLang dialect: its flag table (what the splitter carves out) and its source
#: (made from the dialect's tokens, and whether the line has an entry point).
DIALECT_SOURCES: dict[str, tuple[DialectFlags, Callable[[Part, bool], Source]]] = {
    "vllm": (VLLM_FLAGS, _vllm),
    "trtllm": (TRTLLM_FLAGS, _trtllm),
}


_DIALECT_TABLES = tuple(table for table, _ in DIALECT_SOURCES.values())


@cache
def _entry_tables(dialect: str) -> tuple[DialectFlags, ...]:
    """The tables that split an entry-point line of ``dialect``: the dialect's own flags
    (plus the entry-only ones), then every flag of the engine's table."""
    own = DIALECT_SOURCES[dialect][0]
    extra = ENTRY_ONLY_FLAGS.get(dialect)
    if extra:
        own = DialectFlags(own.owner, {**own.flags, **extra}, own.prefixes)
    return own, engine_flags(dialect)


def split_command_line(argv: list[str], host: DialectFlags | None = None) -> ArgvSplit:
    """Split ``argv`` once into the SGLang part, the dialect's part and the host's part."""
    entry = find_entry_point(argv) if might_have_entry_point(argv) else None
    if entry is None:
        return split_argv(list(argv), _DIALECT_TABLES, host)
    before, wrapper = _cgconfig_words(list(argv[:entry.start]), host)
    engine_argv, model = list(entry.argv), None
    if entry.dialect == "sglang":
        split = split_argv(before + engine_argv, _DIALECT_TABLES, host, dialect="sglang")
    else:
        if engine_argv and not engine_argv[0].startswith("-"):  # vllm serve MODEL, trtllm-serve MODEL
            model, engine_argv = engine_argv[0], engine_argv[1:]
        if entry.dialect == "vllm":  # underscores, -O3: as vLLM's FlexibleArgumentParser reads them
            from cgconfig.engines.split import normalize_vllm_argv

            engine_argv = normalize_vllm_argv(engine_argv)
        split = split_argv(before + engine_argv, _entry_tables(entry.dialect), host,
                           dialect=entry.dialect, also_kept=(f"{entry.dialect}_engine",))
    split.entry, split.wrapper, split.model = entry, wrapper, model
    return split


def _cgconfig_words(words: list[str], host: DialectFlags | None) -> tuple[list[str], list[str]]:
    """Words before an entry point: cgconfig's own flags with their values (``cgconfig
    resolve -o json vllm serve ...``) are kept; the rest (``VAR=value`` prefixes, a ``docker
    run`` wrapper) is not cgconfig's input."""
    from cgconfig.fields.flags import flag_index

    index = flag_index()
    kept: list[str] = []
    wrapper: list[str] = []
    i = 0
    while i < len(words):
        name = words[i].split("=", 1)[0]
        arity = host.arity(name) if host is not None else None
        if arity is None and name in index:
            arity = 1 if index[name].takes_value else 0
        if arity is None or not name.startswith("-"):
            wrapper.append(words[i])  # docker's -e VAR=1 included: the note names every word
            i += 1
            continue
        end = i + 1 + (0 if "=" in words[i] else int(arity))
        kept += words[i:end]
        i = end
    return kept, [w for w in wrapper if w != "env"]


def request_from_split(split: ArgvSplit, *, allow_positionals: bool = False,
                       ignore_unknown: bool | None = None,
                       environ: Mapping[str, str] | None = None,
                       engine_version: EngineVersion | None = None,
                       ) -> tuple[ResolveRequest, list[str]]:
    """Gather the sources the split's dialect chooses: SGLang's flags (with the files they
    name), the entry point's own input (the model, the engine's other flags, its environment
    variables from ``VAR=value`` prefixes and ``environ``), the machine (platform inferred,
    GPUs probed), the dialect's own source, then the model's ``config.json``.
    Returns the request and the positionals."""
    if split.dialect not in DIALECTS:
        raise InputError(f"unknown dialect {split.dialect!r}", where="--dialect",
                         allowed=DIALECTS, suggestion=did_you_mean(split.dialect, DIALECTS))
    entry = split.entry
    engine = entry.dialect if entry is not None else split.dialect
    sglang = SglangArgv(split.parts.get("sglang", Part()).tokens,
                        allow_positionals=allow_positionals, ignore_unknown=ignore_unknown,
                        engine=engine if entry is not None else "sglang", dialect=engine)
    sources: list[Source] = [sglang]
    if entry is not None:
        from cgconfig.sources.entry_point import LaunchLine

        known = split.parts.get(f"{entry.dialect}_engine", Part())
        sources.append(LaunchLine(entry, split.model, known.tokens, split.wrapper))
    # What the engine's process sees: after `env -i`, `env -u VAR` or inside `docker run`,
    # not all of the caller's environment.
    seen_environ = entry.engine_environ(environ or {}) if entry is not None else (environ or {})
    if entry is not None or has_engine_variables(seen_environ):
        from cgconfig.sources.environment import EngineEnvironment

        sources.append(EngineEnvironment(engine, entry.env if entry else {}, seen_environ))
    # After the line's own input (a ROCm-only vLLM backend names the platform), before the
    # dialect's source (vLLM's grid reads the probed SM).
    sources.append(MachineFacts())
    if split.dialect in DIALECT_SOURCES:
        make = DIALECT_SOURCES[split.dialect][1]
        sources.append(make(split.parts.get(split.dialect, Part()), entry is not None))
    sources.append(ModelConfigFile())
    request = gather(sources, engine_version)
    return request, sglang.positionals
