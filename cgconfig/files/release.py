"""The engine release a file pins, as the version a launch is answered for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cgconfig.errors import InputError
from cgconfig.files.launch import Launch

if TYPE_CHECKING:
    from cgconfig.engines.versions import EngineVersion
    from cgconfig.sources.split import ArgvSplit


def file_engine_version(launch: Launch, split: ArgvSplit,
                        environ: Mapping[str, str]) -> EngineVersion | None:
    """The release ``launch.engine_version`` pins for the split line's engine, or ``None``
    when the caller names one (``--engine-version``, ``CGCONFIG_ENGINE_VERSION``: they come
    first, as for a typed line) or the file pins none (then the usual sources answer)."""
    from cgconfig.engines.versions import choose
    from cgconfig.sources.command_line import VERSION_PART

    if VERSION_PART in split.parts or environ.get("CGCONFIG_ENGINE_VERSION") \
            or not launch.engine_version or split.entry is None:
        return None
    engine, _, version = launch.engine_version.partition("==")
    if engine != split.entry.dialect:
        return None
    try:
        return choose(engine, version, launch.version_origin or launch.label)
    except ValueError as error:
        raise InputError(str(error), where=launch.label,
                         hint="answer for another release with --engine-version "
                              f"{engine}==VERSION") from None
