"""The engines as plug-ins: the package that serves each engine, and the parts the core asks of it.

The shared core (sources, the pipeline, rules, verify, emit) never imports an engine's package:
it asks :func:`part` for one of the named parts below, so an engine's modules load only when a
line of that engine needs them (of the other engines only their stage lists and dialect flags,
plain data), and an engine is one package (``cgconfig/engines/<engine>/``) plus its row in
:data:`PACKAGES`. The command line (``cli/``), the application, may import an engine's package.
``tests/core/test_structure.py`` fails on a core module that imports an engine package, and
``tests/core/test_engine_plugins.py`` checks that every engine provides every part.

Stdlib only: the start-up path reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

from cgconfig.line import registry

#: Each engine's package (the registry's ``package``).
PACKAGES: Mapping[str, str] = registry.Column(lambda row: row.package)

#: What the core asks of every engine: part → (module of the engine's package, attribute).
#: Every engine's module defines every attribute; ``None`` says the engine has no such thing.
PARTS: dict[str, tuple[str, str]] = {
    # resolve.pipeline: the engine's steps, in the engine's own order
    "steps": ("pipeline", "STEPS"),
    # resolve.stages (stdlib only): the upstream stages its rules may name, in order
    "stages": ("stages", "STAGES"),
    # rules.paths (data only): the ``derived.*`` paths its rules may read beyond the
    # engine-neutral ones of ``cgconfig.derived``, with their types
    "derived_types": ("stages", "DERIVED_TYPES"),
    # sources.dialect_flags (data only, read for every line): the dialect's own flags the
    # splitter carves out, and those its source reads only on a line with its entry point
    "dialect_flags": ("flags", "DIALECT_FLAGS"),
    "entry_only_flags": ("flags", "ENTRY_ONLY_FLAGS"),
    # sources.machine (data only, read for every line): attention backends that run on one
    # platform only, and that platform (the host dialect's, whose words carry the backends)
    "backend_platforms": ("flags", "BACKEND_PLATFORMS"),
    # sources.command_line (stdlib only): whether a release reads ``-O.KEY`` as ``-cc.KEY``
    # (``dotted_o_is_cc(release)``), or ``None`` when the dialect has no ``-O``
    "dotted_o_is_cc": ("flags", "dotted_o_is_cc"),
    # sources.command_line (stdlib only): the compilation-config key a release's ``-O<n>``
    # sets where ``-O`` is its ``--compilation-config`` (``short_o_key(release)``), or ``None``
    "short_o_key": ("flags", "short_o_key"),
    # migrate: the engine's own release rewrites beyond its flag tables (a module with
    # ``compilation_keys``, ``capture_flags``, ``environment``, ``default_mode_text``), or None
    "migrate_support": ("flags", "migrate_support"),
    # sources.command_line: the source made from the engine's words of a line
    "line_source": ("source", "line_source"),
    # sources.command_line: the chosen release's own parser check of the line's spellings
    "check_spellings": ("version_flags", "check_spellings"),
    # files.config_files: how the engine merges ``--config FILE`` into its line (a
    # ``line.config_file.ConfigFileGrammar``), or ``None`` when its server has no such merge
    "config_file": ("config_file", "CONFIG_FILE"),
    # sources.command_line: grouping of the words no flag table claimed into runs (SGLang's
    # flags and cgconfig's own, read by SGLang's parser rules: SGLang is the host dialect)
    "group_args": ("source", "group_args"),
    # resolve.pipeline: what the plan's sizes count, per phase (``units(derived)``)
    "units": ("units", "units"),
    # emit: the plan as the engine's own flags or options file, and the notes on what the
    # engine cannot say (``emit_text(plan, user_config)``)
    "emit": ("emit", "emit_text"),
    # verify: the groups of graphs the plan says the engine's log shows, the capture list a
    # logged step replays from, the flag bounding each phase, and how printed arguments go
    # back into a launch line (its entry words, its model positional, an older spelling)
    "expected_groups": ("verify", "expected_groups"),
    "step_sizes": ("verify", "step_sizes"),
    "eager_flags": ("verify", "EAGER_FLAGS"),
    "launch_entry": ("verify", "LAUNCH_ENTRY"),
    "launch_model": ("verify", "launch_model"),
    "old_spelling": ("verify", "old_spelling"),
    # verify.read: a new one-pass reader of the engine's server log (``make_reader(interval)``)
    "log_reader": ("log_reader", "make_reader"),
    # cost: the engine's reservation, GPU budget, cuts, log groups and shared graph pool
    # (a :class:`cgconfig.cost.engine_part.EngineCost`)
    "cost": ("cost", "COST"),
}


def part(engine: str, name: str) -> Any:
    """The ``name`` part of ``engine`` (see :data:`PARTS`); ``None`` when the engine's module
    declares the part as ``None`` (it has no such thing). Read from the module each time, so
    the module stays the one home of the part."""
    module, attribute = PARTS[name]
    return getattr(_module(engine, module), attribute)


@cache
def rules_folder(engine: str) -> Path:
    """The folder of ``engine``'s rule packs: ``rules/`` in its package (found without
    importing the package, so reading the packs loads none of the engine's modules; found once
    a process: the cache key asks for it per pack file on every start-up)."""
    if engine not in PACKAGES:
        raise KeyError(f"unknown engine {engine!r}; known: {', '.join(PACKAGES)}")
    spec = find_spec(PACKAGES[engine])
    if spec is None or not spec.submodule_search_locations:
        raise KeyError(f"engine {engine!r}: its package {PACKAGES[engine]!r} is not importable")
    return Path(next(iter(spec.submodule_search_locations))) / "rules"


def pack_files(engine: str) -> list[Path]:
    """``engine``'s rule packs (``rules/*.yaml`` of its package, each declaring
    ``engine: <engine>``; the loader checks it), by file name; none when it ships no pack.
    ``rules/capabilities.yaml``, its attention-backend levels, is data, not a pack."""
    return sorted(p for p in rules_folder(engine).glob("*.yaml") if p.name != CAPABILITIES)


def capability_file(engine: str) -> Path | None:
    """``engine``'s attention-backend capability table (``rules/capabilities.yaml``, read by
    its rules' ``capability:`` conditions), or ``None`` when it ships none."""
    path = rules_folder(engine) / CAPABILITIES
    return path if path.is_file() else None


#: The file name of an engine's capability table in its ``rules/`` folder.
CAPABILITIES = "capabilities.yaml"


@cache
def _module(engine: str, module: str) -> ModuleType:
    if engine not in PACKAGES:
        raise KeyError(f"unknown engine {engine!r}; known: {', '.join(PACKAGES)}")
    return import_module(f"{PACKAGES[engine]}.{module}")
