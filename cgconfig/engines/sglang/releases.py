"""What SGLang's CUDA-graph resolution does differently from one supported release to the next.

Each behaviour is a tuple of :class:`~cgconfig.engines.release_change.ReleaseChange` rows (the
one release-change format of every engine): release ranges ``[since, until)`` that do not
overlap, each with the value those releases use. A step asks
:func:`~cgconfig.engines.release_change.value_at` (or ``holds_in`` for a behaviour that is on or
off) with the release the line is answered for (``Draft.engine_version``); there is no default
release. A new release that changes a behaviour closes the open row (``until``) and adds one.
The releases themselves are named in :data:`cgconfig.line.versions.SUPPORTED`. Stdlib only.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.release_change import ReleaseChange

_MEMORY_HOOK = "python/sglang/srt/arg_groups/memory_hook.py:handle_gpu_memory_settings"


class TierValues(NamedTuple):
    """What one GPU-memory row of ``handle_gpu_memory_settings`` gives."""

    chunked_prefill_size: int
    """The chunked-prefill size when ``--chunked-prefill-size`` is unset."""
    decode_max_bs_tp_lt4: int
    """The default decode max_bs at a tensor-parallel size below 4."""
    decode_max_bs_tp_ge4: int
    """The default decode max_bs at a tensor-parallel size of 4 or more."""


class MlaPrefillDefault(NamedTuple):
    """How ``handle_gpu_memory_settings`` defaults an MLA model's prefill max_bs."""

    cap: int
    """The value, or with ``from_chunked`` the most it may be."""
    from_chunked: bool
    """Whether it is ``min(cap, chunked_prefill_size)`` rather than ``cap`` itself."""


#: GPU-memory tiers (upper bound in GiB, exclusive) → the rows of what that tier gives, by
#: release. ``grid.memory_tier`` names each tier and walks them in this order.
GPU_MEMORY_TIERS: dict[float, tuple[ReleaseChange, ...]] = {
    20: (ReleaseChange(None, None, "< 20 GiB: chunked prefill 2048, decode max_bs 8",
                       _MEMORY_HOOK, TierValues(2048, 8, 8)),),
    35: (ReleaseChange(None, "0.5.20", "20-35 GiB: chunked prefill 2048, decode max_bs 24 "
                       "(tp < 4) / 80", _MEMORY_HOOK, TierValues(2048, 24, 80)),
         ReleaseChange("0.5.20", None, "20-35 GiB doubled: chunked prefill 4096, decode max_bs "
                       "48 (tp < 4) / 160", _MEMORY_HOOK, TierValues(4096, 48, 160))),
    60: (ReleaseChange(None, None, "35-60 GiB: chunked prefill 4096, decode max_bs 32 (tp < 4) "
                       "/ 160", _MEMORY_HOOK, TierValues(4096, 32, 160)),),
    160: (ReleaseChange(None, None, "60-160 GiB: chunked prefill 8192, decode max_bs 256 "
                        "(tp < 4) / 512", _MEMORY_HOOK, TierValues(8192, 256, 512)),),
    float("inf"): (ReleaseChange(None, None, ">= 160 GiB: chunked prefill 16384, decode max_bs "
                                 "512", _MEMORY_HOOK, TierValues(16384, 512, 512)),),
}

#: An MLA model's default prefill max_bs.
MLA_PREFILL_MAX_BS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.23", "MLA models' default prefill max_bs is 2048", _MEMORY_HOOK,
                  MlaPrefillDefault(2048, from_chunked=False)),
    ReleaseChange("0.5.23", None, "MLA models' default prefill max_bs is min(8192, chunked "
                  "prefill size)", _MEMORY_HOOK, MlaPrefillDefault(8192, from_chunked=True)),
)

#: A defaulted decode max_bs is clamped to ``--max-running-requests``.
DECODE_MAX_BS_RUNNING_CLAMP: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.22", None, "a defaulted decode max_bs is clamped to "
                  "--max-running-requests", _MEMORY_HOOK),
)

#: Qwen3-VL's defaulted decode max_bs is raised to the running limit on a large Hopper GPU.
QWEN3_VL_RUNNING_LIMIT: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.20", None, "Qwen3-VL's decode max_bs is expanded to the running limit",
                  "python/sglang/srt/arg_groups/model_overrides/qwen3_vl.py:"
                  "expand_multimodal_decode_graph_to_running_limit"),
)

