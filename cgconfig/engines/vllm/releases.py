"""What changed between the vLLM releases cgconfig answers for, as data: each behaviour a tuple
of :class:`~cgconfig.engines.release_change.ReleaseChange` rows (the one release-change format of
every engine), read from each release's wheel (``vllm/config/vllm.py``,
``vllm/config/compilation.py``, ``vllm/engine/arg_utils.py``, the model runners).

The vLLM dialect asks ``holds_in(<behaviour>, release)`` (or ``value_at``) with the release the
line is answered for instead of comparing versions itself, and :func:`uses_v2_runner` for the
model runner a whole `vllm serve` line gets; there is no default release. A new release that
changes a behaviour closes the open row (``until``) and adds one. Releases are those of
``line.versions.SUPPORTED["vllm"]``. Standard library only (the start-up path imports it)."""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.release_change import ReleaseChange, holds_in, value_at
from cgconfig.engines.vllm.compile_changes import (
    BEHAVIOURS_0_10,
    BEHAVIOURS_0_11,
    PIECEWISE_WITHOUT_COMPILE_REFUSED,
)
from cgconfig.engines.vllm.modes import CudaGraphMode

_VLLM_CONFIG = "vllm/config/vllm.py"
_CUDAGRAPH_UTILS = "vllm/v1/worker/gpu/cudagraph_utils.py"

#: Model Runner V2 rounds the capture sizes to multiples of 1 + num_speculative_tokens
#: whatever the mode (from 0.25 :data:`V2_DECODE_ROUND_UP` decides instead).
V2_MANAGER_SPEC_ROUNDING: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.21.0", None, "Model Runner V2 rounds the capture sizes to multiples of "
                  "1 + num_speculative_tokens", f"{_CUDAGRAPH_UTILS}:CudaGraphManager.__init__"),
)
#: Model Runner V2 captures FULL decode graphs at round_up(size, 1 + k).
V2_DECODE_ROUND_UP: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.25.0", None, "Model Runner V2 captures FULL decode graphs at round_up(size, "
                  "1 + k) up to max_num_seqs·(1 + k) and max_cudagraph_capture_size (before: "
                  "sizes within 1 + k..max_num_seqs·(1 + k), after its own rounding)",
                  f"{_CUDAGRAPH_UTILS}:CudaGraphManager._init_candidates"),
)
#: Only the V1 runner rounds the capture sizes for speculative decoding.
V2_SKIPS_SPEC_ROUNDING: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.25.0", None, "only the V1 runner rounds the capture sizes for speculative "
                  "decoding", "vllm/config/compilation.py:CompilationConfig."
                  "resolve_cudagraph_mode_and_sizes"),
)
#: GPUs of at least 160 GiB default to 16384 batched tokens.
LARGE_GPU_DEFAULTS: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.28.0", None, "GPUs of at least 160 GiB default to 16384 batched tokens",
                  "vllm/engine/arg_utils.py:EngineArgs.get_batch_defaults"),
)
#: The default capture ceiling is 1024 on the SM100 family (512 before).
BLACKWELL_CEILING: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.28.0", None, "the default capture ceiling is 1024 on the SM100 family",
                  f"{_VLLM_CONFIG}:VllmConfig._set_cudagraph_sizes"),
)
#: With speculative tokens the uniform-decode sizes n·(1 + k) join the default grid.
SPEC_DECODE_SIZES: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.29.0", None, "with speculative tokens the uniform-decode sizes "
                  "n·(1 + num_speculative_tokens) join the default grid",
                  f"{_VLLM_CONFIG}:VllmConfig._set_cudagraph_sizes"),
)
#: A piecewise mode without VLLM_COMPILE keeps its full graphs (before: cudagraph_mode NONE).
PIECEWISE_FALLBACK: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.30.0", None, "a piecewise mode without VLLM_COMPILE keeps its full graphs",
                  f"{_VLLM_CONFIG}:VllmConfig._normalize_piecewise_cudagraph_mode"),
)
#: max_num_seqs joins the default grid when it is under the ceiling.
MAX_NUM_SEQS_SIZE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.31.0", None, "max_num_seqs joins the default grid when it is under the "
                  "ceiling", f"{_VLLM_CONFIG}:VllmConfig._set_cudagraph_sizes"),
)
#: A stock torch.compile line runs on Model Runner V2, without graphs (before: it stays on V1).
V2_STOCK_TORCH_COMPILE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.32.0", None, "a stock torch.compile line runs on Model Runner V2 with its "
                  "CUDA graphs off", f"{_VLLM_CONFIG}:VllmConfig."
                  "_disable_cudagraphs_for_v2_stock_torch_compile"),
)
#: The DP size ``set_splitting_ops_for_v1`` sees is 1 for a dense model (``effective_dp_size``,
#: from ``model_config.is_moe``); before, the line's DP size whatever the model.
DENSE_EFFECTIVE_DP_ONE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.14.1", None, "a dense model's effective DP size is 1 for the DeepEP "
                  "high-throughput graph check", f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
)
#: ``--max-model-len -1`` / ``auto`` asks for the longest length that fits the GPU (its parser
#: type ``human_readable_int_or_auto``); before, the type is ``human_readable_int``.
MAX_MODEL_LEN_AUTO: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.14.1", None, "--max-model-len takes -1 or auto (fit to the GPU)",
                  "vllm/engine/arg_utils.py:EngineArgs.get_kwargs, "
                  "vllm/utils/argparse_utils.py:human_readable_int_or_auto"),
)
#: Model Runner V2 runs hybrid/mamba models (before, it lists them as unsupported, so
#: ``VLLM_USE_V2_MODEL_RUNNER=1`` is refused for them).
V2_RUNS_HYBRID: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.23.0", None, "Model Runner V2 runs hybrid/mamba models",
                  f"{_VLLM_CONFIG}:VllmConfig._get_v2_model_runner_unsupported_features"),
)
#: Model Runner V2 lists stock torch.compile as a feature it does not support (from 0.32 it
#: runs such a line, with its CUDA graphs off: :data:`V2_STOCK_TORCH_COMPILE`).
V2_REFUSES_STOCK_TORCH_COMPILE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.22.0", "0.32.0", "Model Runner V2 lists stock torch.compile as unsupported",
                  f"{_VLLM_CONFIG}:VllmConfig._get_v2_model_runner_unsupported_features"),
)


