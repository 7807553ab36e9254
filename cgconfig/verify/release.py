"""Which release a log is judged by: ``--engine-version``, else the version the log prints, else
the release range its formats imply, and whether cgconfig models that release.

A log of a release cgconfig does not model (vLLM 0.11, SGLang 0.4.x, vLLM's V0 engine) cannot
be judged: its plan would be the newest release's, and a difference would say nothing about the
server. Versions are read through :mod:`cgconfig.line.versions` (``choose``,
``version_key``); this module only decides which text to hand it.
"""

from __future__ import annotations

from dataclasses import dataclass

from cgconfig.errors import InputError
from cgconfig.line import registry
from cgconfig.line.version_source import FLAG, LOG_SOURCE, parse_spec
from cgconfig.line.versions import NAMES, SUPPORTED, EngineVersion, choose, supported_range, version_key
from cgconfig.verify.record import LogRecord, ReleaseHint


@dataclass(frozen=True)
class Release:
    """The release a log is judged by, or why it cannot be judged."""

    engine: str
    chosen: EngineVersion | None
    """The supported version the plan answers for; ``None`` when it cannot be judged."""
    shown: bool
    """Whether the release is known (printed, named by ``--engine-version``, or implied by the
    formats to lie inside what cgconfig models); ``False``: the plan uses the newest release's
    rules and a difference may be the release's."""
    reason: str = ""
    """Why it cannot be judged (or, when ``shown`` is false, why the release is uncertain)."""

    @property
    def judged(self) -> bool:
        """Whether cgconfig models the release (a plan can be compared)."""
        return self.chosen is not None


def _outside(engine: str, hint: ReleaseHint) -> bool:
    """Whether every release of ``hint``'s range is outside the supported ones."""
    keys = [k for v in SUPPORTED[engine] if (k := version_key(v)) is not None]
    low, high = version_key(hint.oldest), version_key(hint.newest) if hint.newest else None
    if not keys or low is None:
        return False
    return (high is not None and high < keys[0]) or low > keys[-1]


def _partly_older(engine: str, hint: ReleaseHint) -> bool:
    """Whether ``hint``'s range ends among the supported releases but starts before them (SGLang
    0.5.6-0.5.13's formats, when 0.5.8 is the oldest supported): most of the releases that
    print it are not modelled, and the log does not say which one ran."""
    keys = [k for v in SUPPORTED[engine] if (k := version_key(v)) is not None]
    low = version_key(hint.oldest)
    high = version_key(hint.newest) if hint.newest else None
    return bool(keys) and low is not None and high is not None and low < keys[0] <= high


def _inside(engine: str, hint: ReleaseHint) -> bool:
    """Whether every release of ``hint``'s range is a supported one's series."""
    keys = [k for v in SUPPORTED[engine] if (k := version_key(v)) is not None]
    low = version_key(hint.oldest)
    high = version_key(hint.newest) if hint.newest else None
    for first, _until, _why in registry.row(engine).gaps:  # releases no supported one answers
        start = version_key(first)
        if low is not None and start is not None and low <= start and (high is None
                                                                       or start <= high):
            return False
    return bool(keys) and low is not None and low >= keys[0]


