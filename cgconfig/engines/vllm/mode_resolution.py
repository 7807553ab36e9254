"""vLLM's Stage B: ``CompilationConfig.resolve_cudagraph_mode_and_sizes`` (vLLM 0.33.0,
``vllm/config/compilation.py``), rules B1-B7; B8 needs the KV-cache layout and stays with the
caller. Messages keep vLLM's wording so a user can match them against their own logs.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from cgconfig.engines.vllm.modes import CudaGraphMode, SupportLevel
from cgconfig.fields.values import round_up


class VllmModeError(ValueError):
    """Where vLLM raises ``ValueError`` during Stage B (B2 with NEVER, B6, B7)."""

    def __init__(self, message: str, *, rule: str = "",
                 steps: Sequence[ModeStep] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.steps: tuple[ModeStep, ...] = tuple(steps)
        """Steps that had applied before the failing rule."""


@dataclass(frozen=True)
class ModeStep:
    """One Stage-B rule that fired: its id, the mode before and after, vLLM's message."""

    rule: str
    before: CudaGraphMode
    after: CudaGraphMode
    message: str
    level: Literal["warning", "error"] = "warning"


@dataclass(frozen=True)
class ModeResolution:
    """The outcome of :func:`resolve_mode`: the final mode, the rules that changed it, and
    the multiple that capture sizes must be rounded to (B7; 1 when they stay as they are)."""

    requested: CudaGraphMode
    mode: CudaGraphMode
    steps: tuple[ModeStep, ...] = ()
    size_multiple: int = 1

    @property
    def messages(self) -> list[str]:
        """vLLM's log lines for the steps, in order."""
        return [step.message for step in self.steps]

    def apply_sizes(self, sizes: Sequence[int], max_size: int) -> tuple[list[int], int]:
        """Capture sizes and their maximum after B7 (V1 runner, full decode graphs, q > 1);
        unchanged otherwise. Raises :class:`VllmModeError` where vLLM does."""
        if self.size_multiple <= 1 or not sizes:
            return list(sizes), max_size
        rounded = round_sizes_for_spec(sizes, max_size, self.size_multiple)
        return rounded, rounded[-1]


@dataclass(frozen=True)
class _Context:
    support: SupportLevel
    q: int
    vllm_compile: bool
    split: bool
    inductor_partition: bool
    piecewise_available: bool
    backend: str


@dataclass(frozen=True)
class _Outcome:
    """What a rule decided: a new mode with a warning, or (``after`` None) an error."""

    after: CudaGraphMode | None
    message: str


def _backend_phrase(ctx: _Context) -> str:
    """vLLM's ``"{name} backend"``; with no backend name known, "the attention backend"."""
    return f"{ctx.backend} backend" if ctx.backend else "the attention backend"


def _unsupported(mode: CudaGraphMode, ctx: _Context) -> str:
    return (f"CUDAGraphMode.{mode.name} is not supported with {_backend_phrase(ctx)} "
            f"(support: {ctx.support.vllm_str()})")


def _b2_mixed_full(mode: CudaGraphMode, ctx: _Context) -> _Outcome | None:
    """Full graphs for mixed batches need a backend that supports ALWAYS."""
    if mode.mixed_mode() is not CudaGraphMode.FULL or ctx.support is SupportLevel.ALWAYS:
        return None
    msg = _unsupported(mode, ctx)
    if ctx.support is SupportLevel.NEVER:
        return _Outcome(None, msg + "; please try cudagraph_mode=PIECEWISE, and make sure "
                                    "compilation mode is VLLM_COMPILE")
    # Keep full decode graphs; mixed batches get piecewise graphs only if attention is a split
    # point of the compiled graph (otherwise there are no pieces to capture).
    if ctx.split:
        return _Outcome(CudaGraphMode.FULL_AND_PIECEWISE,
                        msg + "; setting cudagraph_mode=FULL_AND_PIECEWISE")
    return _Outcome(CudaGraphMode.FULL_DECODE_ONLY, msg + "; setting cudagraph_mode=FULL_DECODE_ONLY")


