"""What vLLM's capture-size and scheduler defaults did differently below 0.20, as rows of the one
release-change format (:mod:`cgconfig.engines.release_change`).

Each behaviour is a tuple of :class:`ReleaseChange` rows read with ``holds_in`` / ``value_at``
and the release a line is answered for. Read from each release's own wheel
(``vllm/config/vllm.py``, ``vllm/engine/arg_utils.py``, ``vllm/config/scheduler.py``,
``vllm/v1/worker/gpu_model_runner.py``); the 0.20-0.33 behaviours live in :mod:`.releases`.
Standard library only (the start-up path imports it).
"""

from __future__ import annotations

from cgconfig.engines.release_change import ReleaseChange, holds_in

#: ``max_num_batched_tokens`` gets its own graph when it is at most the ceiling.
MAX_NUM_BATCHED_TOKENS_SIZE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.20.0", None,
                  "the default grid also captures max_num_batched_tokens when it is at most "
                  "max_cudagraph_capture_size (off-stride budgets get a graph; before: the "
                  "grid alone)",
                  "config/vllm.py VllmConfig._set_cudagraph_sizes "
                  "(\"ensure max_num_tokens is captured if within max capture size\")"),
)

#: DeepEP low-latency / nixl_ep with expert parallelism and DP > 1 default the token budget to
#: ``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP`` (256).
BATCHED_DP_TOKEN_BUDGET: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.20.0", None,
                  "a batched-DP MoE line (ParallelConfig.use_batched_dp_moe) defaults "
                  "max_num_batched_tokens to 256 (before: the GPU-memory default)",
                  "engine/arg_utils.py EngineArgs._set_default_max_num_seqs_and_"
                  "batched_tokens_args; config/scheduler.py DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_"
                  "BATCHED_DP"),
)

#: Which full-decode modes round the capture sizes to multiples of 1 + num_speculative_tokens
#: (V1 runner, q > 1): before 0.20 only the modes with a separate decode routine
#: (FULL_AND_PIECEWISE, FULL_DECODE_ONLY); from 0.20 any mode whose decode graphs are FULL
#: (plain FULL too).
SPEC_ROUNDING_PLAIN_FULL: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.20.0", None,
                  "speculative decoding rounds the capture sizes for every mode with FULL "
                  "decode graphs, plain FULL included (before: only FULL_AND_PIECEWISE and "
                  "FULL_DECODE_ONLY, `cudagraph_mode.separate_routine()`)",
                  "config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes "
                  "(before: v1/worker/gpu_model_runner.py GPUModelRunner._check_and_update_"
                  "cudagraph_mode)"),
)

# --- vLLM 0.12.0 (issue #37, helper v012): read in the 0.12.0 and 0.13.0 wheels ---
#: The default ceiling counts the speculative tokens, ``min(max_num_seqs · (1 + k) · 2, 512)``;
#: 0.12.0's is ``min(max_num_seqs · 2, 512)`` whatever the speculation.
CEILING_COUNTS_SPEC_TOKENS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.13.0", None,
                  "the default capture ceiling is min(max_num_seqs·(1 + num_speculative_tokens)"
                  "·2, 512) (before: min(max_num_seqs·2, 512))",
                  "config/vllm.py VllmConfig._set_cudagraph_sizes (decode_query_len)"),
)
# --- end vLLM 0.12.0 ---


# --- vLLM 0.10.2 (issue #37, helper v0102): read in the 0.10.2 and 0.11.2 wheels ---
#: The V1 grid comes from ``SchedulerConfig.cuda_graph_sizes`` (``--cuda-graph-sizes``, unset:
#: ``[min(2·max_num_seqs, 512)]``): one value N is ``[1, 2, 4] + range(8, N + 1, 8)`` (step 8
#: all the way), several are taken sorted, then capped by ``max_num_batched_tokens``; it is
#: computed whatever the mode (``--enforce-eager`` alone empties it). An explicit
#: ``compilation_config.cudagraph_capture_sizes`` replaces it, de-duplicated and **not** capped
#: (``CompilationConfig.init_with_cudagraph_sizes``), and ``max_capture_size`` is the largest
#: size. From 0.11.2: the step-16 grid up to ``max_cudagraph_capture_size``, empty under NONE.
SCHEDULER_GRAPH_SIZES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2",
                  "the capture sizes come from SchedulerConfig.cuda_graph_sizes (one value N: "
                  "1, 2, 4 and every multiple of 8 up to N; several: as given), capped by "
                  "max_num_batched_tokens, whatever the mode; explicit compilation-config "
                  "sizes replace them uncapped",
                  "vllm/config/__init__.py VllmConfig._set_cudagraph_sizes, "
                  "vllm/config/scheduler.py SchedulerConfig.__post_init__, "
                  "vllm/config/compilation.py CompilationConfig.init_with_cudagraph_sizes"),
)
# --- end vLLM 0.10.2 ---


def scheduler_sizes(release: str) -> bool:
    """Whether ``release`` builds its grid from ``SchedulerConfig.cuda_graph_sizes``."""
    return holds_in(SCHEDULER_GRAPH_SIZES, release)


def ceiling_query_len(release: str, q: int) -> int:
    """The decode query length ``release``'s default ceiling multiplies ``max_num_seqs`` by."""
    return q if holds_in(CEILING_COUNTS_SPEC_TOKENS, release) else 1


def rounds_plain_full(release: str) -> bool:
    """Whether ``release`` rounds the sizes for speculative decoding under plain FULL."""
    return holds_in(SPEC_ROUNDING_PLAIN_FULL, release)


def captures_token_budget(release: str) -> bool:
    """Whether ``release``'s default grid captures ``max_num_batched_tokens`` itself."""
    return holds_in(MAX_NUM_BATCHED_TOKENS_SIZE, release)


def batched_dp_token_budget(release: str) -> bool:
    """Whether ``release`` defaults a batched-DP MoE line to 256 batched tokens."""
    return holds_in(BATCHED_DP_TOKEN_BUDGET, release)
