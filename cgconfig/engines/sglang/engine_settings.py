"""SGLang 0.5.23's graph-dependent engine settings, ported as pure functions over plain values.

SGLang decides more than the CUDA-graph config at launch: the static memory fraction, the
chunked-prefill size, the attention backend and (under speculative decoding) the running-request
limit all follow from the same inputs, and the graphs depend on them. Each function names the
upstream function it ports (SGLang 0.5.23, ``python/sglang/srt/...``). Memory is taken in MiB,
as upstream compares it. Standard library only: this module must stay importable anywhere.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.sglang import model_archs as ma
from cgconfig.line.versions import newest

_AG = f"sglang {newest('sglang')} python/sglang/srt/arg_groups/"
#: Upstream functions, cited by the engine block.
SOURCE_DEFAULT_BACKEND = _AG + "model_override_base.py:get_default_attn_backend"
SOURCE_BACKEND_OVERRIDE = _AG + "overrides.py:_attention_backend_default"
SOURCE_CPU_BACKEND = _AG + "platform_hook.py:handle_cpu_backends"
SOURCE_DETERMINISTIC_BACKEND = _AG + "overrides.py:_deterministic_attention_backend"
SOURCE_CUTEDSL_PREFILL = _AG + "overrides.py:_cutedsl_prefill_backend_fill"
SOURCE_PLATFORM_FALLBACK = _AG + "overrides.py:_attention_backend_platform_fallbacks"
SOURCE_DEEPSEEK_OVERRIDE = _AG + "model_overrides/deepseek_v2.py:_deepseek_family_overrides"
SOURCE_QWEN3_5_OVERRIDE = _AG + "model_overrides/qwen3_5.py:_qwen3_5_hybrid_overrides"
SOURCE_QWEN3_VL_OVERRIDE = _AG + "model_overrides/qwen3_vl.py:_qwen3vl_hopper_serving_overrides"
SOURCE_MEMORY = _AG + "memory_hook.py:handle_gpu_memory_settings"
SOURCE_AITER_MEMORY = _AG + "attention_hook.py:handle_attention_backend_compatibility"
SOURCE_DP_CHUNKED = _AG + "parallel_hook.py:handle_data_parallelism"
SOURCE_MIS_CHUNKED = _AG + "attention_hook.py:handle_multi_item_scoring"
SOURCE_SPECULATIVE_RUNNING = _AG + "speculative_hook.py:_handle_eagle_family"
SOURCE_SPECULATIVE_DRAFT = _AG + "speculative_hook.py:handle_speculative_decoding"

#: ``speculative_hook`` (every algorithm's handler): the running-request limit set when speculative
#: decoding is on and ``--max-running-requests`` is unset.
SPECULATIVE_MAX_RUNNING_REQUESTS = 48
#: ``get_default_attn_backend``: the aiter MLA kernels take these per-rank KV head counts only.
AITER_MLA_HEAD_COUNTS = (16, 128)


class EngineValue(NamedTuple):
    """One engine setting: its value, the upstream function that set it, and why."""

    value: object
    source: str
    why: str


class Platform(NamedTuple):
    """The hardware facts SGLang's backend choice reads."""

    device: str
    """cgconfig's device (``hip`` is ROCm, which SGLang runs as device ``cuda``)."""
    gpu_sm: int
    """Compute capability × 10 (90 = Hopper, 100 = Blackwell)."""

    @property
    def engine_device(self) -> str:
        """SGLang's ``--device`` value: ROCm GPUs are ``cuda`` to SGLang."""
        return "cuda" if self.device == "hip" else self.device

    @property
    def is_hopper(self) -> bool:
        """``is_hopper_with_cuda_12_3``: an NVIDIA SM 9.x GPU."""
        return self.device == "cuda" and self.gpu_sm // 10 == 9

    @property
    def is_sm100(self) -> bool:
        """``is_sm100``: an NVIDIA SM 10.x GPU (B200, GB200, B300)."""
        return self.device == "cuda" and self.gpu_sm // 10 == 10

    @property
    def is_sm120(self) -> bool:
        """``is_sm120``: an NVIDIA SM 12.x GPU."""
        return self.device == "cuda" and self.gpu_sm // 10 == 12


