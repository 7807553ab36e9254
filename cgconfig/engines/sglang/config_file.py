"""SGLang's ``--config FILE`` merge (the plug-in part ``config_file``), as
``prepare_server_args`` → ``ConfigArgumentMerger.merge_config_with_args`` in
``sglang/srt/utils/server_args_config_parser.py`` (0.5.19–0.5.23) does it: the word
``--config``; keys become ``--KEY`` (a store-true flag only when ``true``, any other boolean as
``--KEY true|false``, a list → its items, a mapping → JSON), all put before the command line's
arguments, which win.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cgconfig.line.config_file import ConfigFileGrammar
from cgconfig.line.entry import EntryPoint


def _words(data: Mapping[str, Any]) -> list[str]:
    from cgconfig.line.table import load_table

    table = load_table("sglang")
    out: list[str] = []
    for key, value in data.items():
        flag = f"--{key}"
        if isinstance(value, bool):
            found = table.lookup(flag) or table.lookup("--" + str(key).replace("_", "-"))
            if found is not None and found.nargs == 0:
                if value:
                    out.append(flag)
            else:
                out += [flag, str(value).lower()]
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
    """Before the command line's own arguments."""
    del rest
    return entry.args_at


CONFIG_FILE = ConfigFileGrammar(
    merger="SGLang's ConfigArgumentMerger (sglang/srt/utils/server_args_config_parser.py)",
    words=_words, insert_at=_insert_at)
