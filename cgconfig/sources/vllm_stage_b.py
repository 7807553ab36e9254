"""vLLM's Stage B (worker-side mode resolution) as a dialect step.

Each downgrade goes through the one lock policy (:mod:`cgconfig.locks`), as the rule packs'
constraints do: it overrides a locked backend with a warning, or under ``--strict`` fails.
"""

from __future__ import annotations

from cgconfig.dialects import vllm_mode_resolution as resolution_rules
from cgconfig.dialects import vllm_modes as modes
from cgconfig.draft import Draft
from cgconfig.errors import InputError, StrictConflictError
from cgconfig.locks import conflict_message
from cgconfig.plan import Change, Decision, Outcome
from cgconfig.resolve.request import DraftStep


def stage_b_step(support: str | None, backend: str, num_spec: int, vllm_compile: bool,
                 max_size: int) -> DraftStep:
    """vLLM's worker-side mode resolution (Stage B) as a dialect step."""

    def hook(draft: Draft) -> None:
        mode, lost = modes.phases_to_mode(draft.get("decode.backend"),
                                          draft.get("prefill.backend"))
        original = mode
        if not vllm_compile and mode.requires_piecewise():
            # A8: piecewise graphs need the vLLM_COMPILE compilation mode.
            mode = mode.without_piecewise()
            _apply(draft, "vllm.A8", original, mode,
                   f"Cudagraph mode {original.name} is not compatible with compilation mode "
                   f"other than VLLM_COMPILE. Overriding to {mode.name}.")
        if support is None:
            return
        try:
            resolution = resolution_rules.resolve_mode(
                mode, modes.parse_level(support), num_speculative_tokens=num_spec,
                compilation_mode_is_vllm_compile=vllm_compile, backend_name=backend)
        except resolution_rules.VllmModeError as exc:
            raise InputError(str(exc), where="vLLM cudagraph_mode") from None
        for step in resolution.steps:
            _apply(draft, f"vllm.{step.rule}", step.before, step.after, step.message)
        q = resolution.size_multiple
        if q > 1:
            for phase in ("decode", "prefill"):
                sizes = draft.get(f"{phase}.bs") or []
                if not sizes:
                    continue
                try:
                    rounded, rounded_max = resolution.apply_sizes(sizes, max(max(sizes), max_size))
                except resolution_rules.VllmModeError as exc:
                    raise InputError(str(exc), where="vLLM capture sizes") from None
                change = draft.record(f"{phase}.bs", rounded, source="rule:vllm.B7",
                                      layer="rule", why=f"rounded to multiples of {q} "
                                      "(1 + num_speculative_tokens)")
                if change is not None:
                    draft.record(f"{phase}.max_bs", rounded_max, source="rule:vllm.B7",
                                 layer="rule", why="follows the rounded list")
                    draft.decisions.append(Decision(
                        rule="vllm.B7", kind="constraint", outcome="applied",
                        why=f"full decode graphs with {num_spec} speculative tokens replay "
                            f"uniform batches of {q} tokens per request: sizes rounded to "
                            f"multiples of {q}", changes=[change],
                        source="vLLM CompilationConfig.resolve_cudagraph_mode_and_sizes (B7)"))
        del lost

    return hook


def _apply(draft: Draft, rule: str, before: modes.CudaGraphMode, after: modes.CudaGraphMode,
           message: str) -> None:
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
                rule, key, draft.get(key), value, inputs, message,
                [f"choose cudagraph_mode={after.name}"])])
        change = draft.record(key, value, source=f"rule:{rule}", layer="rule", why=message)
        if change is not None:
            changes.append(change)
    if not changes:
        return
    outcome: Outcome = "overrode-lock" if locked else "applied"
    if locked:
        draft.warnings.append(f"rule {rule} overrode {', '.join(locked)}: {message}")
    draft.decisions.append(Decision(
        rule=rule, kind="constraint", outcome=outcome,
        why=f"{message} ({before.name} → {after.name})", changes=changes,
        source=f"vLLM CompilationConfig.resolve_cudagraph_mode_and_sizes ({rule[5:]})",
        inputs=[i for k in locked for i in draft.user_inputs(k)]))
