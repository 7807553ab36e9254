"""vLLM's mode resolution after the user's input, as one dialect step, in vLLM's order:
A8 (piecewise needs VLLM_COMPILE), the capture sizes ``VllmConfig._set_cudagraph_sizes`` left,
``set_splitting_ops_for_v1`` (A19-A22), the worker's Stage B (B2-B6) and the spec-decode
rounding (B7). Each step that changes something is a decision ``vllm.<id>``.

Each mode downgrade goes through the one lock policy (:mod:`cgconfig.locks`), as the rule packs'
constraints do: it overrides a locked backend with a warning, or under ``--strict`` fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cgconfig.draft import Draft
from cgconfig.engines.release_change import holds_in, value_at
from cgconfig.engines.vllm import capture_size_changes, captured, modes, releases
from cgconfig.engines.vllm import mode_resolution as resolution_rules
from cgconfig.engines.vllm.attention import HYBRID_ARCHS, fa3_cap_refusal
from cgconfig.engines.vllm.compile_changes import (
    COMPILATION_MODE_FIELD,
    EMPTY_SPLIT_PIECEWISE_IS_FULL,
    HYBRID_DEFAULT_FULL_AND_PIECEWISE,
    MAMBA_ARCHS,
    NEVER_DECODE_FALLBACK,
    PIECEWISE_WITHOUT_COMPILE_REFUSED,
    SPEC_DECODE_ROUNDING,
    SPEC_ROUNDING_EMPTY_HANDLED,
)
from cgconfig.engines.vllm.splitting_ops import empty_split_fixup_0_10, splitting_fixup
from cgconfig.errors import InputError, StrictConflictError
from cgconfig.fields.values import round_up
from cgconfig.locks import conflict_message
from cgconfig.plan import Change, Decision, Outcome
from cgconfig.resolve.request import DraftStep

_STAGE_B = "CompilationConfig.resolve_cudagraph_mode_and_sizes"


@dataclass
class CapturePlan:
    """vLLM's capture sizes as ``VllmConfig._set_cudagraph_sizes`` leaves them, and why."""

    sizes: list[int]
    max_size: int
    why: str
    notes: list[str] = field(default_factory=list)
    """vLLM's warnings while setting them (a truncated maximum, user sizes overridden)."""
    max_num_seqs: int = 0
    """The scheduler's ``max_num_seqs``: FULL decode graphs stop at ``max_num_seqs`` requests."""