class V2Models(NamedTuple):
    """Which models default to Model Runner V2 (``VllmConfig._is_default_v2_model_runner_model``
    with ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES``)."""

    rule: str
    """``none``, ``every``, ``listed-dense`` (a listed, non-MoE architecture), ``listed``,
    ``listed-or-dense``; with ``-no-hybrid`` hybrid models stay on V1 (``-hybrid-if-listed``:
    unless listed)."""
    archs: frozenset[str] = frozenset()
    """The listed architectures."""


_V2_ARCHS_0_23 = frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"})
_V2_MOE_0_25 = frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                          "GraniteMoeForCausalLM"})
_V2_0_26 = _V2_MOE_0_25 | {"InklingForCausalLM", "InklingForConditionalGeneration",
                           "LongcatFlashNgramForCausalLM"}
_V2_0_27 = _V2_0_26 | {"KimiK3ForConditionalGeneration"}
_V2_RULE = f"{_VLLM_CONFIG}:VllmConfig.use_v2_model_runner"
#: The models Model Runner V2 is the default for (before 0.22: only with
#: VLLM_USE_V2_MODEL_RUNNER=1; from 0.29 every model).
V2_DEFAULT_MODELS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.22.0", "no model defaults to Model Runner V2", _V2_RULE,
                  V2Models("none")),
    ReleaseChange("0.22.0", "0.23.0", "Qwen3 defaults to Model Runner V2", _V2_RULE,
                  V2Models("listed-dense", frozenset({"Qwen3ForCausalLM"}))),
    ReleaseChange("0.23.0", "0.24.0", "listed dense models default to V2", _V2_RULE,
                  V2Models("listed-dense", _V2_ARCHS_0_23)),
    ReleaseChange("0.24.0", "0.25.0", "listed models default to V2", _V2_RULE,
                  V2Models("listed", _V2_ARCHS_0_23 | _V2_MOE_0_25)),
    ReleaseChange("0.25.0", "0.26.0", "listed or dense models default to V2", _V2_RULE,
                  V2Models("listed-or-dense", _V2_MOE_0_25)),
    ReleaseChange("0.26.0", "0.27.0", "listed or dense non-hybrid models default to V2",
                  _V2_RULE, V2Models("listed-or-dense-no-hybrid", _V2_0_26)),
    ReleaseChange("0.27.0", "0.28.0", "listed or dense models default to V2, hybrid ones if "
                  "listed", _V2_RULE, V2Models("listed-or-dense-hybrid-if-listed", _V2_0_27)),
    ReleaseChange("0.28.0", "0.29.0", "listed or dense models default to V2, hybrid ones if "
                  "listed", _V2_RULE, V2Models("listed-or-dense-hybrid-if-listed",
                                               _V2_0_27 | {"DeepseekV4ForCausalLM"})),
    ReleaseChange("0.29.0", None, "every model defaults to Model Runner V2", _V2_RULE,
                  V2Models("every")),
)


