"""The engine release a file pins, and the version a launch is answered for.

An engine image's tag names its release (``lmsysorg/sglang:v0.5.20-cu129``); a tag that names
none (``latest``, ``dev``, ``nightly``, a date) leaves the release unknown, and the file says
so. A Dynamo runtime image (``nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.0``) names Dynamo's
release; the engine's follows from the release matrix aiconfigurator ships
(``dynamo-releases.json``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from cgconfig.errors import InputError
from cgconfig.files.record import Launch
from cgconfig.line.version_source import ENV_VAR, IMAGE_NAMES, tag_version
from cgconfig.line.versions import NAMES, version_key

if TYPE_CHECKING:
    from cgconfig.files.context import Context
    from cgconfig.line.versions import EngineVersion

#: Words in a Dynamo runtime image's name (``ai-dynamo/sglang-runtime``).
_DYNAMO_IMAGE = ("ai-dynamo", "dynamo")


@cache
def dynamo_matrix() -> dict[str, dict[str, str]]:
    """Dynamo release → engine → the engine release its runtime images ship."""
    text = resources.files("cgconfig.files").joinpath("dynamo-releases.json").read_text("utf-8")
    data: dict[str, dict[str, str]] = json.loads(text)["matrix"]
    return data


def dynamo_engine_release(release: str, engine: str) -> tuple[str | None, str]:
    """(engine release, how it was found) for Dynamo ``release``; ``None`` with the reason
    when the matrix does not list it."""
    matrix = dynamo_matrix()
    key = release.strip().removeprefix("v")
    row = matrix.get(key)
    if row is None or engine not in row:
        newest = max(matrix, key=lambda k: version_key(k) or ())
        return None, (f"Dynamo {key} is not in aiconfigurator's release matrix (newest listed: "
                      f"{newest}); the {NAMES[engine]} release is unknown")
    return row[engine], f"Dynamo {key} ships {NAMES[engine]} {row[engine]}"


def _image_parts(image: str) -> tuple[str, str]:
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        repository, _, tag = name.rpartition(":")
        return repository, tag
    return name, ""


def pinned_release(context: Context, engine: str) -> tuple[str | None, str | None, str | None]:
    """(``engine==version``, where it came from, a note) for the release the file pins for a
    launch of ``engine``. The image the launch runs in comes first: an engine image's tag, or a
    Dynamo runtime image's tag through the matrix (an srt-slurm recipe's ``dynamo.version``
    only pip-installs ``ai-dynamo`` into ``model.container``, so the engine is the container's:
    srt-slurm ``src/srtctl/core/schema.py`` ``DynamoConfig._build_install_commands``). Dynamo's
    release through the matrix when the file has no image that says which engine it holds (a
    cluster alias such as ``dynamo-sglang``). A tag naming no release gives only the note."""
    from_image = _image_release(context, engine)
    if from_image is not None or context.release is None:
        return from_image or (None, None, None)
    version, how = dynamo_engine_release(context.release, engine)
    if version is None:
        return None, None, how
    return f"{engine}=={version}", f"{how} ({context.path})", None


def _image_release(context: Context,
                   engine: str) -> tuple[str | None, str | None, str | None] | None:
    """:func:`pinned_release` from the image alone; ``None`` when there is no image or it is
    neither the engine's image nor a Dynamo runtime image."""
    if not context.image:
        return None
    where = f"{context.path}:{context.image_line}" if context.image_line else context.path
    repository, tag = _image_parts(context.image)
    last = repository.rsplit("/", 1)[-1].lower()
    dynamo = any(part in repository.lower() for part in _DYNAMO_IMAGE) and "runtime" in last
    if not dynamo and not any(name in last for name in IMAGE_NAMES[engine]):
        return None, None, None  # not the engine's image: its tag says nothing of the engine
    version = tag_version(tag) if tag else None
    if version is None:
        shown = tag or ("a digest" if "@" in context.image else "no tag (latest)")
        return None, None, (f"image {context.image} ({where}): {shown} names no release, so the "
                            f"{NAMES[engine]} release is unknown")
    if dynamo:
        shipped, how = dynamo_engine_release(version, engine)
        if shipped is None:
            return None, None, f"image {context.image} ({where}): {how}"
        return f"{engine}=={shipped}", f"image {context.image} ({where}): {how}", None
    return f"{engine}=={version.removeprefix('v')}", f"image {context.image} ({where})", None


def file_engine_version(launch: Launch, line: Sequence[str],
                        environ: Mapping[str, str]) -> EngineVersion | None:
    """The release ``launch.engine_version`` pins for the engine of ``line`` (the launch's
    words, before they are split: the release is chosen first and the line read with its
    table), or ``None`` when the caller names one (``--engine-version``,
    ``CGCONFIG_ENGINE_VERSION``: they come first, as for a typed line) or the file pins none
    (then the usual sources answer)."""
    from cgconfig.line.entry import find_entry_point
    from cgconfig.line.versions import choose

    if any(word.startswith("--engine-version") for word in line) or environ.get(ENV_VAR) \
            or not launch.engine_version:
        return None
    entry = find_entry_point(line)
    if entry is None:
        return None
    engine, _, version = launch.engine_version.partition("==")
    if engine != entry.dialect:
        return None
    try:
        return choose(engine, version, launch.version_origin or launch.label)
    except ValueError as error:
        raise InputError(str(error), where=launch.label,
                         hint="answer for another release with --engine-version "
                              f"{engine}==VERSION") from None