class ModelShape(NamedTuple):
    """What the backend choice and the memory heuristic read from the model."""

    arch: str | None
    use_mla: bool
    mla_kv_heads: int | None = None
    """Total KV heads (``num_key_value_heads``) of an MLA model, for the aiter head check."""
    context_len: int | None = None
    """The served context length; ``None`` when unknown."""
    vision_layers: int | None = None
    vision_hidden_size: int | None = None
    is_multimodal: bool = False


def _mha_default(platform: Platform, speculative_algorithm: str | None, eagle_topk: int | None,
                 page_size: int | None) -> tuple[str, str]:
    # ``is_no_spec_infer_or_topk_one`` reads the topk and page size as given (their defaults
    # are filled later in the pipeline).
    topk_one = eagle_topk is None or (eagle_topk == 1 and page_size in (None, 1))
    if platform.is_hopper and topk_one:
        return "fa3", "MHA model on Hopper: fa3"
    forced_topk = (speculative_algorithm or "").upper() == "DFLASH"
    if platform.is_sm100 and topk_one and (
            speculative_algorithm is None or eagle_topk is not None or forced_topk):
        return "trtllm_mha", "MHA model on Blackwell (SM 10.x): trtllm_mha"
    if platform.device == "hip":
        return "aiter", "MHA model on ROCm: aiter"
    if platform.device == "mps":
        return "torch_native", "MHA model on Apple MPS: torch_native"
    if platform.device == "xpu":
        return "triton", "MHA model on XPU (no flashinfer there): triton"
    return "flashinfer", "MHA model: flashinfer (installed, no attention sinks)"


