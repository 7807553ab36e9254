"""The engines' own ``--config FILE``, merged into the launch's words as each engine merges it.

vLLM (``FlexibleArgumentParser.parse_args`` → ``_pull_args_from_config`` /
``load_config_file`` in ``vllm/utils/argparse_utils.py``, 0.33.0): only the word ``--config``
followed by a ``.yaml``/``.yml`` file is pulled; each key becomes ``--KEY`` (``true`` → the bare
flag, ``false`` → ``--no-KEY`` when the parser has it, a list → its items, a mapping → JSON,
anything else its text), inserted after ``serve MODEL`` (at the front for the API server
module), so the command line's own flags, parsed later, win. ``--config=FILE`` is parsed as
the option's value and never merged.

SGLang (``prepare_server_args`` → ``ConfigArgumentMerger.merge_config_with_args`` in
``sglang/srt/utils/server_args_config_parser.py``, 0.5.19–0.5.23): the same word ``--config``;
keys become ``--KEY`` (a store-true flag only when ``true``, any other boolean as
``--KEY true|false``, a list → its items, a mapping → JSON), all put before the command line's
arguments, which win.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from cgconfig.errors import InputError
from cgconfig.files.record import Launch
from cgconfig.limits import short
from cgconfig.line.entry import find_entry_point

_SOURCES = {
    "vllm": "vLLM's FlexibleArgumentParser (vllm/utils/argparse_utils.py)",
    "sglang": "SGLang's ConfigArgumentMerger (sglang/srt/utils/server_args_config_parser.py)",
}


def _config_text(launch: Launch, name: str, where: str) -> tuple[str, str]:
    """(text, where it was read) of the config file: one the script wrote before the launch,
    else the file beside the deployment file, else in the current directory."""
    written = dict(launch.files)
    if name in written:
        return written[name], f"the here-document the script writes to {name}"
    from cgconfig.docio import read_text_file

    base = os.path.dirname(launch.file) if launch.file != "-" else ""
    for candidate in ([os.path.join(base, name)] if base and not os.path.isabs(name) else []) + [name]:
        if os.path.isfile(candidate):
            return read_text_file(candidate, where), candidate
    raise InputError(f"--config {short(name)}: the file is not written by the script and not "
                     "found beside it", where=where,
                     hint="put the file beside the deployment file, or write its keys on the line")


def _words(engine: str, data: dict[str, Any], where: str) -> list[str]:
    from cgconfig.line.table import load_table

    table = load_table(engine)
    out: list[str] = []
    for key, value in data.items():
        flag = f"--{key}"
        if isinstance(value, bool):
            if engine == "vllm":
                if value:
                    out.append(flag)
                elif table.lookup(f"--no-{key}") is not None:
                    out.append(f"--no-{key}")
            else:
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
    del where
    return out


def follow_config(launch: Launch) -> Launch:
    """``launch`` with its engine's ``--config FILE`` merged into ``argv`` (the words from
    the file take the ``--config`` word's line) and a note naming the file; unchanged when
    there is none."""
    entry = find_entry_point(list(launch.argv))
    if entry is None or entry.dialect not in _SOURCES:
        return launch
    argv = list(launch.argv)
    if "--config" not in argv[entry.args_at:]:
        inline = [w for w in argv[entry.args_at:] if w.startswith("--config=")]
        if inline:
            note = (f"{inline[0]} is not merged: {_SOURCES[entry.dialect]} merges only "
                    "'--config FILE' as two words")
            return replace(launch, notes=(*launch.notes, note))
        return launch
    at = argv.index("--config", entry.args_at)
    where = f"{launch.file}:{launch.arg_lines[at]}"
    if argv.count("--config") > 1:
        raise InputError("more than one --config file (the engine refuses it)", where=where)
    if at + 1 >= len(argv):
        raise InputError("--config names no file", where=where)
    name = argv[at + 1]
    if at + 1 in launch.unresolved_at:
        raise InputError(f"--config {short(name)}: the file's name is not known", where=where,
                         hint=" ".join(f"--set {n}=VALUE" for n in launch.unresolved))
    if not name.lower().endswith((".yaml", ".yml")):
        raise InputError(f"--config {short(name)}: the engine reads only a .yaml/.yml file",
                         where=where)
    text, origin = _config_text(launch, name, where)
    from cgconfig.docio import load_yaml_text

    data, _ = load_yaml_text(text, f"{name} (--config, {where})")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"--config {short(name)} must hold a mapping of flag names to values",
                         where=where)
    words = _words(entry.dialect, data, where)
    rest = argv[:at] + argv[at + 2:]
    lines = list(launch.arg_lines[:at]) + list(launch.arg_lines[at + 2:])
    insert = entry.args_at
    if entry.dialect == "vllm" and entry.program.endswith("serve") and insert < len(rest) \
            and not rest[insert].startswith("-"):
        insert += 1  # after serve's MODEL, as vLLM inserts it
    line = launch.arg_lines[at]
    shifted = tuple(i if i < at else i - 2 for i in launch.unresolved_at if i not in (at, at + 1))
    moved = tuple(i if i < insert else i + len(words) for i in shifted)
    note = (f"--config {name} ({where}): {len(data)} keys read from {origin} and put before "
            f"the command line's flags, as {_SOURCES[entry.dialect]} does; the command line "
            "wins")
    # a here-document's $VAR the script could not expand stays unresolved in the words
    names = [_variables(word) for word in words]
    unknown = tuple(insert + i for i, found in enumerate(names) if found)
    return replace(launch, argv=tuple(rest[:insert] + words + rest[insert:]),
                   arg_lines=tuple(lines[:insert] + [line] * len(words) + lines[insert:]),
                   unresolved_at=tuple(sorted((*moved, *unknown))),
                   unresolved=tuple(dict.fromkeys((*launch.unresolved,
                                                   *(n for found in names for n in found)))),
                   notes=(*launch.notes, note))


def _variables(word: str) -> tuple[str, ...]:
    """Names of ``$NAME`` / ``${NAME}`` left in a word."""
    from cgconfig.files.expand import is_name

    out: list[str] = []
    for piece in word.split("$")[1:]:
        body = piece[1:].split("}", 1)[0] if piece.startswith("{") else piece
        name = ""
        for char in body:
            if not (char.isalnum() or char == "_"):
                break
            name += char
        if is_name(name):
            out.append(name)
    return tuple(out)
