"""vLLM 0.10.2's V0 engine: when ``EngineArgs._is_v1_supported_oracle`` finds a feature the V1
engine lacks, ``EngineArgs.create_engine_config`` falls back to V0 (``VLLM_USE_V1=0``), whose
model runner captures its own CUDA graphs: one decode-only graph of the whole model per size
(``worker/model_runner.py GPUModelRunnerBase.capture_model``), no ``cudagraph_mode``, no
piecewise graphs, nothing for prefill. Read in the 0.10.2 wheel (``vllm/engine/arg_utils.py``,
``vllm/config/__init__.py``, ``vllm/config/scheduler.py``, ``vllm/platforms/cuda.py``,
``vllm/worker/worker.py``); 0.11 removed V0.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Sequence

from cgconfig.engines.release_change import ReleaseChange, holds_in, value_at
from cgconfig.engines.vllm.attention import v1_backend_0_10

_ARG_UTILS = "vllm/engine/arg_utils.py"
#: A line the V1 engine cannot run falls back to the V0 engine.
V0_FALLBACK: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "a line the V1 engine cannot run falls back to the V0 engine "
                  "(VLLM_ATTENTION_BACKEND outside V1's list, an FP8 KV cache the V1 backend "
                  "cannot hold, --preemption-mode, --scheduler-delay-factor, …)",
                  f"{_ARG_UTILS}:EngineArgs._is_v1_supported_oracle"),
)
#: V0's capture sizes: ``[1, 2, 4]`` and ``8·i`` (i ≤ 1024) up to the first one at least
#: ``max_num_seqs`` (``max_num_batched_tokens`` not read), one decode-only graph of the whole
#: model each (none under ``--enforce-eager``: ``Worker._warm_up_model``); an explicit
#: ``compilation_config.cudagraph_capture_sizes`` replaces them.
V0_DECODE_SIZES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "V0 captures one decode-only graph of the whole model per size "
                  "1, 2, 4, 8, 16, … up to the first at least max_num_seqs",
                  "vllm/config/__init__.py:VllmConfig._set_cudagraph_sizes (V0 branch), "
                  "vllm/worker/model_runner.py:GPUModelRunnerBase.capture_model"),
)
#: V0's default ``max_num_seqs`` (``EngineArgs._set_default_args_v0``).
V0_MAX_NUM_SEQS = 256
#: Chunked prefill is on by default on V0 only for a long context (``max_model_len`` above this)
#: on a GPU without MLA, multimodal inputs, sliding window, speculative decoding or LoRA.
V0_LONG_CONTEXT = 32768
#: ``SchedulerConfig``'s default token budget floor (``DEFAULT_MAX_NUM_BATCHED_TOKENS``).
V0_MIN_BATCHED_TOKENS = 2048


def v0_reason(*, env_backend: str | None, kv_cache_dtype: str, kv_on_v1: bool,
              v0_flags: Sequence[str], release: str) -> str | None:
    """Why vLLM ``release`` runs a line on V0, in ``_is_v1_supported_oracle``'s order; ``None``
    when the V1 engine runs it (or ``release`` has no V0 engine). ``kv_on_v1``: what
    ``CudaPlatform.is_kv_cache_dtype_supported`` says for a ``kv_cache_dtype`` other than auto;
    ``v0_flags``: the V1-unsupported flags the line gave (``--preemption-mode``, …)."""
    if not holds_in(V0_FALLBACK, release):
        return None
    if v0_flags:
        return f"{v0_flags[0]} is not supported by the V1 engine"
    if kv_cache_dtype != "auto" and not kv_on_v1:
        return (f"--kv-cache-dtype {kv_cache_dtype} is not supported by the V1 engine's "
                "attention backend here (CudaPlatform.is_kv_cache_dtype_supported)")
    if env_backend is not None and v1_backend_0_10(env_backend, release) is None:
        return (f"VLLM_ATTENTION_BACKEND={env_backend} is not a V1 attention backend (V1 "
                "takes FLASH_ATTN_VLLM_V1, TRITON_ATTN_VLLM_V1, FLASHINFER, FLASHMLA, …)")
    return None


#: The names ``VLLM_ATTENTION_BACKEND`` may take: the members of ``platforms/interface.py
#: _Backend``, in its order (the selector's refusal lists them so).
V0_BACKEND_MEMBERS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "the attention backend names VLLM_ATTENTION_BACKEND may take",
                  "vllm/platforms/interface.py:_Backend",
                  ("FLASH_ATTN", "FLASH_ATTN_VLLM_V1", "TRITON_ATTN_VLLM_V1", "XFORMERS",
                   "ROCM_FLASH", "ROCM_AITER_MLA", "ROCM_AITER_MLA_VLLM_V1", "ROCM_AITER_FA",
                   "TORCH_SDPA", "TORCH_SDPA_VLLM_V1", "FLASHINFER", "FLASHINFER_VLLM_V1",
                   "FLASHINFER_MLA", "TRITON_MLA", "TRITON_MLA_VLLM_V1", "CUTLASS_MLA",
                   "FLASHMLA", "FLASHMLA_VLLM_V1", "FLASH_ATTN_MLA", "PALLAS", "PALLAS_VLLM_V1",
                   "IPEX", "DUAL_CHUNK_FLASH_ATTN", "DIFFERENTIAL_FLASH_ATTN", "NO_ATTENTION",
                   "FLEX_ATTENTION", "TREE_ATTN", "XFORMERS_VLLM_V1")),
)
#: The backends V0's branch of ``CudaPlatform.get_attn_backend_cls`` (``use_v1=False``) takes
#: for an attention layer without MLA (unset: FlashAttention, or XFormers by SM, dtype, block,
#: head size or FP8 cache); an MLA layer also takes ``TRITON_MLA`` and FlashMLA on a 64-token
#: block, and falls through to these for any other name. Every other member is refused
#: ("Invalid attention backend for cuda, with use_v1: False use_mla: ...").
V0_BACKENDS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "the attention backends the V0 engine runs",
                  "vllm/platforms/cuda.py:CudaPlatform.get_attn_backend_cls (use_v1=False), "
                  "vllm/attention/selector.py:_cached_get_attn_backend",
                  ("FLASH_ATTN", "XFORMERS", "DUAL_CHUNK_FLASH_ATTN", "DIFFERENTIAL_FLASH_ATTN")),
)


def v0_backend_refusal(env_backend: str | None, *, mla: bool, sm: int,
                       release: str) -> str | None:
    """vLLM ``release``'s refusal of the attention backend on its V0 engine, as its attention
    layers select it (:data:`V0_BACKEND_MEMBERS`, :data:`V0_BACKENDS`); ``None`` when V0 runs
    it. Without the variable an MLA model on SM 10.0 is refused too:
    ``CudaPlatform.check_and_update_config`` sets ``VLLM_ATTENTION_BACKEND=CUTLASS_MLA``
    there, which V0 lacks. FlashMLA needs a 64-token block, which the platform forces only for
    ``FLASHMLA`` on SM 9.0 (cgconfig reads no ``--block-size``)."""
    members = value_at(V0_BACKEND_MEMBERS, release)
    runs = value_at(V0_BACKENDS, release)
    assert isinstance(members, tuple) and isinstance(runs, tuple)
    name = env_backend  # the selector compares the value as written (no case folding)
    if name is None and mla and sm == 100:
        name = "CUTLASS_MLA"
    if name is None:
        return None
    if name not in members:
        return (f"Invalid attention backend: '{env_backend}'. Valid backends are: "
                f"{list(members)}")
    if name in runs or (mla and (name == "TRITON_MLA" or (name == "FLASHMLA" and sm == 90))):
        return None
    return f"Invalid attention backend for cuda, with use_v1: False use_mla: {mla}"


def v0_sizes(max_num_seqs: int) -> list[int]:
    """V0's capture sizes for ``max_num_seqs`` (:data:`V0_DECODE_SIZES`)."""
    possible = [1, 2, 4] + [8 * i for i in range(1, 1025)]
    larger = [size for size in possible if size >= max_num_seqs]
    top = larger[0] if larger else possible[-1]
    return [size for size in possible if size <= top]


