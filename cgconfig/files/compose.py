"""docker compose files: each service's ``entrypoint`` + ``command`` (strings are split as
compose splits them, lists kept), its ``environment``, its GPU reservation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from cgconfig.errors import InputError
from cgconfig.files.container import Document, get, image_entrypoint, launches_of_command
from cgconfig.files.context import Context
from cgconfig.files.record import Launch
from cgconfig.files.script_reader import read_script
from cgconfig.files.shell import Word


def _environment(doc: Document, value: Any, at: tuple[Any, ...]) -> dict[str, str]:
    """``environment:`` as a mapping or a list of ``NAME=value`` (a bare ``NAME`` passes the
    host's value through, which the file does not give)."""
    from cgconfig.files.expand import UNKNOWN

    if isinstance(value, dict):
        return {str(k): UNKNOWN if v is None else str(v) for k, v in value.items()}
    out: dict[str, str] = {}
    if isinstance(value, list):
        for item in value:
            name, sep, text = str(item).partition("=")
            out[name] = text if sep else UNKNOWN
        return out
    if value is not None:
        raise InputError("environment must be a mapping or a list of NAME=value",
                         where=doc.where(at))
    return out


def _words(doc: Document, value: Any, at: tuple[Any, ...], env: Mapping[str, str],
           what: str) -> tuple[list[Word], list[tuple[str, int, str]]]:
    if value is None:
        return [], []
    if isinstance(value, list):
        words, items = [], []
        for i, item in enumerate(value):
            if not isinstance(item, (str, int, float)) or isinstance(item, bool):
                raise InputError(f"{what}[{i}] must be a string", where=doc.where((*at, i)))
            line = doc.scalars.get((*at, i), (doc.line((*at, i)), ""))[0]
            words.append(Word(str(item), line))
            items.append((str(item), line, ""))
        return words, items
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string or a list", where=doc.where(at))
    line = doc.scalars.get(at, (doc.line(at), ""))[0]
    statements, _ = read_script(value, first_line=line, where=doc.path, variables=dict(env))
    found = [word for statement in statements for word in statement.words]
    return found, [(w.text, w.line, "") for w in found]


def compose(doc: Document, variables: Mapping[str, str]) -> list[Launch]:
    """Every service of a compose file that starts an engine."""
    out: list[Launch] = []
    for name, service in doc.data["services"].items():
        if not isinstance(service, dict):
            continue
        at = ("services", name)
        env = {**_environment(doc, service.get("environment"), (*at, "environment")),
               **variables}
        image = service.get("image") if isinstance(service.get("image"), str) else None
        context = Context(doc.path, "compose", env=env, container=str(name), image=image,
                          image_line=doc.line((*at, "image")) if image else 0,
                          gpu_count=_gpus(get(service, "deploy", "resources", "reservations",
                                              "devices")))
        entry, entry_items = _words(doc, service.get("entrypoint"), (*at, "entrypoint"), env,
                                    "entrypoint")
        if not entry:
            program = image_entrypoint(image)
            if program is not None:
                line = doc.line((*at, "image"))
                entry = [Word(w, line) for w in program]
                entry_items = [(w, line, "") for w in program]
                context = replace(context, notes=(f"the image {image} runs {' '.join(program)} "
                                                  "(no entrypoint given)",))
        command, items = _words(doc, service.get("command"), (*at, "command"), env, "command")
        out += launches_of_command(entry + command, entry_items + items, context, variables)
    return out


def _gpus(devices: Any) -> int | None:
    """GPUs reserved by ``deploy.resources.reservations.devices`` (``count`` or
    ``device_ids``; ``count: all`` says no number)."""
    total = 0
    for device in devices if isinstance(devices, list) else []:
        if not isinstance(device, dict):
            continue
        count = device.get("count")
        if isinstance(count, int) and not isinstance(count, bool):
            total += count
        elif isinstance(device.get("device_ids"), list):
            total += len(device["device_ids"])
    return total or None
