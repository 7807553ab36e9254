"""Find an engine's entry point anywhere in a launch line, with its ``VAR=value`` prefixes.

``CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path X`` → dialect ``sglang``,
env ``{"CUDA_VISIBLE_DEVICES": "0,1"}``, engine argv ``["--model-path", "X"]``. The engine argv is
what the engine's own parser receives: ``sglang serve MODEL`` becomes ``--model-path MODEL`` (as
``sglang/cli/serve.py`` does), ``trtllm-serve serve MODEL`` drops the ``serve`` command name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from cgconfig.errors import InputError
from cgconfig.line import registry

_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_PYTHON = re.compile(r"python(?:3(?:\.[0-9]+)?)?")  # fullmatch on a path's last part

#: ``python -m MODULE`` modules → dialect (the registry's ``modules`` and ``dynamo_module``).
PYTHON_MODULES: dict[str, str] = {
    module: row.name for row in registry.ROWS
    for module in (*row.modules, *((row.dynamo_module,) if row.dynamo_module else ()))}
#: NVIDIA Dynamo's workers (``python -m dynamo.<engine>``): each takes its engine's flags plus
#: Dynamo's own (``--endpoint``, ``--is-prefill-worker``...), which no engine table has: on
#: such a line a flag the engine does not know is taken as Dynamo's, listed as ignored with a
#: note, not refused.
DYNAMO_MODULES = tuple(row.dynamo_module for row in registry.ROWS if row.dynamo_module)
#: Console scripts: their words (a program and its subcommands) → dialect, longest first.
SCRIPTS: dict[tuple[str, ...], str] = dict(sorted(
    ((words, row.name) for row in registry.ROWS for words in row.scripts),
    key=lambda item: -len(item[0])))
#: (program, subcommand) → (what it starts, what cgconfig reads instead, the hint), for the
#: subcommands cgconfig refuses (the registry's ``refused_commands``).
REFUSED_COMMANDS: dict[tuple[str, str], tuple[str, str, str]] = {
    (words[0], command): (what, row.refused_reads, row.refused_hint)
    for row in registry.ROWS for command, what in row.refused_commands
    for words in row.scripts[:1]}


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
    inherit: bool = True
    """Whether the caller's environment reaches the engine (not after ``env -i``, nor inside
    ``docker run``)."""
    unset: frozenset[str] = frozenset()
    """Names ``env -u`` removed from the caller's environment."""
    passed: tuple[str, ...] = ()
    """Names a container runner passes from the caller's environment (``docker run -e VAR``)."""
    program_at: int = 0
    """Index of the entry point's first word (``vllm``, ``python3``) in the line's words."""
    args_at: int = 0
    """Index of the first engine argument in the line's words (:attr:`argv` is the line's
    tail from there, unless the entry point rewrote it: ``sglang serve MODEL``)."""

    @property
    def dynamo(self) -> bool:
        """Whether the line starts an NVIDIA Dynamo worker (:data:`DYNAMO_MODULES`)."""
        return self.program.rsplit(" ", 1)[-1] in DYNAMO_MODULES

    def engine_environ(self, environ: Mapping[str, str]) -> dict[str, str]:
        """What the engine's process sees of the caller's ``environ`` (the line's own
        ``VAR=value`` words are :attr:`env`)."""
        if not self.inherit:
            return {name: environ[name] for name in self.passed if name in environ}
        return {k: v for k, v in environ.items() if k not in self.unset}


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