#: Muse Glimmer models get a prefill max_bs of 512 as if ``--cuda-graph-max-bs-prefill`` were
#: given (``flag_defaults.engine_flag_leaves``). SGLang 0.5.17's ``server_args.py`` has no such
#: step (measured: its memory tier's prefill max_bs stands, 8192 at 80 GiB).
MUSE_GLIMMER_PREFILL_DEFAULT: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.18", None, "Muse Glimmer models get --cuda-graph-max-bs-prefill 512 "
                  "before the memory tier is read",
                  "python/sglang/srt/server_args.py:"
                  "ServerArgs._apply_muse_glimmer_prefill_cuda_graph_max_bs_default"),
)

#: The prefill max_bs (defaulted or given) is clamped to an explicit ``--context-length``
#: before the prefill sizes are generated. SGLang 0.5.17 dropped the clamp (measured: 0.5.16
#: ``--context-length 2048`` plans prefill max_bs 2048, 0.5.17 keeps the chunked size); 0.5.13
#: added it (0.5.12's ``_handle_gpu_memory_settings`` has no such step).
PREFILL_CONTEXT_LENGTH_CLAMP: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.13", "0.5.17", "an explicit --context-length caps the prefill max_bs",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_gpu_memory_settings "
                  "('Clamp to context_length if explicitly set')"),
)

#: A PD prefill instance sets the legacy ``disable_cuda_graph`` switch before the CUDA-graph
#: config is parsed, so both phases are disabled and locked at the legacy layer (an explicit
#: per-phase backend still wins), and a PD decode instance keeps its prefill graph. SGLang
#: 0.5.16 replaced it with ``_apply_cuda_graph_disaggregation_roles`` (rules ``role.*``).
#: SGLang 0.5.12 (value ``"when-piecewise-disabled"``) sets it only when the piecewise graph is
#: already off as ``_handle_pd_disaggregation`` runs, which is before ``__post_init__`` reaches
#: ``_handle_piecewise_cuda_graph``: so only for ``--disable-piecewise-cuda-graph``, and the
#: decode graph only (its ``disable_cuda_graph`` is decode only: ``LEGACY_GRAPH_SWITCHES``; the
#: prefill graph is the cascade's, rule ``piecewise.incompatible-before-0.5.13``).
#: SGLang 0.5.8 and 0.5.9 (value ``"unless-piecewise-enabled"``) read the opt-in switch as given
#: (:data:`PREFILL_OPT_IN`): a PD prefill instance loses its decode graph unless
#: ``--enable-piecewise-cuda-graph``.
#: SGLang 0.5.10 (value ``"unless-piecewise-enforced"``) runs ``_handle_pd_disaggregation`` after
#: ``_handle_piecewise_cuda_graph``, whose cascade has already turned the piecewise graph off for
#: every PD instance, so a PD prefill instance loses its decode graph unless
#: ``--enforce-piecewise-cuda-graph`` kept the piecewise graph on.
PD_PREFILL_LEGACY_DISABLE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.10", "a PD prefill instance sets disable_cuda_graph (the decode "
                  "graph) unless --enable-piecewise-cuda-graph is given",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_pd_disaggregation ('if "
                  "not self.enable_piecewise_cuda_graph: self.disable_cuda_graph = True')",
                  "unless-piecewise-enabled"),
    ReleaseChange("0.5.10", "0.5.11", "a PD prefill instance sets disable_cuda_graph (the decode "
                  "graph) unless --enforce-piecewise-cuda-graph is given",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_pd_disaggregation "
                  "('if self.disable_piecewise_cuda_graph: self.disable_cuda_graph = True'), "
                  "called by ServerArgs.__post_init__ after _handle_piecewise_cuda_graph "
                  "('14. PD disaggregation')", "unless-piecewise-enforced"),
    ReleaseChange("0.5.11", "0.5.13", "a PD prefill instance sets disable_cuda_graph (the decode "
                  "graph) only when --disable-piecewise-cuda-graph is given",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_pd_disaggregation "
                  "('if self.disable_piecewise_cuda_graph: self.disable_cuda_graph = True'), "
                  "called by ServerArgs.__post_init__ before _handle_piecewise_cuda_graph",
                  "when-piecewise-disabled"),
    ReleaseChange("0.5.13", "0.5.16", "a PD prefill instance sets disable_cuda_graph (both "
                  "phases disabled at the legacy layer); a PD decode instance keeps prefill",
                  "python/sglang/srt/arg_groups/pd_disaggregation_hook.py:"
                  "handle_pd_disaggregation ('server_args.disable_cuda_graph = True'), read by "
                  "server_args.py:ServerArgs._parse_cuda_graph_config", "always"),
)

