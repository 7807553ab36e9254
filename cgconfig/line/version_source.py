"""Which engine version a line is answered for, and where that choice came from.

One ordered tuple, :data:`PRECEDENCE`, says which source wins; the first source that names a
version of the line's engine decides, and :func:`versions.choose` maps it onto a supported
version (nearest older, with a note) or refuses it with one line naming the supported range.
With none, the newest supported version answers (:func:`versions.default`). Stdlib only: the
installed engine is read from its package metadata, never imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING

from cgconfig.errors import InputError
from cgconfig.line import registry
from cgconfig.line.versions import NAMES, SUPPORTED, EngineVersion, choose, default, oldest, version_key

if TYPE_CHECKING:
    from cgconfig.line.release_from_flags import LineFlags

#: The sources of an engine version, highest precedence first. What the user states comes
#: first (the flag, then cgconfig's environment variable), then evidence of what ran (the log
#: given to ``verify`` prints its version), then what the line starts (a docker image tag), then
#: the Python environment cgconfig runs in (the engine's installed package), and last, when
#: nothing names one, the line's own flags (``release_from_flags.infer``: the newest release whose
#: parser accepts them all).
PRECEDENCE: tuple[str, ...] = (
    "--engine-version", "CGCONFIG_ENGINE_VERSION", "log", "docker image", "installed package",
    "line flags")

#: cgconfig's own variable naming the engine version(s): ``sglang==0.5.20``, ``0.5.20``, or a
#: comma-separated list, one per engine (``sglang==0.5.20,vllm==0.27.1``).
ENV_VAR = "CGCONFIG_ENGINE_VERSION"
FLAG = "--engine-version"
#: How a plan names a version taken from the log given to ``verify``.
LOG_SOURCE = "the log's version line"

#: Engine → its distribution names on PyPI (read with ``importlib.metadata``).
DISTRIBUTIONS: Mapping[str, tuple[str, ...]] = registry.Column(lambda row: row.distributions)

#: Engine → words an image repository's last path part contains (``lmsysorg/sglang``,
#: ``vllm/vllm-openai``, ``nvcr.io/nvidia/tensorrt-llm/release``).
IMAGE_NAMES: Mapping[str, tuple[str, ...]] = registry.Column(lambda row: row.image_names)


def parse_spec(text: str, engine: str, where: str) -> str | None:
    """The version ``text`` names for ``engine`` (``sglang==0.5.20``, or ``0.5.20`` when the
    engine is known from the line; a comma-separated list names one per engine), or ``None``
    when it names only other engines. Bad text is an :class:`InputError`."""
    found: str | None = None
    named: list[str] = []
    for item in (piece.strip() for piece in text.split(",")):
        if not item:
            continue
        name, sep, version = item.partition("==")
        if not sep:
            name, version = engine, item
        name = name.strip().lower()
        name = next((row.name for row in registry.ROWS if name in row.aliases), name)
        if name not in SUPPORTED:
            raise InputError(f"unknown engine {name!r} in {item!r}", where=where,
                             allowed=tuple(f"{e}==VERSION" for e in SUPPORTED),
                             hint=f"write ENGINE==VERSION ({registry.host()}=="
                                  f"{oldest(registry.host())}) or only the version")
        named.append(name)
        if name == engine:
            if found is not None and found != version.strip():
                raise InputError(f"names {NAMES[engine]} twice ({found} and {version.strip()})",
                                 where=where)
            found = version.strip()
    if not named:
        example = oldest(registry.host())
        raise InputError(f"expects a version ({registry.host()}=={example}, or {example})",
                         where=where)
    return found


def image_version(words: Iterable[str], engine: str) -> tuple[str, str] | None:
    """(image, tag) of the first container image of ``engine`` among ``words`` whose tag is a
    release number (``lmsysorg/sglang:v0.5.20-cu129`` → ``v0.5.20``: a ``-variant`` after the
    version names the build; ``vllm/vllm-openai:v0.27.1@sha256:…`` → ``v0.27.1``: a digest
    pins the image the tag named); ``latest`` and other tags name no version."""
    for word in words:
        if word.startswith("-") or "=" in word:
            continue
        reference = word.split("@", 1)[0]  # repository[:tag][@digest]
        if reference.startswith(("/", ".", "~")):
            continue  # a path (a -v mount), never an image reference
        if ":" not in reference or "/" not in reference:
            continue
        repository, _, tag = reference.rpartition(":")
        if "/" in tag or not tag or len(tag) > 64:
            continue  # a registry port (host:5000/image) or a path, not a tag
        last = repository.rsplit("/", 1)[-1].lower()
        if not any(name in last for name in IMAGE_NAMES[engine]):
            continue
        version = tag_version(tag)
        if version is not None:
            return word, version
    return None


def tag_version(tag: str) -> str | None:
    """The release an image tag names: ``v0.5.20`` → ``v0.5.20``; a ``-variant`` after it
    names the build (``v0.5.15-cu129``, ``v0.5.5.post3-cu129-amd64`` → ``v0.5.5.post3``);
    ``latest``, ``dev`` and dates name none, and so does a development build of a release
    (``1.2.0-deepseek-v4-cuda13-dev.3``): its engines are not the release's."""
    if version_key(tag) is not None:
        return tag
    head, _, variant = tag.partition("-")
    if variant and "dev" not in variant and version_key(head) is not None:
        return head
    return None


def digest_image(words: Iterable[str], engine: str) -> str | None:
    """The first image of ``engine`` among ``words`` named by its digest alone
    (``lmsysorg/sglang@sha256:…``, no tag): a digest names no release."""
    for word in words:
        name, at, digest = word.partition("@")
        if not at or word.startswith("-") or "/" not in name or ":" in name.rsplit("/", 1)[-1]:
            continue
        if digest.startswith("sha256:") and any(
                part in name.rsplit("/", 1)[-1].lower() for part in IMAGE_NAMES[engine]):
            return word
    return None