class V2SpecMethods(NamedTuple):
    """The speculative methods Model Runner V2 runs."""

    only: tuple[str, ...] | None
    """It runs these alone (``None``: every method but :attr:`kept_on_v1`)."""
    kept_on_v1: tuple[str, ...] = ()
    """With ``only`` ``None``: the methods that keep a line on the V1 runner."""


_V2_SPEC_SOURCE = f"{_VLLM_CONFIG}:VllmConfig._get_v2_model_runner_unsupported_features"
#: The speculative methods Model Runner V2 runs (``deepseek_mtp`` and the other ``*_mtp`` names
#: are ``mtp`` to ``SpeculativeConfig``).
V2_SPEC_METHODS: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.30.0", "Model Runner V2 runs EAGLE, MTP and DFlash-type methods only",
                  _V2_SPEC_SOURCE, V2SpecMethods(("eagle", "eagle3", "mtp", "dflash", "dspark",
                                           "extract_hidden_states"))),
    ReleaseChange("0.30.0", "0.31.0", "Model Runner V2 runs every method but n-gram, draft "
                  "models, suffix, Medusa, MLP speculator and custom classes", _V2_SPEC_SOURCE,
                  V2SpecMethods(None, ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa",
                                       "mlp_speculator", "custom_class"))),
    ReleaseChange("0.31.0", "0.32.0", "Model Runner V2 runs draft models too", _V2_SPEC_SOURCE,
                  V2SpecMethods(None, ("ngram", "ngram_gpu", "suffix", "medusa",
                                       "mlp_speculator", "custom_class"))),
    ReleaseChange("0.32.0", "0.33.0", "Model Runner V2 runs n-gram too", _V2_SPEC_SOURCE,
                  V2SpecMethods(None, ("suffix", "medusa", "mlp_speculator", "custom_class"))),
    ReleaseChange("0.33.0", None, "Model Runner V2 runs Medusa and MLP speculators too",
                  _V2_SPEC_SOURCE, V2SpecMethods(None, ("suffix", "custom_class"))),
)

#: An explicit ``--async-scheduling`` is refused with a speculative method it cannot overlap
#: (0.33 checks it for the V1 runner only).
ASYNC_SPEC_METHOD_CHECK: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.33.0", "an explicit --async-scheduling is refused with a "
                  "speculative method async scheduling cannot overlap",
                  f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
)

#: The draft worker's parallel config copies the target's ``pipeline_parallel_size`` (0.30.0
#: gives the draft 1), so a pipeline-parallel line whose draft model does not implement
#: ``SupportsPP`` is refused when the draft's ``ModelConfig.verify_with_parallel_config`` runs.
DRAFT_INHERITS_PP: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.30.0", "the draft worker inherits the target's pipeline parallelism",
                  "vllm/config/speculative.py:SpeculativeConfig.create_draft_parallel_config"),
)