#: DeepEP with breakable prefill rounds the prefill sizes up to multiples of 8
#: (``cgconfig.engines.sglang.cuda_graph_hook.align_deepep_prefill``, rule
#: ``feature.deepep-prefill-align-8``). SGLang 0.5.16's ``server_args.py`` has no such step
#: (measured on 0.5.15: ``--moe-a2a-backend deepep --enable-breakable-cuda-graph`` keeps 4, 12, 20).
DEEPEP_PREFILL_ALIGN: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.17", None, "DeepEP breakable prefill sizes are rounded up to multiples "
                  "of 8", "python/sglang/srt/server_args.py:ServerArgs._apply_deepep_adjustments"),
)

#: The default prefill backend is ``tc_piecewise`` (torch.compile piecewise graphs), decided by
#: ``_disable_tc_piecewise_cudagraph_if_incompatible``'s rules (rule
#: ``piecewise.tc-piecewise-incompatible-before-0.5.15``); SGLang 0.5.15 defaults to breakable.
PREFILL_DEFAULT_TC_PIECEWISE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", "0.5.15", "the default prefill backend is tc_piecewise",
                  "python/sglang/srt/model_executor/cuda_graph_config.py:CudaGraphConfig "
                  "(prefill PhaseConfig(backend=Backend.TC_PIECEWISE))"),
)

#: The piecewise prefill graph is opt-in: ``ServerArgs.enable_piecewise_cuda_graph`` (default
#: False, ``--enable-piecewise-cuda-graph``) is the only switch, and no ``ServerArgs`` step turns
#: it off; the scheduler's ``ModelRunner.init_piecewise_cuda_graphs`` captures only when it is
#: set and ``ModelRunner.can_run_piecewise_cuda_graph`` holds (rule
#: ``piecewise.runner-incompatible-before-0.5.10``). SGLang 0.5.9 keeps it (the same field, no
#: ``disable_piecewise_cuda_graph``); 0.5.10 turns it on by default
#: (:data:`PREFILL_DEFAULT_TC_PIECEWISE`, ``--disable-piecewise-cuda-graph``).
PREFILL_OPT_IN: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.10", "the piecewise prefill graph is captured only with "
                  "--enable-piecewise-cuda-graph",
                  "python/sglang/srt/server_args.py:ServerArgs.enable_piecewise_cuda_graph "
                  "(default False); model_executor/model_runner.py:"
                  "ModelRunner.init_piecewise_cuda_graphs ('if not "
                  "self.server_args.enable_piecewise_cuda_graph or not "
                  "self.can_run_piecewise_cuda_graph(): return')"),
)

#: ``_generate_cuda_graph_batch_sizes`` appends an off-grid decode max_bs to the generated list
#: (``if self.cuda_graph_max_bs not in capture_bs: capture_bs.append(...)``). SGLang 0.5.8 and
#: 0.5.9 have no such step: ``--cuda-graph-max-bs 300`` ends at 288.
DECODE_MAX_BS_APPENDED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", None, "an off-grid decode max_bs is appended to the generated list",
                  "python/sglang/srt/server_args.py:ServerArgs._generate_cuda_graph_batch_sizes "
                  "('if self.cuda_graph_max_bs not in capture_bs')"),
)

#: ``_generate_piecewise_cuda_graph_tokens``' 64-step range starts at 576
#: (``range(576, 1024 + 1, 64)``); SGLang 0.5.8's starts at 640 (``range(640, 1024 + 1, 64)``).
PREFILL_GRID_HAS_576: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.9", None, "the prefill token grid's 64-step range starts at 576",
                  "python/sglang/srt/server_args.py:"
                  "ServerArgs._generate_piecewise_cuda_graph_tokens ('range(576, 1024 + 1, 64)')"),
)

#: A defaulted prefill max_bs is capped by ``--max-total-tokens`` and, for a model path
#: containing ``llama-2``, at 4096 (``_handle_gpu_memory_settings``). SGLang 0.5.8 and 0.5.9
#: have neither cap (their default is the chunked-prefill size, MLA 2048).
PREFILL_TOKEN_CAPS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", None, "a defaulted prefill max_bs is capped by --max-total-tokens "
                  "and at 4096 for a llama-2 model path",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_gpu_memory_settings "
                  "('If max_total_tokens is set, cap pcg tokens', 'For Llama2 series models')"),
)