#: How a file is read: ``(path, where) -> text``, raising :class:`InputError` for a file that
#: is missing, not a regular file (a FIFO, a device, a link to ``/dev/zero``), too large or
#: not UTF-8. The caller passes ``cgconfig.docio.read_text_file`` (the one file reader; this
#: layer sits below it).
ReadText = Callable[[str, str], str]


def installed_version(engine: str, read_text: ReadText) -> str | None:
    """The version of ``engine`` installed in this Python environment, or ``None``.

    Read from the distribution's metadata on ``sys.path`` (``sglang-0.5.20.dist-info/METADATA``,
    its ``Version:`` line), as ``importlib.metadata`` finds it but without importing that
    (it costs more than a whole resolution) and without importing the engine. Read once per
    engine and ``sys.path``; ``METADATA`` is read with ``read_text``."""
    import sys

    return _installed(engine, tuple(sys.path), read_text)


@cache
def _installed(engine: str, path: tuple[str, ...], read_text: ReadText) -> str | None:
    wanted = {name.replace("-", "_").lower() for name in DISTRIBUTIONS[engine]}
    for folder in path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            stem, dot, suffix = entry.rpartition(".")
            if suffix not in ("dist-info", "egg-info") or not dot:
                continue
            name, _, version = stem.partition("-")
            if name.replace("-", "_").replace(".", "_").lower() not in wanted:
                continue
            return _metadata_version(os.path.join(folder or ".", entry), read_text) \
                or version or None
    return None


def _metadata_version(path: str, read_text: ReadText) -> str | None:
    """The ``Version:`` header of a dist-info's ``METADATA`` (egg-info: ``PKG-INFO``). Read
    as every file is (``read_text``, ``docio.read_text_file``): a FIFO, a device or a link to
    ``/dev/zero`` is refused before it is opened for reading, never waited on."""
    for name in ("METADATA", "PKG-INFO"):
        try:
            text = read_text(os.path.join(path, name), "installed package metadata")
        except InputError:
            continue  # missing, not a regular file, too large or not UTF-8: not evidence
        for _, line in zip(range(64), text.splitlines(), strict=False):
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()[:64] or None
    return None


def select(engine: str, *, flag: str | None = None, environ: Mapping[str, str] | None = None,
           log_version: str | None = None, wrapper: Iterable[str] = (),
           read_text: ReadText | None = None,
           line_flags: LineFlags | None = None) -> EngineVersion:
    """The version of ``engine`` a line is answered for: the first of :data:`PRECEDENCE` that
    names one. ``flag`` is ``--engine-version``'s value, ``environ`` the caller's environment
    (``CGCONFIG_ENGINE_VERSION``), ``log_version`` what a log printed, ``wrapper`` the words
    before the entry point (a ``docker run`` line), ``read_text`` how to read the
    installed package's metadata (``None``: do not read it), ``line_flags`` the line's own
    spellings (read only when no other source names a version). A log's version outside the
    range is passed over (``verify`` still compares, and says so); any other source's raises
    :class:`InputError` (one line naming the range), as does text that is not a version."""
    candidates: list[tuple[str, str | None]] = []
    for source in PRECEDENCE:
        if source == FLAG and flag is not None:
            version = parse_spec(flag, engine, FLAG)
            if version is None:
                raise InputError(f"{flag!r} names no {NAMES[engine]} version, and the line is "
                                 f"{NAMES[engine]}'s", where=FLAG,
                                 hint=f"--engine-version {engine}==VERSION")
            candidates.append((FLAG, version))
        elif source == ENV_VAR and environ is not None and environ.get(ENV_VAR, "").strip():
            candidates.append((ENV_VAR, parse_spec(environ[ENV_VAR], engine, ENV_VAR)))
        elif source == "log" and log_version:
            candidates.append((LOG_SOURCE, log_version))
        elif source == "docker image":
            image = image_version(wrapper, engine)
            if image is not None:
                candidates.append((f"docker image {image[0]}", image[1]))
        elif source == "installed package" and read_text is not None:
            version = installed_version(engine, read_text)
            if version is not None:
                candidates.append((f"installed package {DISTRIBUTIONS[engine][0]}", version))
    for source, version in candidates:
        if version is None:
            continue  # it named other engines only
        if not registry.row(engine).release_from_tags and source not in (FLAG, ENV_VAR):
            continue  # its releases are not what the table is keyed by (a main-branch commit)
        try:
            return choose(engine, version, source)
        except ValueError as error:
            if source == LOG_SOURCE:
                continue  # verify compares anyway; its version note names the range
            raise InputError(str(error), hint=_override_hint(engine, source)) from None
    if "line flags" in PRECEDENCE and line_flags is not None:
        from cgconfig.line.release_from_flags import infer

        inferred = infer(engine, line_flags)
        if inferred is not None:
            return inferred
    digest = digest_image(wrapper, engine)
    if digest is not None:
        chosen = default(engine)
        return chosen._replace(said=f"image {digest}: a digest names no release, so the line "
                                    f"is answered for the newest supported, {chosen.label} "
                                    f"(--engine-version names another)")
    return default(engine)


def _override_hint(engine: str, source: str) -> str | None:
    """What answers a line whose release (from ``source``, which the user did not type) is
    refused: ``--engine-version``, which every other source gives way to."""
    if source in (FLAG, ENV_VAR):
        return None
    return (f"--engine-version {engine}==VERSION (or {ENV_VAR}) overrides it, answering for "
            f"the supported release it names")