def stage_b_step(support: str | None, backend: str, num_spec: int, vllm_compile: bool,
                 splitting_ops: list[str] | None, capture: CapturePlan, *,
                 graphs_off: Callable[[dict[str, Any]], list[tuple[str, str, str]]] | None = None,
                 v2_runner: bool | Callable[[Draft], bool] = False,
                 fuse_attn_quant: bool = False,
                 attention: Callable[[Draft], tuple[str, str]] | None = None,
                 replan: Callable[[dict[str, Any]], CapturePlan] | None = None,
                 context_parallel: tuple[int, int] = (1, 1),
                 v0_engine: Callable[[Draft], bool] | None = None,
                 deepep_piecewise: bool = False,
                 hybrid_default: bool = False,
                 release: str) -> DraftStep:
    """vLLM's mode resolution after the user's input: A8, the sizes, A19-A22, Stage B, B7.

    ``support`` is the attention capability (a level name) or None when unknown: then no
    Stage-B downgrade is assumed, but B7 still rounds the sizes. ``backend`` names it in
    messages ("" reads "the attention backend"). ``release``: the vLLM release the line is
    answered for; ``v2_runner`` may be a function of the model's facts, and ``graphs_off``
    is one (vLLM's steps that turn every graph off, some of which read the model's config).
    ``context_parallel``: the line's decode and prefill context-parallel sizes. ``v0_engine``
    (vLLM 0.10.2): plans the line for the V0 engine and answers True when the release runs it
    there (then nothing below applies); ``deepep_piecewise``: 0.10.2's DeepEP high-throughput
    rule (DP > 1: full graphs become PIECEWISE); ``hybrid_default``: the line set no mode and
    0.10.2's ``MambaModelConfig`` gives a hybrid or Mamba model FULL_AND_PIECEWISE.
    """

    def hook(draft: Draft) -> None:
        nonlocal support, backend, capture
        if v0_engine is not None and v0_engine(draft):
            return
        if replan is not None:  # the sizes again, now that the model's facts are known
            capture = replan(draft.facts)
        arch = draft.facts.get("model_arch")
        if hybrid_default and (arch in HYBRID_ARCHS or arch in MAMBA_ARCHS) and arch not in \
                value_at(HYBRID_DEFAULT_FULL_AND_PIECEWISE, release):  # type: ignore[operator]
            mode = modes.phases_to_mode(draft.get("decode.backend"),
                                        draft.get("prefill.backend")).mode
            apply_mode(draft, "vllm.hybrid-default", mode, modes.CudaGraphMode.FULL_AND_PIECEWISE,
                   "Hybrid or mamba-based model detected: setting cudagraph mode to "
                   "FULL_AND_PIECEWISE in order to optimize performance.",
                   "MambaModelConfig.verify_and_update_config", release)
        if attention is not None:  # the backend the model's layers select (model facts known)
            support, backend = attention(draft)
        # vLLM's sizes count tokens: a decode step takes 1 + num_spec per request (plan units).
        draft.derived["vllm_tokens_per_request"] = 1 + num_spec
        mode = modes.phases_to_mode(draft.get("decode.backend"),
                                    draft.get("prefill.backend")).mode
        original = mode
        if not vllm_compile and releases.overridden_without_compile(mode, release):
            # A8: piecewise graphs (before 0.13 any graphs) need the VLLM_COMPILE compilation
            # mode.
            mode = releases.piecewise_fallback(mode, release)
            apply_mode(draft, "vllm.A8", original, mode,
                   f"Cudagraph mode {original.name} is not compatible with compilation mode "
                   f"other than VLLM_COMPILE. Overriding to {mode.name}.",
                   "VllmConfig._normalize_piecewise_cudagraph_mode"
                   if holds_in(releases.PIECEWISE_FALLBACK, release) else "VllmConfig.__post_init__",
                   release)
        if context_parallel[0] > 1 and draft.facts.get("use_mla") is not True:
            draft.warnings.append(
                f"--decode-context-parallel-size {context_parallel[0]} on a model that is not "
                f"known to use MLA: vLLM {release} ModelConfig.verify_with_parallel_config "
                "then asserts that the tensor-parallel size exceeds the model's KV heads, that "
                "the size is at most tp // KV heads and divides the query heads per KV head; "
                "cgconfig does not check these, so the engine may refuse this line")
        cp_sizes = dict(zip(("decode", "prefill"), context_parallel, strict=True))
        cp = next((phase for phase, size in cp_sizes.items() if size > 1), None)
        if cp is not None and mode.has_full_cudagraphs() \
                and holds_in(releases.CONTEXT_PARALLEL_PIECEWISE, release):
            short = "DCP" if cp == "decode" else "PCP"
            apply_mode(draft, "vllm.context-parallel", mode, modes.CudaGraphMode.PIECEWISE,
                   f"{cp.capitalize()} context parallel ({short}) is enabled, which is "
                   "incompatible with full CUDA graphs. Overriding cudagraph_mode to PIECEWISE.",
                   "VllmConfig.__post_init__", release)
            mode = modes.CudaGraphMode.PIECEWISE
        set_sizes(draft, capture.sizes, "vllm.sizes", capture.why,
                   f"vLLM's capture sizes: {capture.why}",
                   f"vLLM {release} VllmConfig._set_cudagraph_sizes",
                   "choose sizes up to max_num_batched_tokens")
        if deepep_piecewise and mode not in (modes.CudaGraphMode.NONE,
                                             modes.CudaGraphMode.PIECEWISE):
            apply_mode(draft, "vllm.deepep-high-throughput", mode, modes.CudaGraphMode.PIECEWISE,
                   "Data Parallel with DeepEP high-throughput: using PIECEWISE CUDA graphs and "
                   "excluding MoE ops from capture. Set VLLM_ALL2ALL_BACKEND=deepep_low_latency "
                   "if you need MoE graphs captured as well.",
                   "CudaPlatform.check_and_update_config", release)
            mode = modes.CudaGraphMode.PIECEWISE
        level_era = not holds_in(COMPILATION_MODE_FIELD, release)
        if level_era and not vllm_compile and mode.requires_piecewise():
            raise InputError("Compilation level should be CompilationLevel.PIECEWISE when "
                             "cudagraph_mode piecewise cudagraphs is used, "
                             f"cudagraph_mode=CUDAGraphMode.{mode.name} (vLLM {release} "
                             "VllmConfig.__post_init__)", where="vLLM cudagraph_mode")
        if holds_in(EMPTY_SPLIT_PIECEWISE_IS_FULL, release):
            fixup = empty_split_fixup_0_10(mode, splitting_ops, vllm_compile)
        else:
            fixup = splitting_fixup(mode, splitting_ops, vllm_compile,
                                    fuse_attn_quant=fuse_attn_quant)
        if fixup.rule:
            apply_mode(draft, f"vllm.{fixup.rule}", mode, fixup.mode, fixup.message,
                   "CompilationConfig.set_splitting_ops_for_v1", release)
        mode = fixup.mode
        for rule, message, function in graphs_off(draft.facts) if graphs_off else []:
            if mode is not modes.CudaGraphMode.NONE:
                apply_mode(draft, rule, mode, modes.CudaGraphMode.NONE, message, function, release)
                mode = modes.CudaGraphMode.NONE
        if not vllm_compile and mode.requires_piecewise() \
                and holds_in(PIECEWISE_WITHOUT_COMPILE_REFUSED, release):
            raise InputError("Compilation mode should be CompilationMode.VLLM_COMPILE when "
                             "cudagraph_mode piecewise cudagraphs is used, "
                             f"cudagraph_mode={mode.name} (vLLM {release} "
                             "VllmConfig.__post_init__)", where="vLLM cudagraph_mode")
        if level_era and mode.requires_piecewise() and not fixup.attention_split:
            raise InputError("Compilation level should be CompilationLevel.PIECEWISE when "
                             "cudagraph_mode piecewise cudagraphs is used, and the splitting "
                             "ops should contain attention, cudagraph_mode="
                             f"CUDAGraphMode.{mode.name} (vLLM {release} v1/cudagraph_dispatcher.py "
                             "CudagraphDispatcher.__init__)", where="vLLM cudagraph_mode")
        cap = fa3_cap_refusal(backend, draft.facts.get("gpu_sm"), mode, capture.max_size, release)
        if cap:
            raise InputError(cap, where="vLLM capture sizes")
        v2 = v2_runner(draft) if callable(v2_runner) else v2_runner
        try:
            resolution = resolution_rules.resolve_mode(
                mode, modes.parse_level(support or "ALWAYS"),
                num_speculative_tokens=num_spec, compilation_mode_is_vllm_compile=vllm_compile,
                attention_split=fixup.attention_split, backend_name=backend,
                use_v2_model_runner=holds_in(releases.V2_SKIPS_SPEC_ROUNDING, release) and v2,
                never_decode_fallback=holds_in(NEVER_DECODE_FALLBACK, release),
                spec_rounding=holds_in(SPEC_DECODE_ROUNDING, release))
        except resolution_rules.VllmModeError as exc:
            raise InputError(str(exc), where="vLLM cudagraph_mode") from None
        for step in resolution.steps:
            apply_mode(draft, f"vllm.{step.rule}", step.before, step.after, step.message,
                   _STAGE_B, release)
        multiple = resolution.size_multiple
        if not resolution.mode.separate_routine() \
                and not capture_size_changes.rounds_plain_full(release):
            multiple = 1  # vLLM < 0.20: no rounding under plain FULL
        _round_for_spec(draft, capture, multiple, num_spec, release)
        draft.decode_filter = RunnerCapture(draft, capture.max_num_seqs, 1 + num_spec, v2,
                                            release)

    return hook