#: On ``--device cpu`` the decode sizes come from ``torch_compile_max_bs`` (the CPU grid,
#: ``_generate_cpu_graph_batch_sizes``). SGLang 0.5.8 and 0.5.9 have no CPU branch: the decode
#: grid up to ``cuda_graph_max_bs``, as on a GPU.
CPU_DECODE_FROM_TORCH_COMPILE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", None, "on CPU the decode sizes come from torch_compile_max_bs",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_gpu_memory_settings "
                  "('if self.device != \"cpu\"', _generate_cpu_graph_batch_sizes)"),
)

#: The decode runner's filter rounds the request pool up to the capture alignment before it
#: appends and filters by it (``num_max_requests = (num_max_requests + mul_base - 1) //
#: mul_base * mul_base``); SGLang 0.5.8 and 0.5.9 use ``req_to_token_pool.size`` as it is.
RUNNER_POOL_ALIGNED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", None, "the decode runner rounds the request pool up to the capture "
                  "alignment", "python/sglang/srt/model_executor/cuda_graph_runner.py:"
                  "get_batch_sizes_to_capture ('pad `num_max_requests` to avoid being filtered "
                  "out')"),
)

#: The request pool (``req_to_token_pool.size``) the decode runner's filter caps the capture
#: list at, under DP attention: from 0.5.10 each attention-DP worker sizes its pool from its
#: share of ``--max-running-requests`` (``max_running_requests // dp_size``, the attention-DP
#: size; 0.5.16 on in ``KVCacheConfigurator.resolve_max_num_reqs``); SGLang 0.5.8 and 0.5.9 size
#: every worker's pool from the whole ``--max-running-requests``
#: (``ModelRunnerKVCacheMixin.init_memory_pool``: ``max_num_reqs =
#: server_args.max_running_requests``). Every release's scheduler runs only the worker's share
#: (0.5.8/0.5.9: ``ModelRunner.initialize``, ``max_running_requests // dp_size``). Measured with
#: each release's own function (oracle extension ``request-pool.patch``, corpus
#: ``tests/fidelity/sglang_request_pool.jsonl``: 0.5.8, 0.5.10-0.5.12, 0.5.17, 0.5.19, 0.5.23).
REQUEST_POOL_PER_ATTN_DP_WORKER: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.10", None, "under DP attention each worker's request pool is its share of "
                  "--max-running-requests", "python/sglang/srt/model_executor/"
                  "model_runner_kv_cache_mixin.py:ModelRunnerKVCacheMixin._resolve_max_num_reqs "
                  "('max_num_reqs // self.dp_size')"),
)

#: A share below 1 (``--max-running-requests`` below the attention-DP size): SGLang 0.5.23 takes
#: it as 1 (``KVCacheConfigurator.resolve_max_num_reqs``: ``max(1, max_num_reqs //
#: self.attn_dp_size)``); 0.5.10 to 0.5.22 size the pool 0 (``max_num_reqs // dp_size``, read in
#: the 0.5.10-0.5.22 wheels), and the decode runner's filter stops at start-up on it
#: (``get_batch_sizes_to_capture``: ``capture_bs=[0]``; measured on 0.5.10-0.5.12, 0.5.17, 0.5.19).
REQUEST_POOL_SHARE_AT_LEAST_ONE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.23", None, "a worker's request-pool share below 1 is taken as 1",
                  "python/sglang/srt/mem_cache/kv_cache_configurator.py:"
                  "KVCacheConfigurator.resolve_max_num_reqs ('max(1, max_num_reqs // "
                  "self.attn_dp_size)')"),
)

#: SGLang 0.5.13, the last release before the unified ``cuda_graph_config``, reads its own graph
#: switches in ``ServerArgs.__post_init__`` (source ``_fold_legacy_graph_switches``):
#: ``--disable-cuda-graph`` turns the decode graph off only (the piecewise prefill graph is
#: ``disable_piecewise_cuda_graph``'s, ``ModelRunner.init_piecewise_cuda_graphs``);
#: ``--enable-breakable-cuda-graph`` picks the prefill runner without exempting it from the
#: auto-disable cascade (rule ``piecewise.incompatible-before-0.5.14``) and loses to
#: ``--disable-piecewise-cuda-graph`` in any order; ``--enforce-piecewise-cuda-graph`` turns the
#: prefill graph on (over ``--disable-piecewise-cuda-graph``) and skips the cascade. 0.5.14
#: parses them as ``cuda_graph_config`` aliases (``_parse_cuda_graph_config``).
LEGACY_GRAPH_SWITCHES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.14", "the legacy graph switches: --disable-cuda-graph is decode "
                  "only; --enable-breakable-cuda-graph picks the runner, unlocked; "
                  "--disable-piecewise-cuda-graph wins over it; --enforce-piecewise-cuda-graph "
                  "turns prefill on and skips the cascade",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_piecewise_cuda_graph "
                  "('if self.enforce_piecewise_cuda_graph: ... return'); "
                  "model_executor/model_runner.py:ModelRunner.init_piecewise_cuda_graphs "
                  "(disable_piecewise_cuda_graph only; BreakableCudaGraphRunner when "
                  "enable_breakable_cuda_graph)"),
)

