"""vLLM's ``--config FILE`` merge (the plug-in part ``config_file``), as
``FlexibleArgumentParser.parse_args`` → ``_pull_args_from_config`` / ``load_config_file`` in
``vllm/utils/argparse_utils.py`` (0.33.0) does it: only the word ``--config`` followed by a
``.yaml``/``.yml`` file is pulled; each key becomes ``--KEY`` (``true`` → the bare flag,
``false`` → ``--no-KEY`` when the parser has it, a list → its items, a mapping → JSON, anything
else its text), inserted after ``serve MODEL`` (at the front for the API server module), so the
command line's own flags, parsed later, win. ``--config=FILE`` is parsed as the option's value
and never merged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cgconfig.line.config_file import ConfigFileGrammar
from cgconfig.line.entry import EntryPoint


def _words(data: Mapping[str, Any]) -> list[str]:
    from cgconfig.line.table import load_table

    table = load_table("vllm")
    out: list[str] = []
    for key, value in data.items():
        flag = f"--{key}"
        if isinstance(value, bool):
            if value:
                out.append(flag)
            elif table.lookup(f"--no-{key}") is not None:
                out.append(f"--no-{key}")
        elif isinstance(value, list):
            if value:
                out += [flag, *(str(item) for item in value)]
        elif isinstance(value, dict):
            out += [flag, json.dumps(value)]
        elif value is None:
            out += [flag, "None"]
        else:
            out += [flag, str(value)]
    return out


def _insert_at(entry: EntryPoint, rest: Sequence[str]) -> int:
    """After ``serve MODEL``, as vLLM inserts it; at the front for the API server module."""
    at = entry.args_at
    if entry.program.endswith("serve") and at < len(rest) and not rest[at].startswith("-"):
        at += 1
    return at


CONFIG_FILE = ConfigFileGrammar(
    merger="vLLM's FlexibleArgumentParser (vllm/utils/argparse_utils.py)",
    words=_words, insert_at=_insert_at)
