"""What changed between the vLLM releases cgconfig answers for, as data: one table of the
behaviours that moved between 0.20 and 0.33, each with the first release that has it and where
that release does it (read from each release's wheel: ``vllm/config/vllm.py``,
``vllm/config/compilation.py``, ``vllm/engine/arg_utils.py``, the model runners).

The vLLM dialect asks :func:`has` instead of comparing versions itself, and
:func:`uses_v2_runner` for the model runner a whole `vllm serve` line gets. Releases are those of
``engines.versions.SUPPORTED["vllm"]``. Standard library only (the start-up path imports it).
"""

from __future__ import annotations

from typing import Any

from cgconfig.engines.versions import newest, version_key
from cgconfig.engines.vllm.modes import CudaGraphMode

#: Behaviour → (the first release that has it, what and where, in that release's source).
SINCE: dict[str, tuple[str, str]] = {
    "v2_default_runner": ("0.22.0", "config/vllm.py VllmConfig.use_v2_model_runner: Model Runner "
                          "V2 by default for the models and features it supports (before: only "
                          "with VLLM_USE_V2_MODEL_RUNNER=1); the models by release in "
                          "V2_MODEL_RULES"),
    "v2_manager_spec_rounding": ("0.21.0", "v1/worker/gpu/cudagraph_utils.py CudaGraphManager."
                                 "__init__: Model Runner V2 rounds the capture sizes to multiples "
                                 "of 1 + num_speculative_tokens whatever the mode (until 0.25, "
                                 "v2_decode_round_up)"),
    "v2_decode_round_up": ("0.25.0", "v1/worker/gpu/cudagraph_utils.py CudaGraphManager."
                           "_init_candidates: Model Runner V2 captures FULL decode graphs at "
                           "round_up(size, 1 + k) up to max_num_seqs·(1 + k) and max_cudagraph_"
                           "capture_size (before: sizes within 1 + k..max_num_seqs·(1 + k), "
                           "after its own rounding)"),
    "v2_skips_spec_rounding": ("0.25.0", "config/compilation.py CompilationConfig."
                               "resolve_cudagraph_mode_and_sizes(use_v2_model_runner): only the "
                               "V1 runner rounds the capture sizes for speculative decoding"),
    "large_gpu_defaults": ("0.28.0", "engine/arg_utils.py EngineArgs.get_batch_defaults: GPUs "
                           "of at least 160 GiB default to 16384 batched tokens"),
    "blackwell_ceiling": ("0.28.0", "config/vllm.py VllmConfig._set_cudagraph_sizes: the "
                          "default ceiling is 1024 on the SM100 family (512 before)"),
    "spec_decode_sizes": ("0.29.0", "config/vllm.py VllmConfig._set_cudagraph_sizes: with "
                          "speculative tokens the uniform-decode sizes n·(1 + num_speculative_"
                          "tokens) join the default grid"),
    "piecewise_fallback": ("0.30.0", "config/vllm.py VllmConfig._normalize_piecewise_cudagraph_"
                           "mode: a piecewise mode without VLLM_COMPILE keeps its full graphs "
                           "(before: cudagraph_mode NONE)"),
    "max_num_seqs_size": ("0.31.0", "config/vllm.py VllmConfig._set_cudagraph_sizes: "
                          "max_num_seqs joins the default grid when it is under the ceiling"),
    "v2_runs_hybrid": ("0.23.0", "config/vllm.py VllmConfig._get_v2_model_runner_unsupported_"
                       "features: Model Runner V2 runs hybrid/mamba models (before: listed as "
                       "unsupported, so VLLM_USE_V2_MODEL_RUNNER=1 is refused for them)"),
    "v2_stock_torch_compile_off": ("0.32.0", "config/vllm.py VllmConfig._disable_cudagraphs_"
                                   "for_v2_stock_torch_compile"),
}

#: ``config/vllm.py DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` and the rule
#: ``VllmConfig._is_default_v2_model_runner_model`` applies with it, by release (0.22-0.28;
#: from 0.29 every model defaults to Model Runner V2). Rules: ``listed-dense`` (a listed,
#: non-MoE architecture), ``listed``, ``listed-or-dense``, and with ``-no-hybrid`` hybrid
#: models stay on V1 (``-hybrid-if-listed``: unless listed).
_V2_ARCHS_0_23 = frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"})
_V2_MOE_0_25 = frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                          "GraniteMoeForCausalLM"})
_V2_0_26 = _V2_MOE_0_25 | {"InklingForCausalLM", "InklingForConditionalGeneration",
                           "LongcatFlashNgramForCausalLM"}
