"""A launch found in a file, resolved as ``cgconfig resolve`` resolves a typed line."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cgconfig.files.launch import Launch

if TYPE_CHECKING:
    from cgconfig.plan import Plan
    from cgconfig.resolve.request import ResolveRequest
    from cgconfig.sources.split import ArgvSplit


def launch_line(launch: Launch, options: Sequence[str] = ()) -> list[str]:
    """The command line ``cgconfig resolve`` would be given for ``launch``: cgconfig's own
    ``options`` first, then the launch's words (its entry point and arguments)."""
    from cgconfig.files.unresolved import line_without_unknowns

    return [*options, *line_without_unknowns(launch)]


def launch_request(launch: Launch, options: Sequence[str] = (), *,
                   environ: Mapping[str, str] | None = None,
                   host: object | None = None) -> tuple[ResolveRequest, ArgvSplit]:
    """The resolve request for ``launch``: its words split as a typed line is, its container's
    environment as the engine's (``environ`` is the caller's: only ``CGCONFIG_ENGINE_VERSION``
    is read from it), and the release the file pins unless the caller names one."""
    from cgconfig.files.release import file_engine_version
    from cgconfig.files.unresolved import check_unresolved
    from cgconfig.sources.command_line import request_from_split, split_command_line

    check_unresolved(launch)
    caller = os.environ if environ is None else environ
    seen = dict(launch.env)
    if caller.get("CGCONFIG_ENGINE_VERSION"):
        seen["CGCONFIG_ENGINE_VERSION"] = caller["CGCONFIG_ENGINE_VERSION"]
    line = launch_line(launch, options)
    split = split_command_line(line, host)  # type: ignore[arg-type]
    version = file_engine_version(launch, split, seen)
    request = request_from_split(split, environ=seen, engine_version=version)[0]
    return request, split


def resolve_launch(launch: Launch, options: Sequence[str] = (), *,
                   environ: Mapping[str, str] | None = None) -> Plan:
    """Resolve one :class:`Launch` into its plan exactly as ``cgconfig resolve`` resolves the
    same words typed after it: cgconfig's ``options`` (``--gpu-memory-gib 80``...) before the
    launch's own words, the container's environment as the engine's, the release the file
    pins (image tag, Dynamo's matrix) unless ``--engine-version`` or
    ``CGCONFIG_ENGINE_VERSION`` names one, the engine's ``--config`` file followed (a file the
    script wrote with a here-document is read from the script). A variable the plan depends
    on and nobody set is an :class:`~cgconfig.errors.InputError` with its ``--set`` hint."""
    from cgconfig.api import resolve_request

    request, _ = launch_request(launch, options, environ=environ)
    return resolve_request(request)
