"""vLLM's attention backend for a whole `vllm serve` line, and its CUDA-graph support (0.33.0;
older releases' levels in :data:`OLDER_LEVELS`).

The backend a model's layers select (``platforms/cuda.py`` / ``platforms/rocm.py``
``get_attn_backend_cls`` with ``--attention-backend`` or the platform's priority list), the
refusals ``validate_configuration`` raises for a named backend ("Selected backend ... is not
valid for this configuration"), and the ``AttentionCGSupport`` level that the worker's
``resolve_cudagraph_mode_and_sizes`` reads (the minimum over the model's layer kinds: hybrid
models add Mamba layers, whose builders declare UNIFORM_BATCH). ``VLLM_ATTENTION_BACKEND`` is
no longer read by 0.33.0 (the flag replaced it), so it is not consulted.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from cgconfig.engines.release_change import ReleaseChange, applies, holds_in, value_at
from cgconfig.engines.vllm.modes import VLLM_BACKEND_SUPPORT, CudaGraphMode, SupportLevel

_S = SupportLevel
MLA_BACKENDS = ("FLASHMLA", "FLASH_ATTN_MLA", "TRITON_MLA", "CUTLASS_MLA", "FLASHINFER_MLA")
#: Named backends valid only on some compute capabilities (SM × 10): the builder's
#: ``supports_compute_capability``.
_SM_ONLY: dict[str, tuple[int, ...]] = {
    "FLASHMLA": (90,), "FLASH_ATTN_MLA": (90,), "CUTLASS_MLA": (100, 103),
    "FLASHINFER_MLA": (100, 103),
}
#: Backends whose kernels take attention sinks (GPT-OSS), and where.
_SINKS: dict[str, tuple[int, ...] | None] = {
    "FLASH_ATTN": (90, 100, 103), "FLASHINFER": (90, 100, 103, 120, 121), "TRITON_ATTN": None,
    "ROCM_AITER_FA": None, "ROCM_AITER_UNIFIED_ATTN": None,
}
#: Architectures with attention sinks, and hybrid (attention + Mamba-type) architectures.
SINK_ARCHS = ("GptOssForCausalLM",)
HYBRID_ARCHS = ("Qwen3NextForCausalLM", "NemotronHForCausalLM", "FalconH1ForCausalLM",
                "JambaForCausalLM", "GraniteMoeHybridForCausalLM", "BambaForCausalLM",
                "Zamba2ForCausalLM", "Plamo2ForCausalLM", "MiniMaxText01ForCausalLM",
                "Lfm2ForCausalLM", "Qwen3_5ForConditionalGeneration",
                "Qwen3_5MoeForConditionalGeneration", "KimiLinearForCausalLM")
#: The Mamba-type layers' builders (``v1/attention/backends/mamba*_attn.py``).
MAMBA_LEVEL = _S.UNIFORM_BATCH


@dataclass(frozen=True)
class AttentionChoice:
    """The backend vLLM selects, the support level Stage B reads, and why."""

    backend: str
    level: SupportLevel
    why: str


class AttentionRefusal(ValueError):
    """vLLM's "Selected backend ... is not valid for this configuration"."""


class OlderLevel(NamedTuple):
    """A builder's ``AttentionCGSupport`` in some releases, where it is not 0.33.0's."""

    backend: str
    """The backend (``AttentionBackendEnum`` name)."""
    sms: tuple[int, ...] | None
    """The compute capabilities (SM × 10) it holds on; ``None``: all."""
    level: SupportLevel
    """The level those releases' builder declares."""


