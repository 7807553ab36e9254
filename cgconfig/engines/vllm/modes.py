"""vLLM's CUDA-graph modes, attention capability levels, and their mapping onto cgconfig's
per-phase backends.

Reproduces vLLM 0.33.0: the ``CUDAGraphMode`` enum (``vllm/config/compilation.py``) and the
``AttentionCGSupport`` levels with each backend's declared level
(``vllm/v1/attention/backends/*``). Stage B of the mode resolution lives in
:mod:`.mode_resolution`, the splitting-ops fix-up in :mod:`.splitting_ops`.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeVar, get_args

from cgconfig.constants import BACKENDS, CAPABILITY_LEVELS

__all__ = [
    "MODE_PHASES",
    "VLLM_BACKEND_SUPPORT",
    "BackendSupport",
    "CudaGraphMode",
    "ModeMatch",
    "PhaseBackend",
    "SupportLevel",
    "backend_support",
    "min_support",
    "mode_from_value",
    "mode_to_phases",
    "parse_level",
    "parse_mode",
    "phases_to_mode",
]

PhaseBackend = Literal["full", "breakable", "disabled"]
assert set(get_args(PhaseBackend)) <= set(BACKENDS)
#: The steps between vLLM's phase backends, for choosing the nearest mode (an SGLang
#: ``tc_piecewise`` phase has no vLLM mode of its own: it is read as ``breakable``, vLLM's
#: piecewise graph being torch.compile's too).
_STEPS: dict[str, int] = {"full": 2, "breakable": 1, "disabled": 0}

_E = TypeVar("_E", bound=enum.Enum)


def _parse_member(enum_cls: type[_E], text: str, what: str, prefix: str = "") -> _E:
    """Look ``text`` up by member name, case-insensitively, with a did-you-mean on failure."""
    key = text.upper()
    if prefix and key.startswith(prefix.upper()):
        key = key[len(prefix):]
    names = [member.name for member in enum_cls]
    if key in names:
        return enum_cls[key]
    close = difflib.get_close_matches(key, names, n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    raise ValueError(f"Invalid {what}: {text!r}.{hint} Allowed: {', '.join(names)}")


# ------------------------------------------------------------------------------------- modes


class CudaGraphMode(enum.Enum):
    """vLLM's ``CUDAGraphMode``: values are ints, or ``(decode, mixed)`` tuples for the two modes
    that run decode-only batches and mixed/prefill batches through separate routines."""

    NONE = 0
    PIECEWISE = 1
    FULL = 2
    FULL_DECODE_ONLY = (2, 0)
    FULL_AND_PIECEWISE = (2, 1)

    def __str__(self) -> str:
        # vLLM's __str__ is the bare name; its log lines format modes with %s.
        return self.name

    def _phase(self, index: int) -> CudaGraphMode:
        return CudaGraphMode(self.value[index]) if isinstance(self.value, tuple) else self

    def decode_mode(self) -> CudaGraphMode:
        """The runtime mode of uniform decode batches (NONE, PIECEWISE or FULL)."""
        return self._phase(0)

    def mixed_mode(self) -> CudaGraphMode:
        """The runtime mode of mixed prefill-decode batches (NONE, PIECEWISE or FULL)."""
        return self._phase(1)

    def separate_routine(self) -> bool:
        """Whether decode and mixed batches dispatch to different graphs (the tuple modes)."""
        return isinstance(self.value, tuple)

    def has_full_cudagraphs(self) -> bool:
        """Whether any full (whole-model) graph is captured."""
        return CudaGraphMode.FULL in (self.decode_mode(), self.mixed_mode())

    def requires_piecewise(self) -> bool:
        """Whether any piecewise graph is captured (vLLM: ``requires_piecewise_compilation``)."""
        return CudaGraphMode.PIECEWISE in (self.decode_mode(), self.mixed_mode())

    def without_piecewise(self) -> CudaGraphMode:
        """This mode with its piecewise part turned off: PIECEWISE → NONE,
        FULL_AND_PIECEWISE → FULL_DECODE_ONLY; the others are unchanged."""
        return _WITHOUT_PIECEWISE[self]


_WITHOUT_PIECEWISE: dict[CudaGraphMode, CudaGraphMode] = {
    CudaGraphMode.NONE: CudaGraphMode.NONE,
    CudaGraphMode.PIECEWISE: CudaGraphMode.NONE,
    CudaGraphMode.FULL: CudaGraphMode.FULL,
    CudaGraphMode.FULL_DECODE_ONLY: CudaGraphMode.FULL_DECODE_ONLY,
    CudaGraphMode.FULL_AND_PIECEWISE: CudaGraphMode.FULL_DECODE_ONLY,
}


def parse_mode(text: str) -> CudaGraphMode:
    """A ``cudagraph_mode`` value as vLLM reads it (``CUDAGraphMode[value.upper()]``).

    Raises ``ValueError`` naming the allowed modes and the closest one; vLLM itself lets the
    ``KeyError`` escape as a traceback.
    """
    return _parse_member(CudaGraphMode, text, "cudagraph_mode")


#: Integer ``cudagraph_mode`` values that vLLM's pydantic validation accepts (enum by value);
#: the tuple-valued modes cannot be written as JSON, so only these three exist as numbers.
_MODE_NUMBERS = {m.value: m for m in CudaGraphMode if isinstance(m.value, int)}


def mode_from_value(value: object) -> CudaGraphMode:
    """A ``cudagraph_mode`` value as written in a compilation config: a name (any case), or an
    integer 0, 1 or 2, which vLLM 0.33.0's ``CompilationConfig`` validates by enum value.

    Raises ``ValueError`` naming what is allowed. Booleans and floats, which pydantic would
    coerce, are refused: cgconfig type-checks values.
    """
    if isinstance(value, str):
        return parse_mode(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in _MODE_NUMBERS:
        return _MODE_NUMBERS[value]
    names = ", ".join(m.name for m in CudaGraphMode)
    raise ValueError(f"Invalid cudagraph_mode: {value!r}. Allowed: {names}, or the numbers "
                     "0 (NONE), 1 (PIECEWISE), 2 (FULL)")


# ------------------------------------------------------------------------------ capability


class SupportLevel(enum.IntEnum):
    """vLLM's ``AttentionCGSupport``: how far an attention backend's metadata builder can be
    captured in a full graph. Ordered, because vLLM takes the minimum over all backends."""

    NEVER = 0
    UNIFORM_SINGLE_TOKEN_DECODE = 1
    UNIFORM_BATCH = 2
    ALWAYS = 3

    def vllm_str(self) -> str:
        """The level as vLLM's messages print it, e.g. ``AttentionCGSupport.NEVER``."""
        return f"AttentionCGSupport.{self.name}"


