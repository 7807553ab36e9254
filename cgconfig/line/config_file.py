"""What an engine's own ``--config FILE`` grammar is made of: the plug-in part ``config_file``.

``cgconfig.files.config_files`` reads the file (a YAML mapping of flag names to values) and
puts its words into the launch line; each engine says, in ``engines/<engine>/config_file.py``,
who merges it, how a key and its value become words, and where in the line they go. An engine
whose server has no such merge declares ``CONFIG_FILE = None``.

Stdlib only: the line layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cgconfig.line.entry import EntryPoint


@dataclass(frozen=True)
class ConfigFileGrammar:
    """One engine's merge of ``--config FILE`` into its command line."""

    merger: str
    """Who merges the file, as messages name it: the engine's class and its file."""
    words: Callable[[Mapping[str, Any]], list[str]]
    """The file's keys and values as the command-line words the engine makes of them."""
    insert_at: Callable[[EntryPoint, Sequence[str]], int]
    """Where the words go in the line without its ``--config FILE`` words (the line's own
    flags, parsed after them, win)."""
