"""What vLLM 0.11.2 did differently from 0.12.0, and 0.10.2 from 0.11.2, with its compilation
config, its ``-O`` flag and its model runner, as rows of the one release-change format
(:mod:`cgconfig.engines.release_change`), read in the 0.11.2 and 0.12.0 wheels
(``vllm/utils/argparse_utils.py``, ``vllm/config/vllm.py``, ``vllm/config/compilation.py``,
``vllm/v1/worker/gpu_worker.py``); :mod:`.releases` lists them in ``BEHAVIOURS`` with the
others. Standard library only (the start-up path imports it).
"""

from __future__ import annotations

from cgconfig.engines.release_change import ReleaseChange, holds_in
from cgconfig.engines.vllm.attention import (
    FA3_FULL_GRAPH_CAP,
    FLEX_NO_SLIDING_WINDOW,
    TRITON_MLA_FP8_LAYER_REFUSED,
)
from cgconfig.engines.vllm.v0_engine import V0_DECODE_SIZES, V0_FALLBACK

_VLLM_CONFIG = "vllm/config/vllm.py"

# --- vLLM 0.11.2 (issue #37, helper v011): behaviours read in the 0.11.2 and 0.12.0 wheels ---
#: ``-O<n>`` / ``--optimization-level`` is ``VllmConfig.optimization_level`` (-O0 NONE/NONE,
#: -O1 VLLM_COMPILE/PIECEWISE, -O2/-O3 VLLM_COMPILE/FULL_AND_PIECEWISE). Before, ``-O`` is a
#: spelling of ``--compilation-config``: ``FlexibleArgumentParser.parse_args`` rewrites ``-O3``
#: to ``-O.mode=3`` (the compilation mode, 3 = VLLM_COMPILE), and an unset ``cudagraph_mode``
#: is FULL_AND_PIECEWISE under VLLM_COMPILE, NONE under any other mode.
OPTIMIZATION_LEVELS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "-O<n> is the optimization level (before: -O is "
                  "--compilation-config, -O<n> its mode key, the default cudagraph_mode "
                  "FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE)",
                  "vllm/utils/argparse_utils.py:FlexibleArgumentParser.parse_args, "
                  f"{_VLLM_CONFIG}:VllmConfig.optimization_level"),
)
#: ``-O.KEY=VALUE`` / ``-O.KEY VALUE`` is a compilation-config key: in 0.12.0
#: ``FlexibleArgumentParser.parse_args`` skips ``-O`` followed by ``.`` when it reads
#: ``-O<n>`` as the level and rewrites ``-O.KEY`` to ``-cc.KEY`` (with a deprecation warning,
#: "will be removed in v0.13.0"); in 0.11.2 ``-O`` is ``--compilation-config`` itself. From
#: 0.13.0 every ``-O<rest>`` is ``--optimization-level <rest>`` (``-O.mode=0`` is refused by
#: ``VllmConfig``: "Input should be 0, 1, 2 or 3"; oracle-measured, tests/fidelity/
#: test_vllm_0_12.py).
DOTTED_O_IS_COMPILATION_CONFIG: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.13.0", "-O.KEY is the compilation-config key KEY (rewritten to "
                  "-cc.KEY; after: -O.KEY is the optimization level '.KEY', refused)",
                  "vllm/utils/argparse_utils.py:FlexibleArgumentParser.parse_args"),
)
#: ``compilation_config.level`` is the deprecated spelling of ``mode``:
#: ``CompilationConfig.__post_init__`` sets ``mode = level`` when ``mode`` is unset (``mode``
#: wins when both are given). The field is in the 0.11.2 … 0.17.1 wheels and gone from 0.18.1
#: (whose ``extra="forbid"`` then refuses the key: "Unexpected keyword argument").
COMPILATION_LEVEL_KEY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.18.1", "compilation_config.level is mode's deprecated spelling "
                  "(mode = level when mode is unset)",
                  "vllm/config/compilation.py:CompilationConfig.__post_init__"),
)
#: A cudagraph_mode with piecewise graphs without VLLM_COMPILE is refused by the final check
#: of ``VllmConfig.__post_init__`` ("Compilation mode should be CompilationMode.VLLM_COMPILE
#: when cudagraph_mode piecewise cudagraphs is used"); from 0.12.0 it is overridden to NONE.
PIECEWISE_WITHOUT_COMPILE_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.12.0", "a piecewise cudagraph_mode without VLLM_COMPILE is refused",
                  f"{_VLLM_CONFIG}:VllmConfig.__post_init__ (final check of cudagraph mode)"),
)
#: When no capture size is left after the spec-decode rounding, ``[1 + k]`` if it fits under
#: the maximum, else a refusal ("No valid cudagraph sizes after rounding"); before, a warning
#: and the sizes are kept unrounded.
SPEC_ROUNDING_EMPTY_HANDLED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "no size left after the spec-decode rounding: [1 + k] or a "
                  "refusal (before: a warning, the sizes kept)",
                  "vllm/config/compilation.py:CompilationConfig."
                  "adjust_cudagraph_sizes_for_spec_decode"),
)
#: ``VLLM_USE_V2_MODEL_RUNNER=1`` builds Model Runner V2 (``v1/worker/gpu/model_runner.py``);
#: 0.11.2 has no such runner and its ``vllm/envs.py`` no such variable (the V1 runner runs).
MODEL_RUNNER_V2_EXISTS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", None, "VLLM_USE_V2_MODEL_RUNNER=1 builds Model Runner V2",
                  "vllm/v1/worker/gpu_worker.py:Worker.init_device"),
)
#: The ``pass_config`` key of the attention + quant fusion pass, whose splitting ops
#: ``CompilationConfig.set_splitting_ops_for_attn_fusion`` empties.
ATTN_FUSION_KEY: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.12.0", "pass_config.enable_attn_fusion fuses attention + quant",
                  "vllm/config/compilation.py:PassConfig.enable_attn_fusion",
                  "enable_attn_fusion"),
    ReleaseChange("0.12.0", None, "pass_config.fuse_attn_quant fuses attention + quant",
                  "vllm/config/compilation.py:PassConfig.fuse_attn_quant", "fuse_attn_quant"),
)
# --- end vLLM 0.11.2 ---