def judge_release(record: LogRecord, requested: str | None = None) -> Release:
    """The release ``record`` is judged by (``requested``: ``--engine-version``'s text)."""
    engine = record.engine or registry.host()
    label = NAMES[engine]
    if requested is not None:
        version = parse_spec(requested, engine, FLAG)
        if version is None:
            raise InputError(f"{requested!r} names no {label} release, and the log is {label}'s",
                             where=FLAG, hint=f"--engine-version {engine}=={SUPPORTED[engine][-1]}")
        if version_key(version) is None and version not in SUPPORTED[engine]:
            raise InputError(f"{version!r} is not a {label} release number", where=FLAG,
                             allowed=f"{engine}==VERSION, e.g. {engine}=={SUPPORTED[engine][-1]}")
        if not registry.row(engine).release_from_tags and version not in SUPPORTED[engine]:
            return _printed(record, engine, version, FLAG)  # a 1.x release: main's rules
        try:
            return Release(engine, choose(engine, version, FLAG), True)
        except ValueError as error:
            if "not supported" not in str(error):
                raise InputError(str(error), where=FLAG) from None  # malformed, not outside
            return Release(engine, None, True, str(error))
    if record.version is not None:
        return _printed(record, engine, record.version)
    outside = [h for h in record.hints if _outside(engine, h)]
    if outside:
        return _cannot_judge(engine, outside[0], "is printed only by",
                             "releases cgconfig does not model", "if the server ran another")
    if record.args_complete and record.args:
        found = _from_args(record, engine)
        if found is not None:
            return found
    older = [h for h in record.hints if _partly_older(engine, h)]
    if older and registry.row(engine).release_from_tags:
        hint = older[0]
        return _cannot_judge(engine, hint, "is printed by",
                             f"of which cgconfig models only {SUPPORTED[engine][0]} on",
                             f"{engine}=={hint.newest} if the server ran it")
    chosen = EngineVersion(engine, SUPPORTED[engine][-1], "default (newest supported)")
    if not registry.row(engine).release_from_tags or any(_inside(engine, h)
                                                          for h in record.hints):
        return Release(engine, chosen, True)
    formats = ", ".join(h.what for h in record.hints) or "no format that names a release"
    return Release(engine, chosen, False,
                   f"the log does not print {label}'s version and its formats ({formats}) span "
                   f"releases cgconfig does not model; judged by {chosen.label}'s rules")


def _cannot_judge(engine: str, hint: ReleaseHint, printed: str, which: str, name: str) -> Release:
    """A log whose format ``hint`` places (partly) outside the modelled releases."""
    label = NAMES[engine]
    at = f" (log line {hint.line})" if hint.line else ""
    span = f"{hint.oldest}{'-' + hint.newest if hint.newest else '+'}"
    return Release(engine, None, False,
                   f"the log's {hint.what}{at} {printed} {label} {span}, {which} (it models "
                   f"{supported_range(engine)}); pass --engine-version {name}")


def _from_args(record: LogRecord, engine: str) -> Release | None:
    """The release whose flags the log's complete argument dump fits (:mod:`args_release`);
    ``None`` when the dump is cut short (its formats decide then)."""
    from cgconfig.verify.args_release import ARGS_MATCH_SLACK, nearest_release

    label = NAMES[engine]
    match = nearest_release(engine, record.args or {})
    if not match.whole:
        return None
    where = f"the log's {record.args_source or 'launch arguments'} (log line {record.args_line})"
    if match.accepted:
        said = (f"the fields of {where} are {label} {match.release}'s ({match.score} names "
                f"differ; {match.runner_up or 'no other release'}: {match.runner_up_score})")
        return Release(engine, EngineVersion(engine, match.release, where, said=said), True)
    near = (f"nearest {label} {match.release} with {match.score} names differing"
            + (f", {match.runner_up} with {match.runner_up_score}" if match.runner_up else ""))
    return Release(engine, None, False,
                   f"the fields of {where} fit no release cgconfig models ({near}; a release's "
                   f"own fields differ by at most {ARGS_MATCH_SLACK}; it models "
                   f"{supported_range(engine)}); pass --engine-version if the server ran one")


def _printed(record: LogRecord, engine: str, version: str, source: str = "") -> Release:
    """The release the log's own version line (or ``source``, ``--engine-version``) names."""
    label = NAMES[engine]
    where = source or f"log line {record.version_line}"
    if engine == "trtllm":
        # cgconfig follows TensorRT-LLM's main branch; every 1.x release prints the lines read
        # here and keeps the PyTorch backend's capture rules (``model_engine.py``).
        key = version_key(version)
        chosen = EngineVersion(engine, SUPPORTED[engine][-1], "default (newest supported)")
        if key is not None and key[0] >= 1:
            return Release(engine, chosen, True)
        return Release(engine, None, True,
                       f"{label} {version} ({where}) predates the 1.x "
                       f"PyTorch backend cgconfig models ({supported_range(engine)})")
    try:
        return Release(engine, choose(engine, version, source or LOG_SOURCE), True)
    except ValueError:
        return Release(engine, None, True,
                       f"{label} {version} ({where}) is outside what "
                       f"cgconfig models ({supported_range(engine)}); pass --engine-version if "
                       f"the server ran another release")