V2_MODEL_RULES: dict[str, tuple[str, frozenset[str]]] = {
    "0.22.1": ("listed-dense", frozenset({"Qwen3ForCausalLM"})),
    "0.23.0": ("listed-dense", _V2_ARCHS_0_23),
    "0.24.0": ("listed", _V2_ARCHS_0_23 | _V2_MOE_0_25),
    "0.25.1": ("listed-or-dense", _V2_MOE_0_25),
    "0.26.0": ("listed-or-dense-no-hybrid", _V2_0_26),
    "0.27.1": ("listed-or-dense-hybrid-if-listed", _V2_0_26 | {"KimiK3ForConditionalGeneration"}),
    "0.28.0": ("listed-or-dense-hybrid-if-listed",
               _V2_0_26 | {"KimiK3ForConditionalGeneration", "DeepseekV4ForCausalLM"}),
}
#: ``VllmConfig._get_v2_model_runner_unsupported_features``: until 0.29 Model Runner V2 runs
#: only the speculative methods :data:`_V2_SPEC_METHODS`; from 0.30 it runs all but those
#: listed for the newest release at or below the line's (release → methods kept on V1).
_V2_SPEC_METHODS = ("eagle", "eagle3", "mtp", "dflash", "dspark", "extract_hidden_states")
_V1_SPEC_METHODS: dict[str, tuple[str, ...]] = {
    "0.30.0": ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator",
               "custom_class"),
    "0.31.0": ("ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class"),
    "0.32.0": ("suffix", "medusa", "mlp_speculator", "custom_class"),
    "0.33.0": ("suffix", "custom_class"),
}
#: Stock torch.compile keeps a line on V1 until 0.31 (0.32 runs it on V2 without graphs).
_V2_STOCK_TORCH_COMPILE_SINCE = "0.32.0"


def _key(version: str) -> tuple[int, ...]:
    key = version_key(version)
    if key is None:  # versions.SUPPORTED holds release numbers only
        raise ValueError(f"not a vLLM release number: {version!r}")
    return key


def at_least(version: str, first: str) -> bool:
    """Whether ``version`` is ``first`` or newer."""
    return _key(version) >= _key(first)


def has(version: str, behaviour: str) -> bool:
    """Whether vLLM ``version`` has ``behaviour`` (a key of :data:`SINCE`)."""
    return at_least(version, SINCE[behaviour][0])


def piecewise_fallback(mode: CudaGraphMode, release: str) -> CudaGraphMode:
    """A8: what a mode becomes without VLLM_COMPILE in ``release``: its full graphs from 0.30
    (``without_piecewise``), no graphs at all before when it has piecewise ones."""
    if not mode.requires_piecewise() or has(release, "piecewise_fallback"):
        return mode.without_piecewise()
    return CudaGraphMode.NONE


def newest_release() -> str:
    """The newest supported vLLM release (the default)."""
    return newest("vllm")


def release_of(engine_version: Any) -> str:
    """The vLLM release a request answers for: its ``engine_version`` (an
    ``engines.versions.EngineVersion``) when that names vLLM, else the newest supported."""
    if engine_version is not None and getattr(engine_version, "engine", None) == "vllm":
        return str(engine_version.version)
    return newest("vllm")


def _v2_model(version: str, arch: str | None, moe: bool, hybrid: bool) -> bool:
    """``VllmConfig._is_default_v2_model_runner_model`` of ``version``."""
    if version not in V2_MODEL_RULES:
        return has(version, "v2_default_runner")  # 0.20/0.21: never; 0.29+: every model
    rule, archs = V2_MODEL_RULES[version]
    listed = arch in archs
    if rule == "listed-dense":
        return listed and not moe
    if rule == "listed":
        return listed
    if rule.endswith("-no-hybrid") and hybrid:
        return False
    if rule.endswith("-hybrid-if-listed") and hybrid and not listed:
        return False
    return listed or not moe


def uses_v2_runner(version: str, *, model_arch: str | None, moe: bool, hybrid: bool,
                   spec_method: str | None, stock_torch_compile: bool) -> bool:
    """The model runner a whole `vllm serve` line gets in ``version`` (no
    ``VLLM_USE_V2_MODEL_RUNNER``): ``VllmConfig.use_v2_model_runner`` of that release, for a
    model of ``model_arch`` with experts (``moe``) or Mamba-type layers (``hybrid``)."""
    if not _v2_model(version, model_arch, moe, hybrid):
        return False
    if spec_method is not None and not _v2_spec_method(version, spec_method):
        return False
    return not (stock_torch_compile and not at_least(version, _V2_STOCK_TORCH_COMPILE_SINCE))


def v2_unsupported(version: str, *, hybrid: bool, spec_method: str | None,
                   stock_torch_compile: bool) -> list[str]:
    """What ``VllmConfig._get_v2_model_runner_unsupported_features`` of ``version`` lists for a
    line (the features cgconfig reads): with ``VLLM_USE_V2_MODEL_RUNNER=1`` vLLM refuses the
    line when it lists any (``VllmConfig._validate_v2_model_runner``; 0.20/0.21 in
    ``VllmConfig.__post_init__``), where without the variable it runs them on V1."""
    out = []
    if hybrid and not has(version, "v2_runs_hybrid"):
        out.append("hybrid/mamba models")
    if stock_torch_compile and at_least(version, "0.22.0") \
            and not at_least(version, _V2_STOCK_TORCH_COMPILE_SINCE):
        out.append("stock torch.compile")
    if spec_method is not None and not _v2_spec_method(version, spec_method):
        out.append(f"speculative method {spec_method!r}")
    return out


def _v2_spec_method(version: str, method: str) -> bool:
    """Whether Model Runner V2 of ``version`` runs speculative ``method`` (``deepseek_mtp``
    and the other ``*_mtp`` names are ``mtp`` to ``SpeculativeConfig``)."""
    method = "mtp" if method.endswith("_mtp") else method
    if not at_least(version, min(_V1_SPEC_METHODS, key=_key)):
        return method in _V2_SPEC_METHODS
    first = max((r for r in _V1_SPEC_METHODS if at_least(version, r)), key=_key)
    return method not in _V1_SPEC_METHODS[first]