def _mla_default(platform: Platform, model: ModelShape, tp_size: int) -> tuple[str, str]:
    if platform.is_hopper:
        return "fa3", "MLA model on Hopper: fa3"
    if platform.is_sm100:
        return "flashinfer", "MLA model on Blackwell (SM 10.x): flashinfer"
    if platform.device == "hip":
        heads = max(1, (model.mla_kv_heads or 0) // tp_size) if model.mla_kv_heads else None
        if heads in AITER_MLA_HEAD_COUNTS:
            return "aiter", f"MLA model on ROCm with {heads} KV heads per rank: aiter"
        return "triton", (f"MLA model on ROCm with {heads} KV heads per rank (aiter takes 16 "
                          "or 128): triton" if heads else
                          "MLA model on ROCm, KV heads unknown: triton")
    if platform.device == "mps":
        return "torch_native", "MLA model on Apple MPS: torch_native"
    return "triton", "MLA model: triton"


def default_attention_backend(platform: Platform, model: ModelShape, *, tp_size: int,
                              speculative_algorithm: str | None, eagle_topk: int | None,
                              page_size: int | None) -> tuple[str, str]:
    """``model_override_base.get_default_attn_backend`` (SGLang 0.5.23): the backend SGLang
    picks when none is given, with the reason. FlashInfer is taken as installed and the model
    as having no attention sinks and symmetric K/V widths."""
    if model.arch == "WhisperForConditionalGeneration":
        return "flashinfer", "Whisper needs flashinfer for cross-attention graphs"
    if not model.use_mla:
        return _mha_default(platform, speculative_algorithm, eagle_topk, page_size)
    return _mla_default(platform, model, tp_size)


class AttentionChoice(NamedTuple):
    """The three attention backend fields after SGLang's resolution."""

    attention_backend: EngineValue
    prefill_attention_backend: EngineValue
    decode_attention_backend: EngineValue


def model_attention_override(platform: Platform, model: ModelShape, *, tp_size: int,
                             attention_backend: str | None, prefill_backend: str | None,
                             decode_backend: str | None, speculative_algorithm: str | None,
                             eagle_topk: int | None, page_size: int | None,
                             gpu_memory_mib: float | None, radix_cache_off: bool = False
                             ) -> tuple[str, EngineValue] | None:
    """The attention backend a model's own defaults set
    (``model_hook.handle_model_specific_adjustments``, SGLang 0.5.23), as
    ``(field, value)``; ``None`` when the model sets none.

    * DeepSeek-V3 on Blackwell with no backend given: trtllm_mla
      (``model_overrides/deepseek_v2._deepseek_family_overrides``);
    * the Qwen3.5 / Qwen3-Next hybrids on Blackwell with no base backend: triton, or trtllm_mha
      where the default is trtllm_mha and the radix cache does not force page size 1
      (speculative decoding on, or the radix cache off, as on a PD decode server)
      (``model_overrides/qwen3_5._qwen3_5_hybrid_overrides``);
    * Qwen3-VL on a ≥ 60 GiB SM ≥ 90 GPU with neither the base nor the decode backend given:
      decode flashinfer (``model_overrides/qwen3_vl._qwen3vl_hopper_serving_overrides``).
    """
    unset = attention_backend is None
    if model.arch in ma.DEEPSEEK_TRTLLM_MLA_ARCHS and platform.is_sm100 and unset \
            and prefill_backend is None and decode_backend is None:
        return "attention_backend", EngineValue(
            "trtllm_mla", SOURCE_DEEPSEEK_OVERRIDE, "DeepSeek-V3 on Blackwell: trtllm_mla")
    if model.arch in ma.QWEN3_5_HYBRID_ARCHS and platform.is_sm100 and unset:
        default, _ = default_attention_backend(
            platform, model, tp_size=tp_size, speculative_algorithm=speculative_algorithm,
            eagle_topk=eagle_topk, page_size=page_size)
        # Paged trtllm_mha stays unless the radix cache runs page-size 1: it does when it is
        # on (cgconfig's assumption; a PD decode server turns it off) and nothing speculates.
        radix_page_one = not radix_cache_off and speculative_algorithm is None
        name = "trtllm_mha" if default == "trtllm_mha" and not radix_page_one else "triton"
        return "attention_backend", EngineValue(
            name, SOURCE_QWEN3_5_OVERRIDE, f"Qwen3.5 hybrid model on Blackwell: {name}")
    large_hopper = (platform.is_hopper
                    and gpu_memory_mib is not None and gpu_memory_mib >= 60 * 1024)
    if model.arch in ma.QWEN3_VL_ARCHS and model.is_multimodal and large_hopper and unset \
            and decode_backend is None:
        return "decode_attention_backend", EngineValue(
            "flashinfer", SOURCE_QWEN3_VL_OVERRIDE,
            "Qwen3-VL's profiled serving path on a large Hopper-or-newer GPU: decode flashinfer")
    return None


def platform_fallback(platform: Platform, backend: str) -> EngineValue | None:
    """``overrides._attention_backend_platform_fallbacks`` (SGLang 0.5.23): intel_amx on a CPU
    without AMX runs torch_native; intel_xpu on an XPU without XMX runs triton. cgconfig cannot
    probe either unit, so it takes them as absent (as on the machine the fidelity corpus was
    recorded on)."""
    if backend == "intel_amx" and platform.device == "cpu":
        return EngineValue("torch_native", SOURCE_PLATFORM_FALLBACK,
                           "intel_amx without AMX (taken as absent) falls back to torch_native")
    if backend == "intel_xpu" and platform.device == "xpu":
        return EngineValue("triton", SOURCE_PLATFORM_FALLBACK,
                           "intel_xpu without XMX (taken as absent) falls back to triton")
    return None


def resolve_attention_backends(platform: Platform, model: ModelShape, *, tp_size: int,
                               attention_backend: str | None, prefill_backend: str | None,
                               decode_backend: str | None, deterministic: bool,
                               deterministic_mla: bool,
                               speculative_algorithm: str | None, eagle_topk: int | None,
                               page_size: int | None, gpu_memory_mib: float | None,
                               radix_cache_off: bool = False,
                               with_fallback: bool = True) -> AttentionChoice:
    """The attention backends as SGLang 0.5.23 resolves them, in its pipeline's order:

    ``platform_hook.handle_cpu_backends`` (CPU: intel_amx, on an x86 host), the model's own
    defaults (:func:`model_attention_override`), ``overrides._deterministic_attention_backend``
    (deterministic inference: fa3, or on Blackwell flashinfer / triton for DeepSeek-style
    models, ``deterministic_mla``; the caller passes ``deterministic`` only for a release that
    runs this fallback before the default, :mod:`.deterministic`),
    ``overrides._attention_backend_default`` (equal prefill and decode backends override the
    base one; otherwise an unset base takes :func:`default_attention_backend`),
    ``overrides._cutedsl_prefill_backend_fill`` (decode-only cutedsl_mla prefills with
    trtllm_mla), then :func:`platform_fallback`.
    """
    given = "given (--attention-backend)"
    base = EngineValue(attention_backend, "--attention-backend", given) if attention_backend \
        else None
    decode = EngineValue(decode_backend, "--decode-attention-backend",
                         "given (--decode-attention-backend)" if decode_backend else "unset")
    if base is None and platform.device == "cpu":
        base = EngineValue("intel_amx", SOURCE_CPU_BACKEND, "CPU device: intel_amx")
    override = model_attention_override(
        platform, model, tp_size=tp_size,
        attention_backend=None if base is None else str(base.value),
        prefill_backend=prefill_backend, decode_backend=decode_backend,
        speculative_algorithm=speculative_algorithm, eagle_topk=eagle_topk,
        page_size=page_size, gpu_memory_mib=gpu_memory_mib, radix_cache_off=radix_cache_off)
    if override is not None and override[0] == "attention_backend":
        base = override[1]
    elif override is not None:
        decode = override[1]
    if base is None and deterministic:
        if platform.is_sm100 or platform.is_sm120:
            name = "triton" if deterministic_mla else "flashinfer"
        else:
            name = "fa3"
        base = EngineValue(name, SOURCE_DETERMINISTIC_BACKEND,
                           f"deterministic inference without a backend: {name}")
    if prefill_backend is not None and prefill_backend == decode.value:
        base = EngineValue(prefill_backend, SOURCE_BACKEND_OVERRIDE,
                           "the prefill and decode backends are equal: they override the base")
    if base is None:
        name, why = default_attention_backend(
            platform, model, tp_size=tp_size, speculative_algorithm=speculative_algorithm,
            eagle_topk=eagle_topk, page_size=page_size)
        base = EngineValue(name, SOURCE_DEFAULT_BACKEND, why)
    prefill = EngineValue(prefill_backend, "--prefill-attention-backend",
                          "given (--prefill-attention-backend)" if prefill_backend else "unset")
    if prefill_backend is None and "cutedsl_mla" in (base.value, decode.value):
        prefill = EngineValue("trtllm_mla", SOURCE_CUTEDSL_PREFILL,
                              "decode-only cutedsl_mla prefills with trtllm_mla")
    if with_fallback:
        base = platform_fallback(platform, str(base.value)) or base
    return AttentionChoice(base, prefill, decode)


def final_chunked_prefill_size(chunked: int, *, attn_dp_size: int, enable_mis: bool
                               ) -> EngineValue | None:
    """The chunked-prefill size after the hooks that run past the memory defaults: DP
    attention divides it among the ranks (``parallel_hook.handle_data_parallelism``);
    multi-item scoring turns it off (``attention_hook.handle_multi_item_scoring``). ``None``
    when neither applies."""
    if enable_mis:
        return EngineValue(-1, SOURCE_MIS_CHUNKED, "multi-item scoring disables chunked prefill")
    if attn_dp_size > 1:
        return EngineValue(chunked // attn_dp_size, SOURCE_DP_CHUNKED,
                           f"DP attention divides {chunked} among {attn_dp_size} ranks")
    return None


def speculative_max_running_requests(given: int | None, speculative: bool) -> EngineValue | None:
    """The running-request limit speculative decoding sets when none is given (every
    algorithm's handler in ``speculative_hook``, SGLang 0.5.23): 48. ``None`` otherwise."""
    if not speculative or given is not None:
        return None
    return EngineValue(SPECULATIVE_MAX_RUNNING_REQUESTS, SOURCE_SPECULATIVE_RUNNING,
                       "speculative decoding without --max-running-requests: reset to 48")
