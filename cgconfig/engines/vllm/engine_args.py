"""The `vllm serve` engine flags that change vLLM 0.33.0's capture plan, read as vLLM reads them.

The entry-point source hands over every engine flag whose table entry is ``modelled``
(``ResolveRequest.engine_args``); this module reads them into :class:`EngineArgs`:

* ``-O<n>`` / ``--optimization-level``: ``VllmConfig`` (``config/vllm.py``) takes the
  compilation mode and the default ``cudagraph_mode`` from the level: 0 → NONE / NONE,
  1 → VLLM_COMPILE / PIECEWISE, 2 and 3 → VLLM_COMPILE / FULL_AND_PIECEWISE; values the user
  gives in the compilation config win;
* ``--attention-backend``: the backend whose ``AttentionCGSupport`` Stage B reads;
* ``--all2all-backend``, ``--data-parallel-size``, ``--enable-expert-parallel``:
  ``CompilationConfig.set_splitting_ops_for_v1`` turns graphs off for DeepEP high-throughput
  with DP > 1; ``ParallelConfig.use_batched_dp_moe`` (DeepEP low-latency or nixl_ep, EP, DP > 1)
  defaults ``max_num_batched_tokens`` to 256 (``EngineArgs._set_default_max_num_seqs_and_
  batched_tokens_args``);
* ``--spec-method`` / ``--spec-tokens`` / ``--spec-model``: the shorthands of
  ``--speculative-config``;
* ``--performance-mode``: ``throughput`` doubles the defaulted max_num_seqs and
  max_num_batched_tokens; ``interactivity`` densifies the size grid.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cgconfig.engines.release_change import holds_in, value_at
from cgconfig.engines.vllm.releases import (
    ASYNC_PP_REFUSED,
    ASYNC_SPEC_METHOD_CHECK,
    DENSE_EFFECTIVE_DP_ONE,
    DRAFT_INHERITS_PP,
    DRAFT_MODEL_REFUSED,
    GLM4_MOE_LITE_MTP,
    MAX_MODEL_LEN_AUTO,
    MTP_DRAFTS_SUPPORT_PP,
    PREFILL_CONTEXT_PARALLEL_REFUSED,
)
from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.values import looks_human_int, parse_human_int, parse_int
from cgconfig.limits import quote
from cgconfig.line.versions import label

#: ``VllmConfig`` optimization levels: (compilation mode, default cudagraph_mode).
LEVEL_DEFAULTS: dict[int, tuple[str, str]] = {
    0: ("NONE", "NONE"), 1: ("VLLM_COMPILE", "PIECEWISE"),
    2: ("VLLM_COMPILE", "FULL_AND_PIECEWISE"), 3: ("VLLM_COMPILE", "FULL_AND_PIECEWISE"),
}
DEFAULT_LEVEL = 2
#: ``ParallelConfig.use_batched_dp_moe`` backends and the token budget they default to
#: (``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP``).
BATCHED_DP_BACKENDS = ("deepep_low_latency", "nixl_ep")
BATCHED_DP_MAX_NUM_BATCHED_TOKENS = 256
_FALSE_SPELLINGS = ("--no-enable-expert-parallel", "--disable-expert-parallel")


@dataclass(kw_only=True)
class EngineArgs:
    """What the line's modelled engine flags said (vLLM's defaults where it said nothing)."""

    optimization_level: int = DEFAULT_LEVEL
    level_source: str = "vLLM default -O2"
    attention_backend: str | None = None
    all2all_backend: str = "allgather_reducescatter"
    data_parallel_size: int = 1
    enable_expert_parallel: bool = False
    spec_method: str | None = None
    spec_tokens: int | None = None
    spec_model: str | None = None
    performance_mode: str = "balanced"
    kv_cache_dtype: str = "auto"
    max_model_len: int | None = None
    async_scheduling: bool | None = None
    """``--async-scheduling`` / ``--no-async-scheduling`` (None: vLLM decides)."""
    decode_context_parallel_size: int = 1
    """``--decode-context-parallel-size`` (read where the release's table models it)."""
    prefill_context_parallel_size: int = 1
    """``--prefill-context-parallel-size`` (read where the release's table models it)."""
    release: str
    """The vLLM release the line is answered for (``line.versions.SUPPORTED["vllm"]``)."""

    def deepep_high_throughput_off(self, facts: Mapping[str, Any]) -> bool:
        """``set_splitting_ops_for_v1``: DeepEP high-throughput with an effective DP size above 1
        has no graphs. From 0.14.1 a dense model's effective size is 1 (:func:`model_is_moe`
        False); when the model's config is unread the line's DP size stands."""
        dense = model_is_moe(facts) is False and holds_in(DENSE_EFFECTIVE_DP_ONE, self.release)
        return self.all2all_backend == "deepep_high_throughput" and \
            self.data_parallel_size > 1 and not dense

    @property
    def context_parallel(self) -> tuple[int, int]:
        """The decode and prefill context-parallel sizes."""
        return self.decode_context_parallel_size, self.prefill_context_parallel_size

    @property
    def batched_dp_moe(self) -> bool:
        """``ParallelConfig.use_batched_dp_moe``."""
        return (self.all2all_backend in BATCHED_DP_BACKENDS and self.enable_expert_parallel
                and self.data_parallel_size > 1)


def model_is_moe(facts: Mapping[str, Any]) -> bool | None:
    """vLLM's ``ModelConfig.is_moe`` (``get_num_experts() > 0``) from the facts: an expert count
    read from the config; ``None`` when no config was read (``no_vision_config`` is set for
    every config read, ``model_archs.shape``)."""
    if facts.get("model_num_experts"):
        return True
    return False if "no_vision_config" in facts else None


def _level(text: str, name: str, release: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value not in LEVEL_DEFAULTS:
        raise InputError(f"optimization level must be one of 0, 1, 2, 3, got {quote(text)} "
                         f"({label('vllm', release)} VllmConfig)", where=name,
                         allowed="0, 1, 2, 3")
    return value


def read_engine_args(args: list[tuple[str, str, list[str]]], release: str) -> EngineArgs:
    """``args`` as (dest, spelling, values) in line order; the last one of a flag wins. A value
    outside the choices of ``release``'s own parser (its flag table) is that parser's refusal."""
    out = EngineArgs(release=release)
    for dest, name, values in args:
        value = values[-1] if values else ""
        if dest in _CHOICE_DESTS and values:
            _check_choice(name, value, out.release)
        if dest == "optimization_level":
            out.optimization_level = _level(value, name, out.release)
            out.level_source = f"{name} {value}" if not name.startswith("-O") or \
                name in ("-O", "--optimization-level") else name
        elif dest == "attention_backend" and values:
            out.attention_backend = value
        elif dest == "all2all_backend" and values:
            out.all2all_backend = value
        elif dest == "data_parallel_size" and values:
            out.data_parallel_size = parse_int(value, name)
        elif dest == "decode_context_parallel_size" and values:
            out.decode_context_parallel_size = parse_int(value, name)
        elif dest == "prefill_context_parallel_size" and values:
            out.prefill_context_parallel_size = parse_int(value, name)
        elif dest == "enable_expert_parallel":
            out.enable_expert_parallel = name not in _FALSE_SPELLINGS
        elif dest == "spec_method" and values:
            out.spec_method = value
        elif dest == "spec_tokens" and values:
            out.spec_tokens = parse_int(value, name)
        elif dest == "spec_model" and values:
            out.spec_model = value
        elif dest == "performance_mode" and values:
            out.performance_mode = value
        elif dest == "kv_cache_dtype" and values:
            out.kv_cache_dtype = value
        elif dest == "async_scheduling":
            out.async_scheduling = not name.startswith("--no-")
        elif dest == "max_model_len" and values:
            if value.strip().lower() in ("-1", "auto") and holds_in(MAX_MODEL_LEN_AUTO, release):
                out.max_model_len = None  # fitted to the GPU at start-up: no length asked for
            else:
                out.max_model_len = parse_human_int(value, name) if looks_human_int(value) \
                    else parse_int(value, name)
    if out.prefill_context_parallel_size > 1 and holds_in(PREFILL_CONTEXT_PARALLEL_REFUSED,
                                                          release):
        raise InputError("Prefill context parallelism is not fully supported. Please set "
                         f"prefill_context_parallel_size to 1 ({label('vllm', release)} "
                         "ParallelConfig)", where="--prefill-context-parallel-size",
                         allowed="1")
    return out


#: Modelled flags whose values vLLM's parser checks against its choices (per release).
_CHOICE_DESTS = ("all2all_backend", "performance_mode")


def _check_choice(name: str, value: str, release: str) -> None:
    """argparse's ``invalid choice`` refusal, with ``release``'s own choices."""
    from cgconfig.line.table import load_table  # a whole `vllm serve` line loads it anyway

    flag = load_table("vllm", release).lookup(name)
    if flag is not None and flag.choices and value not in flag.choices:
        raise InputError(f"argument {name}: invalid choice: {value!r} (vLLM {release})",
                         where=name, allowed=", ".join(flag.choices),
                         suggestion=did_you_mean(value, flag.choices))


#: Speculative methods that async scheduling refuses in the releases of
#: ``releases.ASYNC_SPEC_METHOD_CHECK`` (``VllmConfig.__post_init__``: only EAGLE/MTP, draft
#: models, ngram_gpu, DSpark and DFlash).
_NOT_ASYNC_METHODS = ("ngram", "[ngram]", "suffix", "medusa", "mlp_speculator")


def check_async(method: object, engine: EngineArgs) -> None:
    """``VllmConfig.__post_init__``'s refusal of an explicit ``--async-scheduling`` with a
    speculative method it cannot overlap (0.20-0.32; 0.33 checks it for the V1 runner only)."""
    if engine.async_scheduling and method in _NOT_ASYNC_METHODS and \
            holds_in(ASYNC_SPEC_METHOD_CHECK, engine.release):
        raise InputError("Currently, async scheduling is only supported with EAGLE/MTP/Draft "
                         f"Model/NGram GPU kind of speculative decoding (method {method}; vLLM "
                         f"{engine.release} VllmConfig)", where="--async-scheduling")


#: ``SpeculativeConfig`` methods that need no draft model (``config/speculative.py``): the
#: n-gram family and friends name their own proposer; MTP and DSpark use the target model.
_NO_DRAFT_MODEL = ("ngram", "[ngram]", "ngram_gpu", "suffix", "extract_hidden_states", "mtp",
                   "dspark")


#: The MTP draft an MTP method builds on the target model's own weights, by the target's
#: architecture (``SpeculativeConfig.hf_config_override``, the same for these from 0.14.1 to
#: 0.29.0; GLM-4.7-Flash from 0.15.1, ``releases.GLM4_MOE_LITE_MTP``), and whether that
#: draft's class implements ``SupportsPP`` (``model_executor/models/*_mtp.py``; the same in
#: those releases).
MTP_DRAFT_SUPPORTS_PP: dict[str, tuple[str, bool]] = {
    "DeepseekV3ForCausalLM": ("DeepSeekMTP", False),
    "DeepseekV32ForCausalLM": ("DeepSeekMTP", False),
    "MiMoForCausalLM": ("MiMoMTP", False),
    "Glm4MoeForCausalLM": ("Glm4MoeMTP", False),
    "Glm4MoeLiteForCausalLM": ("Glm4MoeLiteMTP", True),
    "Ernie4_5_MoeForCausalLM": ("ErnieMTP", False),
    "Qwen3NextForCausalLM": ("Qwen3NextMTP", False),
}
#: The EAGLE / EAGLE-3 draft class a draft model of a target architecture runs as, and whether
#: ``supports_pp`` holds for it (``model_executor/models/interfaces.py``: ``SupportsPP`` and a
#: ``forward`` taking ``intermediate_tensors``). The Llama drafts subclass ``LlamaForCausalLM``
#: but their ``forward`` takes no ``intermediate_tensors`` (``llama_eagle.py``,
#: ``llama_eagle3.py``, read in 0.20.1 and 0.29.0), so a draft copying the target's pipeline
#: size is refused. Only the Llama drafts are measured (held-out batch 2).
EAGLE_DRAFT_SUPPORTS_PP: dict[tuple[str, str], tuple[str, bool]] = {
    ("LlamaForCausalLM", "eagle"): ("EagleLlamaForCausalLM", False),
    ("LlamaForCausalLM", "eagle3"): ("Eagle3LlamaForCausalLM", False),
}


def check_draft_pipeline_parallel(method: object, model: object, facts: dict[str, object],
                                  where: str, release: str) -> None:
    """``SpeculativeConfig.__post_init__``'s check of the draft's ``ModelConfig`` against the
    draft's parallel config: before 0.30.0 that config copies the target's pipeline size, and an
    MTP draft without ``SupportsPP`` is refused (``verify_with_parallel_config``)."""
    pp = facts.get("pp_size")
    name = str(method) if method is not None else ""
    if not isinstance(pp, int) or pp <= 1 or not holds_in(DRAFT_INHERITS_PP, release):
        return
    if model is None and (name == "mtp" or name.endswith("_mtp")):
        draft = MTP_DRAFT_SUPPORTS_PP.get(str(facts.get("model_arch")))
    elif model is not None and name in ("eagle", "eagle3"):
        draft = EAGLE_DRAFT_SUPPORTS_PP.get((str(facts.get("model_arch")), name))
    else:
        return
    with_pp = value_at(MTP_DRAFTS_SUPPORT_PP, release)  # the release's SupportsPP MTP drafts
    if draft is None or draft[1] or (isinstance(with_pp, frozenset) and draft[0] in with_pp):
        return  # a draft class without SupportsPP in this release is the only refusal
    raise InputError(
        "Pipeline parallelism is not supported for this model. Supported models implement the "
        f"`SupportsPP` interface ({label('vllm', release)} checks the {draft[0]} draft of "
        f"{facts.get('model_arch')} with the target's pipeline_parallel_size {pp}: "
        "SpeculativeConfig.create_draft_parallel_config, ModelConfig.verify_with_parallel_config)",
        where=where, hint=f"drop the draft or --pipeline-parallel-size "
                          f"({label('vllm', str(DRAFT_INHERITS_PP[-1].until))} gives the draft a "
                          "pipeline size of 1)")


def check_speculative(method: object, model: object, tokens_given: bool, where: str,
                      release: str) -> None:
    """``SpeculativeConfig.__post_init__``'s refusal: speculative tokens without a draft model
    for a method that needs one (EAGLE, EAGLE-3, draft_model...)."""
    if model is not None or not tokens_given:
        return
    if method is None:
        method = "draft_model"
    name = str(method)
    if name in _NO_DRAFT_MODEL or name.endswith("_mtp"):
        return
    if name == "custom_class":
        raise InputError("method='custom_class' requires 'model' to contain the custom proposer "
                         f"module path ({label('vllm', release)} SpeculativeConfig)", where=where)
    raise InputError("num_speculative_tokens was provided but without speculative model "
                     f"(method {name}; {label('vllm', release)} SpeculativeConfig)", where=where,
                     hint="name the draft model (\"model\" / --spec-model)")


# --- vLLM 0.14.1 (issue #37, helper vold) ---
def check_async_pipeline_parallel(engine: EngineArgs, facts: dict[str, object]) -> None:
    """vLLM 0.14.1's ``VllmConfig.__post_init__``: an explicit ``--async-scheduling`` is refused
    with ``--pipeline-parallel-size`` > 1 (``releases.ASYNC_PP_REFUSED``)."""
    pp = facts.get("pp_size")
    if engine.async_scheduling and isinstance(pp, int) and pp > 1 \
            and holds_in(ASYNC_PP_REFUSED, engine.release):
        raise InputError("Async scheduling is not yet compatible with pipeline_parallel_size > 1 "
                         f"({label('vllm', engine.release)} VllmConfig.__post_init__)",
                         where="--async-scheduling",
                         hint="drop --async-scheduling (vLLM then turns it off with a warning) "
                              "or --pipeline-parallel-size")


def check_draft_model(method: object, model: object, facts: dict[str, object], where: str,
                      release: str) -> None:
    """vLLM 0.14.1's refusal of speculative decoding with a draft model
    (``releases.DRAFT_MODEL_REFUSED``): ``method: draft_model``
    (``EngineArgs._check_feature_supported``), or an MTP method on GLM-4.7-Flash, whose draft
    ``SpeculativeConfig.hf_config_override`` does not map before ``releases.GLM4_MOE_LITE_MTP``
    (``SpeculativeConfig.__post_init__`` then resolves it to a draft model)."""
    if not holds_in(DRAFT_MODEL_REFUSED, release):
        return
    name = str(method) if method is not None else ""
    mtp_unmapped = (model is None and (name == "mtp" or name.endswith("_mtp"))
                    and facts.get("model_arch") == "Glm4MoeLiteForCausalLM"
                    and not holds_in(GLM4_MOE_LITE_MTP, release))
    if name == "draft_model" or mtp_unmapped:
        raise InputError("Speculative decoding with draft model is not supported yet "
                         f"(method {name}"
                         + (" on Glm4MoeLiteForCausalLM, which has no MTP draft" if mtp_unmapped
                            else "")
                         + f"; {label('vllm', release)} "
                         + ("SpeculativeConfig)" if mtp_unmapped
                            else "EngineArgs._check_feature_supported)"),
                         where=where, hint="use ngram, medusa, eagle or mtp, or a newer vLLM")
# --- end vLLM 0.14.1 ---


def _number_fact(facts: Mapping[str, Any], name: str) -> Any:
    """A deployment fact when it is a number, else None (a badly typed fact is reported by the
    resolver's fact validation, with its source)."""
    value = facts.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def check_max_model_len(facts: Mapping[str, Any], engine: EngineArgs) -> None:
    """``ModelConfig``'s refusal: a ``--max-model-len`` above the model's context length."""
    derived = _number_fact(facts, "model_context_length")
    if engine.max_model_len is not None and derived is not None \
            and engine.max_model_len > derived:
        raise InputError(f"User-specified max_model_len ({engine.max_model_len}) is greater than "
                         f"the derived max_model_len ({derived}) (vLLM {engine.release} ModelConfig)",
                         where="--max-model-len")


def check_world_size(facts: Mapping[str, Any], release: str) -> None:
    """``ParallelConfig``'s refusal on CUDA: more ranks per node than GPUs (when the count is
    known; the multiprocessing executor, one node)."""
    if facts.get("device", "cuda") != "cuda":
        return
    gpus = _number_fact(facts, "gpu_count")
    world = (_number_fact(facts, "tp_size") or 1) * (_number_fact(facts, "pp_size") or 1)
    if gpus is not None and world > gpus:
        raise InputError(f"World size ({world}) is larger than the number of available GPUs "
                         f"({gpus}) in this node (vLLM {release} ParallelConfig)",
                         where="--tensor-parallel-size × --pipeline-parallel-size")