_FLASHINFER_SUPPORT = "v1/attention/backends/flashinfer.py:FlashInferMetadataBuilder."
#: Where a release's builder declared another level than 0.33.0's (each row's value an
#: :class:`OlderLevel`; the first row that holds for the backend, GPU and release wins).
OLDER_LEVELS: tuple[ReleaseChange, ...] = (
    # vLLM 0.10.2 (v0102): the builders' class attribute ``cudagraph_support``
    ReleaseChange(None, "0.11.2", "FLASHINFER: UNIFORM_SINGLE_TOKEN_DECODE whatever the GPU "
                  "(a class attribute; TRT-LLM attention not read)",
                  "v1/attention/backends/flashinfer.py:FlashInferMetadataBuilder.cudagraph_support",
                  OlderLevel("FLASHINFER", None, _S.UNIFORM_SINGLE_TOKEN_DECODE)),
    ReleaseChange(None, "0.11.2", "FLASHINFER_MLA: no cudagraph_support, the builder default",
                  "v1/attention/backends/mla/flashinfer_mla.py",
                  OlderLevel("FLASHINFER_MLA", None, _S.NEVER)),
    ReleaseChange(None, "0.11.2", "TREE_ATTN: no cudagraph_support, the builder default",
                  "v1/attention/backends/tree_attn.py", OlderLevel("TREE_ATTN", None, _S.NEVER)),
    ReleaseChange(None, "0.22.0", "TRITON_MLA: no _cudagraph_support, the builder default",
                  "v1/attention/backends/mla/triton_mla.py",
                  OlderLevel("TRITON_MLA", None, _S.NEVER)),
    ReleaseChange("0.26.0", "0.31.0", "TRITON_MLA declares UNIFORM_SINGLE_TOKEN_DECODE",
                  "v1/attention/backends/mla/triton_mla.py:TritonMLAMetadataBuilder."
                  "_cudagraph_support", OlderLevel("TRITON_MLA", None,
                                                   _S.UNIFORM_SINGLE_TOKEN_DECODE)),
    ReleaseChange(None, "0.31.0", "FLASHINFER_MLA declares UNIFORM_BATCH",
                  "v1/attention/backends/mla/flashinfer_mla.py:FlashInferMLAMetadataBuilder."
                  "_cudagraph_support", OlderLevel("FLASHINFER_MLA", None, _S.UNIFORM_BATCH)),
    ReleaseChange(None, "0.33.0", "FLASH_ATTN on Blackwell: ALWAYS only if "
                  "get_flash_attn_version() == 3; Blackwell runs FlashAttention 2 or 4 (ALWAYS "
                  "for 4 from 0.33)", "v1/attention/backends/flash_attn.py:"
                  "FlashAttentionMetadataBuilder._cudagraph_support",
                  OlderLevel("FLASH_ATTN", (100, 103), _S.UNIFORM_BATCH)),
    ReleaseChange(None, "0.33.0", "FLASHINFER on Ampere/Ada: UNIFORM_BATCH only with TRTLLM "
                  "attention (before 0.33's FA2-native decode)",
                  f"{_FLASHINFER_SUPPORT}get_cudagraph_support",
                  OlderLevel("FLASHINFER", (80, 86, 89), _S.UNIFORM_SINGLE_TOKEN_DECODE)),
    ReleaseChange(None, "0.30.0", "FLASHINFER on Hopper and SM12x: UNIFORM_SINGLE_TOKEN_"
                  "DECODE (XQA architectures from 0.30)",
                  f"{_FLASHINFER_SUPPORT}get_cudagraph_support",
                  OlderLevel("FLASHINFER", (90, 120, 121), _S.UNIFORM_SINGLE_TOKEN_DECODE)),
    ReleaseChange(None, "0.20.0", "FLEX_ATTENTION: no _cudagraph_support before 0.20, the "
                  "builder default", "v1/attention/backends/flex_attention.py",
                  OlderLevel("FLEX_ATTENTION", None, _S.NEVER)),
)


#: The Mamba-type layers' builders: Mamba1/2, MiniMax linear attention and short convolutions
#: declare UNIFORM_SINGLE_TOKEN_DECODE, the GDN builder (Qwen3-Next) UNIFORM_BATCH; from 0.11.2
#: every one UNIFORM_BATCH (:data:`MAMBA_LEVEL`).
MAMBA_LEVELS_0_10: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "Mamba1/2, linear-attention and short-conv builders declare "
                  "UNIFORM_SINGLE_TOKEN_DECODE (GDN: UNIFORM_BATCH)",
                  "v1/attention/backends/mamba_attn.py, mamba1_attn.py, linear_attn.py, "
                  "short_conv_attn.py, gdn_attn.py (cudagraph_support)",
                  {"Qwen3NextForCausalLM": _S.UNIFORM_BATCH}),
)


