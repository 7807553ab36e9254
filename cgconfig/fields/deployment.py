"""Deployment facts: what the resolver knows about the server it configures.

Field names follow SGLang's server arguments (``--tp-size`` → ``tp_size``), so a launch line maps
onto this model one flag per field. Defaults are SGLang's. Facts are read-only inputs: rules
read them, nothing in cgconfig writes them back.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, PositiveFloat, PositiveInt, field_validator

Device = Literal["cuda", "hip", "npu", "xpu", "cpu", "mps", "hpu", "musa"]
DisaggregationMode = Literal["null", "prefill", "decode"]
#: SGLang 0.5.23 ``srt/speculative/spec_info.py:SpeculativeAlgorithm`` names plus the NEXTN alias
#: (``spec_registry.py:_RESERVED_ALIASES``); SGLang upper-cases the flag's value
#: (``arg_groups/speculative_hook.py:handle_speculative_decoding``), so the parser does too.
SpeculativeAlgorithm = Literal["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH",
                               "DSPARK", "UNO", "FROZEN_KV_MTP"]
#: SGLang 0.5.23 ``arg_groups/choices.py`` ``--moe-a2a-backend`` choices.
MoeA2ABackend = Literal[
    "none", "deepep", "mooncake", "mori", "megamoe", "flashinfer", "ascend_fuseep", "nixl",
    "deepep_v2", "pplx", "ascend_tp", "flashinfer_megamoe",
]
DeepEPMode = Literal["auto", "normal", "low_latency"]
MoeRunnerBackend = Literal[
    "auto", "deep_gemm", "triton", "triton_kernel", "flashinfer_trtllm", "experimental_sgl_trtllm",
    "flashinfer_trtllm_routed", "flashinfer_cutlass", "flashinfer_mxfp4", "flashinfer_cutedsl",
    "flashinfer_megamoe", "cutlass", "aiter", "marlin", "humming", "experimental_sgl_marlin",
    "lora_cutedsl", "lora_triton", "lora_marlin", "hpc_ops", "megamoe", "intel_xpu"
]
DisaggregationTransferBackend = Literal["mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"]

from cgconfig.constants import ATTENTION_BACKENDS, unknown_attention_backend  # noqa: E402


def _check_attention_backend(value: str | None) -> str | None:
    complaint = None if value is None else unknown_attention_backend(value)
    if complaint:
        raise ValueError(complaint)
    return value


class DeploymentFacts(BaseModel):
    """Facts about the deployment that decide which graphs can and should be captured."""

    model_config = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)

    device: Device = "cuda"
    """Platform: ``cuda``, ``hip`` (ROCm), ``npu`` (Ascend), ``xpu`` (Intel), ``cpu``, ``mps``,
    ``hpu`` (Gaudi), ``musa``. Unset: inferred from a platform-only attention backend (``aiter``
    → hip), else ``cuda``."""

    gpu_memory_gib: PositiveFloat | None = None
    """Memory of one GPU in GiB. Unset: read from ``nvidia-smi`` (``rocm-smi`` on ROCm) when it
    answers quickly, else the unknown tier is used."""

    gpu_sm: PositiveInt | None = None
    """GPU compute capability ×10 (90 = H100/H200, 100 = B200). Unset: read from ``nvidia-smi``
    (``compute_cap``), else not Blackwell is assumed (vLLM's default capture ceiling is 1024
    tokens on the SM100 family, else 512)."""

    gpu_count: PositiveInt | None = None
    """GPUs visible on the machine. Unset: counted by ``nvidia-smi`` / ``rocm-smi``."""

    attention_backend: str | None = None
    """``--attention-backend``; unset lets the engine choose (flashinfer/fa3 on CUDA)."""

    prefill_attention_backend: str | None = None
    """``--prefill-attention-backend``; unset means the same as ``attention_backend``."""

    decode_attention_backend: str | None = None
    """``--decode-attention-backend``; unset means the same as ``attention_backend``."""

    tp_size: PositiveInt = 1
    """Tensor-parallel size."""

    pp_size: PositiveInt = 1
    """Pipeline-parallel size."""

    dp_size: PositiveInt = 1
    """Data-parallel size."""

    enable_dp_attention: bool = False
    """Data-parallel attention (attention runs per DP rank, MLP gathers across ranks)."""

    attn_dp_size: PositiveInt = 1
    """``--attn-dp-size``: SGLang 0.5.23's current spelling of DP attention (attention-DP
    groups). cgconfig reads ``--attn-dp-size N`` (N > 1) as ``dp_size N`` with
    ``enable_dp_attention``, the older spelling SGLang turns into it; SGLang refuses it next
    to ``--dp-size`` above 1."""

    dwdp_size: PositiveInt = 1
    """``--dwdp-size``: SGLang 0.5.23's DWDP (expert weights partitioned over the TP ranks,
    prefetched per step); above 1 it must equal tp_size, and SGLang then runs attention data
    parallel over those ranks with the legacy ``--disable-cuda-graph`` switch on."""

    attn_cp_size: PositiveInt = 1
    """Attention context-parallel size."""

    dcp_size: PositiveInt = 1
    """Decode context-parallel size."""

    moe_dp_size: PositiveInt = 1
    """``--moe-dp-size`` (``--moe-data-parallel-size``): MoE data-parallel size. Above 1 the
    releases that have it check it against the TP and PP sizes (and, in the newer ones, the
    attention context-parallel size) in ``ServerArgs._handle_context_parallelism``."""

    enable_prefill_cp: bool = False
    """Prefill context parallelism (``--enable-prefill-cp``); needs ``--cp-strategy``."""

    cp_strategy: Literal["zigzag", "interleave"] | None = None
    """Prefill-CP sharding: ``zigzag`` (one early and one late block per rank) or
    ``interleave`` (token index modulo the CP size)."""

    disaggregation_mode: DisaggregationMode = "null"
    """Prefill/decode disaggregation role of this instance: ``null``, ``prefill`` or ``decode``."""

    disaggregation_transfer_backend: DisaggregationTransferBackend = "mooncake"
    """KV transfer backend between prefill and decode instances
    (``--disaggregation-transfer-backend``); SGLang refuses unified memory with speculative
    decoding over mooncake."""

    speculative_algorithm: SpeculativeAlgorithm | None = None
    """Speculative decoding algorithm; unset means none."""

    speculative_num_draft_tokens: PositiveInt | None = None
    """Tokens per request in a verify step (the captured request width)."""

    speculative_num_steps: PositiveInt | None = None
    """Draft steps per verify (EAGLE family); with the draft tokens unset, SGLang derives them."""

    speculative_eagle_topk: PositiveInt | None = None
    """Draft branches per step (EAGLE family); topk 1 makes the draft tokens steps + 1."""

    speculative_dflash_block_size: PositiveInt | None = None
    """DFLASH verify block (``--speculative-dflash-block-size``): SGLang 0.5.23 takes it as the
    draft tokens and refuses draft tokens that differ (and a block size that is not positive,
    as cgconfig's parser does)."""

    speculative_dspark_block_size: PositiveInt | None = None
    """DSPARK gamma (``--speculative-dspark-block-size``): SGLang 0.5.23 verifies gamma + 1
    draft tokens and refuses draft tokens that differ (and a block size that is not positive,
    as cgconfig's parser does)."""

    uno_lora_path: str | None = None
    """UNO's draft LoRA checkpoint (``--uno-lora-path``); SGLang 0.5.23's UNO needs it."""

    enable_lora: bool = False
    """LoRA adapters are served."""

    lora_paths: str | None = None
    """Initial LoRA adapters (``--lora-paths``, values joined by spaces); SGLang needs them, or both
    ``--max-lora-rank`` and ``--lora-target-modules``, when LoRA is enabled."""

    max_lora_rank: PositiveInt | None = None
    """Largest LoRA rank to reserve for (``--max-lora-rank``)."""

    lora_target_modules: str | None = None
    """Modules LoRA applies to (``--lora-target-modules``, values joined by spaces)."""

    enable_memory_saver: bool = False
    """Memory saver (weights/KV released and restored, used by RL trainers)."""

    sglang_memory_saver_cuda_graph: bool = False
    """Environment variable ``SGLANG_MEMORY_SAVER_CUDA_GRAPH``: with the memory saver, graph
    memory goes through it too, which SGLang's breakable graphs cannot do (read from the
    environment or a ``VAR=value`` prefix of the launch line)."""

    vllm_use_v2_model_runner: bool | None = None
    """Environment variable ``VLLM_USE_V2_MODEL_RUNNER``: when set, vLLM runs the model runner
    it names (V2 for true, V1 for false) instead of choosing one for the model and features
    (``VllmConfig.use_v2_model_runner``; the worker reads it directly before 0.22); ``None``:
    unset (read from the environment or a ``VAR=value`` prefix of the launch line)."""

    vllm_attn_backend: str | None = None
    """Environment variable ``VLLM_ATTENTION_BACKEND``: the attention backend of the vLLM
    releases without ``--attention-backend`` (where vLLM has a V0 engine, a name outside the V1
    engine's list runs it); ``None``: unset (read from the environment or a ``VAR=value``
    prefix of the launch line)."""

    vllm_all2all_backend: str | None = None
    """Environment variable ``VLLM_ALL2ALL_BACKEND``: the MoE all-to-all backend of the vLLM
    releases without ``--all2all-backend``; ``None``: unset (read from the environment or a
    ``VAR=value`` prefix of the launch line)."""

    moe_a2a_backend: MoeA2ABackend = "none"
    """MoE all-to-all backend."""

    deepep_mode: DeepEPMode = "auto"
    """DeepEP mode; ``normal`` kernels cannot be captured."""

    moe_runner_backend: MoeRunnerBackend = "auto"
    """MoE expert kernel runner (``--moe-runner-backend``); SGLang's FlashInfer all-to-all needs
    a flashinfer or deep_gemm runner."""

    enable_two_batch_overlap: bool = False
    """Two-batch overlap (TBO)."""

    enable_dp_lm_head: bool = False
    """Vocabulary-parallel LM head across the attention TP group (``--enable-dp-lm-head``);
    SGLang's DFLASH speculative decoding under DP attention needs it."""

    enable_pdmux: bool = False
    """PD-multiplexing (``--enable-pdmux``): prefill and decode share the GPU on green-context
    streams. SGLang 0.5.23 accepts it only with chunked prefill off (``--chunked-prefill-size
    -1``), ``--disable-overlap-schedule``, pp_size 1 and no PD disaggregation."""

    disable_overlap_schedule: bool = False
    """``--disable-overlap-schedule``: the scheduler stops overlapping CPU work with the GPU
    step; SGLang 0.5.23's PD-multiplexing needs it."""

    enable_mixed_chunk: bool = False
    """``--enable-mixed-chunk``: prefill chunks and decode requests share a batch. The older
    releases refuse it with pipeline parallelism (``ServerArgs.check_server_args``)."""

    msprobe_dump_config: str | None = None
    """``--msprobe-dump-config``: an msProbe tensor-dump config; SGLang 0.5.23 then runs
    decode and prefill eagerly (msProbe dumps only in eager mode)."""

    chunked_prefill_size: int | None = None
    """Chunked-prefill size in tokens; unset takes the GPU-memory tier's value, -1 disables."""

    max_running_requests: PositiveInt | None = None
    """Cap on concurrent requests (also the request-pool size the capture filter uses)."""

    context_length: PositiveInt | None = None
    """Model context length override."""

    model_context_length: PositiveInt | None = None
    """The context length the model's ``config.json`` gives, as SGLang derives it
    (``max_position_embeddings`` and its kin, times the RoPE scaling factor). Unset: read
    with the model's config; ``--context-length`` above it is refused."""

    sglang_allow_overwrite_longer_context_len: bool = False
    """Environment variable ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN``: SGLang then takes a
    ``--context-length`` above the model's own, with a warning, instead of refusing it (read
    from the environment or a ``VAR=value`` prefix of the launch line)."""

    max_total_tokens: PositiveInt | None = None
    """KV-cache token capacity override; SGLang caps the default prefill max_bs at it."""

    mem_fraction_static: NonNegativeFloat | None = None
    """Fraction of GPU memory for weights and the KV cache; unset, SGLang derives it from the
    memory, the chunked-prefill size and the graphs (the plan's ``engine`` block shows it)."""

    max_prefill_tokens: PositiveInt | None = None
    """Most tokens in one prefill batch (SGLang's default 16384); SGLang's memory heuristic
    reads it when chunked prefill is off."""

    page_size: PositiveInt | None = None
    """KV-cache page size in tokens (the prefill max context is page-aligned)."""

    model_path: str | None = None
    """Model path or Hugging Face id; SGLang caps prefill at 4096 when it contains llama-2."""

    model_arch: str | None = None
    """Hugging Face architecture name (``architectures[0]``), e.g. ``DeepseekV3ForCausalLM``.
    Unset: read from the model's ``config.json`` (a local folder or the Hugging Face cache)."""

    json_model_override_args: str | None = None
    """``--json-model-override-args``: a JSON object merged over the model's ``config.json``."""

    is_multimodal: bool = False
    """The model takes images/audio as well as text. Unset: derived from the architecture and
    ``config.json`` as SGLang does."""

    use_mla: bool = False
    """The model uses multi-head latent attention (DeepSeek-style). Unset: derived from the
    architecture and ``config.json`` as SGLang does."""

    model_kv_heads: PositiveInt | None = None
    """The model's KV heads in all (``num_key_value_heads`` of its text config); SGLang's
    ROCm attention-backend choice for an MLA model reads them per rank (aiter takes 16 or
    128). Unset: read with the model's config; unknown without one."""

    no_vision_config: bool = False
    """The model's config has no ``vision_config``: SGLang's memory heuristic then leaves
    ``mem_fraction_static`` of a multimodal model as it is
    (``memory_hook.adjust_mem_fraction_for_vlm``). Unset: read with the model's config; without
    one the encoder is taken to be there, with ViT-L/14's size."""

    model_num_experts: PositiveInt | None = None
    """Experts per MoE layer, the first positive count among ``num_experts``,
    ``num_local_experts``, ``n_routed_experts`` and ``moe_num_experts`` in the model's config or
    its text config (vLLM's ``ModelConfig.is_moe``: the releases that default to Model Runner V2
    for MoE models read it). Unset: read with the model's config; a dense model without one."""

    model_mamba_layers: bool = False
    """The model's ``config.json`` lists a ``"mamba"`` layer in its ``layer_types``: SGLang
    runs ``GraniteMoeHybridForCausalLM`` as a hybrid Mamba model only then (its
    ``_handle_model_specific_adjustments`` branch, or the architecture's override in the newer
    releases, reads ``hf_config.layer_types``). Unset: read with the model's config; no such
    layer without one."""

    vision_num_layers: PositiveInt | None = None
    """Layers of the model's vision encoder (``vision_config.num_hidden_layers``); SGLang's
    memory heuristic for a multimodal model reads it. Unset: read with the model's config
    (SGLang takes 24 when the config has none)."""

    vision_hidden_size: PositiveInt | None = None
    """Hidden size of the model's vision encoder (``vision_config.hidden_size``); read as
    ``vision_num_layers`` is (SGLang takes 1024 when the config has none)."""

    enable_deterministic_inference: bool = False
    """Deterministic inference mode."""

    enable_mis: bool = False
    """Multi-item scoring."""

    enable_unified_memory: bool = False
    """Unified memory pool (prefill capture is not wired for it)."""

    debug_tensor_dump_output_folder: str | None = None
    """Tensor dump folder; dumping needs eager execution."""

    enable_return_hidden_states: bool = False
    """Requests may ask for hidden states."""

    @field_validator("attention_backend", "prefill_attention_backend", "decode_attention_backend")
    @classmethod
    def _known_attention_backend(cls, value: str | None) -> str | None:
        return _check_attention_backend(value)


__all__ = ["ATTENTION_BACKENDS", "DeploymentFacts"]