def _b3_decode_full_never(mode: CudaGraphMode, ctx: _Context) -> _Outcome | None:
    """A NEVER backend cannot have full decode graphs either: fall back to piecewise or none."""
    if mode.decode_mode() is not CudaGraphMode.FULL or ctx.support is not SupportLevel.NEVER:
        return None
    msg = _unsupported(mode, ctx)
    if ctx.vllm_compile and (ctx.split or ctx.inductor_partition):
        return _Outcome(CudaGraphMode.PIECEWISE,
                        msg + "; setting cudagraph_mode=PIECEWISE because attention is compiled "
                              "piecewise")
    return _Outcome(CudaGraphMode.NONE, msg + "; setting cudagraph_mode=NONE because attention is "
                                              "not compiled piecewise")


def _b4_spec_decode(mode: CudaGraphMode, ctx: _Context) -> _Outcome | None:
    """Spec-decode batches are uniform with q > 1 tokens: full decode needs UNIFORM_BATCH."""
    if (mode.decode_mode() is not CudaGraphMode.FULL or ctx.q <= 1
            or ctx.support >= SupportLevel.UNIFORM_BATCH):
        return None
    backend = f"attention backend {ctx.backend}" if ctx.backend else "the attention backend"
    msg = (f"CUDAGraphMode.{mode.name} is not supported with spec-decode for {backend} "
           f"(support: {ctx.support.vllm_str()})")
    # Unlike B3, vLLM checks only the split here, not the compilation mode.
    if ctx.split:
        return _Outcome(CudaGraphMode.PIECEWISE, msg + "; setting cudagraph_mode=PIECEWISE")
    return _Outcome(CudaGraphMode.NONE, msg + "; setting cudagraph_mode=NONE")


def _b5_piecewise_capture(mode: CudaGraphMode, ctx: _Context) -> _Outcome | None:
    """Model Runner V2: no compiled submodule and no breakable graphs → no piecewise graphs."""
    if ctx.piecewise_available or not mode.requires_piecewise():
        return None
    after = mode.without_piecewise()
    return _Outcome(after, f"Cudagraph mode {mode} requires piecewise capture, but the loaded "
                           "model provides neither a compiled submodule nor breakable CUDA "
                           f"graphs. Overriding to {after}.")


def _b6_still_full(mode: CudaGraphMode, ctx: _Context) -> _Outcome | None:
    """vLLM's final guard. B2/B3 already remove every full graph under NEVER, so with the five
    modes this never fires; it is kept so the rule list matches vLLM's."""
    if not mode.has_full_cudagraphs() or ctx.support is not SupportLevel.NEVER:
        return None
    # Verbatim, including "support:" without a space and the space before ";".
    return _Outcome(None, f"CUDAGraphMode.{mode.name} is not supported with "
                          f"{_backend_phrase(ctx)} (support:{ctx.support.vllm_str()}) ; please try "
                          "cudagraph_mode=PIECEWISE, and make sure compilation mode is "
                          "VLLM_COMPILE")


_Rule = Callable[[CudaGraphMode, _Context], "_Outcome | None"]

#: Stage B in vLLM's order. Single pass: a later rule sees what an earlier one left (B2 then B4
#: is how FULL + FlashInfer + spec-decode ends at PIECEWISE). B1 (NONE stays NONE) is the early
#: return in :func:`resolve_mode`; B7 is :func:`round_sizes_for_spec`.
STAGE_B_RULES: tuple[tuple[str, _Rule], ...] = (
    ("B2", _b2_mixed_full),
    ("B3", _b3_decode_full_never),
    ("B4", _b4_spec_decode),
    ("B5", _b5_piecewise_capture),
    ("B6", _b6_still_full),
)


