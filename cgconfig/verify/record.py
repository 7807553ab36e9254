"""What a server log says about CUDA graphs, in one engine-neutral record.

Every engine's reader (``cgconfig/engines/<engine>/log_reader.py``) fills a
:class:`LogRecord`; the comparer and the report read only this. Standard library only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cgconfig import limits


@dataclass
class Capture:
    """One group of graphs as the log shows it (one phase, or one vLLM mode)."""

    group: str
    """``decode``, ``prefill``, ``draft decode`` (SGLang); ``decode FULL``, ``mixed PIECEWISE``
    (vLLM); ``decode`` (TensorRT-LLM)."""
    backend: str | None = None
    """cgconfig's backend name for what was captured (``full``, ``breakable``), when logged."""
    sizes: list[int] | None = None
    """The captured sizes, ascending, where the log prints them."""
    count: int | None = None
    largest: int | None = None
    memory_gib: float | None = None
    seconds: float | None = None
    line: int = 0
    """The log line this group was first read from."""
    size_source: str = ""
    """Which line gave the sizes (``bs=[...]``, ``Profiling CUDA graph memory``...)."""
    done: int | None = None
    """How many graphs the progress bar reached (``45/51`` → 45), where a bar is printed."""

    @property
    def graphs(self) -> int | None:
        """How many graphs: the list's length where printed, else the logged count."""
        return len(self.sizes) if self.sizes is not None else self.count

    @property
    def top(self) -> int | None:
        """The largest captured size, from the list or the logged ``largest``."""
        return max(self.sizes) if self.sizes else self.largest

    @property
    def incomplete(self) -> bool:
        """Whether the progress bar stopped before its total (``45/51``)."""
        return self.done is not None and self.count is not None and self.done < self.count

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"group": self.group, "backend": self.backend, "sizes": self.sizes,
                "graphs": self.graphs, "largest": self.top, "memory_gib": self.memory_gib,
                "seconds": self.seconds, "line": self.line, "size_source": self.size_source,
                "progress": None if self.done is None else [self.done, self.count]}


@dataclass(frozen=True)
class Fact:
    """Something the log prints that a plan would otherwise take as a default."""

    name: str
    """``gpu_memory_gib``, ``enforce_eager``, ``cuda_graph_padding``, ``cuda_graph_max_batch_size``."""
    value: Any
    line: int
    text: str
    """The words it was read from, for the report (at most 160 characters)."""


@dataclass(frozen=True)
class Problem:
    """A capture that did not finish as planned, in the log's own words."""

    kind: str
    """``crash`` (an error during capture), ``skipped`` (the engine skipped graphs) or ``cut``
    (the log ends while a capture is under way)."""
    line: int
    text: str


@dataclass(frozen=True)
class ReleaseHint:
    """A release range a line's format implies (``SGLang 0.4-0.5.13``): oldest, newest."""

    what: str
    oldest: str
    newest: str | None
    """``None``: still printed by the newest release."""
    line: int = 0


MAX_STEP_SIZE = limits.MAX_STEP_SIZE
"""Largest step size counted (requests or tokens, far above any GPU's); larger ones are
counted as out of range, so a hostile log cannot grow the counters without bound."""
MAX_RANKS = 1024
"""Most distinct rank labels kept."""
MAX_NOTES = 64
"""Most downgrade lines and rank notes kept."""


@dataclass
class Steps:
    """Batches as the per-step lines report them, for one phase."""

    graph: Counter[int] = field(default_factory=Counter)
    """Size → steps that replayed a graph."""
    eager: Counter[int] = field(default_factory=Counter)
    """Size → steps that ran without a graph."""
    unknown: Counter[int] = field(default_factory=Counter)
    """Size → steps whose line does not say (older formats, vLLM's forward-time stats)."""
    unit: str = "requests"
    out_of_range: int = 0
    """Steps whose size was above :data:`MAX_STEP_SIZE` (not counted by size)."""
    lines: int = 0
    """Log lines (or table rows) the steps were read from."""
    weight: int = 1
    """Steps each line stands for (SGLang's ``--decode-log-interval``), 1 when counted exactly."""

    def total(self) -> Counter[int]:
        """Every step counted, whatever ran it."""
        return self.graph + self.eager + self.unknown

    def add(self, size: int, ran_graph: bool | None, weight: int = 1) -> None:
        """Count ``weight`` steps of ``size``."""
        self.lines += 1
        if size > MAX_STEP_SIZE:
            self.out_of_range += weight
            return
        target = self.unknown if ran_graph is None else self.graph if ran_graph else self.eager
        target[size] += weight


