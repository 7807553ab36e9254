"""The engine versions cgconfig answers for: the one place that names them.

Every message, rule reason and plan header takes an engine's version from here (through
:func:`choose` or :func:`newest`), never from a literal. A version between two supported ones
resolves as the nearest older supported one, with a note; a version outside the supported range
is refused with one line naming the range. Stdlib only (the start-up path imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

#: Engine → its supported versions, oldest first. The newest is the default. A flag table
#: ``<prefix>-<version>.json`` ships beside this module for each (``table.load_table``).
SUPPORTED: dict[str, tuple[str, ...]] = {
    "sglang": ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"),
    "vllm": ("0.20.2", "0.21.0", "0.22.1", "0.23.0", "0.24.0", "0.25.1", "0.26.0", "0.27.1",
             "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0"),
    "trtllm": ("main-00209af",),
}

#: Engine → how many leading numbers name a release series: a newer release within the newest
#: supported one's series (vLLM 0.33.1 after 0.33.0, SGLang 0.5.23.post1 after 0.5.23) is
#: answered by it; anything newer is refused, since its flags are unknown.
SERIES: dict[str, int] = {"sglang": 3, "vllm": 2, "trtllm": 0}

#: Engine → its name in messages.
NAMES: dict[str, str] = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM"}


class EngineVersion(NamedTuple):
    """The engine version one resolution answers for, and where that choice came from."""

    engine: str
    version: str
    """A supported version of ``engine`` (a key of its flag table)."""
    source: str
    """Where the version came from: ``--engine-version``, ``CGCONFIG_ENGINE_VERSION``, a docker
    image tag, the installed package, a log, or ``default (newest supported)``."""
    requested: str | None = None
    """What the user asked for when it was not itself supported (``0.5.21.post1``)."""

    @property
    def label(self) -> str:
        """``SGLang 0.5.23``, or for a main-branch build ``TensorRT-LLM (main, commit 00209af)``."""
        return label(self.engine, self.version)

    @property
    def note(self) -> str | None:
        """One line when the version resolved to a different supported one, else ``None``."""
        if self.requested is None or self.requested == self.version:
            return None
        return (f"{NAMES[self.engine]} {self.requested} ({self.source}) is answered as "
                f"{self.label}, the nearest older supported version")


def label(engine: str, version: str) -> str:
    """How messages name ``engine`` at ``version``."""
    branch, _, commit = version.partition("-")
    if branch == "main" and commit:
        return f"{NAMES[engine]} (main, commit {commit})"
    return f"{NAMES[engine]} {version}"


def newest(engine: str) -> str:
    """The newest supported version of ``engine`` (the default)."""
    return SUPPORTED[engine][-1]


def oldest(engine: str) -> str:
    """The oldest supported version of ``engine`` (the examples in help texts name it)."""
    return SUPPORTED[engine][0]


def release_label(engine: str, chosen: EngineVersion | Mapping[str, str] | None = None) -> str:
    """How a message names the release of ``engine`` a line is answered for: ``chosen``'s
    version (an :class:`EngineVersion`, or a plan's ``engine_version`` block) when it names
    ``engine``, else the newest supported (the default): ``SGLang 0.5.23``."""
    version: str | None = None
    if isinstance(chosen, EngineVersion):
        version = chosen.version if chosen.engine == engine else None
    elif chosen is not None and chosen.get("engine") == engine:
        version = chosen.get("version")
    return label(engine, version or newest(engine))


def default(engine: str) -> EngineVersion:
    """The version a line of ``engine`` is answered for when nothing names one."""
    return EngineVersion(engine, newest(engine), "default (newest supported)")


def version_key(version: str) -> tuple[int, ...] | None:
    """``0.5.21.post1`` → ``(0, 5, 21)``; ``v0.27.1`` → ``(0, 27, 1)``; ``None`` when the text
    is not a release number. Suffixes after the numeric part (``.post1``, ``rc1``, ``+cu129``)
    do not change which supported version answers."""
    text = version.strip().removeprefix("v")
    parts: list[int] = []
    for piece in text.split("."):
        digits = ""
        for char in piece:
            if not ("0" <= char <= "9"):
                break
            digits += char
        if not digits or len(digits) > 6:
            break
        parts.append(int(digits))
        if len(digits) != len(piece):
            break
    return tuple(parts) if len(parts) >= 2 else None


_RANGE_OPS = (">=", "<=", "==", ">", "<")


def range_clauses(spec: str) -> list[tuple[str, tuple[int, ...]]]:
    """``">=0.5.20,<0.5.23"`` → ``[(">=", (0, 5, 20)), ("<", (0, 5, 23))]``; raises
    :class:`ValueError` naming the bad clause."""
    clauses: list[tuple[str, tuple[int, ...]]] = []
    for clause in (c.strip() for c in spec.split(",")):
        op = next((o for o in _RANGE_OPS if clause.startswith(o)), None)
        key = version_key(clause[len(op):]) if op else None
        if op is None or key is None:
            raise ValueError(f"{clause!r} is not a version clause (write e.g. >=0.5.20 or "
                             f"<0.5.22, joined by commas)")
        clauses.append((op, key))
    return clauses


def in_range(spec: str | None, version: str) -> bool:
    """Whether ``version`` satisfies ``spec`` (``None``: every version)."""
    if spec is None:
        return True
    key = version_key(version)
    if key is None:
        return False
    checks = {">=": key.__ge__, "<=": key.__le__, "==": key.__eq__, ">": key.__gt__,
              "<": key.__lt__}
    return all(checks[op](bound) for op, bound in range_clauses(spec))


def supported_range(engine: str) -> str:
    """``SGLang 0.5.19 to 0.5.23`` (or the one version), for refusals."""
    versions = SUPPORTED[engine]
    if len(versions) == 1:
        return label(engine, versions[0])
    return f"{NAMES[engine]} {versions[0]} to {versions[-1]}"


def choose(engine: str, requested: str, source: str) -> EngineVersion:
    """The supported version that answers for ``requested`` (from ``source``).

    An exact match is that version; one between supported versions is the nearest older one
    (``EngineVersion.note`` says so). Raises :class:`ValueError` with one line naming the
    supported range when ``requested`` is not a release number or lies outside the range.
    """
    versions = SUPPORTED[engine]
    text = requested.strip()
    if text in versions:
        return EngineVersion(engine, text, source)
    key = version_key(text)
    if key is None:
        raise ValueError(f"{text!r} ({source}) is not a {NAMES[engine]} release number; "
                         f"supported: {', '.join(versions)}")
    keyed = [(k, v) for v in versions if (k := version_key(v)) is not None]
    older = [(k, v) for k, v in keyed if k <= key]
    series = SERIES[engine]
    if not older or (key > keyed[-1][0] and key[:series] != keyed[-1][0][:series]):
        raise ValueError(f"{NAMES[engine]} {text} ({source}) is not supported: cgconfig answers "
                         f"for {supported_range(engine)}")
    found_key, found = older[-1]
    return EngineVersion(engine, found, source, requested=None if found_key == key else text)