#: ``ServerArgs._cuda_graph_config_locked``: the ``(phase, key)`` pairs a user set, which the
#: auto-disable cascade respects. SGLang 0.5.13 has no such set (nothing to compare a plan's
#: locked keys with: ``tests/fidelity/compare.py``).
CUDA_GRAPH_CONFIG_LOCKS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.14", None, "the engine records the cuda_graph_config keys a user set",
                  "python/sglang/srt/server_args.py:ServerArgs._parse_cuda_graph_config "
                  "(self._cuda_graph_config_locked)"),
)

#: SGLang 0.5.13's Mamba scheduler strategy ``auto`` is always ``no_buffer``
#: (``ServerArgs._handle_missing_default_values``): the extra_buffer platform refusals
#: (``refuse.mamba-extra-buffer-cpu``, ``-xpu-before-0.5.18``) hold from 0.5.14, and 0.5.13
#: refuses speculative decoding beside the radix cache of a Mamba-hybrid model (rule
#: ``refuse.mamba-no-buffer-speculative-before-0.5.14``).
MAMBA_AUTO_NO_BUFFER: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.14", "mamba_scheduler_strategy auto resolves to no_buffer",
                  "python/sglang/srt/server_args.py:ServerArgs._handle_missing_default_values "
                  "('if self.mamba_scheduler_strategy == \"auto\": ... = \"no_buffer\"')"),
)

#: FA4's page size 128 (non-MLA, SM100) is forced only by ``--prefill-attention-backend fa4``
#: (``ServerArgs._handle_attention_backend_compatibility``: ``if self.prefill_attention_backend
#: == "fa4" and not self.use_mla_backend() and is_sm100_supported()``), with no EAGLE-topk
#: exception; ``--attention-backend fa4`` alone keeps the page size (measured with the oracle on
#: 0.5.13 and 0.5.14: ``--attention-backend fa4 --chunked-prefill-size 1000`` on SM100 starts).
#: 0.5.18's ``overrides.py:_fa4_page_constraint`` reads every phase's backend; 0.5.15-0.5.17
#: are not re-read here and keep the newer rule.
FA4_PAGE_PREFILL_FLAG_ONLY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.15", "FA4's page size 128 comes from --prefill-attention-backend "
                  "fa4 only", "python/sglang/srt/server_args.py:"
                  "ServerArgs._handle_attention_backend_compatibility ('FA4 backend only "
                  "supports page size 128 for non-MLA model architectures')"),
)

#: Intel XPU's page size is forced only by ``--attention-backend intel_xpu`` (``if
#: self.attention_backend == "intel_xpu": if self.page_size not in [32, 64, 128]``); SGLang 0.5.11
#: reads the decode backend instead (MLA: 16, 32, 64, 128; else 64, 128). The same in 0.5.8, 0.5.9
#: and 0.5.10 (measured on 0.5.8: ``--decode-attention-backend intel_xpu --chunked-prefill-size
#: 2500`` keeps page size 1 and starts).
INTEL_XPU_PAGE_ATTENTION_ONLY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.5.11", "Intel XPU's page size 128 comes from --attention-backend "
                  "intel_xpu only, for pages other than 32, 64, 128",
                  "python/sglang/srt/server_args.py:"
                  "ServerArgs._handle_attention_backend_compatibility ('Intel XPU attention "
                  "backend only supports page_size of 32, 64 or 128')"),
)

