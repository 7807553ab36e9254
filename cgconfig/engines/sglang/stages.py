"""SGLang's stages: the hooks its rules and steps encode, in SGLang 0.5.23 ``python/sglang/srt/
arg_groups/pipeline.py:run_resolution_pipeline`` order (each named ``<module>.<function>``
after the hook that runs there), then ``check_server_args`` and the model runner at start-up
(the plug-in part ``stages``).

Stdlib only: the start-up path reads it to check the rule-pack cache.
"""

from __future__ import annotations

from typing import Any, Optional

from cgconfig.resolve.stages import RESOLVED

#: SGLang's memory hook: its sizing steps run at this stage, and the engine block's memory
#: heuristic reads the config as this stage leaves it.
SGLANG_MEMORY_HOOK = "memory_hook.handle_gpu_memory_settings"
#: SGLang's DeepEP alignment of the prefill sizes (before the memory defaults).
SGLANG_DEEPEP = "cuda_graph_hook.apply_deepep_adjustments"

#: SGLang 0.5.23, in ``run_resolution_pipeline`` order (the stages cgconfig's rules and steps
#: encode; hooks that touch nothing cgconfig models are left out).
SGLANG_STAGES: tuple[str, ...] = (
    "server_args.add_cli_args",                 # argparse: the flag's choices
    "mega_moe_hook.handle_mega_moe",
    "parallel_hook.validate_prefill_cp_platform",
    "model_config.ModelConfig",                 # the model's config, read with the model path
    "parallel_hook.handle_dwdp",
    "cuda_graph_hook.apply_cuda_graph_compatibility",
    SGLANG_DEEPEP,
    "cuda_graph_hook.apply_cuda_graph_disaggregation_roles",
    "cuda_graph_hook.handle_cuda_graph_config",  # the resolved config's final checks
    "platform_hook.handle_cpu_backends",
    "platform_hook.handle_npu_backends",
    "platform_hook.handle_mps_backends",
    "platform_hook.handle_xpu_backends",
    SGLANG_MEMORY_HOOK,
    "model_hook.handle_model_specific_adjustments",
    "attention_hook.handle_deterministic_inference",
    "attention_hook.handle_attention_backend_compatibility",
    "cuda_graph_hook.disable_prefill_cuda_graph_for_deepseek_trtllm_mla",
    "cuda_graph_hook.apply_glm5_prefill_cuda_graph_policy",  # SGLang main, after linear attn
    "attention_hook.handle_multi_item_scoring",
    "parallel_hook.handle_data_parallelism",
    "parallel_hook.handle_context_parallelism",
    "kv_shard_hook.handle_kv_cache_sharding",   # 0.5.22+, after the CP topology resolved
    "moe_hook.handle_a2a_moe",
    "speculative_hook.handle_speculative_decoding",
    "mega_moe_hook.validate_mega_moe_token_budget_for_model",
    "serving_hook.handle_environment_variables",
    "kv_cache_hook.handle_page_major_kv_layout",
    "kv_cache_hook.handle_unified_memory_pool",
    "serving_hook.handle_other_validations",
    "model_hook.handle_model_capability_adjustments",
    "validation_hook.check_server_args",        # Engine._launch_subprocesses, after resolve_once
    "runtime",                                  # the model runner's graph backends and capture
    RESOLVED,
)
STAGES = SGLANG_STAGES
assert len(set(STAGES)) == len(STAGES)


#: The ``derived.*`` paths SGLang's rules may read beyond the engine-neutral ones
#: (``cgconfig.derived.DERIVED_TYPES``), with their types: computed by
#: ``cgconfig.engines.sglang.derived`` (its plug-in part ``derived_types``).
DERIVED_TYPES: dict[str, Any] = {
    "memory_tier": str,
    "chunked_prefill_size": int,
    "chunked_prefill_source": str,
    "effective_chunked_prefill_size": int,
    "request_width": int,
    "attn_cp_layout_valid": bool,
    "prefill_cp_breakable_supported": bool,
    "sglang_attention_backend": str,
    "sglang_prefill_attention_backend": str,
    "sglang_decode_attention_backend": str,
    "sglang_page_size": int,
    "sglang_deterministic_backend_refused": bool,
    "sglang_deterministic_backends": str,
    "speculative_eagle_topk": Optional[int],  # noqa: UP045
    "sglang_moe_a2a_backend": str,
    "attn_dp_divides_tp": bool,
    "chunked_prefill_page_aligned": bool,
    "dcp_divides_tp": bool,
    "moe_dp_divides_tp": bool,
    "moe_dp_matches_attn_cp": bool,
    "sglang_context_length": Optional[int],  # noqa: UP045
    "deepep_v2_prefill_tokens": int,
    "deepep_v2_decode_max_bs": int,
    "deepep_v2_pool_bs": int,
    "kv_cache_sharding": bool,
}
