"""The vLLM source: map a vLLM line's compilation config onto cgconfig's keys.

Each ``cudagraph_mode`` maps onto per-phase backends (decode = vLLM's uniform-decode batches,
prefill = its mixed/prefill batches); sizes follow vLLM's own grid (dialect defaults that do not
lock); vLLM's Stage-B capability downgrades run as a dialect step (:mod:`.vllm_stage_b`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cgconfig.dialects import vllm_modes as modes
from cgconfig.dialects.vllm_sizes import default_capture_sizes
from cgconfig.errors import InputError, did_you_mean
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault, ResolveRequest
from cgconfig.sources.contribution import Contribution
from cgconfig.sources.vllm_argv import COMPILATION_MODES, CcValue, VllmInput, parse_vllm_argv
from cgconfig.sources.vllm_stage_b import stage_b_step


def _leaf(key: str, value: Any, cc: CcValue, why: str) -> Leaf:
    return Leaf(key, value, Origin(Layer.CONFIG, f"{cc.source} ({why})", cc.at or None,
                                   cc.position))


def _mode_of(cc: CcValue) -> modes.CudaGraphMode:
    try:
        return modes.parse_mode(str(cc.value))
    except ValueError as exc:
        raise InputError(str(exc), where=f"{cc.source} at {cc.at}".strip()) from None


def _sizes_of(cc: CcValue) -> list[int]:
    value = cc.value
    where = f"{cc.source} at {cc.at}" if cc.at else cc.source
    if not isinstance(value, list) or not value or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise InputError(f"must be a non-empty list of positive integers, got {value!r}",
                         where=where)
    return sorted(set(value))


@dataclass
class VllmArgv:
    """The vLLM dialect's tokens of one command line, with their command-line positions."""

    tokens: list[str]
    positions: list[int]

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Parse the tokens once; map them onto cgconfig's keys, vLLM's grid and Stage B."""
        return _contribution(parse_vllm_argv(self.tokens, self.positions),
                             so_far.facts.get("gpu_memory_gib"))


def _contribution(vin: VllmInput, memory: float | None) -> Contribution:
    out = Contribution(dialect="vllm")
    leaves: list[Leaf] = []
    for cc in vin.cc.get("cudagraph_mode", []):
        mode = _mode_of(cc)
        decode, prefill = modes.mode_to_phases(mode)
        why = f"cudagraph_mode={mode.name} → decode {decode}, prefill {prefill}"
        leaves += [_leaf("decode.backend", decode, cc, why), _leaf("prefill.backend", prefill,
                                                                   cc, why)]
    if vin.enforce_eager is not None:
        eager = CcValue(True, "--enforce-eager", "", 30_000 + vin.enforce_eager)
        why = "equivalent to -cc.mode=none -cc.cudagraph_mode=none"
        leaves += [_leaf("decode.backend", "disabled", eager, why),
                   _leaf("prefill.backend", "disabled", eager, why)]
    user_sizes = vin.final("cudagraph_capture_sizes")
    user_max = vin.final("max_cudagraph_capture_size")
    for cc in vin.cc.get("cudagraph_capture_sizes", []):
        sizes = _sizes_of(cc)
        leaves += [_leaf("decode.bs", sizes, cc, "capture sizes, in tokens"),
                   _leaf("prefill.bs", sizes, cc, "capture sizes, in tokens")]
    if user_max is not None and (not isinstance(user_max.value, int) or user_max.value < 1):
        raise InputError(f"must be a positive integer, got {user_max.value!r}",
                         where=f"{user_max.source} {user_max.at}".strip())
    out.leaves = leaves
    seqs, tokens, basis = _engine_defaults(memory)
    max_num_seqs = vin.max_num_seqs or seqs
    max_num_batched_tokens = vin.max_num_batched_tokens or tokens
    try:
        result = default_capture_sizes(
            max_num_seqs, max_num_batched_tokens,
            num_speculative_tokens=vin.num_speculative_tokens,
            max_capture_size=user_max.value if user_max else None,
            capture_sizes=_sizes_of(user_sizes) if user_sizes else None)
    except ValueError as exc:
        raise InputError(str(exc), where="--compilation-config") from None
    source = "vLLM default grid"
    why = (f"max_num_seqs={max_num_seqs}, max_num_batched_tokens={max_num_batched_tokens} "
           f"({basis}), num_speculative_tokens={vin.num_speculative_tokens}")
    if not user_sizes:
        out.defaults += [DialectDefault("decode.bs", result.sizes, source, why),
                             DialectDefault("prefill.bs", result.sizes, source, why)]
    mode_default = "FULL_AND_PIECEWISE"
    if not vin.cc.get("cudagraph_mode") and vin.enforce_eager is None:
        decode, prefill = modes.mode_to_phases(modes.parse_mode(mode_default))
        why_mode = f"vLLM default cudagraph_mode {mode_default} (-O2) → decode {decode}, " \
                   f"prefill {prefill}"
        out.defaults += [DialectDefault("decode.backend", decode, "vLLM default", why_mode),
                             DialectDefault("prefill.backend", prefill, "vLLM default",
                                            why_mode)]
    compilation = vin.final("mode")
    vllm_compile = True
    if compilation is not None:
        name = str(compilation.value).upper()
        number = COMPILATION_MODES.get(name, compilation.value)
        if number not in COMPILATION_MODES.values():
            raise InputError(f"Invalid compilation mode: {compilation.value}",
                             where=f"{compilation.source} at {compilation.at}",
                             allowed=COMPILATION_MODES,
                             suggestion=did_you_mean(name, COMPILATION_MODES))
        vllm_compile = number == 3
    support = vin.support
    backend_name = vin.attention_backend
    if support is None and backend_name is not None:
        if backend_name.upper() not in modes.VLLM_BACKEND_SUPPORT:
            raise InputError(f"unknown vLLM attention backend {backend_name!r}",
                             where="--vllm-attention-backend",
                             allowed=", ".join(modes.VLLM_BACKEND_SUPPORT),
                             suggestion=did_you_mean(backend_name.upper(),
                                                     modes.VLLM_BACKEND_SUPPORT))
        support = modes.backend_support(
            backend_name, num_speculative_tokens=vin.num_speculative_tokens).name
    out.steps.append(stage_b_step(support, backend_name or "the attention backend",
                                  vin.num_speculative_tokens, vllm_compile, result.max_size))
    out.notes += result.notes
    return out


#: vLLM's OpenAI-server engine defaults by GPU memory (arg_utils): (at least GiB,
#: max_num_seqs, max_num_batched_tokens), first match wins.
VLLM_ENGINE_DEFAULTS: tuple[tuple[float, int, int], ...] = (
    (160, 1024, 16384),
    (70, 1024, 8192),
    (0, 256, 2048),
)


def _engine_defaults(memory_gib: float | None) -> tuple[int, int, str]:
    """vLLM's engine-argument defaults for a GPU's memory, and where they came from."""
    if memory_gib is None:
        _, seqs, tokens = VLLM_ENGINE_DEFAULTS[-1]
        return seqs, tokens, "vLLM server defaults for unknown GPU memory"
    floor, seqs, tokens = next(row for row in VLLM_ENGINE_DEFAULTS if memory_gib >= row[0])
    return seqs, tokens, f"vLLM server defaults for ≥ {floor:g} GiB ({memory_gib:g} GiB)"
