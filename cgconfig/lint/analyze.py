"""A resolved plan → findings. Every fact comes from the plan: its captured sizes and units,
its decisions (rule, kind, outcome, the inputs and facts they matched) and the engine's own
bounding flag (the plug-in part ``eager_flags``); nothing here re-derives engine behaviour."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cgconfig.constants import BACKEND_RANK
from cgconfig.line.plugins import part
from cgconfig.lint.finding import Finding
from cgconfig.lint.locate import flag_name, line_of
from cgconfig.migrate import spelled_for

if TYPE_CHECKING:
    from cgconfig.files.launch import Launch
    from cgconfig.plan import Decision, Plan


@dataclass(frozen=True)
class Bound:
    """The engine's running-request bound for a plan: the most requests one decode step holds."""

    requests: int
    flag: str | None
    """The flag that set it on the line (``--max-num-seqs``), ``None`` when the engine's default
    decides it (then no eager range is reported: the file did not choose it)."""
    shown: str | None = None
    """How messages name it when not by the flag (``max_batch_size`` of an options file)."""
    graph_setting: str | None = None
    """The setting that raises the largest decode graph, when the engine has no such flag
    (TensorRT-LLM: ``cuda_graph_config.max_batch_size``)."""
    ranks: int = 1
    """How many ranks the flag's value is split over (SGLang's DP attention: each rank runs
    ``value // ranks``): a fix that lowers the flag multiplies by it."""


#: (plan, argv) → the running-request bound, per engine (the command line wires the engines').
BoundReader = Callable[["Plan", Sequence[str]], "Bound | None"]



@dataclass(frozen=True)
class Context:
    """One launch and its plan, as the checks read them."""

    launch: Launch
    plan: Plan
    engine: str
    label: str
    """``SGLang 0.5.23``."""

    def at(self, *flags: str | None) -> tuple[int, str]:
        """The file line (and spelling) of the first flag found on the launch."""
        return line_of(self.launch.argv, self.launch.arg_lines, flags, self.launch.line)

    def finding(self, kind: str, flags: Sequence[str | None], message: str, fix: str | None,
                *, subject: str = "", rule: str | None = None,
                extra: dict[str, object] | None = None) -> Finding:
        """A finding at the first of ``flags`` on the launch."""
        line, spelled = self.at(*flags)
        return Finding(kind, self.launch.file, line, message, fix, subject=subject or spelled,
                       launch_line=self.launch.line, engine=self.label, rule=rule,
                       extra=dict(extra or {}))


def findings(ctx: Context, bound: Bound | None) -> list[Finding]:
    """Every finding the plan itself shows."""
    out = _unit_findings(ctx, bound)
    if not out:  # a wrong unit is the cause of the eager range: one finding, not two
        out += _eager_findings(ctx, bound) + _unreplayed_findings(ctx, bound)
    for decision in ctx.plan.decisions:
        out += _decision_findings(ctx, decision)
    return out


def _graph_flag(ctx: Context, phase: str = "decode") -> str | None:
    """The flag that raises the phase's largest graph, as the plan's release spells it."""
    flags: dict[str, str] = part(ctx.engine, "eager_flags")
    name = flags.get(phase) or next(iter(flags.values()), None)
    return spelled_for(ctx.engine, name, ctx.plan.engine_version.get("version")) if name else None


def _covered_requests(ctx: Context) -> tuple[int, int, int] | None:
    """(largest decode step size, tokens per request, requests it covers), or ``None`` when
    decode runs without graphs."""
    plan = ctx.plan
    if plan.backend("decode") == "disabled" and plan.backend("prefill") == "disabled":
        return None
    sizes: list[int] = part(ctx.engine, "step_sizes")(plan, "decode")
    if not sizes or (plan.backend("decode") == "disabled" and plan.size_unit("decode") ==
                     "requests"):
        return None
    width = int(plan.units["decode"].get("tokens_per_request") or 1)
    largest = max(sizes)
    covered = largest // width if plan.size_unit("decode") == "tokens" else largest
    return largest, width, covered


def _depends_on_unknown_memory(ctx: Context) -> bool:
    """Whether the decode maximum is a default the plan took from a GPU-memory tier it could not
    know (no memory given): then the largest size is SGLang's guess, not the file's."""
    memory = ctx.plan.key_facts.get("gpu_memory_gib", {}).get("value")
    if memory is not None or any(k.startswith("decode.") for k in ctx.plan.locked):
        return False
    return any("GPU memory tier" in (entry.why or "")
               for entry in ctx.plan.provenance.get("decode.max_bs", []))