def _env_before(words: list[str], start: int) -> tuple[dict[str, str], int, bool, frozenset[str]]:
    """The environment words right before ``start``: ``VAR=value`` prefixes and the ``env``
    command with its options (``-i`` starts from an empty environment, ``-u NAME`` removes one).
    Returns the assignments, the index of the first such word, whether the outer environment
    still reaches the engine, and the names ``env -u`` removed."""
    j = start
    while j > 0:
        word, before = words[j - 1], words[j - 2] if j >= 2 else None
        if _ASSIGNMENT.match(word) or (word == "env" and not (before or "x").startswith("-")):
            j -= 1  # after a flag, "env" is that flag's value (--emit env)
        elif word in _ENV_OPTIONS or (word.startswith(("--unset=", "-u")) and len(word) > 2):
            j -= 1
        elif before in ("-u", "--unset") and _NAME.fullmatch(word):
            j -= 2
        else:
            break
    while j < start and words[j] != "env" and not _ASSIGNMENT.match(words[j]):
        j += 1  # an option word with no env command before it is not one of env's
    env: dict[str, str] = {}
    inherit, unset, in_env = True, set(), False
    i = j
    while i < start:
        word = words[i]
        match = _ASSIGNMENT.match(word)
        if word == "env":
            in_env = True
        elif match:
            env[match.group(1)] = match.group(2)  # the later assignment wins, as in a shell
            unset.discard(match.group(1))
        elif in_env and word in _ENV_OPTIONS:
            inherit, env, unset = False, {}, set()
        elif in_env and word in ("-u", "--unset") and i + 1 < start:
            i += 1
            unset.add(words[i])
            env.pop(words[i], None)
        elif in_env and word.startswith(("--unset=", "-u")):
            name = word.split("=", 1)[1] if word.startswith("--unset=") else word[2:]
            unset.add(name)
            env.pop(name, None)
        i += 1
    return env, j, inherit, frozenset(unset)


_ENV_OPTIONS = ("-i", "--ignore-environment", "-")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Container runners whose ``run``/``exec`` gives the engine a fresh environment: only their
#: ``-e VAR=value`` / ``--env VAR=value`` words (``-e VAR`` passes the caller's VAR) reach it.
CONTAINER_RUNNERS = frozenset({"docker", "podman", "nerdctl"})


def _container_env(words: list[str]) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """``(assignments, names passed through)`` of a ``docker run``/``podman run`` wrapper in
    ``words`` (what comes before the entry point), or ``None`` without one (its options read
    by the runner's grammar: ``line.containers``)."""
    from cgconfig.line.containers import container_run

    run = container_run(words)
    return None if run is None else (run.env, run.passed)


def _match(words: list[str], i: int) -> tuple[str, str, int] | None:
    """(dialect, program text, index of the first engine argument) when an entry point starts at i."""
    word = words[i]
    base = word.rsplit("/", 1)[-1]
    if word[:1] != "-" and _PYTHON.fullmatch(base):
        j = _after_interpreter_options(words, i + 1)
        if j + 1 < len(words) and words[j] == "-m" \
                and words[j + 1] in PYTHON_MODULES:
            return PYTHON_MODULES[words[j + 1]], f"{base} -m {words[j + 1]}", j + 2
        return None
    nxt = words[i + 1] if i + 1 < len(words) else None
    if nxt is not None and (base, nxt) in REFUSED_COMMANDS:
        what, reads, hint = REFUSED_COMMANDS[(base, nxt)]
        raise InputError(f"this subcommand {what}; {reads}", where=f"{base} {nxt}",
                         hint=hint or None)
    for script, dialect in SCRIPTS.items():
        if script[0] == base and tuple(words[i + 1:i + len(script)]) == script[1:]:
            return dialect, " ".join((base, *script[1:])), i + len(script)
    return None


#: CPython's switches (``python3 --help``), which may be grouped (``-uB``), and its options that
#: take a value, attached (``-Xdev``) or as the next word (``-X dev``, ``-W ignore``).
_PY_SWITCHES = frozenset("bBdEhiIOPqRsSuvVx")
_PY_VALUED = frozenset("WX")


def _after_interpreter_options(words: list[str], j: int) -> int:
    """Index of the first word after CPython's own options starting at ``j`` (``-u``, ``-X dev``,
    ``-Wignore``, ``-OO``): ``-m`` when an entry point follows, else where the options stop (a
    word that is no interpreter option stops them too)."""
    while j < len(words):
        word = words[j]
        if word == "-m" or word[:1] != "-" or word in ("-", "--"):
            return j
        if word == "--check-hash-based-pycs":
            j += 2
            continue
        letters = word[1:]
        if letters[0] in _PY_VALUED:
            j += 1 if len(letters) > 1 else 2
            continue
        if not set(letters) <= _PY_SWITCHES:
            return j
        j += 1
    return j


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


