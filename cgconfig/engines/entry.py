"""Find an engine's entry point anywhere in a launch line, with its ``VAR=value`` prefixes.

``CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path X`` → dialect ``sglang``,
env ``{"CUDA_VISIBLE_DEVICES": "0,1"}``, engine argv ``["--model-path", "X"]``. The engine argv is
what the engine's own parser receives: ``sglang serve MODEL`` becomes ``--model-path MODEL`` (as
``sglang/cli/serve.py`` does), ``trtllm-serve serve MODEL`` drops the ``serve`` command name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from cgconfig.errors import InputError

_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")

#: ``python -m MODULE`` modules → dialect.
PYTHON_MODULES: dict[str, str] = {
    "sglang.launch_server": "sglang",
    "sglang.srt.server": "sglang",
    "vllm.entrypoints.openai.api_server": "vllm",
}
#: Console scripts: (program, subcommand or None) → dialect.
SCRIPTS: dict[tuple[str, str | None], str] = {
    ("sglang", "serve"): "sglang",
    ("vllm", "serve"): "vllm",
    ("trtllm-serve", None): "trtllm",
}


#: trtllm-serve's subcommands other than ``serve`` (the ``main`` group of
#: ``tensorrt_llm/commands/serve.py`` at 00209af), each with what it starts.
TRTLLM_OTHER_COMMANDS: dict[str, str] = {
    "disaggregated": "starts the disaggregated-serving front end; "
                     "the context and generation servers that its -c file lists are not read",
    "disaggregated_mpi_worker": "is an MPI worker of disaggregated serving; its -c file is "
                                "not read",
    "grpc": "serves a model over gRPC, with options of its own",
    "mm_embedding_serve": "serves a multimodal encoder, whose encoder graphs cgconfig does not "
                          "plan",
}


class EntryPoint(NamedTuple):
    """Where a launch line starts the engine and what the engine receives."""

    dialect: str
    program: str
    """The entry point as written: ``python3 -m sglang.launch_server``, ``vllm serve``..."""
    env: dict[str, str]
    """``VAR=value`` assignments right before the entry point (``env`` allowed in between)."""
    argv: list[str]
    """The engine's own arguments, as its parser receives them."""
    start: int = 0
    """Index of the first word of the ``VAR=value`` prefixes (or of the entry point) in the
    line's words: what comes before is not the engine's (a wrapper, cgconfig's own flags)."""


def tokenize(line: str | Sequence[str]) -> list[str]:
    """Shell words of a launch line (backslash-newline continuations joined)."""
    if not isinstance(line, str):
        return list(line)
    import shlex  # only a line given as one string needs it

    try:
        return shlex.split(line.replace("\\\n", " "), comments=True)
    except ValueError as exc:
        raise InputError(f"cannot split the launch line: {exc}", where="launch line",
                         hint="check its quotes") from None


def _env_before(words: list[str], start: int) -> tuple[dict[str, str], int]:
    """The ``VAR=value`` words right before ``start`` (``env`` allowed among them) and the
    index of the first of them."""
    env: dict[str, str] = {}
    j = start - 1
    while j >= 0:
        if words[j] == "env" and (j == 0 or not words[j - 1].startswith("-")):
            j -= 1  # the env command (after a flag, "env" is that flag's value: --emit env)
            continue
        match = _ASSIGNMENT.match(words[j])
        if not match:
            break
        env.setdefault(match.group(1), match.group(2))
        j -= 1
    return dict(reversed(list(env.items()))), j + 1


def _match(words: list[str], i: int) -> tuple[str, str, int] | None:
    """(dialect, program text, index of the first engine argument) when an entry point starts at i."""
    word = words[i]
    base = word.rsplit("/", 1)[-1]
    if _PYTHON.match(word):
        j = i + 1
        while j < len(words) and words[j].startswith("-") and words[j] != "-m":
            j += 1  # interpreter options such as -u
        if j + 1 < len(words) and words[j] == "-m" and words[j + 1] in PYTHON_MODULES:
            return PYTHON_MODULES[words[j + 1]], f"{base} -m {words[j + 1]}", j + 2
        return None
    nxt = words[i + 1] if i + 1 < len(words) else None
    if (base, nxt) in SCRIPTS:
        return SCRIPTS[(base, nxt)], f"{base} {nxt}", i + 2
    if (base, None) in SCRIPTS:
        if base == "trtllm-serve" and nxt in TRTLLM_OTHER_COMMANDS:
            raise InputError(
                f"this subcommand {TRTLLM_OTHER_COMMANDS[nxt]}; cgconfig reads only the serve subcommand (a "
                "model, its size flags and its --extra_llm_api_options file)",
                where=f"trtllm-serve {nxt}",
                hint="plan each server's own line: trtllm-serve MODEL --extra_llm_api_options FILE")
        skip = 1 if nxt == "serve" else 0
        return SCRIPTS[(base, None)], base + (" serve" if skip else ""), i + 1 + skip
    return None


def _engine_argv(dialect: str, program: str, rest: list[str]) -> list[str]:
    if program.endswith("sglang serve"):
        rest = _drop_model_type(rest)
        if rest and not rest[0].startswith("-"):  # sglang/cli/serve.py _normalize_positional_model_path
            return ["--model-path", rest[0], *rest[1:]]
    return rest


def _drop_model_type(rest: list[str]) -> list[str]:
    """``sglang serve`` removes its backend selector ``--model-type`` before ServerArgs parses."""
    out: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == "--model-type":
            i += 2
            continue
        if not rest[i].startswith("--model-type="):
            out.append(rest[i])
        i += 1
    return out


def find_entry_point(line: str | Sequence[str]) -> EntryPoint | None:
    """The first engine entry point in ``line`` (a string or shell words), or ``None``."""
    words = tokenize(line)
    for i in range(len(words)):
        found = _match(words, i)
        if found:
            dialect, program, start = found
            env, first = _env_before(words, i)
            return EntryPoint(dialect=dialect, program=program, env=env,
                              argv=_engine_argv(dialect, program, words[start:]), start=first)
    return None


#: Program names (a path's last part) that can start an entry point.
_PROGRAMS = frozenset(program for program, _ in SCRIPTS)


def might_have_entry_point(words: Sequence[str]) -> bool:
    """A cheap test before :func:`find_entry_point`: does any word name a Python interpreter
    or an engine's program? (cgconfig's own flag lines skip the search.)"""
    for word in words:
        if word[:1] == "-" or word[:1].isdigit():
            continue  # flags and numbers: most words of a cgconfig line
        base = word.rsplit("/", 1)[-1]
        if base in _PROGRAMS or base.startswith("python"):
            return True
    return False