def _eager_findings(ctx: Context, bound: Bound | None) -> list[Finding]:
    covered = _covered_requests(ctx)
    if bound is None or bound.flag is None or covered is None or \
            _depends_on_unknown_memory(ctx):
        return []  # the engine's own default bound: not the file's choice
    largest, width, requests = covered
    if bound.requests <= requests:
        return []
    eager = bound.requests - requests
    share = eager / bound.requests
    unit = ctx.plan.size_unit("decode")
    graph_flag = _graph_flag(ctx) or bound.graph_setting
    in_unit = f"{largest} tokens ({requests} requests of {width} tokens)" if unit == "tokens" \
        and width > 1 else f"{largest} {unit}"
    bound_text = f"{bound.shown or bound.flag} {bound.requests}" if bound.flag else \
        f"the engine's default bound of {bound.requests} running requests"
    message = (f"{bound_text} is above the largest decode CUDA graph {ctx.label} captures "
               f"({in_unit}): batches of {requests + 1}..{bound.requests} requests run eagerly, "
               f"{share:.0%} of the range 1..{bound.requests}")
    need = bound.requests * width if unit == "tokens" else bound.requests
    fix = (f"raise {graph_flag} to {need}" if graph_flag else "capture larger decode graphs") + \
        (f", or lower {bound.flag} to {requests * bound.ranks}"
         + (f" ({requests} × {bound.ranks} ranks)" if bound.ranks > 1 else "")
         if bound.flag and (not bound.shown or bound.ranks > 1) else
         f", or lower the bound to {requests}" if bound.flag else "")
    return [ctx.finding("CG001", (bound.flag, graph_flag), message, fix,
                        subject=bound.shown or bound.flag or "decode",
                        extra={"eager_requests": [requests + 1, bound.requests],
                               "eager_share": round(share, 4), "largest_captured": largest})]


def _unreplayed_findings(ctx: Context, bound: Bound | None) -> list[Finding]:
    """CG014: decode graphs the plan captures for more requests than one decode step holds
    (the running-request bound the file sets): they cost capture time and graph memory and
    are never replayed. The plan's captured list is the engine's capture filter's result, so
    this shows only where the filter's limit (the plan's request pool) is above the bound:
    SGLang 0.5.8 and 0.5.9 under DP attention, whose rank's pool is the whole
    ``--max-running-requests`` while its scheduler runs its share. Graphs keyed by tokens
    (vLLM) are not reported: a mixed prefill-and-decode step replays them too."""
    covered = _covered_requests(ctx)
    if bound is None or bound.flag is None or covered is None or \
            ctx.plan.size_unit("decode") != "requests" or _depends_on_unknown_memory(ctx):
        return []
    sizes: list[int] = part(ctx.engine, "step_sizes")(ctx.plan, "decode")
    above = sorted(s for s in sizes if s > bound.requests)
    if not above:
        return []
    pool = ctx.plan.capture.get("decode", {}).get("alignment", {}).get("pool_size")
    kept = (f" (its capture filter keeps sizes up to the request pool {pool})"
            if isinstance(pool, int) and pool >= above[-1] else "")
    graph_flag = _graph_flag(ctx) or bound.graph_setting
    bound_text = f"{bound.shown or bound.flag} {bound.requests}"
    per_rank = " per attention-DP rank" if bound.ranks > 1 else ""
    message = (f"{ctx.label} captures decode graphs up to {above[-1]} requests{kept}, but "
               f"at most {bound_text} requests run in one decode step{per_rank}: the "
               f"{len(above)} graphs {above[0]}..{above[-1]} are captured and never replayed")
    fix = (f"lower {graph_flag} to {bound.requests}" if graph_flag else
           f"capture decode graphs up to {bound.requests}") + \
        (f", or raise {bound.flag} to {above[-1] * bound.ranks}"
         + (f" ({above[-1]} × {bound.ranks} ranks)" if bound.ranks > 1 else "")
         + " if larger batches are meant to run")
    return [ctx.finding("CG014", (graph_flag, bound.flag), message, fix,
                        subject=graph_flag or bound.flag,
                        extra={"never_replayed": [above[0], above[-1]],
                               "graphs": len(above), "running_bound": bound.requests})]


def _unit_findings(ctx: Context, bound: Bound | None) -> list[Finding]:
    """A size written in the other unit: under speculative decoding a request takes
    ``tokens_per_request`` tokens in a decode step, and the graph flag counts one of the two."""
    covered = _covered_requests(ctx)
    graph_flag = _graph_flag(ctx)
    if bound is None or covered is None or graph_flag is None:
        return []
    largest, width, requests = covered
    _, spelled = ctx.at(graph_flag)
    user_set = bool(spelled) or any(k.startswith("decode.") and not k.endswith("backend")
                                    for k in ctx.plan.locked)
    if width <= 1 or not user_set:
        return []
    unit = ctx.plan.size_unit("decode")
    if unit == "tokens" and requests < bound.requests <= largest:
        message = (f"{graph_flag} counts tokens in {ctx.label}: under speculative decoding each "
                   f"request takes {width} tokens per decode step, so {largest} covers "
                   f"{requests} requests, not {bound.requests}; batches of {requests + 1}.."
                   f"{bound.requests} requests run eagerly")
        fix = f"set {graph_flag} to {bound.requests * width} ({bound.requests} × {width})"
    elif unit == "requests" and bound.requests * (width + 1) > largest >= \
            bound.requests * width > bound.requests:
        # the largest size is the bound's token count (a larger one is not a unit mix-up: under
        # DP attention a rank runs its share of the bound, far below every rank's graphs)
        message = (f"{graph_flag} counts requests in {ctx.label}, not tokens: {largest} is "
                   f"{bound.requests} requests × {width} tokens, but at most {bound.requests} "
                   f"requests run, so graphs above {bound.requests} are captured and never "
                   "replayed")
        fix = f"set {graph_flag} to {bound.requests}"
    else:
        return []
    return [ctx.finding("CG005", (graph_flag,), message, fix, subject=graph_flag,
                        extra={"tokens_per_request": width, "largest_captured": largest})]