@dataclass
class LogRecord:
    """Everything one log says: engine, version, launch arguments, captures, steps."""

    engine: str | None = None
    """``sglang``, ``vllm`` or ``trtllm``."""
    version: str | None = None
    """The exact version where the log prints it."""
    version_line: int = 0
    era: str | None = None
    """The release range whose log format was read (``SGLang 0.5.18+``), from the format."""
    args: dict[str, Any] | None = None
    """Launch arguments as the engine printed them (name → value)."""
    args_line: int = 0
    args_source: str = ""
    args_complete: bool = False
    """Whether ``args`` holds every launch field the engine has (SGLang's ``server_args``), so
    that the names printed say which release ran (:mod:`cgconfig.verify.args_release`)."""
    captures: dict[str, Capture] = field(default_factory=dict)
    configured_sizes: list[int] | None = None
    """vLLM: the front-end's configured capture sizes (before the worker's changes)."""
    configured_line: int = 0
    disabled: dict[str, str] = field(default_factory=dict)
    """Group → the log's reason it captured nothing."""
    steps: dict[str, Steps] = field(default_factory=dict)
    total_memory_gib: float | None = None
    total_seconds: float | None = None
    estimate_gib: dict[str, float] = field(default_factory=dict)
    """vLLM's estimated graph memory (``estimated`` pool, ``total``)."""
    downgrades: list[tuple[int, str]] = field(default_factory=list)
    """(line, text) of the engine's own downgrade warnings."""
    ranks: set[str] = field(default_factory=set)
    rank_mismatch: list[str] = field(default_factory=list)
    lines: int = 0
    evidence: int = 0
    """How many lines this engine's reader recognised."""
    facts: dict[str, Fact] = field(default_factory=dict)
    """Name → the first line that printed it (see :class:`Fact`)."""
    problems: list[Problem] = field(default_factory=list)
    hints: list[ReleaseHint] = field(default_factory=list)
    """The release ranges the formats read imply (at most :data:`MAX_NOTES`)."""

    def note_fact(self, name: str, value: Any, line: int, text: str) -> None:
        """Keep the first line that printed ``name``."""
        if name not in self.facts:
            self.facts[name] = Fact(name, value, line, text.strip()[:160])

    def note_problem(self, kind: str, line: int, text: str) -> None:
        """Keep a capture problem (at most :data:`MAX_NOTES`, 200 characters each)."""
        if len(self.problems) < MAX_NOTES:
            self.problems.append(Problem(kind, line, text.strip()[:200]))

    def hint(self, what: str, oldest: str, newest: str | None, line: int = 0) -> None:
        """Keep a release range a format implies (once per ``what``)."""
        if len(self.hints) < MAX_NOTES and all(h.what != what for h in self.hints):
            self.hints.append(ReleaseHint(what, oldest, newest, line))

    def add_rank(self, rank: str) -> None:
        """Remember a rank label (at most :data:`MAX_RANKS`)."""
        if rank and len(self.ranks) < MAX_RANKS:
            self.ranks.add(rank)

    def note_downgrade(self, line: int, text: str) -> None:
        """Keep an engine downgrade line (at most :data:`MAX_NOTES`, 300 characters each)."""
        if len(self.downgrades) < MAX_NOTES:
            self.downgrades.append((line, text[:300]))

    def steps_of(self, phase: str, unit: str) -> Steps:
        """The step counters of ``phase`` (created on first use)."""
        if phase not in self.steps:
            self.steps[phase] = Steps(unit=unit)
        return self.steps[phase]

    def capture(self, group: str, line: int) -> Capture:
        """The capture record of ``group`` (created on first use)."""
        if group not in self.captures:
            self.captures[group] = Capture(group=group, line=line)
        return self.captures[group]

    def to_dict(self) -> dict[str, Any]:
        """JSON form of what was read."""
        return {
            "engine": self.engine, "version": self.version, "format": self.era,
            "args_source": self.args_source or None,
            "captures": [c.to_dict() for c in self.captures.values()],
            "disabled": self.disabled, "downgrades": [t for _, t in self.downgrades],
            "total_memory_gib": self.total_memory_gib, "total_seconds": self.total_seconds,
            "ranks": sorted(self.ranks), "lines": self.lines,
            "facts": {f.name: {"value": f.value, "log_line": f.line, "text": f.text}
                      for f in self.facts.values()},
            "problems": [{"kind": p.kind, "log_line": p.line, "text": p.text}
                         for p in self.problems],
            "release_hints": [{"format": h.what, "oldest": h.oldest, "newest": h.newest}
                              for h in self.hints],
            # Measured per phase, as the engine logged it (a home for predicted-vs-measured
            # comparisons): graph memory and capture seconds per group.
            "measured": {c.group: {"memory_gib": c.memory_gib, "seconds": c.seconds}
                         for c in self.captures.values()
                         if c.memory_gib is not None or c.seconds is not None},
        }


def rank_of(line: str) -> tuple[str, int]:
    """The rank label of a line's prefix and where the message starts.

    SGLang: ``[2026-03-02 10:14:38 TP0] msg`` or ``[... DP2 TP2 EP2] msg``; vLLM:
    ``(Worker_TP0 pid=12) INFO ...`` or ``(EngineCore_DP0 pid=185) ...``. Lines without one
    get ``""``. Only the first 120 characters are looked at."""
    head = line[:120]
    if head.startswith("["):
        close = head.find("]")
        if close > 0:
            words = head[1:close].split()
            rank = " ".join(w for w in words if _rank_word(w))
            return rank, close + 1
    if head.startswith("("):
        close = head.find(")")
        if close > 0:
            name = head[1:close].split(" ", 1)[0]
            under = name.rfind("_")
            return (name[under + 1:] if under >= 0 else name), close + 1
    return "", 0


def _rank_word(word: str) -> bool:
    prefix = word.rstrip("0123456789")
    return prefix in ("TP", "DP", "EP", "PP", "CP", "ATTN_CP", "MOE_DP") and len(prefix) < len(word)
