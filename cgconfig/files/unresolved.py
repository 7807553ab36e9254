"""Variables a launch left unresolved: which the plan depends on, and what to drop.

A flag whose value holds an unresolved variable is looked up in the release's flag table: one
cgconfig reads (a modelled flag, the parallel sizes) makes the plan depend on it, so resolving
stops with the ``--set VAR=VALUE`` hint (exit 2); the model's name leaves the model's facts
unknown; any other flag (``--host $(LWS_LEADER_ADDRESS)``) is dropped from the resolved line with
a note, since the plan does not read it.
"""

from __future__ import annotations

from cgconfig.errors import InputError
from cgconfig.files.record import Launch
from cgconfig.limits import short
from cgconfig.line.entry import find_entry_point

_PARALLEL_DESTS = ("tensor_parallel_size", "pipeline_parallel_size", "tp_size", "pp_size",
                   "dp_size", "data_parallel_size", "ep_size", "expert_parallel_size")
_MODEL_DESTS = ("model", "model_tag", "model_path")


def _flag_of(launch: Launch, index: int) -> tuple[int, str] | None:
    """(index of the flag word, its name) whose value is ``argv[index]``, or ``None`` for a
    positional word (or a flag word itself)."""
    word = launch.argv[index]
    if word.startswith("--") and "=" in word:
        return index, word.split("=", 1)[0]
    if word.startswith("-") and not word[1:2].isdigit():
        return None
    if index > 0 and launch.argv[index - 1].startswith("-") and "=" not in launch.argv[index - 1]:
        return index - 1, launch.argv[index - 1]
    return None


def _hint(names: tuple[str, ...]) -> str:
    return " ".join(f"--set {name}=VALUE" for name in names if name[:1].isalpha() or
                    name[:1] == "_") or "write the value into the file"


def _names_in(word: str, launch: Launch) -> tuple[str, ...]:
    return tuple(n for n in launch.unresolved if n in word) or launch.unresolved


def dropped_words(launch: Launch) -> tuple[set[int], list[str]]:
    """Indices of ``argv`` left out of the resolved line, and one note per left-out flag.
    Raises :class:`InputError` when the plan depends on an unresolved value."""
    if not launch.unresolved_at:
        return set(), []
    from cgconfig.line.flag_values import lookup_option
    from cgconfig.line.table import load_table

    entry = find_entry_point(list(launch.argv))
    table = load_table(entry.dialect) if entry is not None else None
    drop: set[int] = set()
    notes: list[str] = []
    for index in launch.unresolved_at:
        word = launch.argv[index]
        names = _names_in(word, launch)
        where = f"{launch.file}:{launch.arg_lines[index]}"
        owner = _flag_of(launch, index)
        if owner is None:
            if entry is not None and index == entry.args_at and entry.dialect != "sglang":
                drop.add(index)
                notes.append(f"the model is unknown: {short(word)} ({', '.join(names)} unset; "
                             f"{_hint(names)})")
                continue
            raise InputError(f"{short(word)}: {', '.join(names)} is not set, and the engine "
                             "reads this word", where=where, hint=_hint(names))
        at, name = owner
        found = lookup_option(table, name) if table is not None else None
        flag = found[0] if found is not None else None
        if flag is not None and flag.dest in _MODEL_DESTS:
            notes.append(f"the model is unknown: {name} {short(word)} ({', '.join(names)} "
                         f"unset; {_hint(names)})")
        elif flag is None or flag.modelled or flag.dest in _PARALLEL_DESTS or flag.graph_effect:
            known = "" if flag is not None else " (a flag cgconfig cannot look up)"
            raise InputError(f"{name} {short(word)}: {', '.join(names)} is not set, and the plan "
                             f"depends on {name}{known}", where=where, hint=_hint(names))
        else:
            notes.append(f"not read: {name} {short(word)} ({', '.join(names)} unset; the plan "
                         "does not depend on it)")
        drop.update(range(at, index + 1))
    return drop, notes


def check_unresolved(launch: Launch) -> list[str]:
    """The notes for the unresolved words of ``launch``; raises when the plan needs one."""
    return dropped_words(launch)[1]


def line_without_unknowns(launch: Launch) -> list[str]:
    """``launch.argv`` without the words :func:`dropped_words` leaves out."""
    drop, _ = dropped_words(launch)
    return [word for i, word in enumerate(launch.argv) if i not in drop]