def _moved_down(decision: Decision) -> list[str]:
    """The changes that take graphs away: a backend moved down, a size bound lowered."""
    out = []
    for change in decision.changes:
        before, after = change.before, change.after
        backend_down = change.key.endswith(".backend") and isinstance(before, str) and \
            isinstance(after, str) and BACKEND_RANK.get(after, 4) < BACKEND_RANK.get(before, 4)
        size_down = change.key.endswith("max_bs") and isinstance(before, int) and \
            isinstance(after, int) and after < before
        if backend_down or size_down:
            out.append(f"{change.key} {before} → {after}")
    return out


def _trigger_flags(ctx: Context, decision: Decision) -> list[str | None]:
    """The line's flags behind a decision: the facts it matched, then the inputs it overrode."""
    flags: list[str | None] = []
    for match in decision.matched:
        head, _, name = match.path.partition(".")
        if head == "facts":
            flags.append(flag_name(ctx.plan.fact_sources.get(name, "")))
        elif head in ("config", "options"):
            flags += [flag_name(entry.source) for entry in
                      ctx.plan.provenance.get(match.path.partition(".")[2], [])]
    flags += [flag_name(i) for i in decision.inputs]
    return flags


def _user_sizes(ctx: Context) -> bool:
    """Whether the decode sizes are the file's own (a flag or an options file set them)."""
    if any(k in ctx.plan.locked for k in ("decode.bs", "decode.max_bs")):
        return True
    chain = ctx.plan.provenance.get("decode.bs", [])
    return (bool(chain) and chain[-1].layer != "default") or any(
        e.layer != "default" and e.source not in ("default", "resolver")
        and not e.source.endswith("default")  # "vLLM default grid" is the engine's, not the file's
        for e in chain[1:])


def _dropped_sizes(ctx: Context, decision: Decision) -> list[Finding]:
    """CG013: the engine's capture filter dropped sizes the file configured (the request pool
    or the batch bound is smaller than the graphs asked for)."""
    for change in decision.changes:
        if change.key != "capture.decode.sizes" or not isinstance(change.before, list) or \
                not isinstance(change.after, list) or not _user_sizes(ctx):
            continue
        dropped = sorted(set(change.before) - set(change.after))
        if not dropped or not change.after or min(dropped) <= max(change.after):
            continue  # only sizes above the bound (alignment drops are the engine's)
        graph_flag = _graph_flag(ctx)
        message = (f"{ctx.label} never captures the decode sizes {dropped[0]}..{dropped[-1]} "
                   f"({len(dropped)} sizes) the file configures: {decision.why}")
        return [ctx.finding("CG013", (graph_flag, "--extra_llm_api_options"), message,
                            f"configure decode graphs up to {max(change.after)}, or raise the "
                            "running-request bound if larger batches are meant to run",
                            rule=decision.rule, subject=decision.rule)]
    return []


def _decision_findings(ctx: Context, decision: Decision) -> list[Finding]:
    if decision.kind == "resolver":
        return _dropped_sizes(ctx, decision)
    if decision.outcome == "skipped-locked":
        inputs = ", ".join(decision.inputs) or "your explicit key"
        wanted = "; ".join(f"{c.key} {c.before} → {c.after}" for c in decision.changes)
        message = (f"{inputs} keeps {ctx.label} from its own choice ({wanted or 'a downgrade'}): "
                   f"{decision.why}")
        return [ctx.finding("CG004", [flag_name(i) for i in decision.inputs], message,
                            f"drop {inputs} to let the engine decide", rule=decision.rule,
                            subject=decision.rule)]
    if decision.kind != "constraint" or decision.outcome not in ("applied", "overrode-lock"):
        return []
    moved = _moved_down(decision)
    if not moved:
        return []
    flags = _trigger_flags(ctx, decision)
    _, spelled = ctx.at(*flags)
    if not spelled:
        return []  # not the line's own setting: the model or the platform decided it
    overrode = f" (overriding {', '.join(decision.inputs)})" if decision.outcome == \
        "overrode-lock" else ""
    message = f"{spelled} makes {ctx.label} downgrade {'; '.join(moved)}{overrode}: {decision.why}"
    return [ctx.finding("CG003", [spelled], message, decision.hint, rule=decision.rule,
                        subject=decision.rule)]
