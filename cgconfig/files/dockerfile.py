"""Dockerfiles (``Dockerfile``, ``Containerfile``, ``*.Dockerfile``): the launch the image's
``ENTRYPOINT`` and ``CMD`` start, in exec form (``CMD ["python3", "-m", ...]``, a JSON array)
or shell form, with the last ``FROM`` image (its tag names the release) and the engine pinned
by a ``RUN pip install`` (``files/pins.py``).

Only the last build stage is read: it is the image that runs. ``ENV`` values are the engine's
environment; ``ARG`` defaults fill ``${VAR}`` as the build would. A ``CMD`` after an
``ENTRYPOINT`` is its arguments, as Docker runs them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.shell import Word

#: File names read as Dockerfiles.
NAMES = ("dockerfile", "containerfile")


def is_dockerfile(path: str) -> bool:
    """``Dockerfile``, ``Containerfile``, ``x.Dockerfile``, ``Dockerfile.cuda``."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return any(name == n or name.endswith("." + n) or name.startswith(n + ".") for n in NAMES)


def _instructions(text: str) -> list[tuple[int, str, str]]:
    """(line, INSTRUCTION, rest) with ``\\`` continuations joined and comments dropped."""
    out: list[tuple[int, str, str]] = []
    pending: list[str] = []
    start = 0
    for number, row in enumerate(text.splitlines(), 1):
        stripped = row.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        joined = " ".join(pending)
        pending = []
        word, _, rest = joined.partition(" ")
        out.append((start, word.upper(), rest.strip()))
    return out


def _command(rest: str, line: int, where: str, variables: dict[str, str]) -> list[Word]:
    """An ``ENTRYPOINT``/``CMD`` argument as words: a JSON array (exec form), else shell
    words."""
    if rest.startswith("["):
        try:
            items = json.loads(rest)
        except ValueError:
            items = None
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return [Word(i, line) for i in items]
    from cgconfig.files.script_reader import read_script

    statements, _ = read_script(rest + "\n", first_line=line, where=where, variables=variables)
    return [w for s in statements[:1] for w in s.words]


def launches_in_dockerfile(path: str, text: str, variables: Mapping[str, str]) -> list[Launch]:
    """The launch of the last stage's ``ENTRYPOINT`` + ``CMD``, and of any ``RUN`` that starts
    an engine (read as a script line)."""
    from cgconfig.files.script import launch_of_words, launches_in_script

    steps = _instructions(text)
    last = max((i for i, (_, op, _) in enumerate(steps) if op == "FROM"), default=0)
    env: dict[str, str] = {}
    known: dict[str, str] = dict(variables)
    entrypoint: list[Word] = []
    cmd: list[Word] = []
    for line, op, rest in steps[last:]:
        if op in ("ENV", "ARG"):
            for item in rest.split():
                name, eq, value = item.partition("=")
                if eq:
                    (env if op == "ENV" else known).setdefault(name, value.strip("\"'"))
        elif op == "ENTRYPOINT":
            entrypoint, cmd = _command(rest, line, path, {**known, **env}), []
        elif op == "CMD":
            cmd = _command(rest, line, path, {**known, **env})
    # FROM and RUN lines as a script, each on its own line: the image, the pins, any engine
    # a RUN starts
    rows = [""] * text.count("\n") + [""]
    for number, op, rest in steps:
        if op in ("FROM", "RUN"):
            rows[number - 1] = rest if op == "RUN" else f"FROM {rest}"
    script = "\n".join(rows) + "\n"
    context = Context(path, "dockerfile", env=env)
    found = launches_in_script(script, 1, context, known)
    from cgconfig.files.pins import from_image, script_pins
    from cgconfig.files.script_reader import read_script

    statements, _ = read_script(script, first_line=1, where=path, variables=known)
    image = from_image(statements)
    if image is not None:
        from dataclasses import replace

        context = replace(context, image=image[0], image_line=image[1])
    launch = launch_of_words([*entrypoint, *cmd], context, None, script_pins(statements, path))
    return [*found, *([launch] if launch is not None else [])]