class RunnerCapture:
    """The capture step's decode filter (``draft.decode_filter``): the graphs vLLM's model
    runner captures in the final mode (:func:`captured.captured_lists`), recording the FULL
    decode window when it drops sizes; :attr:`lists` keeps the result for the mixed phase."""

    def __init__(self, draft: Draft, max_num_seqs: int, q: int, v2: bool, release: str) -> None:
        self.draft, self.max_num_seqs, self.q, self.v2, self.release = (
            draft, max_num_seqs, q, v2, release)
        self.lists: captured.CapturedLists | None = None
        """The last lists computed (None before the capture step)."""

    def __call__(self, listed: list[int]) -> list[int]:
        """The decode phase's captured sizes for the configured list ``listed``."""
        draft, q, max_num_seqs = self.draft, self.q, self.max_num_seqs
        mode = modes.phases_to_mode(draft.get("decode.backend"),
                                    draft.get("prefill.backend")).mode
        try:
            self.lists = captured.captured_lists(
                mode, listed, max_num_seqs=max_num_seqs, tokens_per_request=q,
                v2_runner=self.v2, release=self.release)
        except resolution_rules.VllmModeError as exc:
            raise InputError(str(exc), where="vLLM capture sizes (Model Runner V2)") from None
        kept = list(self.lists.decode_steps)
        listed = sorted(set(listed))
        rounds = captured.rounds_decode_up(self.release, self.v2)
        if mode.separate_routine() and kept != listed:
            dropped = sorted(set(listed) - set(kept))
            window = (f"sizes up to {max_num_seqs} tokens" if q == 1 else
                      f"round_up(size, {q}) up to {max_num_seqs * q} tokens, at most "
                      f"max_cudagraph_capture_size={listed[-1]}" if rounds else
                      f"sizes {q}..{max_num_seqs * q} tokens")
            per_request = f" × {q} tokens" if q > 1 else ""
            why = (f"FULL decode graphs are captured only for uniform decode batches of at most "
                   f"max_num_seqs={max_num_seqs} requests{per_request}: {window}"
                   + (f" (dropped {_short(dropped)})" if dropped else "")
                   + ("; uniform decode batches above them replay the piecewise graphs"
                      if mode.mixed_mode() is modes.CudaGraphMode.PIECEWISE else "")
                   + ("" if kept else "; no FULL decode graph is captured"))
            draft.decisions.append(Decision(
                rule="vllm.full-decode-window", kind="resolver", outcome="applied", why=why,
                changes=[Change("capture.decode.sizes", listed, kept)],
                source=captured.decode_window_source(self.release, self.v2)))
        if not kept and draft.get("decode.backend") != "disabled":
            piecewise = mode.mixed_mode() is modes.CudaGraphMode.PIECEWISE
            draft.warnings.append(
                f"decode: no FULL decode graph fits max_num_seqs={max_num_seqs} × {q} tokens; "
                "decode steps replay the piecewise graphs" if listed and piecewise
                else "decode: no capture sizes; decode runs eagerly")
        return kept