def _next_candidate(words: list[str], i: int) -> int:
    """Where to look next after no entry point starts at ``i``: past the interpreter options
    of a Python word (a Python word among them is an option's value, ``-X python3``, and would
    stop at the same place), so the search looks at each word a bounded number of times."""
    word = words[i]
    if word[:1] != "-" and _PYTHON.fullmatch(word.rsplit("/", 1)[-1]):
        return max(i + 1, _after_interpreter_options(words, i + 1))
    return i + 1


#: Container images whose own entrypoint is an engine's: ``docker run vllm/vllm-openai:TAG
#: --model M`` runs ``vllm serve --model M`` (vLLM's docs, "Using Docker"). Repository (the
#: image name without registry host and tag) → (dialect, the entrypoint).
IMAGE_ENTRYPOINTS: dict[str, tuple[str, str]] = {
    image: (row.name, entrypoint) for row in registry.ROWS
    for image, entrypoint in row.image_entrypoints}


def _image_entrypoint(words: list[str], i: int) -> tuple[str, str, int] | None:
    """(dialect, program text, index of the first engine argument) when words[i] is an image
    of :data:`IMAGE_ENTRYPOINTS` run by a container runner before it."""
    word = words[i]
    if word[:1] == "-" or "/" not in word:
        return None
    name = word.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    parts = name.split("/")
    repo = "/".join(parts[-2:]) if len(parts) >= 2 else name
    found = IMAGE_ENTRYPOINTS.get(repo)
    if found is None or _container_env(words[:i]) is None:
        return None
    return found[0], f"{word} (entrypoint {found[1]})", i + 1


def find_entry_point(line: str | Sequence[str]) -> EntryPoint | None:
    """The first engine entry point in ``line`` (a string or shell words), or ``None``. Without
    an explicit one, an engine image run by a container runner with no ``--entrypoint`` of its
    own starts its engine (:data:`IMAGE_ENTRYPOINTS`)."""
    words = tokenize(line)
    i = 0
    while i < len(words):
        found = _match(words, i)
        if not found:
            i = _next_candidate(words, i)
            continue
        return _entry(words, i, found)
    from cgconfig.line.containers import container_run, unread_image

    run = container_run(words)  # the image is where the runner's grammar puts it
    if run is None or run.image_at is None or run.command != "run":
        return None
    found = _image_entrypoint(words, run.image_at)
    if found is not None and run.entrypoint is None:
        return _entry(words, run.image_at, found)
    raise unread_image(run, IMAGE_ENTRYPOINTS)  # docker's words: never cgconfig's flags


def _entry(words: list[str], i: int, found: tuple[str, str, int]) -> EntryPoint:
    dialect, program, start = found
    env, first, inherit, unset = _env_before(words, i)
    container = _container_env(words[:first])
    passed: tuple[str, ...] = ()
    if container is not None:  # a fresh environment: -e words, then the prefixes
        env, passed, inherit = {**container[0], **env}, container[1], False
    return EntryPoint(dialect=dialect, program=program, env=env,
                      argv=_engine_argv(dialect, program, words[start:]), start=first,
                      inherit=inherit, unset=unset, passed=passed, program_at=i,
                      args_at=start)


#: Program names (a path's last part) that can start an entry point.
_PROGRAMS = frozenset(words[0] for words in SCRIPTS)


def might_have_entry_point(words: Sequence[str]) -> bool:
    """A cheap test before :func:`find_entry_point`: does any word name a Python interpreter
    or an engine's program? (cgconfig's own flag lines skip the search.)"""
    for word in words:
        if word[:1] == "-" or word[:1].isdigit():
            continue  # flags and numbers: most words of a cgconfig line
        base = word.rsplit("/", 1)[-1]
        if base in _PROGRAMS or base in CONTAINER_RUNNERS or base.startswith("python") or any(
                base.startswith(image.rsplit("/", 1)[-1]) for image in IMAGE_ENTRYPOINTS):
            return True
    return False