def v0_chunked_prefill(*, given: bool | None, max_model_len: int | None, mla: bool,
                       multimodal: bool, speculative: bool) -> bool:
    """Whether V0 runs chunked prefill (``EngineArgs._set_default_args_v0``; sliding window and
    LoRA, which also keep it off, are not read here)."""
    if given is not None:
        return given
    return (not mla and not multimodal and not speculative and max_model_len is not None
            and max_model_len > V0_LONG_CONTEXT)


#: The KV-cache dtypes the V1 engine takes (``CudaPlatform.is_kv_cache_dtype_supported``, read
#: by ``_is_v1_supported_oracle`` for a ``--kv-cache-dtype`` other than auto): an FP8 cache on
#: an MLA model with FlashMLA or CUTLASS MLA (the default on every GPU, as the platform names
#: it), on SM 10.0, on FlashAttention with FA3 (SM 9.0), FlashInfer, or Triton from SM 8.9.
FP8_KV_V1: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "an FP8 KV cache runs on V1 only with FlashMLA/CUTLASS MLA, "
                  "on SM 10.0, FA3, FlashInfer or Triton from SM 8.9 (else V0)",
                  "platforms/cuda.py:CudaPlatform.is_kv_cache_dtype_supported"),
)


def kv_dtype_on_v1(env_backend: str | None, kv_cache_dtype: str, *, sm: int, mla: bool) -> bool:
    """``CudaPlatform.is_kv_cache_dtype_supported`` of vLLM 0.10.2 (:data:`FP8_KV_V1`) for the
    backend ``VLLM_ATTENTION_BACKEND`` names (None: the platform's default), as written (the
    platform compares the variable's value, not the backend it selects)."""
    fp8 = kv_cache_dtype.startswith("fp8")
    if mla:
        name = env_backend or ("CUTLASS_MLA" if sm == 100 else "FLASHMLA")
        return True if name in ("FLASHMLA", "CUTLASS_MLA") else not fp8
    if sm == 100:
        return True
    name = env_backend or "FLASH_ATTN_VLLM_V1"
    if name == "FLASH_ATTN_VLLM_V1":
        return sm == 90 if fp8 else True  # flash_attn_supports_fp8: FlashAttention 3
    if name == "FLASHINFER":
        return True
    if name == "TRITON_ATTN_VLLM_V1":
        return sm >= 89  # CudaPlatform.supports_fp8
    return False
