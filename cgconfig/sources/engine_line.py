"""An engine's arguments read exactly as ``cgconfig resolve`` reads them after the engine's entry
point: the one production path (``sources.command_line``: the release chosen from the words,
the splitter, the engine's argv reader and sources). ``tests/engines/test_split.py`` and
``scripts/check_split_against_engines.py`` (the check against the engines' own parsers) read
lines through it, so what they prove is what runs."""

from __future__ import annotations

from collections.abc import Sequence

from cgconfig.line import registry
from cgconfig.line.versions import EngineVersion
from cgconfig.resolve.request import ResolveRequest


def entry_words(engine: str) -> list[str]:
    """The words that start ``engine`` (its first console script, else ``python -m`` its first
    module)."""
    row = registry.row(engine)
    if row.scripts:
        return list(row.scripts[0])
    return ["python", "-m", row.modules[0]]


def read_engine_line(engine: str, argv: Sequence[str], release: str | None = None
                     ) -> ResolveRequest:
    """The request ``cgconfig resolve`` gathers from ``<entry point of engine> ARGV`` at
    ``release`` (default: the newest supported); an :class:`~cgconfig.errors.InputError` where
    cgconfig refuses the line. No environment is read (the GPU probe and a model folder
    still are, as for any line)."""
    from cgconfig.line.versions import newest
    from cgconfig.sources.command_line import request_from_split, split_command_line

    chosen = EngineVersion(engine, release or newest(engine), "read_engine_line")
    words = [*entry_words(engine), *argv]
    split = split_command_line(words, environ={}, engine_version=chosen)
    request, _ = request_from_split(split, environ={}, engine_version=chosen)
    return request