# --- vLLM 0.14.1 (issue #37, helper vold): behaviours read in the 0.14.1 and 0.15.1 wheels ---
#: An explicit ``--async-scheduling`` is refused with ``--pipeline-parallel-size`` > 1 (0.15.1
#: drops the check; with async scheduling left to vLLM, 0.14.1 turns it off with a warning).
ASYNC_PP_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.15.1", "an explicit --async-scheduling is refused with pipeline "
                  "parallelism", f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
)
#: Speculative decoding with a separate draft model (``method: draft_model``) is refused
#: (``EngineArgs._check_feature_supported``), as is a method that ``SpeculativeConfig`` resolves
#: to one (an MTP method on a model whose draft ``hf_config_override`` does not map).
DRAFT_MODEL_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.15.1", "speculative decoding with a draft model is refused",
                  "vllm/engine/arg_utils.py:EngineArgs._check_feature_supported"),
)
#: GLM-4.7-Flash (``Glm4MoeLiteForCausalLM``) gets its MTP draft (``Glm4MoeLiteMTPModel``,
#: ``glm4_moe_lite_mtp``); before, an MTP method on it resolves to a draft model and is refused.
GLM4_MOE_LITE_MTP: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.15.1", None, "GLM-4.7-Flash has an MTP draft",
                  "vllm/config/speculative.py:SpeculativeConfig.hf_config_override"),
)
#: The CUDA attention backends take ``--kv-cache-dtype bfloat16`` (before: the parser accepts
#: it and no backend lists it, so the selector finds no valid backend).
KV_CACHE_BF16: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.15.1", None, "the CUDA attention backends take a bfloat16 KV cache",
                  "vllm/v1/attention/backends/flash_attn.py:FlashAttentionBackend."
                  "supports_kv_cache_dtype"),
)
# --- end vLLM 0.14.1 ---

# --- vLLM 0.13.0 (issue #37, helper v013): behaviours read in the 0.13.0 and 0.14.1 wheels ---
_MTP = "vllm/model_executor/models/"
#: The MTP draft classes that implement ``SupportsPP`` (``forward`` taking
#: ``intermediate_tensors``), so a pipeline-parallel line whose draft copies the target's
#: pipeline size (:data:`DRAFT_INHERITS_PP`) passes the draft's
#: ``ModelConfig.verify_with_parallel_config``; 0.14.1 drops ``SupportsPP`` from all four.
MTP_DRAFTS_SUPPORT_PP: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.14.1", "the DeepSeek, GLM-4.5, ERNIE 4.5 and Qwen3-Next MTP drafts "
                  "implement SupportsPP", f"{_MTP}deepseek_mtp.py:DeepSeekMTP, "
                  f"{_MTP}glm4_moe_mtp.py:Glm4MoeMTP, {_MTP}ernie_mtp.py:ErnieMTP, "
                  f"{_MTP}qwen3_next_mtp.py:Qwen3NextMTP",
                  frozenset({"DeepSeekMTP", "Glm4MoeMTP", "ErnieMTP", "Qwen3NextMTP"})),
)
# --- end vLLM 0.13.0 ---

