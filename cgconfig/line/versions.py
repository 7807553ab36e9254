"""The engine versions cgconfig answers for: the one place that names them.

Every message, rule reason and plan header takes an engine's version from here (through
:func:`choose` or :func:`newest`), never from a literal. A version between two supported ones
resolves as the nearest older supported one, with a note; a version outside the supported range
is refused with one line naming the range. Stdlib only (the start-up path imports it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from cgconfig.line import registry


class _Releases(Mapping[str, tuple[str, ...]]):
    """Engine → its supported releases, oldest first (PEP 440's order): the flag tables it
    ships (``registry.table_files``), read once per engine. The newest is the default."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, engine: str) -> tuple[str, ...]:
        if engine not in self._found:
            files = registry.table_files(engine)  # KeyError for an engine the registry lacks
            if not files:
                raise KeyError(f"engine {engine!r} ships no flag table (tables/ in "
                               f"{registry.folder(engine)})")
            self._found[engine] = tuple(sorted(files, key=_release_order))
        return self._found[engine]

    def __iter__(self) -> Iterator[str]:
        return iter(registry.names())

    def __len__(self) -> int:
        return len(registry.names())

    def __contains__(self, engine: object) -> bool:
        return isinstance(engine, str) and engine in registry.Column(lambda row: row)


def _release_order(release: str) -> tuple[object, ...]:
    parsed = parse_version(release)
    return (1, parsed.order) if parsed is not None else (0, release)


#: Engine → its supported releases, oldest first; the newest is the default. Derived from the
#: flag tables each engine ships: a release is added by adding its table.
SUPPORTED: Mapping[str, tuple[str, ...]] = _Releases()

#: Engine → how many leading numbers name a release series: a newer release within the newest
#: supported one's series (vLLM 0.33.1 after 0.33.0, SGLang 0.5.23.post1 after 0.5.23) is
#: answered by it; anything newer is refused, since its flags are unknown.
SERIES: Mapping[str, int] = registry.Column(lambda row: row.series)

#: Engine → its name in messages.
NAMES: Mapping[str, str] = registry.Column(lambda row: row.label)


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
    said: str | None = None
    """One line its source says of the choice (the line's flags: which releases parse it)."""

    @property
    def label(self) -> str:
        """``SGLang 0.5.23``, or for a main-branch build ``TensorRT-LLM (main, commit 00209af)``."""
        return label(self.engine, self.version)

    @property
    def note(self) -> str | None:
        """One line when the version resolved to a different supported one, or its source
        says why it chose it (``said``), else ``None``."""
        if self.said is not None:
            return self.said
        if self.requested is None or self.requested == self.version:
            return None
        said = f"{NAMES[self.engine]} {self.requested} ({self.source})"
        parsed = parse_version(self.requested)
        chosen = parse_version(self.version)
        if parsed is not None and parsed.kind is not None:
            of = ".".join(map(str, parsed.numbers))
            order = ("which PEP 440 orders after it" if parsed.kind == "a post-release"
                     else "which PEP 440 orders before it")
            said += f" is {parsed.kind} of {of}, {order}"
            if chosen is not None and chosen.release == parsed.release:
                return f"{said}: answered as {self.label}"
            return f"{said}: answered as {self.label}, the nearest older supported version"
        return f"{said} is answered as {self.label}, the nearest older supported version"


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


#: A version as PEP 440 spells it (its "Appendix B" pattern), ASCII digits only: a leading
#: ``v``, the release numbers, then an optional pre-release (``rc1``, ``a2``, ``b0``), post-release
#: (``.post1``, ``-1``), development release (``.dev5``) and local label (``+cu129``).
_PEP440 = re.compile(
    r"v?(?P<release>[0-9]{1,6}(?:\.[0-9]{1,6}){0,7})"
    r"(?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]{1,6})?)?"
    r"(?:-(?P<post_n1>[0-9]{1,6})|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]{1,6})?)?"
    r"(?:[-_.]?dev[-_.]?(?P<dev_n>[0-9]{1,6})?(?P<dev>))?"
    r"(?:\+(?P<local>[a-z0-9]{1,32}(?:[-_.][a-z0-9]{1,32}){0,7}))?",
    re.IGNORECASE | re.ASCII)
_PRE_PHASES = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc",
               "pre": "rc", "preview": "rc"}
_PRE_RANK = {"a": 0, "b": 1, "rc": 2}
_NO_DEV = 10 ** 7  # above any six-digit dev number: a release without .devN sorts after them