def _short(values: list[int]) -> str:
    return str(values) if len(values) <= 6 else f"[{values[0]}, {values[1]}, …, {values[-1]}]"


def _round_for_spec(draft: Draft, capture: CapturePlan, q: int, num_spec: int,
                    release: str) -> None:
    """B7: full decode graphs with speculative tokens take sizes that are multiples of q."""
    if q <= 1 or not capture.sizes:
        return
    if not holds_in(SPEC_ROUNDING_EMPTY_HANDLED, release) and not any(
            round_up(s, q) <= capture.max_size for s in capture.sizes):
        # 0.11.2: no size is left after the rounding: a warning, the sizes kept unrounded
        draft.warnings.append(
            f"No valid cudagraph sizes after rounding to multiple of num_speculative_tokens + 1 "
            f"({q}); please adjust num_speculative_tokens or max_cudagraph_capture_size (or "
            f"cudagraph_capture_sizes): vLLM {release} "
            "CompilationConfig.adjust_cudagraph_sizes_for_spec_decode keeps the sizes unrounded")
        return
    try:
        rounded = resolution_rules.round_sizes_for_spec(capture.sizes, capture.max_size, q)
    except resolution_rules.VllmModeError as exc:
        raise InputError(str(exc), where="vLLM capture sizes") from None
    set_sizes(draft, rounded, "vllm.B7",
               f"rounded to multiples of {q} (1 + num_speculative_tokens)",
               f"full decode graphs with {num_spec} speculative tokens replay uniform batches "
               f"of {q} tokens per request: sizes rounded to multiples of {q}",
               f"vLLM {release} CompilationConfig.adjust_cudagraph_sizes_for_spec_decode (B7)",
               f"choose sizes that are multiples of {q}")