#: From SGLang 0.5.11 to 0.5.19 Intel XPU's page size is forced by the decode backend only
#: (``ServerArgs._handle_attention_backend_compatibility``, from 0.5.15
#: ``arg_groups/overrides.py:_intel_xpu_page_constraint``: ``_, decode_backend =
#: get_attention_backends(); if decode_backend == "intel_xpu"``; MLA 16, 32, 64, 128, else 64,
#: 128); 0.5.20 reads both phases (``if "intel_xpu" in (prefill_backend, decode_backend)``).
#: Found by the third held-out batch of 0.5.11 (case 220: ``--prefill-attention-backend
#: intel_xpu --chunked-prefill-size 2500`` keeps page size 1 and starts; measured on 0.5.11,
#: 0.5.12 and 0.5.19, where ``--decode-attention-backend intel_xpu`` gives page size 128 and
#: refuses 2500; 0.5.20 refuses both).
INTEL_XPU_PAGE_DECODE_ONLY: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.11", "0.5.20", "Intel XPU's page size 128 comes from the decode backend "
                  "intel_xpu only (--decode-attention-backend, else --attention-backend)",
                  "python/sglang/srt/server_args.py:"
                  "ServerArgs._handle_attention_backend_compatibility ('if decode_backend == "
                  "\"intel_xpu\"')"),
)

#: Before SGLang 0.5.17 TensorRT-LLM MHA keeps only the page sizes 16, 32 and 64 (``if
#: self.page_size not in [16, 32, 64]``: 128 becomes 64 too); 0.5.17's
#: ``arg_groups/overrides.py`` adds 128 (trtllm-gen's dynamic tokens-per-page kernels). Read in
#: 0.5.8 and 0.5.10-0.5.16; measured on 0.5.10, 0.5.11 and 0.5.12 (``--attention-backend
#: trtllm_mha --page-size 128 --chunked-prefill-size 8256`` on SM100 runs with page size 64)
#: and on 0.5.17 and 0.5.19 (page size 128 kept: 8256 tokens refused).
TRTLLM_MHA_PAGE_128: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.5.17", None, "TensorRT-LLM MHA keeps a page size of 128",
                  "python/sglang/srt/arg_groups/overrides.py ('TensorRT-LLM MHA only supports "
                  "page_size of 16, 32, 64 or 128')"),
)

#: Every behaviour above by name (what the tests walk, and docs/fidelity.md lists).
BEHAVIOURS: dict[str, tuple[ReleaseChange, ...]] = {
    **{f"memory-tier-below-{bound:g}-gib": rows for bound, rows in GPU_MEMORY_TIERS.items()},
    "mla-prefill-max-bs": MLA_PREFILL_MAX_BS,
    "decode-max-bs-running-clamp": DECODE_MAX_BS_RUNNING_CLAMP,
    "qwen3-vl-running-limit": QWEN3_VL_RUNNING_LIMIT,
    "muse-glimmer-prefill-default": MUSE_GLIMMER_PREFILL_DEFAULT,
    "prefill-context-length-clamp": PREFILL_CONTEXT_LENGTH_CLAMP,
    "pd-prefill-legacy-disable": PD_PREFILL_LEGACY_DISABLE,
    "deepep-prefill-align": DEEPEP_PREFILL_ALIGN,
    "prefill-default-tc-piecewise": PREFILL_DEFAULT_TC_PIECEWISE,
    "prefill-opt-in": PREFILL_OPT_IN,
    "decode-max-bs-appended": DECODE_MAX_BS_APPENDED,
    "prefill-grid-has-576": PREFILL_GRID_HAS_576,
    "prefill-token-caps": PREFILL_TOKEN_CAPS,
    "cpu-decode-from-torch-compile": CPU_DECODE_FROM_TORCH_COMPILE,
    "runner-pool-aligned": RUNNER_POOL_ALIGNED,
    "request-pool-per-attn-dp-worker": REQUEST_POOL_PER_ATTN_DP_WORKER,
    "request-pool-share-at-least-one": REQUEST_POOL_SHARE_AT_LEAST_ONE,
    "legacy-graph-switches": LEGACY_GRAPH_SWITCHES,
    "cuda-graph-config-locks": CUDA_GRAPH_CONFIG_LOCKS,
    "mamba-auto-no-buffer": MAMBA_AUTO_NO_BUFFER,
    "fa4-page-prefill-flag-only": FA4_PAGE_PREFILL_FLAG_ONLY,
    "intel-xpu-page-decode-only": INTEL_XPU_PAGE_DECODE_ONLY,
    "trtllm-mha-page-128": TRTLLM_MHA_PAGE_128,
    "intel-xpu-page-attention-only": INTEL_XPU_PAGE_ATTENTION_ONLY,
}
