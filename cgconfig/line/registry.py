"""The engines cgconfig answers for: one row per engine, and every list of engines derived from it.

Each row says how a line names its engine (entry points, images, distributions, environment
prefixes, aliases), how its parser reads words, which package is its plug-in and where that
package's flag tables are. An engine's releases are not written here: they are the flag tables
it ships (``tables/<prefix>-<release>.json`` in its folder, :func:`releases`), so a release is
added in the engine's folder alone. Adding an engine is its folder plus one row of
:data:`ROWS`; no other core module names an engine (``tests/core/test_engine_registry.py``).

Stdlib only, and no import of the rest of cgconfig: the start-up path reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple, TypeVar


class Engine(NamedTuple):
    """One engine cgconfig answers for."""

    name: str
    """The engine's name in cgconfig: ``--dialect``, ``--emit``, a rule pack's ``engine:``."""
    label: str
    """Its name in messages: ``SGLang``, ``vLLM``, ``TensorRT-LLM``."""
    package: str
    """The plug-in package that serves it (the parts of ``line.plugins.PARTS``)."""
    table_prefix: str
    """Its flag tables are ``tables/<table_prefix>-<release>.json`` in the package's folder."""
    parser: str
    """Whose rules say which of its words are options (``line.tokens.ParserKind``:
    ``argparse``, ``vllm``, ``click``)."""
    modules: tuple[str, ...] = ()
    """``python -m MODULE`` modules that start it."""
    scripts: tuple[tuple[str, ...], ...] = ()
    """Console-script entry points as their words, a program and its subcommands
    (``("vllm", "serve")``, ``("lmdeploy", "serve", "api_server")``; ``("trtllm-serve",)``
    alone: the program without a subcommand). The longest that matches wins."""
    refused_commands: tuple[tuple[str, str], ...] = ()
    """Subcommands of a script that start something cgconfig does not plan: (the word after
    the program, what it starts), each refused in one line."""
    refused_reads: str = ""
    """What cgconfig reads instead, said when it refuses one of :attr:`refused_commands`."""
    refused_hint: str = ""
    """The hint of that refusal."""
    dynamo_module: str | None = None
    """NVIDIA Dynamo's worker module for it (``dynamo.vllm``): its engine flags plus Dynamo's."""
    image_entrypoints: tuple[tuple[str, str], ...] = ()
    """Container images whose own entrypoint starts it: (repository, the entrypoint's words)."""
    distributions: tuple[str, ...] = ()
    """Its distribution names on PyPI (``importlib.metadata``), the first as messages name it."""
    image_names: tuple[str, ...] = ()
    """Words an image repository's last path part contains when the image is its."""
    aliases: tuple[str, ...] = ()
    """Other names ``--engine-version NAME==X`` may call it."""
    env_prefixes: tuple[str, ...] = ()
    """Name prefixes of its environment variables (a process environment without any skips
    reading ``env-vars.json``)."""
    series: int = 2
    """How many leading numbers name a release series: a newer release within the newest
    supported one's series is answered by it, anything newer is refused."""
    release_from_tags: bool = True
    """Whether an image tag, a log's version line or the installed package names one of its
    releases (``False``: its tables are keyed by a main-branch commit; only ``--engine-version``
    and ``CGCONFIG_ENGINE_VERSION`` choose)."""
    key_mappings: bool = False
    """Whether each graph key declares its spelling for this engine beside the key, in
    ``fields/config.py`` (an ``EngineKey`` or a ``NotExpressible``; a test then fails on a key
    that lacks one). ``False``: the engine's emitter names every key it has no spelling for in
    an ``undeclared`` note (``emit_keys.unsaid``), so no key is dropped silently."""
    gaps: tuple[tuple[str, str, str], ...] = ()
    """Releases inside the supported range that no supported release answers for: ``(first,
    until, why)``, each refused with its reason instead of being answered by the nearest older
    release (vLLM 0.11.0 and 0.11.1, between 0.10.2 and 0.11.2)."""
    host: bool = False
    """The host dialect: the words no dialect's table claims are its flags and cgconfig's own
    (the graph keys are spelled as its flags). Exactly one row is the host."""


