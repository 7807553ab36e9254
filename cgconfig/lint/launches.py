"""Resolve one launch found in a file the way ``cgconfig resolve --from FILE`` resolves it
(``cgconfig.files.plan.resolve_launch``: the release the file pins unless ``--engine-version``
names one, the container's environment, unresolved variables the plan depends on refused),
and read the release it was answered for."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch
    from cgconfig.plan import Plan


def engine_of(launch: Launch) -> str | None:
    """The engine the launch starts (its entry point's dialect), or ``None``."""
    from cgconfig.line.entry import find_entry_point

    entry = find_entry_point(list(launch.argv))
    return entry.dialect if entry is not None else None


def pins_own_release(launch: Launch, engine: str | None) -> bool:
    """Whether the file pins a release of the launch's own engine."""
    return bool(launch.engine_version and engine
                and launch.engine_version.partition("==")[0] == engine)


def version_options(launch: Launch, engine: str | None, cli_version: str | None,
                    defaults: dict[str, str]) -> list[str]:
    """cgconfig's ``--engine-version`` for the launch: the command line's when it names the
    launch's engine (over the file's pin, as for ``resolve --from``), else the configuration's
    default for an engine the file does not pin, else none (the file's pin, or the newest
    supported)."""
    if cli_version and engine:
        from cgconfig.line.version_source import parse_spec

        named = parse_spec(cli_version, engine, "--engine-version")
        if named is not None:  # it names this engine's release (a list may name others only)
            return ["--engine-version", f"{engine}=={named}"]
    if engine and engine in defaults and not pins_own_release(launch, engine):
        return ["--engine-version", f"{engine}=={defaults[engine]}"]
    return []


def resolve(launch: Launch, options: list[str]) -> Plan:
    """The launch's plan (raises the engine's refusal as a
    :class:`~cgconfig.errors.CgConfigError`)."""
    from cgconfig.files.plan import resolve_launch

    return resolve_launch(launch, options, environ={})