# --- vLLM 0.10.2 (issue #37, helper v0102): behaviours read in the 0.10.2 and 0.11.2 wheels ---
_COMPILATION = "vllm/config/compilation.py"
#: The compilation switch is ``CompilationConfig.mode`` (the ``CompilationMode`` enum); before,
#: ``CompilationConfig.level`` (an int, ``CompilationLevel.NO_COMPILATION`` = 0 …
#: ``PIECEWISE`` = 3, the numbers ``mode`` later kept) and no ``mode`` field: a ``mode`` key is
#: ignored (no ``extra="forbid"``) and ``FlexibleArgumentParser.parse_args``
#: (``vllm/utils/__init__.py``) rewrites ``-O<n>`` to ``-O.level=<n>``.
COMPILATION_MODE_FIELD: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.11.2", None, "compilation_config.mode is the compilation switch (before: "
                  "compilation_config.level, -O<n> its level key; a mode key is ignored)",
                  f"{_COMPILATION}:CompilationConfig.mode"),
)
#: ``use_cudagraph`` / ``full_cuda_graph`` are the deprecated switches of ``cudagraph_mode``:
#: ``CompilationConfig.__post_init__`` turns ``use_cudagraph=False`` into NONE and
#: ``full_cuda_graph=True`` into FULL, each refused next to a ``cudagraph_mode`` already set
#: ("... and cudagraph_mode are mutually exclusive ..."); 0.11.2 has neither field (ignored).
DEPRECATED_GRAPH_SWITCHES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "use_cudagraph=false sets cudagraph_mode NONE and "
                  "full_cuda_graph=true sets FULL (each refused with a cudagraph_mode)",
                  f"{_COMPILATION}:CompilationConfig.__post_init__"),
)
#: An unset ``cudagraph_mode`` is PIECEWISE on the V1 engine at level PIECEWISE, else NONE
#: (``VllmConfig.__post_init__``, ``vllm/config/__init__.py``); from 0.11.2 FULL_AND_PIECEWISE
#: under VLLM_COMPILE (:data:`OPTIMIZATION_LEVELS` says how 0.12.0 reads it).
DEFAULT_MODE_PIECEWISE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "the default cudagraph_mode is PIECEWISE at compilation level "
                  "PIECEWISE (V1 engine), else NONE",
                  "vllm/config/__init__.py:VllmConfig.__post_init__"),
)
#: ``max_cudagraph_capture_size`` is a compilation-config field (``-cc`` /
#: ``--max-cudagraph-capture-size``); before, ``CompilationConfig.max_capture_size`` is derived
#: from the sizes (the largest one) and the key is ignored.
MAX_CAPTURE_SIZE_FIELD: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.11.2", None, "max_cudagraph_capture_size is a user field (before: "
                  "max_capture_size, derived from the sizes)",
                  f"{_COMPILATION}:CompilationConfig.max_cudagraph_capture_size"),
)
#: The worker turns FULL decode graphs on a NEVER backend into PIECEWISE (attention split) or
#: NONE (``GPUModelRunner._check_and_update_cudagraph_mode``); before,
#: ``GPUModelRunner.initialize_cudagraph_capture`` keeps them and its final check refuses the
#: line ("... is not supported with ... (support:AttentionCGSupport.NEVER) ; please try
#: cudagraph_mode=PIECEWISE ...").
NEVER_DECODE_FALLBACK: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.11.2", None, "FULL decode graphs on a NEVER backend fall back to PIECEWISE "
                  "or NONE (before: refused)", "vllm/v1/worker/gpu_model_runner.py:"
                  "GPUModelRunner._check_and_update_cudagraph_mode"),
)
#: FULL decode graphs with speculative tokens round the capture sizes to multiples of 1 + k
#: (vllm#28207); before, the sizes stay as they are.
SPEC_DECODE_ROUNDING: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.11.2", None, "FULL decode graphs with speculative tokens round the capture "
                  "sizes to multiples of 1 + num_speculative_tokens (before: not rounded)",
                  "vllm/v1/worker/gpu_model_runner.py:GPUModelRunner."
                  "_check_and_update_cudagraph_mode"),
)
#: ``splitting_ops=[]`` at level PIECEWISE turns PIECEWISE into FULL (``set_splitting_ops_for_v1``:
#: "... Changing cudagraph_mode to FULL ..."), keeping FULL_AND_PIECEWISE, which
#: ``CudagraphDispatcher.__init__`` then refuses (it asserts the splitting ops contain
#: attention for a mode with piecewise graphs); from 0.11.2 PIECEWISE → NONE and
#: FULL_AND_PIECEWISE → FULL (:mod:`.splitting_ops`).
EMPTY_SPLIT_PIECEWISE_IS_FULL: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "splitting_ops=[] turns PIECEWISE into FULL and keeps "
                  "FULL_AND_PIECEWISE (refused by the dispatcher)",
                  f"{_COMPILATION}:CompilationConfig.set_splitting_ops_for_v1, "
                  "vllm/v1/cudagraph_dispatcher.py:CudagraphDispatcher.__init__"),
)
#: DeepEP high-throughput with DP > 1 turns a mode with full graphs into PIECEWISE
#: (``CudaPlatform.check_and_update_config``), the MoE ops joining the splitting ops; from 0.11.2
#: it turns the graphs off (``set_splitting_ops_for_v1``). The backend is
#: ``VLLM_ALL2ALL_BACKEND`` (no ``--all2all-backend``).
DEEPEP_HT_PIECEWISE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "DeepEP high-throughput with DP > 1 turns full graphs into "
                  "PIECEWISE (VLLM_ALL2ALL_BACKEND; after: --all2all-backend, no graphs)",
                  "vllm/platforms/cuda.py:CudaPlatform.check_and_update_config"),
)
#: ``--async-scheduling`` with speculative decoding is refused ("Currently, speculative
#: decoding is not supported with async scheduling.", ``EngineArgs.create_engine_config``).
ASYNC_SPEC_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "--async-scheduling with speculative decoding is refused",
                  "vllm/engine/arg_utils.py:EngineArgs.create_engine_config"),
)
#: The MoE all-to-all backend is ``VLLM_ALL2ALL_BACKEND`` (``vllm/envs.py``; no
#: ``--all2all-backend`` in the parser).
ALL2ALL_FROM_ENV: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "the all-to-all backend is VLLM_ALL2ALL_BACKEND (after: "
                  "--all2all-backend)", "vllm/envs.py:VLLM_ALL2ALL_BACKEND"),
)
#: ``VLLM_ATTENTION_BACKEND`` is how a line names its attention backend
#: (``attention/selector.py get_attn_backend``); from 0.13.0 ``--attention-backend`` does (the
#: variable, deprecated there, is not read by cgconfig for those releases).
ATTENTION_BACKEND_FROM_ENV: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.13.0", "VLLM_ATTENTION_BACKEND names the attention backend (no "
                  "--attention-backend)", "vllm/attention/selector.py:get_attn_backend"),
)
#: ``SpeculativeConfig.method``'s choices (``vllm/config/__init__.py SpeculativeMethod``, a
#: pydantic ``Literal``): ``mtp`` and ``suffix`` are not among them (from 0.11.2 ``mtp`` is one
#: of the EAGLE-type names).
SPECULATIVE_METHODS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "SpeculativeConfig.method is one of ngram, eagle, eagle3, "
                  "medusa, mlp_speculator, draft_model, deepseek_mtp, ernie_mtp, qwen3_next_mtp",
                  "vllm/config/__init__.py:SpeculativeMethod",
                  ("ngram", "eagle", "eagle3", "medusa", "mlp_speculator", "draft_model",
                   "deepseek_mtp", "ernie_mtp", "qwen3_next_mtp")),
)
#: A hybrid (attention + Mamba-type) or Mamba model whose line sets no ``cudagraph_mode`` gets
#: FULL_AND_PIECEWISE on the V1 engine (``MambaModelConfig.verify_and_update_config``, run by
#: ``VllmConfig.try_verify_and_update_config`` before the default mode; not for the listed
#: ``FCG_NOT_SUPPORTED_MODELS``), whatever the compilation level.
HYBRID_DEFAULT_FULL_AND_PIECEWISE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.11.2", "a hybrid or Mamba model with no cudagraph_mode gets "
                  "FULL_AND_PIECEWISE (not Lfm2, MiniMaxText01)",
                  "vllm/model_executor/models/config.py:MambaModelConfig.verify_and_update_config",
                  frozenset({"Lfm2ForCausalLM", "MiniMaxText01ForCausalLM"})),
)
#: The 0.11.2 behaviours above by name (``releases.BEHAVIOURS`` takes them in).
BEHAVIOURS_0_11: dict[str, tuple[ReleaseChange, ...]] = {
    "optimization_levels": OPTIMIZATION_LEVELS,
    "piecewise_without_compile_refused": PIECEWISE_WITHOUT_COMPILE_REFUSED,
    "spec_rounding_empty_handled": SPEC_ROUNDING_EMPTY_HANDLED,
    "model_runner_v2_exists": MODEL_RUNNER_V2_EXISTS,
    "attn_fusion_key": ATTN_FUSION_KEY,
    "dotted_o_is_compilation_config": DOTTED_O_IS_COMPILATION_CONFIG,
    "compilation_level_key": COMPILATION_LEVEL_KEY,
}
#: The 0.10.2 behaviours above and those of :mod:`.v0_engine` by name.
BEHAVIOURS_0_10: dict[str, tuple[ReleaseChange, ...]] = {
    "v0_fallback": V0_FALLBACK,
    "v0_decode_sizes": V0_DECODE_SIZES,
    "compilation_mode_field": COMPILATION_MODE_FIELD,
    "deprecated_graph_switches": DEPRECATED_GRAPH_SWITCHES,
    "default_mode_piecewise": DEFAULT_MODE_PIECEWISE,
    "max_capture_size_field": MAX_CAPTURE_SIZE_FIELD,
    "never_decode_fallback": NEVER_DECODE_FALLBACK,
    "spec_decode_rounding": SPEC_DECODE_ROUNDING,
    "empty_split_piecewise_is_full": EMPTY_SPLIT_PIECEWISE_IS_FULL,
    "deepep_ht_piecewise": DEEPEP_HT_PIECEWISE,
    "async_spec_refused": ASYNC_SPEC_REFUSED,
    "all2all_from_env": ALL2ALL_FROM_ENV,
    "attention_backend_from_env": ATTENTION_BACKEND_FROM_ENV,
    "fa3_full_graph_cap": FA3_FULL_GRAPH_CAP,
    "flex_no_sliding_window": FLEX_NO_SLIDING_WINDOW,
    "triton_mla_fp8_layer_refused": TRITON_MLA_FP8_LAYER_REFUSED,
    "speculative_methods": SPECULATIVE_METHODS,
    "hybrid_default_full_and_piecewise": HYBRID_DEFAULT_FULL_AND_PIECEWISE,
}
#: The pure Mamba architectures that ``MODELS_CONFIG_MAP`` sends to ``MambaModelConfig``.
MAMBA_ARCHS = ("MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM")
# --- end vLLM 0.10.2 ---