#: The engines, the host first.
ROWS: list[Engine] = [
    Engine("sglang", "SGLang", "cgconfig.engines.sglang", "sglang", "argparse",
           modules=("sglang.launch_server", "sglang.srt.server"), scripts=(("sglang", "serve"),),
           dynamo_module="dynamo.sglang", distributions=("sglang",), image_names=("sglang",),
           env_prefixes=("SGLANG_",), series=3, host=True),
    Engine("vllm", "vLLM", "cgconfig.engines.vllm", "vllm", "vllm",
           # vLLM's demo server takes the same engine arguments (AsyncEngineArgs.add_cli_args)
           modules=("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"),
           scripts=(("vllm", "serve"),), dynamo_module="dynamo.vllm",
           # vLLM's docs, "Using Docker": the image's entrypoint is vllm serve
           image_entrypoints=(("vllm/vllm-openai", "vllm serve"),),
           distributions=("vllm",), image_names=("vllm",), env_prefixes=("VLLM_",), series=2,
           key_mappings=True,
           # vllm/engine/arg_utils.py of 0.11.0: no V0 engine, FULL_AND_PIECEWISE by default,
           # which 0.10.2 (the nearest older supported release) does not answer
           gaps=(("0.11.0", "0.11.2", "these releases removed the V0 engine and default to "
                  "FULL_AND_PIECEWISE, which the supported release before them does not "
                  "answer"),)),
    Engine("trtllm", "TensorRT-LLM", "cgconfig.engines.trtllm", "trtllm-serve", "click",
           scripts=(("trtllm-serve", "serve"), ("trtllm-serve",)),
           # the ``main`` group of tensorrt_llm/commands/serve.py at 00209af, besides ``serve``
           refused_commands=(
               ("disaggregated", "starts the disaggregated-serving front end; the context and "
                                 "generation servers that its -c file lists are not read"),
               ("disaggregated_mpi_worker", "is an MPI worker of disaggregated serving; its -c "
                                            "file is not read"),
               ("grpc", "serves a model over gRPC, with options of its own"),
               ("mm_embedding_serve", "serves a multimodal encoder, whose encoder graphs "
                                      "cgconfig does not plan")),
           refused_reads="cgconfig reads only the serve subcommand (a model, its size flags and "
                         "its --extra_llm_api_options file)",
           refused_hint="plan each server's own line: trtllm-serve MODEL "
                        "--extra_llm_api_options FILE",
           dynamo_module="dynamo.trtllm", distributions=("tensorrt_llm", "tensorrt-llm"),
           image_names=("tensorrt-llm", "tensorrt_llm", "trtllm"),
           aliases=("tensorrt-llm", "tensorrt_llm", "trtllm-serve"), env_prefixes=("TRTLLM_",),
           series=0, release_from_tags=False, key_mappings=True),
]


def register(row: Engine) -> None:
    """Add an engine that lives outside cgconfig's tree (a third-party or test plug-in). Call
    it before anything else of cgconfig is imported: modules read the lists at import."""
    if any(known.name == row.name for known in ROWS):
        raise ValueError(f"engine {row.name!r} is already registered")
    if row.host:
        raise ValueError("the host dialect is SGLang's; a registered engine cannot be the host")
    ROWS.append(row)
    _FOLDERS.pop(row.name, None)


def names() -> tuple[str, ...]:
    """Every engine's name, the host first."""
    return tuple(row.name for row in ROWS)


def row(name: str) -> Engine:
    """The row of ``name``; :class:`KeyError` naming the known engines when none."""
    for known in ROWS:
        if known.name == name:
            return known
    raise KeyError(f"unknown engine {name!r}; known: {', '.join(names())}")


def host() -> str:
    """The host dialect's name (``sglang``)."""
    return next(known.name for known in ROWS if known.host)


T = TypeVar("T")


class Column(Mapping[str, T]):
    """A live view of one column: engine name → ``read(row)``. Live, so an engine registered
    by :func:`register` is in it however early it was made."""

    def __init__(self, read: Callable[[Engine], T]) -> None:
        self._read = read

    def __getitem__(self, name: str) -> T:
        return self._read(row(name))

    def __iter__(self) -> Iterator[str]:
        return iter(names())

    def __len__(self) -> int:
        return len(ROWS)

    def __contains__(self, name: object) -> bool:
        return any(known.name == name for known in ROWS)


_ENGINES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engines")
_FOLDERS: dict[str, str] = {}


def folder(name: str) -> str:
    """The folder of ``name``'s plug-in package (where its ``tables/`` are)."""
    if name not in _FOLDERS:
        package = row(name).package
        if package == f"cgconfig.engines.{name}":
            _FOLDERS[name] = os.path.join(_ENGINES_DIR, name)
        else:
            from importlib.util import find_spec

            spec = find_spec(package)
            if spec is None or not spec.submodule_search_locations:
                raise KeyError(f"engine {name!r}: its package {package} cannot be found")
            _FOLDERS[name] = next(iter(spec.submodule_search_locations))
    return _FOLDERS[name]


def table_files(name: str) -> dict[str, str]:
    """``release → path`` of every flag table ``name`` ships (``tables/<prefix>-<release>.json``
    in its folder): its releases. One ``os.listdir``, no file read."""
    prefix = row(name).table_prefix + "-"
    tables = os.path.join(folder(name), "tables")
    try:
        files = os.listdir(tables)
    except FileNotFoundError:
        return {}
    return {file[len(prefix):-5]: os.path.join(tables, file) for file in files
            if file.startswith(prefix) and file.endswith(".json")}