# --- vLLM 0.12.0 (issue #37, helper v012): behaviours read in the 0.12.0 and 0.13.0 wheels ---
#: Without VLLM_COMPILE a mode of full graphs only (FULL, FULL_DECODE_ONLY) keeps them: 0.13.0
#: overrides only a mode that ``requires_piecewise_compilation()``; 0.12.0 turns every mode
#: other than NONE to NONE ("Cudagraph mode %s is not compatible with compilation mode %s").
FULL_KEPT_WITHOUT_COMPILE: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.12.0", "no cudagraph_mode is overridden without VLLM_COMPILE: a "
                  "full-only mode keeps its graphs (a piecewise one is refused: "
                  "PIECEWISE_WITHOUT_COMPILE_REFUSED)", f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
    ReleaseChange("0.13.0", None, "a full-only cudagraph mode without VLLM_COMPILE keeps its "
                  "graphs", f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
)
#: ``CompilationConfig`` and ``PassConfig`` refuse a key they do not have (pydantic
#: ``extra="forbid"``); 0.12.0's plain pydantic dataclasses ignore it.
COMPILATION_CONFIG_FORBIDS_EXTRA: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.13.0", None, "--compilation-config refuses an unknown key (before: "
                  "ignored)", "vllm/config/compilation.py:CompilationConfig, PassConfig "
                  "(@dataclass(config=ConfigDict(extra=\"forbid\")))"),
)
#: ``--cuda-graph-sizes`` (deprecated, vllm#26016) sets ``cudagraph_capture_sizes``; 0.13.0's
#: parser no longer has it.
CUDA_GRAPH_SIZES: tuple[ReleaseChange, ...] = (
    ReleaseChange(None, "0.13.0", "--cuda-graph-sizes sets cudagraph_capture_sizes",
                  "vllm/engine/arg_utils.py:EngineArgs.create_engine_config"),
)
#: Decode or prefill context parallelism above 1 turns a mode with full graphs into PIECEWISE
#: ("Decode context parallel (DCP) is enabled, which is incompatible with full CUDA graphs.
#: Overriding cudagraph_mode to PIECEWISE."); 0.13.0's ``VllmConfig`` no longer checks it.
CONTEXT_PARALLEL_PIECEWISE: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.11.2", "0.13.0", "decode/prefill context parallelism > 1 turns full "
                  "graphs into PIECEWISE (its first release has decode context parallelism "
                  "only; the release before does not check it)",
                  f"{_VLLM_CONFIG}:VllmConfig.__post_init__"),
)
#: ``ParallelConfig`` refuses a prefill context-parallel size above 1 ("Prefill context
#: parallelism is not fully supported"); 0.13.0 accepts it.
PREFILL_CONTEXT_PARALLEL_REFUSED: tuple[ReleaseChange, ...] = (
    ReleaseChange("0.12.0", "0.13.0", "--prefill-context-parallel-size above 1 is refused",
                  "vllm/config/parallel.py:ParallelConfig._validate_parallel_config"),
)
# --- end vLLM 0.12.0 ---

#: Every behaviour above by name (what the tests walk).
BEHAVIOURS: dict[str, tuple[ReleaseChange, ...]] = {
    "v2_manager_spec_rounding": V2_MANAGER_SPEC_ROUNDING,
    "v2_decode_round_up": V2_DECODE_ROUND_UP,
    "v2_skips_spec_rounding": V2_SKIPS_SPEC_ROUNDING,
    "large_gpu_defaults": LARGE_GPU_DEFAULTS,
    "blackwell_ceiling": BLACKWELL_CEILING,
    "spec_decode_sizes": SPEC_DECODE_SIZES,
    "piecewise_fallback": PIECEWISE_FALLBACK,
    "max_num_seqs_size": MAX_NUM_SEQS_SIZE,
    "v2_stock_torch_compile": V2_STOCK_TORCH_COMPILE,
    "v2_default_models": V2_DEFAULT_MODELS,
    "v2_spec_methods": V2_SPEC_METHODS,
    "async_spec_method_check": ASYNC_SPEC_METHOD_CHECK,
    "draft_inherits_pp": DRAFT_INHERITS_PP,
    "v2_runs_hybrid": V2_RUNS_HYBRID,
    "v2_refuses_stock_torch_compile": V2_REFUSES_STOCK_TORCH_COMPILE,
    # vLLM 0.14.1 (vold)
    "async_pp_refused": ASYNC_PP_REFUSED,
    "draft_model_refused": DRAFT_MODEL_REFUSED,
    "glm4_moe_lite_mtp": GLM4_MOE_LITE_MTP,
    "kv_cache_bf16": KV_CACHE_BF16,
    # vLLM 0.13.0 (v013)
    "mtp_drafts_support_pp": MTP_DRAFTS_SUPPORT_PP,
    "max_model_len_auto": MAX_MODEL_LEN_AUTO,
    "dense_effective_dp_one": DENSE_EFFECTIVE_DP_ONE,
    # vLLM 0.12.0 (v012)
    "full_kept_without_compile": FULL_KEPT_WITHOUT_COMPILE,
    "compilation_config_forbids_extra": COMPILATION_CONFIG_FORBIDS_EXTRA,
    "cuda_graph_sizes": CUDA_GRAPH_SIZES,
    "context_parallel_piecewise": CONTEXT_PARALLEL_PIECEWISE,
    "prefill_context_parallel_refused": PREFILL_CONTEXT_PARALLEL_REFUSED,
    **BEHAVIOURS_0_11,  # vLLM 0.11.2 (v011): compile_changes.py
    **BEHAVIOURS_0_10,  # vLLM 0.10.2 (v0102): compile_changes.py
}


