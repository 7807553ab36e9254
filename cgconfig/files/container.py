"""One container (a Kubernetes container, an operator's runner) as the launches it starts.

The kubelet builds the process's words from ``command`` + ``args`` (the image's entrypoint when
``command`` is absent), substituting ``$(VAR)`` from the container's ``env`` first; a
``sh -c``/``bash -c`` command then hands its script to the shell, read by
:mod:`cgconfig.files.shell` with the same environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cgconfig.docio import LineMap, ScalarLines
from cgconfig.errors import InputError
from cgconfig.files.context import Context
from cgconfig.files.expand import UNKNOWN, substitute_kubernetes
from cgconfig.files.record import Launch
from cgconfig.files.script import launch_of_words, launches_in_script
from cgconfig.files.shell import Word
from cgconfig.limits import quote_key

#: Shells whose ``-c`` takes a script.
SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ash"))


@dataclass
class Document:
    """One YAML document of the file with its line maps."""

    path: str
    data: Any
    lines: LineMap
    scalars: ScalarLines = field(default_factory=dict)

    def line(self, at: tuple[Any, ...]) -> int:
        """The line of the deepest known part of ``at`` (1 when none is known)."""
        for cut in range(len(at), 0, -1):
            found = self.lines.get(at[:cut])
            if found is not None:
                return found
        return 1

    def where(self, at: tuple[Any, ...]) -> str:
        """``FILE:LINE`` of ``at``."""
        return f"{self.path}:{self.line(at)}"


def get(data: Any, *keys: Any) -> Any:
    """``data[k1][k2]...`` through mappings and lists, ``None`` where a step is missing."""
    for key in keys:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


def container_env(doc: Document, env: Any, at: tuple[Any, ...]) -> dict[str, str]:
    """A Kubernetes ``env`` list as name → value: a literal ``value`` (its own ``$(VAR)``
    substituted from the names before it, as the kubelet does), ``valueFrom`` → unknown."""
    out: dict[str, str] = {}
    if env is None:
        return out
    if not isinstance(env, list):
        raise InputError("env must be a list of {name, value} items", where=doc.where(at))
    for i, item in enumerate(env):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        value = item.get("value")
        if "valueFrom" in item or value is None:
            out[item["name"]] = UNKNOWN if "valueFrom" in item else ""
        else:
            out[item["name"]] = substitute_kubernetes(str(value), out.get)[0]
        del i
    return out


def gpu_limit(resources: Any) -> int | None:
    """GPUs a container's ``resources`` asks for: ``limits["nvidia.com/gpu"]`` (then
    ``requests``, then ``amd.com/gpu``, then Dynamo's own ``limits.gpu``)."""
    for part in ("limits", "requests"):
        block = get(resources, part)
        if not isinstance(block, dict):
            continue
        for key in ("nvidia.com/gpu", "amd.com/gpu", "gpu"):
            value = block.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().isdigit() and len(value) < 8:
                return int(value)
    return None


def _items(doc: Document, value: Any, at: tuple[Any, ...], what: str) -> list[tuple[str, int, str]]:
    """A ``command``/``args`` list as (text, line, YAML style) per item."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list of strings, got {type(value).__name__}",
                         where=doc.where(at))
    out: list[tuple[str, int, str]] = []
    for i, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise InputError(f"{what}[{i}] must be a string", where=doc.where((*at, i)))
        line, style = doc.scalars.get((*at, i), (doc.line((*at, i)), ""))
        out.append((str(item), line, style))
    return out


def image_entrypoint(image: str | None) -> list[str] | None:
    """The engine command an image runs when the container gives no ``command``
    (``vllm/vllm-openai`` → ``vllm serve``), or ``None``."""
    if not image:
        return None
    from cgconfig.line.entry import IMAGE_ENTRYPOINTS

    name = image.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    parts = name.split("/")
    found = IMAGE_ENTRYPOINTS.get("/".join(parts[-2:]) if len(parts) >= 2 else name)
    return found[1].split() if found is not None else None


def container_launches(doc: Document, spec: Any, at: tuple[Any, ...], context: Context,
                       variables: Mapping[str, str],
                       injected: Mapping[str, str] | None = None) -> list[Launch]:
    """The launches of one container spec at ``at`` (``command``, ``args``, ``env``,
    ``image``, ``resources``). ``injected`` are the variables an operator sets in the pod
    (``LWS_GROUP_SIZE``...; :data:`UNKNOWN` where the file cannot say)."""
    if not isinstance(spec, dict):
        return []
    name = spec.get("name") if isinstance(spec.get("name"), str) else None
    env = {**(injected or {}), **container_env(doc, spec.get("env"), (*at, "env")),
           **variables}
    context = replace(context, env={k: v for k, v in env.items()},
                      container=context.container or name,
                      gpu_count=gpu_limit(spec.get("resources")) if context.gpu_count is None
                      else context.gpu_count)
    image = spec.get("image") if isinstance(spec.get("image"), str) else None
    if image is not None and "$" in image:  # a template's ${VERSION}: --set gives it
        from cgconfig.files.expand import expand_text

        filled = expand_text(image, variables.get, doc.where((*at, "image")))
        image = filled.text if filled.resolved else image
    if image is not None:
        context = replace(context, image=image, image_line=doc.line((*at, "image")))
    notes = list(context.notes)
    if spec.get("envFrom"):
        notes.append(f"not read: envFrom ({doc.where((*at, 'envFrom'))}) adds variables the file "
                     "does not list")
    context = replace(context, notes=tuple(notes))
    items = _items(doc, spec.get("command"), (*at, "command"), "command")
    if not items:
        entry = image_entrypoint(image)
        if entry is None:
            return []
        line = doc.line((*at, "image"))
        items = [(word, line, "") for word in entry]
        context = replace(context, notes=(*context.notes, f"the image {image} runs "
                                          f"{' '.join(entry)} (no command given)"))
    items += _items(doc, spec.get("args"), (*at, "args"), "args")
    words: list[Word] = []
    for text, line, style in items:
        substituted, names = substitute_kubernetes(text, env.get)
        words.append(Word(substituted, line, names))
        del style
    return launches_of_command(words, items, context, variables)


def launches_of_command(words: list[Word], items: list[tuple[str, int, str]], context: Context,
                        variables: Mapping[str, str]) -> list[Launch]:
    """The launches of one process's words: a shell with ``-c`` runs its script (``items``
    are the words as written, with their lines); any other command is one process."""
    program = words[0].text.rsplit("/", 1)[-1] if words else ""
    if program in SHELLS and len(words) >= 3 and words[1].text.startswith("-") \
            and "c" in words[1].text[1:] and not words[1].text.startswith("--"):
        # a block scalar keeps its line breaks, so each word's line is known; a quoted one
        # spanning lines was folded into one by YAML and its words take its first line
        return launches_in_script(words[2].text, items[2][1], context, variables)
    found = launch_of_words(words, context)
    return [found] if found is not None else []


def checked_name(value: Any, where: str, what: str) -> str | None:
    """A name field as text (``None`` when absent); anything else is one error line."""
    if value is None:
        return None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{what} must be a string, got {quote_key(type(value).__name__)}",
                     where=where)