def set_sizes(draft: Draft, sizes: list[int], rule: str, why: str, decision_why: str,
               source: str, remedy: str) -> None:
    """Set both phases' lists (vLLM has one list for both) and their maxima, as one decision.

    A list the user set is locked: changing it goes through the lock policy like a mode
    downgrade (a warning, or under ``--strict`` an error naming ``remedy``).
    """
    wanted: dict[str, tuple[object, str]] = {}
    for phase in ("decode", "prefill"):
        wanted[f"{phase}.bs"] = (sizes, why)
        wanted[f"{phase}.max_bs"] = (sizes[-1] if sizes else None, "the largest capture size")
    moving = [key for key, (value, _) in wanted.items() if draft.get(key) != value]
    locked = [key for key in moving if key in draft.locked]
    if locked and draft.policy.verdict(rule, "constraint", locked) == "conflict":
        key = locked[0]
        inputs = ", ".join(draft.user_inputs(key))
        raise StrictConflictError([conflict_message(
            rule, key, draft.get(key), wanted[key][0], inputs, decision_why, [remedy])])
    changes: list[Change] = []
    for phase in ("decode", "prefill"):
        draft.mark_sizes_explicit(phase)
    for key in moving:
        value, reason = wanted[key]
        change = draft.record(key, value, source=f"rule:{rule}", layer="rule", why=reason)
        if change is not None:
            changes.append(change)
    _decide(draft, rule, changes, locked, decision_why, why=decision_why, source=source,
            inputs=list(dict.fromkeys(i for k in locked for i in draft.user_inputs(k))))


def apply_mode(draft: Draft, rule: str, before: modes.CudaGraphMode, after: modes.CudaGraphMode,
           message: str, function: str, release: str) -> None:
    decode, prefill = modes.mode_to_phases(after)
    changes: list[Change] = []
    locked: list[str] = []
    for key, value in (("decode.backend", decode), ("prefill.backend", prefill)):
        if draft.get(key) == value:
            continue
        if key in draft.locked:
            locked.append(key)
        if key in draft.locked and draft.policy.verdict(rule, "constraint", [key]) == "conflict":
            inputs = ", ".join(draft.user_inputs(key))
            raise StrictConflictError([conflict_message(
                rule, key, draft.get(key), value, inputs, message.rstrip("."),
                [f"choose cudagraph_mode={after.name}"])])
        change = draft.record(key, value, source=f"rule:{rule}", layer="rule", why=message)
        if change is not None:
            changes.append(change)
    _decide(draft, rule, changes, locked, message, why=f"{message} ({before.name} → {after.name})",
            source=f"vLLM {release} {function} ({rule[5:]})",
            inputs=[i for k in locked for i in draft.user_inputs(k)])


def _decide(draft: Draft, rule: str, changes: list[Change], locked: list[str], message: str, *,
            why: str, source: str, inputs: list[str]) -> None:
    """Record a Stage-B step that changed something, with a warning when it overrode a key
    the user set."""
    if not changes:
        return
    outcome: Outcome = "overrode-lock" if locked else "applied"
    if locked:
        draft.warnings.append(f"rule {rule} overrode {', '.join(locked)}: {message}")
    draft.decisions.append(Decision(rule=rule, kind="constraint", outcome=outcome, why=why,
                                    changes=changes, source=source, inputs=inputs))