def mamba_level(model_arch: str | None, release: str) -> SupportLevel:
    """The support level of a hybrid model's Mamba-type layers in ``release``."""
    older = value_at(MAMBA_LEVELS_0_10, release)
    if isinstance(older, dict):
        level = older.get(model_arch, _S.UNIFORM_SINGLE_TOKEN_DECODE)
        assert isinstance(level, SupportLevel)
        return level
    return MAMBA_LEVEL


def level_in(backend: str, sm: int, release: str) -> SupportLevel:
    """The builder's ``AttentionCGSupport`` for ``backend`` on SM ``sm`` in vLLM ``release``."""
    for row in OLDER_LEVELS:
        older = row.value
        assert isinstance(older, OlderLevel)
        if older.backend == backend and applies(row, release) \
                and (older.sms is None or sm in older.sms):
            return older.level
    return _level(backend, sm)


def _level(backend: str, sm: int) -> SupportLevel:
    """vLLM 0.33.0's level, from :data:`cgconfig.engines.vllm.modes.VLLM_BACKEND_SUPPORT`:
    FlashAttention is version 3 on Hopper and 4 on Blackwell (ALWAYS), 2 elsewhere."""
    if backend == "FLASH_ATTN" and sm not in (90, 100, 103):
        backend = "FLASH_ATTN_FA2"
    return VLLM_BACKEND_SUPPORT[backend].level


#: Blackwell's MLA priority list starts with CUTLASS_MLA (UNIFORM_SINGLE_TOKEN_DECODE), before
#: FLASHINFER_MLA (from 0.15.1 FLASHINFER_MLA comes first).
BLACKWELL_MLA_CUTLASS_FIRST: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.15.1", "Blackwell's MLA default is CUTLASS_MLA (before "
                  "FLASHINFER_MLA in the priority list)",
                  "platforms/cuda.py:_get_backend_priorities"),
)


def _default(rocm: bool, sm: int, mla: bool, sinks: bool, fp8: bool, release: str) -> str:
    """The platform's priority list, first valid backend."""
    if rocm:
        return "TRITON_MLA" if mla else "ROCM_AITER_UNIFIED_ATTN" if sinks else "ROCM_ATTN"
    if mla:
        hopper = "FLASHMLA" if fp8 else "FLASH_ATTN_MLA"
        blackwell = "CUTLASS_MLA" if holds_in(BLACKWELL_MLA_CUTLASS_FIRST, release) \
            else "FLASHINFER_MLA"
        return {100: blackwell, 103: blackwell, 90: hopper}.get(sm, "TRITON_MLA")
    if sm in (100, 103):
        return "FLASHINFER"
    if sinks:
        return "FLASH_ATTN" if sm == 90 else "FLASHINFER" if sm >= 120 else "TRITON_ATTN"
    # FlashAttention 2 has no FP8 KV cache: below Hopper an FP8 cache picks FlashInfer.
    return "FLASHINFER" if fp8 and sm != 90 else "FLASH_ATTN"


#: The Triton backend refuses an FP8 KV cache below compute capability 8.9 (before: it takes it).
TRITON_FP8_BELOW_SM89_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.24.0", None, "the Triton attention backend refuses an FP8 KV cache below "
                  "compute capability 8.9 (before: it takes it)",
                  "v1/attention/backends/triton_attn.py:TritonAttentionImpl.__init__"),
)


#: TRITON_MLA takes no FP8 KV cache (``TritonMLABackend.supported_kv_cache_dtypes``: ``auto``
#: in 0.11.2-0.13.0, ``auto``/``bfloat16`` in 0.15.1-0.17.1; 0.18.1 adds ``fp8``/``fp8_e4m3``),
#: read in the 0.11.2, 0.12.0, 0.13.0, 0.15.1, 0.16.0, 0.17.1 and 0.18.1 wheels (vLLM 0.11.2,
#: issue #37, helper v011).
TRITON_MLA_FP8_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.18.1", "TRITON_MLA refuses an FP8 KV cache (kv_cache_dtype not "
                  "supported)", "v1/attention/backends/mla/triton_mla.py:TritonMLABackend."
                  "supported_kv_cache_dtypes"),
)