class Release(NamedTuple):
    """One version as PEP 440 reads it: ``0.33.0rc1`` → numbers ``(0, 33, 0)``, pre
    ``("rc", 1)``."""

    numbers: tuple[int, ...]
    """The release numbers as written (``0.33`` → ``(0, 33)``)."""
    pre: tuple[str, int] | None = None
    """``("a"|"b"|"rc", N)`` for a pre-release."""
    post: int | None = None
    dev: int | None = None
    local: str | None = None
    """The local label after ``+`` (a build of the same release: ``cu129``)."""

    @property
    def release(self) -> tuple[int, ...]:
        """The release numbers without trailing zeros: ``0.33`` and ``0.33.0`` are one
        release under PEP 440, and tuples compare as its releases do."""
        numbers = list(self.numbers)
        while len(numbers) > 1 and numbers[-1] == 0:
            numbers.pop()
        return tuple(numbers)

    @property
    def order(self) -> tuple[tuple[int, ...], tuple[int, int], int, int]:
        """PEP 440's order: ``0.33.0.dev1 < 0.33.0rc1 < 0.33.0 < 0.33.0.post1``."""
        if self.pre is not None:
            pre = (_PRE_RANK[self.pre[0]], self.pre[1])
        else:
            pre = (-1, 0) if self.dev is not None and self.post is None else (3, 0)
        post = -1 if self.post is None else self.post
        dev = _NO_DEV if self.dev is None else self.dev
        return self.release, pre, post, dev

    @property
    def kind(self) -> str | None:
        """``a pre-release``, ``a post-release``, ``a development release`` of its release, or
        ``None`` for a final release."""
        if self.dev is not None:
            return "a development release"
        if self.pre is not None:
            return "a pre-release"
        if self.post is not None:
            return "a post-release"
        return None


def parse_version(text: str) -> Release | None:
    """``text`` as a PEP 440 version (spaces and tabs around it allowed), or ``None`` when it
    is not one: any other character (a second ``==``, ``;``, an escape, a zero-width space,
    a newline, a non-ASCII digit) makes it no version."""
    match = _PEP440.fullmatch(text.strip(" \t"))
    if match is None:
        return None
    numbers = tuple(int(n) for n in match["release"].split("."))
    pre = None
    if match["pre_l"]:
        pre = (_PRE_PHASES[match["pre_l"].lower()], int(match["pre_n"] or 0))
    post = None
    if match["post_n1"] is not None:
        post = int(match["post_n1"])
    elif match["post_l"]:
        post = int(match["post_n2"] or 0)
    dev = int(match["dev_n"] or 0) if match["dev"] is not None else None
    return Release(numbers, pre, post, dev, match["local"])


def version_key(version: str) -> tuple[int, ...] | None:
    """``0.5.21.post1`` → ``(0, 5, 21)``; ``v0.27.1`` → ``(0, 27, 1)``; ``0.33`` → ``(0, 33)``
    (the release, trailing zeros dropped: ``0.33 == 0.33.0``); ``None`` when the text is not
    a PEP 440 version of at least two numbers."""
    parsed = parse_version(version)
    if parsed is None or len(parsed.numbers) < 2:
        return None
    return parsed.release


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
    """The supported version that answers for ``requested`` (from ``source``), in PEP 440's
    order.

    An exact match (``0.33`` is ``0.33.0``) is that version; one between supported versions is
    the nearest older one, and a pre-, post- or development release is answered by the
    nearest supported release at or before it (``0.33.0rc1`` precedes ``0.33.0``);
    ``EngineVersion.note`` says so. Raises :class:`ValueError` with one line naming the
    supported range when ``requested`` is not a PEP 440 version or lies outside the range.
    """
    versions = SUPPORTED[engine]
    text = requested.strip(" \t")
    if text in versions:
        return EngineVersion(engine, text, source)
    parsed = parse_version(text)
    if parsed is None or len(parsed.numbers) < 2:
        raise ValueError(f"{text!r} ({source}) is not a {NAMES[engine]} release number "
                         f"(a PEP 440 version, ASCII digits); supported: {', '.join(versions)}")
    keyed = [(known.order, v) for v in versions if (known := parse_version(v)) is not None]
    older = [(k, v) for k, v in keyed if k <= parsed.order]
    series = SERIES[engine]
    newest_release = keyed[-1][0][0]
    padded = parsed.release + (0,) * series
    if not older or (parsed.order > keyed[-1][0]
                     and padded[:series] != (newest_release + (0,) * series)[:series]):
        # a release the user typed: name a supported one; any other source gets the hint that
        # --engine-version overrides it (version_source)
        typed = source.startswith(("--engine-version", "CGCONFIG_ENGINE_VERSION"))
        extra = f" (name a supported one: --engine-version {engine}==X)" if typed else ""
        raise ValueError(f"{NAMES[engine]} {text} ({source}) is not supported: cgconfig answers "
                         f"for {supported_range(engine)}{extra}")
    for first, until, why in registry.row(engine).gaps:
        low, high = parse_version(first), parse_version(until)
        if low is not None and high is not None and low.order <= parsed.order < high.order:
            raise ValueError(f"{NAMES[engine]} {text} ({source}) is not supported: {why}; "
                             f"cgconfig answers for {supported_range(engine)} but not "
                             f"{first} to before {until}")
    found_key, found = older[-1]
    same = found_key[0] == parsed.release and parsed.kind is None
    return EngineVersion(engine, found, source, requested=None if same else text)