assert tuple(m.name for m in SupportLevel) == CAPABILITY_LEVELS


def parse_level(text: str) -> SupportLevel:
    """A support level by name, case-insensitively; ``AttentionCGSupport.`` may prefix it (the
    form vLLM's log lines use). Raises ``ValueError`` with a did-you-mean."""
    return _parse_member(SupportLevel, text, "attention CUDA-graph support level",
                         prefix="AttentionCGSupport.")


@dataclass(frozen=True)
class BackendSupport:
    """One attention backend's capability as vLLM 0.33.0 declares it."""

    level: SupportLevel
    source: str
    """Where vLLM declares it (file:line under ``vllm/v1/attention/``)."""
    note: str = ""
    spec_level: SupportLevel | None = None
    """The level when ``num_speculative_tokens > 0``, where the backend declares a different one."""
    without_model: SupportLevel | None = None
    """Where vLLM computes the level from the model (its heads, causality) and the parallel
    layout: the level a CompilationConfig-only line (``--dialect vllm``, no model facts) assumes,
    the lowest one vLLM can compute (a deliberate difference from ``level``)."""


_S = SupportLevel

#: vLLM attention backend names (``--attention-backend`` spelling) → declared capability: the one
#: home of vLLM 0.33.0's levels (``attention.level_in`` reads it for the newest release and
#: lists older releases' levels as rows; ``engines/sglang/rules/capabilities.yaml`` maps SGLang's backend
#: names onto these, its deliberate differences listed in
#: ``engines/sglang/attention_kernels.py``). Where vLLM computes the level from the config, the
#: entry holds the level of a standard causal model and says so in ``note``.
VLLM_BACKEND_SUPPORT: dict[str, BackendSupport] = {
    "FLASH_ATTN": BackendSupport(
        _S.ALWAYS, "backends/flash_attn.py:619",
        "ALWAYS for FlashAttention 3/4 (and XPU); FlashAttention 2 declares UNIFORM_BATCH, "
        "see FLASH_ATTN_FA2"),
    "FLASH_ATTN_FA2": BackendSupport(
        _S.UNIFORM_BATCH, "backends/flash_attn.py:619",
        "cgconfig's name for FLASH_ATTN running FlashAttention 2"),
    "FLASH_ATTN_DIFFKV": BackendSupport(
        _S.ALWAYS, "backends/flash_attn.py:619",
        "inherits the FlashAttention builder: UNIFORM_BATCH on FlashAttention 2"),
    "FLASHINFER": BackendSupport(
        _S.UNIFORM_BATCH, "backends/flashinfer.py:1176-1226",
        "computed by FlashInferMetadataBuilder.get_cudagraph_support: UNIFORM_BATCH for a causal "
        "model (FA2-native decode below SM90; TRTLLM-gen decode on SM90+ when every layer's "
        "heads allow it); UNIFORM_SINGLE_TOKEN_DECODE with DCP > 1, non-causal layers, or heads "
        "TRTLLM-gen cannot run (not modelled); a CompilationConfig-only line assumes the latter",
        without_model=_S.UNIFORM_SINGLE_TOKEN_DECODE),
    "TRITON_ATTN": BackendSupport(_S.ALWAYS, "backends/triton_attn.py:97"),
    "FLEX_ATTENTION": BackendSupport(_S.ALWAYS, "backends/flex_attention.py:836"),
    "ROCM_ATTN": BackendSupport(_S.ALWAYS, "backends/rocm_attn.py:74"),
    "ROCM_AITER_UNIFIED_ATTN": BackendSupport(
        _S.ALWAYS, "backends/rocm_attn.py:74", "inherits the ROCM_ATTN builder"),
    "ROCM_AITER_FA": BackendSupport(_S.UNIFORM_BATCH, "backends/rocm_aiter_fa.py:458"),
    "HPC_ATTN": BackendSupport(
        _S.UNIFORM_SINGLE_TOKEN_DECODE, "backends/hpc_attn.py:109,170",
        "UNIFORM_BATCH when num_speculative_tokens > 0", spec_level=_S.UNIFORM_BATCH),
    "CPU_ATTN": BackendSupport(_S.NEVER, "backends/cpu_attn.py:140", "builder default"),
    "FLASHMLA": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/flashmla.py:110"),
    "FLASH_ATTN_MLA": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/flashattn_mla.py:127"),
    "TRITON_MLA": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/triton_mla.py:77"),
    "ROCM_AITER_MLA": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/rocm_aiter_mla.py:698"),
    "TOKENSPEED_MLA": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/tokenspeed_mla.py:77"),
    "FLASHINFER_MLA": BackendSupport(_S.ALWAYS, "backends/mla/flashinfer_mla.py:140"),
    "CUTLASS_MLA": BackendSupport(_S.UNIFORM_SINGLE_TOKEN_DECODE, "backends/mla/cutlass_mla.py:33"),
    "FLASHMLA_SPARSE": BackendSupport(_S.UNIFORM_BATCH, "backends/mla/flashmla_sparse.py:350"),
    "FLASHINFER_MLA_SPARSE": BackendSupport(
        _S.UNIFORM_BATCH, "backends/mla/flashinfer_mla_sparse.py:254,281"),
    # Not attention backends a user selects, but their builders join the minimum.
    "MAMBA1": BackendSupport(_S.UNIFORM_BATCH, "backends/mamba_attn.py:87", "Mamba layers"),
    "MAMBA2": BackendSupport(_S.UNIFORM_BATCH, "backends/mamba_attn.py:87", "Mamba layers"),
    "SHORT_CONV": BackendSupport(_S.UNIFORM_BATCH, "backends/short_conv_attn.py:113"),
    "GDN_ATTN": BackendSupport(_S.UNIFORM_BATCH, "backends/gdn_attn.py:136"),
    "LINEAR": BackendSupport(
        _S.UNIFORM_SINGLE_TOKEN_DECODE, "backends/linear_attn.py:52",
        "Bailing linear attention (linear_attn.py:120) declares UNIFORM_BATCH"),
}