def _fp8_refusal(backend: str, sm: int, release: str) -> str | None:
    """Where an FP8 KV cache is refused for the backend in ``release`` (``validate_configuration``
    and the Triton backend's own check)."""
    if backend == "FLEX_ATTENTION":
        return "kv_cache_dtype not supported"
    if backend == "TRITON_MLA" and holds_in(TRITON_MLA_FP8_REFUSED, release):
        return "kv_cache_dtype not supported"
    if backend == "FLASH_ATTN" and sm not in (90, 100, 103):
        return "kv_cache_dtype not supported"
    if backend == "TRITON_ATTN" and sm < 89 and holds_in(TRITON_FP8_BELOW_SM89_REFUSED, release):
        return "FP8 KV cache is not supported by the Triton attention backend below compute " \
               "capability 8.9"
    return None


#: Where a release's FlashInfer took attention sinks on fewer GPUs than 0.33.0's (each row's
#: value the compute capabilities, SM × 10). FlashInfer's sinks need TRTLLM attention:
#: Blackwell only until 0.27, SM12x from 0.28, Hopper from 0.30.
FLASHINFER_SINKS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.28.0", "FlashInfer takes attention sinks on Blackwell only",
                  "v1/attention/backends/flashinfer.py:FlashInferBackend.supports_sink",
                  (100, 103)),
    ReleaseChange("0.28.0", "0.30.0", "FlashInfer takes attention sinks on Blackwell and SM12x",
                  "v1/attention/backends/flashinfer.py:FlashInferBackend.supports_sink",
                  (100, 103, 120, 121)),
)


def _sinks_on(backend: str, release: str) -> tuple[int, ...] | None:
    if backend == "FLASHINFER":
        older = value_at(FLASHINFER_SINKS, release)
        if older is not None:
            assert isinstance(older, tuple)
            return older
    return _SINKS.get(backend, ())


def _reasons(backend: str, sm: int, mla: bool, sinks: bool, fp8: bool,
             release: str) -> list[str]:
    reasons = []
    refusal = _fp8_refusal(backend, sm, release) if fp8 else None
    if refusal:
        reasons.append(refusal)
    if backend in _SM_ONLY and sm not in _SM_ONLY[backend]:
        reasons.append("compute capability not supported")
    if mla and backend not in MLA_BACKENDS:
        reasons.append("MLA not supported")
    if not mla and backend in MLA_BACKENDS:
        reasons.append("non-MLA model")
    if sinks and backend not in MLA_BACKENDS:
        allowed = _sinks_on(backend, release)
        if allowed is not None and sm not in allowed:
            reasons.append("attention sinks not supported")
    return reasons


def choose(requested: str | None, *, rocm: bool, sm: int | None, mla: bool,
           model_arch: str | None, release: str, fp8_kv_cache: bool = False) -> AttentionChoice:
    """The backend and level for a line; raises :class:`AttentionRefusal` where vLLM does.

    ``sm`` unknown is taken as Hopper (90), as the rest of cgconfig assumes."""
    sm = sm if sm is not None else 90
    sinks = model_arch in SINK_ARCHS
    if requested is None:
        backend = _default(rocm, sm, mla, sinks, fp8_kv_cache, release)
        why = f"vLLM's default for {'ROCm' if rocm else f'SM {sm}'}" + (", MLA" if mla else "")
        refusal = _fp8_refusal(backend, sm, release) if fp8_kv_cache and not rocm else None
        if refusal:  # the default itself cannot hold an FP8 cache (GPT-OSS below Ada)
            raise AttentionRefusal(f"{refusal} (the default backend {backend}, "
                                   "--kv-cache-dtype fp8)")
    else:
        backend = requested.upper()
        reasons = _reasons(backend, sm, mla, sinks, fp8_kv_cache and not rocm,
                           release)
        if reasons:
            raise AttentionRefusal(f"Selected backend AttentionBackendEnum.{backend} is not "
                                   f"valid for this configuration. Reason: {reasons}")
        why = "--attention-backend"
    level = level_in(backend, sm, release)
    mamba = mamba_level(model_arch, release)
    if model_arch in HYBRID_ARCHS and level > mamba:
        level, why = mamba, f"{why}; the model's Mamba layers support {mamba.name}"
    return AttentionChoice(backend, level, why)