def overridden_without_compile(mode: CudaGraphMode, release: str) -> bool:
    """Whether ``release`` changes ``mode`` when the compilation mode is not VLLM_COMPILE
    (:func:`piecewise_fallback` says to what)."""
    if mode is CudaGraphMode.NONE or holds_in(PIECEWISE_WITHOUT_COMPILE_REFUSED, release):
        return False  # 0.11.2: nothing overridden (a piecewise mode is refused later)
    return mode.requires_piecewise() or not holds_in(FULL_KEPT_WITHOUT_COMPILE, release)


def piecewise_fallback(mode: CudaGraphMode, release: str) -> CudaGraphMode:
    """A8: what a mode becomes without VLLM_COMPILE in ``release``: its full graphs from 0.30
    (``without_piecewise``), no graphs at all before when it has piecewise ones, and before 0.13
    no graphs whatever the mode (:data:`FULL_KEPT_WITHOUT_COMPILE`); 0.11.2 keeps the mode
    (:data:`PIECEWISE_WITHOUT_COMPILE_REFUSED`)."""
    if holds_in(PIECEWISE_WITHOUT_COMPILE_REFUSED, release):
        return mode
    if not holds_in(FULL_KEPT_WITHOUT_COMPILE, release):
        return CudaGraphMode.NONE
    if not mode.requires_piecewise() or holds_in(PIECEWISE_FALLBACK, release):
        return mode.without_piecewise()
    return CudaGraphMode.NONE


def _v2_model(release: str, arch: str | None, moe: bool, hybrid: bool) -> bool:
    """``VllmConfig._is_default_v2_model_runner_model`` of ``release``."""
    models = value_at(V2_DEFAULT_MODELS, release)
    assert isinstance(models, V2Models), release
    rule, listed = models.rule, arch in models.archs
    if rule in ("none", "every"):
        return rule == "every"
    if rule == "listed-dense":
        return listed and not moe
    if rule == "listed":
        return listed
    if rule.endswith("-no-hybrid") and hybrid:
        return False
    if rule.endswith("-hybrid-if-listed") and hybrid and not listed:
        return False
    return listed or not moe


def uses_v2_runner(release: str, *, model_arch: str | None, moe: bool, hybrid: bool,
                   spec_method: str | None, stock_torch_compile: bool) -> bool:
    """The model runner a whole `vllm serve` line gets in ``release`` (no
    ``VLLM_USE_V2_MODEL_RUNNER``): ``VllmConfig.use_v2_model_runner`` of that release, for a
    model of ``model_arch`` with experts (``moe``) or Mamba-type layers (``hybrid``)."""
    if not _v2_model(release, model_arch, moe, hybrid):
        return False
    if spec_method is not None and not _v2_spec_method(release, spec_method):
        return False
    return not (stock_torch_compile and not holds_in(V2_STOCK_TORCH_COMPILE, release))


def v2_unsupported(release: str, *, hybrid: bool, spec_method: str | None,
                   stock_torch_compile: bool) -> list[str]:
    """What ``VllmConfig._get_v2_model_runner_unsupported_features`` of ``release`` lists for a
    line (the features cgconfig reads): with ``VLLM_USE_V2_MODEL_RUNNER=1`` vLLM refuses the
    line when it lists any (``VllmConfig._validate_v2_model_runner``; 0.20/0.21 in
    ``VllmConfig.__post_init__``), where without the variable it runs them on V1."""
    out = []
    if hybrid and not holds_in(V2_RUNS_HYBRID, release):
        out.append("hybrid/mamba models")
    if stock_torch_compile and holds_in(V2_REFUSES_STOCK_TORCH_COMPILE, release):
        out.append("stock torch.compile")
    if spec_method is not None and not _v2_spec_method(release, spec_method):
        out.append(f"speculative method {spec_method!r}")
    return out


def _v2_spec_method(release: str, method: str) -> bool:
    """Whether Model Runner V2 of ``release`` runs speculative ``method``."""
    method = "mtp" if method.endswith("_mtp") else method
    methods = value_at(V2_SPEC_METHODS, release)
    assert isinstance(methods, V2SpecMethods), release
    if methods.only is not None:
        return method in methods.only
    return method not in methods.kept_on_v1