def backend_support(name: str, *, num_speculative_tokens: int = 0) -> SupportLevel:
    """The level a CompilationConfig-only line (no model facts) assumes for one backend of
    :data:`VLLM_BACKEND_SUPPORT` (name matched case-insensitively: its ``without_model`` level
    where it has one); raises ``ValueError`` with a did-you-mean for unknown names."""
    key = name.upper()
    entry = VLLM_BACKEND_SUPPORT.get(key)
    if entry is None:
        close = difflib.get_close_matches(key, list(VLLM_BACKEND_SUPPORT), n=1)
        hint = f" Did you mean {close[0]}?" if close else ""
        raise ValueError(f"Unknown vLLM attention backend: {name!r}.{hint} "
                         f"Known: {', '.join(VLLM_BACKEND_SUPPORT)}")
    if num_speculative_tokens > 0 and entry.spec_level is not None:
        return entry.spec_level
    return entry.without_model or entry.level


def min_support(names: Iterable[str], *, num_speculative_tokens: int = 0
                ) -> tuple[SupportLevel, str]:
    """The weakest level over several backends and the first backend holding it: what vLLM's
    runner passes to Stage B (minimum over every KV-cache group's backends)."""
    levels = [(backend_support(n, num_speculative_tokens=num_speculative_tokens), n)
              for n in names]
    if not levels:
        raise ValueError("min_support needs at least one backend name")
    return min(levels, key=lambda pair: pair[0])


