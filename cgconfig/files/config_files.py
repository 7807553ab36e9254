"""An engine's own ``--config FILE``, merged into the launch's words as that engine merges it.

The file (a YAML mapping of flag names to values) is read here, the same for every engine; how
its keys become words and where they go is the engine's grammar, the plug-in part
``config_file`` (``engines/<engine>/config_file.py``, a
:class:`cgconfig.line.config_file.ConfigFileGrammar`). An engine without one keeps its
``--config`` word as a flag of its own.
"""

from __future__ import annotations

import os
from dataclasses import replace

from cgconfig.errors import InputError
from cgconfig.files.record import Launch
from cgconfig.limits import short
from cgconfig.line.entry import find_entry_point
from cgconfig.line.plugins import part


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


def follow_config(launch: Launch) -> Launch:
    """``launch`` with its engine's ``--config FILE`` merged into ``argv`` (the words from
    the file take the ``--config`` word's line) and a note naming the file; unchanged when
    there is none."""
    entry = find_entry_point(list(launch.argv))
    grammar = part(entry.dialect, "config_file") if entry is not None else None
    if entry is None or grammar is None:
        return launch
    argv = list(launch.argv)
    if "--config" not in argv[entry.args_at:]:
        inline = [w for w in argv[entry.args_at:] if w.startswith("--config=")]
        if inline:
            note = (f"{inline[0]} is not merged: {grammar.merger} merges only "
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
    words = grammar.words(data)
    rest = argv[:at] + argv[at + 2:]
    lines = list(launch.arg_lines[:at]) + list(launch.arg_lines[at + 2:])
    insert = grammar.insert_at(entry, rest)
    line = launch.arg_lines[at]
    shifted = tuple(i if i < at else i - 2 for i in launch.unresolved_at if i not in (at, at + 1))
    moved = tuple(i if i < insert else i + len(words) for i in shifted)
    note = (f"--config {name} ({where}): {len(data)} keys read from {origin} and put before "
            f"the command line's flags, as {grammar.merger} does; the command line "
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