# --- vLLM 0.10.2 (issue #37, helper v0102): the selector reads VLLM_ATTENTION_BACKEND ---
_SELECTOR_0_10 = "platforms/cuda.py:CudaPlatform.get_attn_backend_cls"
#: ``VLLM_ATTENTION_BACKEND`` values the V1 engine runs on CUDA (``EngineArgs.
#: _is_v1_supported_oracle``'s list, less the other platforms' names; any other name sends the
#: line to the V0 engine), each with the backend ``get_attn_backend_cls`` selects by name ("":
#: none by name, so the platform's default path picks, as for no variable; an MLA model's
#: selector picks by the MLA names only).
V1_BACKEND_NAMES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "VLLM_ATTENTION_BACKEND names the V1 engine runs (another "
                  "name falls back to V0)", "engine/arg_utils.py:EngineArgs._is_v1_supported_oracle",
                  {"FLASH_ATTN_VLLM_V1": "", "FLASH_ATTN": "FLASH_ATTN",
                   "TRITON_ATTN_VLLM_V1": "TRITON_ATTN", "FLASHINFER": "FLASHINFER",
                   "FLASHINFER_VLLM_V1": "", "FLEX_ATTENTION": "FLEX_ATTENTION",
                   "TREE_ATTN": "TREE_ATTN", "TRITON_MLA": "TRITON_MLA",
                   "CUTLASS_MLA": "CUTLASS_MLA", "FLASHMLA": "FLASHMLA",
                   "FLASHMLA_VLLM_V1": "FLASHMLA", "FLASH_ATTN_MLA": "FLASH_ATTN_MLA",
                   "FLASHINFER_MLA": "FLASHINFER_MLA"}),
)
#: FlexAttention refuses sliding-window layers ("FlexAttention does not support sliding window
#: yet.", ``FlexAttentionImpl.__init__``); cgconfig knows GPT-OSS's (its config's
#: ``sliding_window``); 0.11.2's FlexAttention takes them.
FLEX_NO_SLIDING_WINDOW: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "FlexAttention refuses sliding-window layers",
                  "v1/attention/backends/flex_attention.py:FlexAttentionImpl.__init__"),
)
#: Triton MLA refuses an FP8 KV cache at the layer ("TritonMLA V1 with FP8 KV cache not yet
#: supported", ``TritonMLAImpl.__init__``); from 0.11.2 the selector's
#: :data:`TRITON_MLA_FP8_REFUSED` says it.
TRITON_MLA_FP8_LAYER_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "Triton MLA refuses an FP8 KV cache when its layer is built",
                  "v1/attention/backends/mla/triton_mla.py:TritonMLAImpl.__init__"),
)


#: The MLA default: CUTLASS MLA on SM 10.0, FlashMLA where it runs (SM 9.0), else Triton MLA
#: (from 0.11.2 the priority lists of :func:`_default`).
MLA_DEFAULT_0_10: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "the MLA default is CUTLASS_MLA on SM 10.0, FLASHMLA on SM 9.0, "
                  "else TRITON_MLA", _SELECTOR_0_10, {100: "CUTLASS_MLA", 90: "FLASHMLA"}),
)
#: FlashAttention 3 (``aot_schedule``, SM 9.0) with a mode that has full graphs refuses a
#: ``max_capture_size`` above 992 (``FlashAttentionMetadataBuilder.__init__``,
#: ``FlashAttnMLAMetadataBuilder.__init__``: "Capture size larger than 992 is not supported for
#: full cuda graph."); 0.11.2 keeps the size and runs larger batches without the full graph.
FA3_FULL_GRAPH_CAP: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "FA3 with full graphs refuses a capture size above 992",
                  "v1/attention/backends/flash_attn.py:FlashAttentionMetadataBuilder."
                  "__init__", 992),
)


def v1_backend_0_10(name: str | None, release: str) -> str | None:
    """The backend a ``VLLM_ATTENTION_BACKEND`` value selects on vLLM ``release``'s V1 engine;
    ``None`` when the name sends the line to V0 (unset: the caller's default)."""
    names = value_at(V1_BACKEND_NAMES, release)
    assert isinstance(names, dict) and name is not None
    return names.get(name.upper())