# ------------------------------------------------------------------- cgconfig phase mapping

#: Each mode as cgconfig's (decode backend, prefill backend). vLLM's "mixed" routine runs every
#: batch that is not a uniform decode, so it stands for cgconfig's prefill phase; its
#: piecewise graphs are what cgconfig calls breakable (graph segments, attention eager).
MODE_PHASES: dict[CudaGraphMode, tuple[PhaseBackend, PhaseBackend]] = {
    CudaGraphMode.NONE: ("disabled", "disabled"),
    CudaGraphMode.PIECEWISE: ("breakable", "breakable"),
    CudaGraphMode.FULL: ("full", "full"),
    CudaGraphMode.FULL_DECODE_ONLY: ("full", "disabled"),
    CudaGraphMode.FULL_AND_PIECEWISE: ("full", "breakable"),
}

# Why a wanted phase backend has no vLLM mode, keyed by (phase, wanted backend).
_WHY_UNEXPRESSED: dict[tuple[str, str], str] = {
    ("prefill", "full"): "vLLM captures full graphs for prefill/mixed batches only in FULL, "
                         "which makes decode full as well",
    ("decode", "disabled"): "vLLM has no mode that runs decode eagerly while prefill has graphs: "
                            "its piecewise graphs cover every batch up to the largest capture "
                            "size, decode batches included",
    ("prefill", "disabled"): "vLLM's only mode with eager prefill is FULL_DECODE_ONLY, whose "
                             "decode graphs are full, and PIECEWISE covers every batch up to "
                             "the largest capture size, prefill included",
}


class ModeMatch(NamedTuple):
    """The vLLM mode closest to a (decode, prefill) pair and what it could not express."""

    mode: CudaGraphMode
    unexpressed: list[str]


def mode_to_phases(mode: CudaGraphMode) -> tuple[PhaseBackend, PhaseBackend]:
    """``(decode_backend, prefill_backend)`` in cgconfig's terms for a vLLM mode."""
    return MODE_PHASES[mode]


def phases_to_mode(decode: str, prefill: str) -> ModeMatch:
    """The vLLM mode for cgconfig's per-phase backends, with a note per phase it cannot keep.

    Five of the nine pairs are exact. For the other four the choice follows two rules:

    1. Never turn a phase ``full`` that was not asked to be: full capture of attention is what
       backends and features fail on, so a phase kept off ``full`` (by the user or by a
       cgconfig rule) stays off it.
    2. Among the remaining modes, take the fewest downgrade steps, then the fewest upgrades:
       ``breakable`` is the always-safe form, so capturing a phase piecewise beats losing the
       graphs the other phase asked for.

    Hence decode breakable + prefill full → PIECEWISE (prefill loses full), decode disabled +
    prefill breakable → PIECEWISE and decode breakable + prefill disabled → PIECEWISE (the
    disabled phase gets piecewise graphs; vLLM cannot run one phase eager while the other has
    piecewise graphs), decode disabled + prefill full → PIECEWISE (both notes).
    """
    wanted = tuple("breakable" if v == "tc_piecewise" else v for v in (decode, prefill))
    for value in wanted:
        if value not in _STEPS:
            close = difflib.get_close_matches(str(value), BACKENDS, n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise ValueError(f"Invalid phase backend: {value!r}.{hint} "
                             f"Allowed: {', '.join(BACKENDS)}")

    def never_new_full(mode: CudaGraphMode) -> bool:
        pairs = zip(MODE_PHASES[mode], wanted, strict=True)
        return all(got != "full" or want == "full" for got, want in pairs)

    def cost(mode: CudaGraphMode) -> tuple[int, int]:
        deltas = [_STEPS[got] - _STEPS[want]
                  for got, want in zip(MODE_PHASES[mode], wanted, strict=True)]
        return sum(-d for d in deltas if d < 0), sum(d for d in deltas if d > 0)

    best = min((m for m in MODE_PHASES if never_new_full(m)), key=cost)
    got_decode, got_prefill = MODE_PHASES[best]
    rows = (("decode", wanted[0], got_decode, "prefill", wanted[1]),
            ("prefill", wanted[1], got_prefill, "decode", wanted[0]))
    notes = [f"{phase}=tc_piecewise (SGLang's torch.compile piecewise graph) is read as "
             "breakable: vLLM's piecewise graphs are torch.compile's"
             for phase, asked in (("decode", decode), ("prefill", prefill))
             if asked == "tc_piecewise"]
    notes += [f"{phase}={want} cannot be expressed with {other}={other_want}: "
             f"{_WHY_UNEXPRESSED[(phase, want)]}; vLLM {best.name} runs {phase} as {got}"
             for phase, want, got, other, other_want in rows if got != want]
    return ModeMatch(best, notes)

