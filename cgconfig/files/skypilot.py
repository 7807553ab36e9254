"""SkyPilot task files: the ``run:`` script with ``envs:``, the accelerators it asks for, the
engine pinned by ``pip install`` in ``setup:``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cgconfig.files.container import Document
from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script import launches_in_script
from cgconfig.files.script_reader import read_script


def accelerators(value: Any) -> tuple[str | None, int | None, str | None]:
    """(GPU kind, count, note) from ``resources.accelerators``: ``A100:8``, a mapping of
    candidates, or a list; several candidates leave the kind to the note."""
    candidates: list[tuple[str, int | None]] = []
    if isinstance(value, str):
        value = [value]
    if isinstance(value, dict):
        # {L4:1, A10G:1} without a space after the colon: YAML reads keys "L4:1" with no value
        if all(v is None for v in value.values()):
            value = list(value)
        else:
            candidates = [(str(k), v if isinstance(v, int) and not isinstance(v, bool) else None)
                          for k, v in value.items()]
    if isinstance(value, list):
        for item in value:
            gpu, _, number = str(item).partition(":")
            candidates.append((gpu, int(number) if number.isdigit() and len(number) < 6 else 1))
    if not candidates:
        return None, None, None
    counts = {c for _, c in candidates}
    count = counts.pop() if len(counts) == 1 else None
    if len(candidates) == 1:
        return candidates[0][0], count, None
    names = ", ".join(k for k, _ in candidates)
    return None, count, f"the task runs on any of {names} (resources.accelerators)"


def pip_pin(setup: str, first_line: int, where: str,
            variables: dict[str, str]) -> tuple[str, str] | None:
    """(``engine==version``, origin) from ``pip install sglang==X`` / ``vllm==X`` words of
    the setup script (its first line is the file's ``first_line``)."""
    from cgconfig.files.pins import pin_of

    statements, _ = read_script(setup, first_line=first_line, where=where, variables=variables)
    for statement in statements:
        for word in statement.words:
            pinned = pin_of(word.text)
            if pinned is not None:
                return (f"{pinned[0]}=={pinned[1]}",
                        f"pip install {word.text} ({where}:{word.line})")
    return None


def skypilot(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """The launches of a task's ``run:`` block."""
    envs = doc.data.get("envs")
    env = {str(k): str(v) for k, v in envs.items()} if isinstance(envs, dict) else {}
    env.update(variables)
    kind, count, note = accelerators((doc.data.get("resources") or {}).get("accelerators")
                                     if isinstance(doc.data.get("resources"), dict) else None)
    pinned = None
    setup = doc.data.get("setup")
    if isinstance(setup, str):
        line = doc.scalars.get(("setup",), (doc.line(("setup",)), ""))[0]
        pinned = pip_pin(setup, line, doc.path, dict(env))
    name = doc.data.get("name")
    context = Context(doc.path, "skypilot", env=env,
                      container=str(name) if isinstance(name, str) else None,
                      gpu_kind=kind, gpu_count=count, notes=(note,) if note else (),
                      engine_version=pinned[0] if pinned else None,
                      version_origin=pinned[1] if pinned else None)
    first = doc.scalars.get(("run",), (doc.line(("run",)), ""))[0]
    return launches_in_script(doc.data["run"], first, context, variables)
