"""A launch found in a file, resolved as ``cgconfig resolve`` resolves a typed line."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cgconfig.files.record import Launch

if TYPE_CHECKING:
    from cgconfig.line.split import ArgvSplit
    from cgconfig.line.versions import EngineVersion
    from cgconfig.plan import Plan
    from cgconfig.resolve.request import ResolveRequest


def prepared(launch: Launch) -> tuple[Launch, list[str]]:
    """``launch`` with its engine's ``--config`` merged, and the words of ``argv`` the
    resolved line leaves out with their notes (raises when the plan needs an unresolved
    value)."""
    from cgconfig.files.config_files import follow_config
    from cgconfig.files.unresolved import dropped_words

    launch = follow_config(launch)
    drop, notes = dropped_words(launch)
    kept = tuple(w for i, w in enumerate(launch.argv) if i not in drop)
    lines = tuple(n for i, n in enumerate(launch.arg_lines) if i not in drop)
    from dataclasses import replace

    return replace(launch, argv=kept, arg_lines=lines, unresolved_at=()), notes


def launch_line(launch: Launch, options: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The command line ``cgconfig resolve`` is given for ``launch`` and the notes of what it
    left out: cgconfig's own ``options`` first, the container's environment as ``VAR=value``
    words (the engine's process sees them), then the launch's words."""
    ready, notes = prepared(launch)
    env = [f"{name}={value}" for name, value in ready.env if name in _engine_variables()]
    facts: list[str] = []
    given = {word.split("=", 1)[0] for word in options}
    if ready.gpu_count is not None and "--gpu-count" not in given:
        facts = ["--gpu-count", str(ready.gpu_count)]
        notes.append(f"--gpu-count {ready.gpu_count}: what {launch.label}'s container asks for "
                     "(its resources)")
    if ready.gpu_kind is not None and "--gpu-sm" not in given:
        notes.append(f"the file names the GPU {ready.gpu_kind}; give --gpu-sm and "
                     "--gpu-memory-gib for its facts")
    return [*options, *facts, *env, *ready.argv], [*ready.notes[len(launch.notes):], *notes]


def _engine_variables() -> frozenset[str]:
    """The environment variables some engine reads for its graphs: only these of a
    container's environment go on the resolved line (the rest, tokens included, never do)."""
    from cgconfig.line.env import engine_env_vars

    return frozenset(var.name for var in engine_env_vars())


def launch_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What of the caller's environment a launch from a file is answered with: only
    ``CGCONFIG_ENGINE_VERSION`` (the engine runs in its container, not in this shell)."""
    from cgconfig.line.version_source import ENV_VAR

    caller = os.environ if environ is None else environ
    return {ENV_VAR: caller[ENV_VAR]} if caller.get(ENV_VAR) else {}


def launch_version(launch: Launch, line: Sequence[str],
                   environ: Mapping[str, str]) -> EngineVersion | None:
    """The release the file pins for ``launch`` (its words ``line``) unless the caller names
    one."""
    from cgconfig.files.release import file_engine_version

    return file_engine_version(launch, line, environ)


def launch_request(launch: Launch, options: Sequence[str] = (), *,
                   environ: Mapping[str, str] | None = None,
                   host: object | None = None) -> tuple[ResolveRequest, ArgvSplit, list[str]]:
    """The resolve request for ``launch`` (see :func:`resolve_launch`), its split line and
    the notes of the file's reading."""
    from cgconfig.sources.command_line import request_from_split, split_command_line

    line, notes = launch_line(launch, options)
    seen = launch_environ(environ)
    pinned = launch_version(launch, line, seen)  # the release first, then the line read with it
    split = split_command_line(line, host, environ=seen,  # type: ignore[arg-type]
                               engine_version=pinned)
    request = request_from_split(split, environ=seen, engine_version=pinned)[0]
    return request, split, notes


def resolve_launch(launch: Launch, options: Sequence[str] = (), *,
                   environ: Mapping[str, str] | None = None) -> Plan:
    """Resolve one :class:`Launch` into its plan exactly as ``cgconfig resolve --from``
    does: cgconfig's ``options`` (``--gpu-memory-gib 80``...) before the launch's words, the
    container's environment as the engine's (of the caller's ``environ``, default
    ``os.environ``, only ``CGCONFIG_ENGINE_VERSION`` is read), the release the file pins
    (image tag, Dynamo's matrix) unless ``--engine-version`` or ``CGCONFIG_ENGINE_VERSION``
    names one, the engine's ``--config`` file merged as the engine merges it (one the script
    wrote with a here-document is read from the script). A variable the plan depends on and
    nobody set is an :class:`~cgconfig.errors.InputError` with its ``--set`` hint; the
    reading's notes are added to the plan's."""
    from cgconfig.api import resolve_request

    request, _, notes = launch_request(launch, options, environ=environ)
    plan = resolve_request(request)
    plan.notes[:0] = [*launch.notes, *notes]
    return plan
