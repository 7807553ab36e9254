"""Read a ``docker run``/``podman run`` wrapper as its runner does (``container-flags.json``).

``docker run --gpus all -v /data/vllm:v0.21.0 --device /dev/kfd vllm/vllm-openai:v0.27.1
--model m``: ``--gpus``, ``-v`` and ``--device`` take a value each, so the image is
``vllm/vllm-openai:v0.27.1`` (not the mount ``/data/vllm:v0.21.0``), and none of those words is
cgconfig's. The grammars are data: which options are switches and which take a value, from each
runner's own flag definitions (the file cites them).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import short

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "container-flags.json")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Grammar(NamedTuple):
    """One command's options: the switches and those that take one value."""

    switches: frozenset[str]
    valued: frozenset[str]


class RunnerGrammar(NamedTuple):
    """A runner's global options (before its command) and its ``run``/``exec`` grammars."""

    source: str
    global_grammar: Grammar
    commands: dict[str, Grammar]


@dataclass
class ContainerRun:
    """Where a runner's ``run``/``exec`` stands in a line's words, and what its options say."""

    runner: str
    """The runner as written (``docker``, ``/usr/bin/podman``)."""
    command: str
    """``run`` or ``exec``."""
    start: int
    """Index of the runner's word."""
    image_at: int | None
    """Index of the image (``exec``: the container), or ``None`` when the line ends first."""
    env: dict[str, str] = field(default_factory=dict)
    """``-e VAR=value`` / ``--env VAR=value`` settings (the later one wins)."""
    passed: tuple[str, ...] = ()
    """Names ``-e VAR`` passes from the caller's environment."""
    entrypoint: str | None = None
    """``--entrypoint``'s value, when given."""
    image: str | None = None
    """The image's word (``exec``: the container's name), if any."""


@cache
def grammars() -> dict[str, RunnerGrammar]:
    """Runner name (a path's last part) → its grammar, aliases included."""
    with open(_TABLE, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)

    def grammar(entry: dict[str, list[str]]) -> Grammar:
        return Grammar(frozenset(entry.get("switches", entry.get("global_switches", []))),
                       frozenset(entry.get("valued", entry.get("global_valued", []))))

    out = {name: RunnerGrammar(str(entry["source"]),
                               grammar({"switches": entry["global_switches"],
                                        "valued": entry["global_valued"]}),
                               {command: grammar(entry[command]) for command in ("run", "exec")})
           for name, entry in data["runners"].items()}
    for alias, name in data["aliases"].items():
        out[alias] = out[name]
    return out


def _take(words: list[str], k: int, grammar: Grammar, where: str) -> tuple[int, str | None, str | None]:
    """Read the option at ``words[k]``: (index after it, its name, its value or ``None``)."""
    word = words[k]
    if word.startswith("--"):
        name, eq, inline = word.partition("=")
        if name in grammar.switches:
            return k + 1, name, None
        if name in grammar.valued:
            if eq:
                return k + 1, name, inline
            if k + 1 >= len(words):
                raise InputError(f"{short(name)} expects a value", where=where)
            return k + 2, name, words[k + 1]
        if eq:  # an option cgconfig does not list, its value attached: still one word
            return k + 1, name, inline
        raise InputError(f"unknown option {short(name)}: cgconfig cannot tell whether it takes "
                         "a value, so not where the image is", where=where,
                         suggestion=did_you_mean(name, sorted(grammar.switches | grammar.valued)),
                         hint=f"write {short(name)}=VALUE when it takes one")
    # Short options, grouped: switches, then at most one that takes the rest or the next word.
    for at in range(1, len(word)):
        name = "-" + word[at]
        if name in grammar.switches:
            continue
        if name in grammar.valued:
            rest = word[at + 1:]
            if rest:
                return k + 1, name, rest[1:] if rest.startswith("=") else rest
            if k + 1 >= len(words):
                raise InputError(f"{name} expects a value", where=where)
            return k + 2, name, words[k + 1]
        raise InputError(f"unknown option {name} (in {short(word)})", where=where,
                         hint="cgconfig reads the runner's options to find the image")
    return k + 1, word, None


def _find_runner(words: list[str]) -> tuple[int, int, str, str] | None:
    """(runner index, index after its command word, runner name, command) of the first
    ``RUNNER [global options] run|exec`` (also ``container run``) in ``words``."""
    table = grammars()
    for k, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base not in table or word.startswith("-"):
            continue
        grammar = table[base].global_grammar
        j = k + 1
        while j < len(words) and words[j].startswith("-") and words[j] != "-":
            name = words[j].split("=", 1)[0]
            if name in grammar.valued and "=" not in words[j]:
                j += 2
            elif name in grammar.switches or name in grammar.valued:
                j += 1
            else:
                break
        if words[j:j + 1] == ["container"]:
            j += 1
        if j < len(words) and words[j] in ("run", "exec"):
            return k, j + 1, base, words[j]
    return None


def container_run(words: list[str]) -> ContainerRun | None:
    """The first container runner's ``run``/``exec`` in ``words`` with its options read by the
    runner's grammar, or ``None`` without one. An option the grammar does not list, written
    without ``=VALUE``, is an :class:`InputError` (where the image is depends on it)."""
    found = _find_runner(words)
    if found is None:
        return None
    start, k, runner, command = found
    grammar = grammars()[runner].commands[command]
    where = f"{runner} {command}"
    run = ContainerRun(runner=words[start], command=command, start=start, image_at=None)
    passed: list[str] = []
    while k < len(words):
        word = words[k]
        if word == "--":
            k += 1
            break
        if not word.startswith("-") or word == "-":
            break
        k, name, value = _take(words, k, grammar, where)
        if name in ("--env", "-e") and value is not None:
            match = _ASSIGNMENT.match(value)
            if match:
                run.env[match.group(1)] = match.group(2)
            elif _NAME.fullmatch(value):
                passed.append(value)
        elif name == "--entrypoint":
            run.entrypoint = value
    if k < len(words):
        run.image_at, run.image = k, words[k]
    run.passed = tuple(passed)
    return run


def unread_image(run: ContainerRun, known_images: Iterable[str]) -> InputError:
    """The error for a container line whose image starts no engine cgconfig can name: neither
    an engine command after the image nor one of ``known_images``, whose entrypoints cgconfig
    knows."""
    image = short(run.image or "")
    if run.entrypoint is not None:
        what = (f"--entrypoint {short(run.entrypoint)} replaces the image's entrypoint, and "
                "cgconfig reads an engine command only when it is written after the image")
    else:
        what = "cgconfig does not know what this image's entrypoint starts"
    known = ", ".join(sorted(known_images))
    return InputError(f"{what} (it knows the entrypoints of {known})",
                      where=f"{run.runner.rsplit('/', 1)[-1]} {run.command} {image}",
                      hint=f"write the engine's command after the image: … {image} vllm serve "
                           "MODEL …, or … python3 -m sglang.launch_server …")