def resolve_mode(
    mode: CudaGraphMode | None,
    support: SupportLevel,
    *,
    num_speculative_tokens: int = 0,
    compilation_mode_is_vllm_compile: bool = True,
    attention_split: bool = True,
    piecewise_capture_available: bool = True,
    backend_name: str = "",
    inductor_graph_partition: bool = False,
    use_v2_model_runner: bool = False,
    never_decode_fallback: bool = True,
    spec_rounding: bool = True,
) -> ModeResolution:
    """vLLM's Stage B (``resolve_cudagraph_mode_and_sizes``) for one requested mode.

    ``support`` is the minimum capability over the model's attention backends, named
    ``backend_name`` in messages (vLLM prints the builder class, e.g. ``FlashInferBackend``;
    an empty name reads "the attention backend").
    ``attention_split``: the compiled graph is split at every attention op (vLLM's default
    splitting ops). ``inductor_graph_partition``: ``use_inductor_graph_partition``, which B3
    accepts in place of the split. ``piecewise_capture_available`` is False only under Model
    Runner V2 when the model has neither a compiled submodule nor breakable graphs (B5).

    Returns the final mode, each rule that changed it, and the size multiple for B7, which only
    the V1 runner applies (q = 1 + num_speculative_tokens > 1 with full decode graphs).
    ``never_decode_fallback`` / ``spec_rounding`` False: vLLM 0.10.2's
    ``initialize_cudagraph_capture``, which has no B3 (its B6 refuses instead) and no B7.
    Raises :class:`VllmModeError` where vLLM raises (B2 on a NEVER backend, B6).
    """
    if num_speculative_tokens < 0:
        raise ValueError(f"num_speculative_tokens must be >= 0, got {num_speculative_tokens}")
    # B1: an unset mode is NONE by the time the worker runs; nothing is logged.
    requested = CudaGraphMode.NONE if mode is None else mode
    if requested is CudaGraphMode.NONE:
        return ModeResolution(requested, CudaGraphMode.NONE)
    ctx = _Context(support, 1 + num_speculative_tokens, compilation_mode_is_vllm_compile,
                   attention_split, inductor_graph_partition, piecewise_capture_available,
                   backend_name)
    current: CudaGraphMode = requested
    steps: list[ModeStep] = []
    for rule, check in STAGE_B_RULES:
        if rule == "B3" and not never_decode_fallback:
            continue
        outcome = check(current, ctx)
        if outcome is None:
            continue
        if outcome.after is None:
            raise VllmModeError(outcome.message, rule=rule, steps=steps)
        steps.append(ModeStep(rule, current, outcome.after, outcome.message))
        current = outcome.after
    rounds = (current.decode_mode() is CudaGraphMode.FULL and ctx.q > 1
              and not use_v2_model_runner and spec_rounding)
    return ModeResolution(requested, current, tuple(steps), ctx.q if rounds else 1)


def round_sizes_for_spec(sizes: Sequence[int], max_size: int, q: int) -> list[int]:
    """B7: capture sizes rounded up to multiples of ``q`` (1 + num_speculative_tokens).

    Full decode graphs replay uniform batches of ``q`` tokens per request, so only multiples of
    ``q`` can serve them. Sizes that round past ``max_size`` are dropped; if none is left but
    ``q`` itself fits, ``[q]``; otherwise ``VllmModeError`` with vLLM's message. As in vLLM, an
    empty list or ``q <= 1`` returns the sizes unchanged. The new maximum is the last element.
    """
    if not sizes or q <= 1:
        return list(sizes)
    rounded = sorted({r for r in (round_up(s, q) for s in sizes) if r <= max_size})
    if not rounded and q <= max_size:
        # Every size rounded past the maximum, but one request's worth still fits.
        rounded = [q]
    if not rounded:
        raise VllmModeError(
            f"No valid cudagraph sizes after rounding to multiple of {q} (num_speculative_tokens "
            f"+ 1) please adjust num_speculative_tokens ({q - 1}) or max_cudagraph_capture_size "
            f"({max_size}) or cudagraph_capture_sizes ({list(sizes)})", rule="B7")
    return rounded