def choose_0_10(env_backend: str | None, *, sm: int | None, mla: bool, model_arch: str | None,
                release: str, fp8_kv_cache: bool = False) -> AttentionChoice:
    """The V1 backend of vLLM ``release`` (0.10.2): ``VLLM_ATTENTION_BACKEND`` mapped through
    :data:`V1_BACKEND_NAMES`, else the platform's default; GPT-OSS's sinks take FlashAttention
    on SM 9.0, FlashInfer on SM 10.0, Triton elsewhere (a named non-MLA backend included); an
    MLA model named a non-MLA backend, or FlashMLA off SM 9.0, runs FlexAttention; refusals
    where the builders assert. Raises :class:`AttentionRefusal`."""
    sm = sm if sm is not None else 90
    sinks = model_arch in SINK_ARCHS
    named = (v1_backend_0_10(env_backend, release) or None) if env_backend else None
    why = f"VLLM_ATTENTION_BACKEND={env_backend}" if env_backend else \
        f"vLLM {release}'s default for SM {sm}" + (", MLA" if mla else "")
    if mla:
        defaults = value_at(MLA_DEFAULT_0_10, release)
        assert isinstance(defaults, dict)
        backend = named or defaults.get(sm, "TRITON_MLA")
        if backend == "FLASH_ATTN_MLA" and sm != 90:
            raise AttentionRefusal("FlashAttnMLA is not supported on this device "
                                   "(FlashAttnMLABackend)")
        if backend == "TREE_ATTN":
            raise AttentionRefusal("TreeAttentionImpl.__init__() got an unexpected keyword "
                                   "argument 'q_lora_rank' (an MLA model on TREE_ATTN)")
        if backend not in MLA_BACKENDS or (backend == "FLASHMLA" and sm != 90) or (
                env_backend and not named):
            backend, why = "FLEX_ATTENTION", f"{why}: not an MLA backend that runs here, " \
                "FlexAttention"
        if backend == "TRITON_MLA" and fp8_kv_cache and holds_in(TRITON_MLA_FP8_LAYER_REFUSED,
                                                                 release):
            raise AttentionRefusal("TritonMLA V1 with FP8 KV cache not yet supported "
                                   "(TritonMLAImpl)")
    elif named and named not in MLA_BACKENDS:
        backend = named
    elif sinks:
        backend = {90: "FLASH_ATTN", 100: "FLASHINFER"}.get(sm, "TRITON_ATTN")
        why += f"; GPT-OSS's attention sinks take {backend} on SM {sm}"
    else:
        backend = "FLASHINFER" if sm == 100 else "FLASH_ATTN"
    if backend == "FLEX_ATTENTION" and sinks and holds_in(FLEX_NO_SLIDING_WINDOW, release):
        raise AttentionRefusal("FlexAttention does not support sliding window yet. (GPT-OSS's "
                               "sliding-window layers, FlexAttentionImpl)")
    level = level_in(backend, sm, release)
    mamba = mamba_level(model_arch, release)
    if model_arch in HYBRID_ARCHS and level > mamba:
        level, why = mamba, f"{why}; the model's Mamba layers support {mamba.name}"
    return AttentionChoice(backend, level, why)
def fa3_cap_refusal(backend: str, sm: object, mode: CudaGraphMode, max_size: int,
                    release: str) -> str | None:
    """vLLM 0.10.2's FlashAttention 3 builders: full graphs with a capture size above 992 are
    refused (:data:`FA3_FULL_GRAPH_CAP`); ``None`` where they are not."""
    cap = value_at(FA3_FULL_GRAPH_CAP, release)
    if not isinstance(cap, int) or backend not in ("FLASH_ATTN", "FLASH_ATTN_MLA") or sm != 90 \
            or not mode.has_full_cudagraphs() or max_size <= cap:
        return None
    return (f"Capture size larger than {cap} is not supported for full cuda graph. (vLLM "
            f"{release} {backend} with FlashAttention 3, cudagraph_mode {mode.name}, "
            f"max_capture_size {max_size}: FlashAttentionMetadataBuilder.__init__)")
# --- end vLLM 0.10.2 ---