def default_mode(release: str, vllm_compile: bool, level_graphs: str) -> str:
    """The cudagraph_mode ``VllmConfig`` gives a line that sets none: the optimization level's
    (``level_graphs``) from 0.12.0; before, FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE
    (0.10.2: PIECEWISE at level PIECEWISE, else NONE)."""
    if holds_in(OPTIMIZATION_LEVELS, release):
        return level_graphs
    if holds_in(DEFAULT_MODE_PIECEWISE, release):
        return "PIECEWISE" if vllm_compile else "NONE"
    return "FULL_AND_PIECEWISE" if vllm_compile else "NONE"


def default_mode_why(release: str, mode: str, vllm_compile: bool, level: str) -> str:
    """Why :func:`default_mode` chose ``mode`` (``level``: the optimization level and where it
    was read)."""
    if holds_in(OPTIMIZATION_LEVELS, release):
        return f"vLLM default cudagraph_mode {mode} at optimization level {level}"
    if holds_in(DEFAULT_MODE_PIECEWISE, release):
        return (f"vLLM {release} default cudagraph_mode {mode} (compilation level "
                f"{'PIECEWISE' if vllm_compile else 'other than PIECEWISE'}: PIECEWISE at "
                "level PIECEWISE, else NONE; VllmConfig.__post_init__)")
    return (f"vLLM {release} default cudagraph_mode {mode} (compilation mode "
            f"{'VLLM_COMPILE' if vllm_compile else 'other than VLLM_COMPILE'}: "
            "FULL_AND_PIECEWISE under VLLM_COMPILE, else NONE; VllmConfig.__post_init__)")


def v2_variable_ignored(release: str) -> str | None:
    """The warning for a ``VLLM_USE_V2_MODEL_RUNNER`` that ``release`` does not read."""
    if holds_in(MODEL_RUNNER_V2_EXISTS, release):
        return None
    return (f"VLLM_USE_V2_MODEL_RUNNER is not read by vLLM {release}: it has no Model Runner V2 "
            "(the V1 runner runs)")
