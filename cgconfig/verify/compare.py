"""Compare what a log captured with what the plan says the engine captures.

Per group of graphs, in each engine's terms (its plug-in part ``expected_groups``: SGLang's
decode and prefill, vLLM's decode FULL and mixed PIECEWISE..., TensorRT-LLM's decode): the
backend where logged, and the sizes (the list where printed, else count and largest).
Each difference names the plan's decision for that key (a rule, or the default and its input).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cgconfig.line.plugins import part
from cgconfig.line.registry import host
from cgconfig.line.version_source import LOG_SOURCE
from cgconfig.line.versions import NAMES
from cgconfig.plan import Plan
from cgconfig.verify.record import Capture, LogRecord

_PHASE_OF = {"decode": "decode", "prefill": "prefill", "decode FULL": "decode",
             "mixed PIECEWISE": "prefill", "mixed FULL": "prefill"}


@dataclass
class Expected:
    """One group of graphs the plan says the engine captures."""

    group: str
    phase: str
    backend: str
    sizes: list[int]


@dataclass
class Difference:
    """One way the log disagrees with the plan."""

    group: str
    what: str
    logged: Any
    planned: Any
    decision: str
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"group": self.group, "what": self.what, "logged": self.logged,
                "planned": self.planned, "plan_decision": self.decision, "log_line": self.line}


@dataclass
class Comparison:
    """The verdict and what it rests on."""

    plan: Plan
    argv: list[str]
    argv_source: str
    version_note: str
    expected: list[Expected]
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        """Whether nothing differs."""
        return not self.differences


def expected_groups(plan: Plan, engine: str, argv: list[str] | None = None) -> list[Expected]:
    """The groups of graphs the plan says ``engine`` captures, in the engine's terms (its
    plug-in part ``expected_groups``)."""
    groups: list[Expected] = part(engine, "expected_groups")(plan, argv or [])
    return groups


def decision_for(plan: Plan, key: str) -> str:
    """The plan's decision for ``key``: the last rule that changed it, else the value's origin."""
    for decision in reversed(plan.decisions):
        if decision.outcome in ("applied", "overrode-lock") and any(
                c.key == key for c in decision.changes):
            return f"rule {decision.rule}: {decision.why}"
    chain = plan.provenance.get(key) or []
    if not chain:
        return "default"
    last = chain[-1]
    why = f": {last.why}" if last.why else ""
    text = f"{last.source}{why}"
    if key.endswith(".bs") and "derived" in last.source:
        text += f"; {key[:-3]}.max_bs from {decision_for(plan, key[:-3] + '.max_bs')}"
    return text


def version_note(record: LogRecord, plan: Plan) -> str:
    """One line: the log's engine version against the version the plan answers for
    (``Plan.engine_version``: the log's own version unless ``--engine-version`` or
    ``CGCONFIG_ENGINE_VERSION`` named another)."""
    engine = record.engine or host()
    label = NAMES[engine]
    chosen = plan.engine_version
    source = chosen.get("source", "default")
    ours = (f"{chosen.get('label', label)}, the newest supported" if source.startswith("default")
            else f"{chosen.get('label', label)} ({source})")
    if record.version is None:
        return (f"the log does not print {label}'s version (format: {record.era or 'unknown'}); "
                f"the plan answers for {ours}")
    if chosen.get("source") == LOG_SOURCE:
        if chosen.get("version") == record.version:
            return f"{label} {record.version}: the plan uses this version's rules"
        return (f"the log is {label} {record.version}: the plan uses the rules of "
                f"{chosen['label']}, the nearest older supported version")
    from cgconfig.line.versions import supported_range

    return (f"the log is {label} {record.version} (cgconfig answers for "
            f"{supported_range(engine)}); the plan answers for {ours}")


def _observed(record: LogRecord, want: Expected, wanted: list[Expected]) -> Capture | None:
    """The log's capture for an expected group (a vLLM profiled count stands in for a group
    whose tqdm bar or DEBUG lines are missing, when its mode names one group only)."""
    capture = record.captures.get(want.group)
    if capture is not None:
        return capture
    mode = want.group.split()[-1]
    profiled = record.captures.get(f"profiled {mode}")
    if profiled is not None and sum(w.group.endswith(mode) for w in wanted) == 1:
        return profiled
    return None


def compare(record: LogRecord, plan: Plan, argv: list[str], argv_source: str) -> Comparison:
    """Compare every group the plan expects, and every group the log captured beyond them."""
    engine = record.engine or host()
    wanted = expected_groups(plan, engine, argv)
    result = Comparison(plan, argv, argv_source, version_note(record, plan), wanted)
    captured_any = any(not g.startswith("draft") for g in record.captures)
    if not captured_any and not record.disabled and wanted:
        result.notes.append("the log has no capture lines (is the start of the log missing?); "
                            "only the per-step lines were checked")
    for want in wanted:
        got = _observed(record, want, wanted)
        if got is None:
            if captured_any or record.disabled:
                reason = record.disabled.get(want.phase) or record.disabled.get("all")
                result.differences.append(Difference(
                    want.group, "captured nothing" + (f" ({reason[:120]})" if reason else ""),
                    0, f"{len(want.sizes)} graphs", decision_for(plan, f"{want.phase}.backend")))
            continue
        _compare_one(result, plan, want, got)
    planned = {w.group for w in wanted}
    for group, got in record.captures.items():
        if group.startswith(("draft", "profiled")) or group in planned:
            continue
        phase = _PHASE_OF.get(group, group.split()[0])
        result.differences.append(Difference(
            group, "captured graphs the plan does not", f"{got.graphs} graphs", "none",
            decision_for(plan, f"{phase}.backend"), got.line))
    if record.configured_sizes is not None:
        _compare_configured(result, plan, record, wanted)
    return result


def _compare_one(result: Comparison, plan: Plan, want: Expected, got: Capture) -> None:
    phase = want.phase
    if got.backend is not None and got.backend != want.backend:
        result.differences.append(Difference(want.group, "backend", got.backend, want.backend,
                                             decision_for(plan, f"{phase}.backend"), got.line))
    if got.sizes is not None:
        if got.sizes != want.sizes:
            missing = [s for s in want.sizes if s not in set(got.sizes)]
            extra = [s for s in got.sizes if s not in set(want.sizes)]
            result.differences.append(Difference(
                want.group, f"captured sizes ({got.size_source})",
                _sizes_text(got.sizes, extra, "not planned"),
                _sizes_text(want.sizes, missing, "not captured"),
                decision_for(plan, f"{phase}.bs"), got.line))
        return
    if got.count is None and got.largest is None:
        result.notes.append(f"{want.group}: the log shows the capture but neither its sizes nor "
                            "its graph count, so they were not checked")
    if got.count is not None and got.count != len(want.sizes):
        result.differences.append(Difference(want.group, "graph count", got.count,
                                             len(want.sizes), decision_for(plan, f"{phase}.bs"),
                                             got.line))
    if got.largest is not None and got.largest != max(want.sizes):
        result.differences.append(Difference(want.group, "largest size", got.largest,
                                             max(want.sizes),
                                             decision_for(plan, f"{phase}.max_bs"), got.line))


def _compare_configured(result: Comparison, plan: Plan, record: LogRecord,
                        wanted: list[Expected]) -> None:
    """vLLM's front-end list (all modes' sizes) against the plan's widest list."""
    configured = record.configured_sizes or []
    widest = max((w.sizes for w in wanted), key=len, default=[])
    if widest and configured != widest:
        missing = [s for s in widest if s not in set(configured)]
        extra = [s for s in configured if s not in set(widest)]
        result.differences.append(Difference(
            "configured", "capture sizes (compilation_config)",
            _sizes_text(configured, extra, "not planned"),
            _sizes_text(widest, missing, "not configured"),
            decision_for(plan, "prefill.bs"), record.configured_line))


def _sizes_text(sizes: list[int], odd: list[int], label: str) -> str:
    head = f"{len(sizes)} sizes, largest {max(sizes, default=0)}"
    if odd:
        shown = ", ".join(map(str, odd[:8])) + (", …" if len(odd) > 8 else "")
        head += f" ({label}: {shown})"
    return head

