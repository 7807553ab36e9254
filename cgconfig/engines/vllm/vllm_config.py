"""vLLM's config stage for a line: ``EngineArgs``' speculative shorthands and
``VllmConfig.__post_init__`` (vllm/config/vllm.py), mapping the line's compilation config onto
cgconfig's keys.

Each ``cudagraph_mode`` (a name, or 0/1/2; ``null`` = unset) maps onto per-phase backends
(decode = vLLM's uniform-decode batches, prefill = its mixed/prefill batches). The rest follows
vLLM 0.33.0's order: ``VllmConfig.__post_init__`` (eager and A8 "piecewise needs VLLM_COMPILE"
before the sizes; sizes only while graphs are on, user sizes capped by
``max_num_batched_tokens``, a 1024 ceiling on the SM100 family from ``--gpu-sm``), then
``set_splitting_ops_for_v1`` (A19-A22) and the worker's Stage B (B2-B7), which run as one
dialect step (:mod:`.stage_b`), each change a decision ``vllm.<id>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cgconfig.draft import Draft
from cgconfig.engines.release_change import holds_in, value_at
from cgconfig.engines.vllm import attention as vllm_attention
from cgconfig.engines.vllm import (
    capture_size_changes,
    compile_changes,
    modes,
    releases,
    v0_engine,
)
from cgconfig.engines.vllm.argv import COMPILATION_MODES, CcValue, VllmInput
from cgconfig.engines.vllm.engine_args import (
    LEVEL_DEFAULTS,
    EngineArgs,
    check_async,
    check_async_pipeline_parallel,
    check_draft_model,
    check_draft_pipeline_parallel,
    check_max_model_len,
    check_speculative,
    check_world_size,
    model_is_moe,
)
from cgconfig.engines.vllm.scheduler import check_scheduler, scheduler
from cgconfig.engines.vllm.sizes import default_capture_sizes, scheduler_capture_sizes
from cgconfig.engines.vllm.stage_b import CapturePlan, stage_b_step
from cgconfig.engines.vllm.v0_plan import v0_step
from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import quote
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault
from cgconfig.sources.contribution import Contribution


def _leaf(key: str, value: Any, cc: CcValue, why: str) -> Leaf:
    return Leaf(key, value, Origin(Layer.CONFIG, f"{cc.source} ({why})", cc.at or None,
                                   cc.position))


def _mode_of(cc: CcValue) -> modes.CudaGraphMode:
    try:
        return modes.mode_from_value(cc.value)
    except ValueError as exc:
        raise InputError(str(exc), where=f"{cc.source} at {cc.at}".strip()) from None


def _sizes_of(cc: CcValue) -> list[int]:
    value = cc.value
    where = f"{cc.source} at {cc.at}" if cc.at else cc.source
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise InputError(f"must be a list of positive integers, got {quote(value)}", where=where)
    return sorted(set(value))


def _number_fact(facts: dict[str, Any], name: str) -> Any:
    """A deployment fact when it is a number, else None: a badly typed fact (from a file) is
    reported by the resolver's fact validation, with its source, not here."""
    value = facts.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def speculative(vin: VllmInput, engine: EngineArgs, *, whole_engine: bool,
                facts: dict[str, Any] | None = None) -> None:
    """The ``--spec-*`` shorthands as vLLM 0.33.0's ``EngineArgs`` folds them into the
    speculative config; ``--spec-tokens`` without a method or model is ``SpeculativeConfig``'s
    refusal."""
    if vin.speculative is not None and whole_engine:
        check_speculative(*vin.speculative, "--speculative-config", engine.release)
        check_draft_pipeline_parallel(vin.speculative[0], vin.speculative[1], facts or {},
                                      "--speculative-config", engine.release)
        check_draft_model(vin.speculative[0], vin.speculative[1], facts or {},
                          "--speculative-config", engine.release)
    methods = value_at(compile_changes.SPECULATIVE_METHODS, engine.release)
    method = vin.speculative[0] if vin.speculative is not None else engine.spec_method
    if whole_engine and isinstance(methods, tuple) and isinstance(method, str) \
            and method not in methods:
        raise InputError(f"1 validation error for SpeculativeConfig: method: Input should be "
                         f"{', '.join(repr(m) for m in methods)} (got {method!r}; vLLM "
                         f"{engine.release} SpeculativeConfig)", where="--speculative-config")
    if whole_engine and engine.async_scheduling and holds_in(
            compile_changes.ASYNC_SPEC_REFUSED, engine.release) and (
            vin.speculative is not None or engine.spec_method is not None):
        raise InputError("Currently, speculative decoding is not supported with async "
                         f"scheduling. (vLLM {engine.release} EngineArgs.create_engine_config)",
                         where="--async-scheduling")
    if whole_engine:
        check_async_pipeline_parallel(engine, facts or {})
        check_async(vin.speculative[0] if vin.speculative is not None else engine.spec_method,
                    engine)
    if engine.spec_tokens is None:
        return
    check_speculative(engine.spec_method, engine.spec_model, True, "--spec-tokens",
                      engine.release)
    if whole_engine and vin.speculative is None:
        check_draft_pipeline_parallel(engine.spec_method, engine.spec_model, facts or {},
                                      "--spec-method", engine.release)
        check_draft_model(engine.spec_method, engine.spec_model, facts or {}, "--spec-method",
                          engine.release)
    vin.num_speculative_tokens = engine.spec_tokens


def post_init(vin: VllmInput, facts: dict[str, Any], engine: EngineArgs,
              *, v2_runner: bool = False) -> Contribution:
    """Follows vLLM 0.33.0's order: ``VllmConfig.__post_init__`` (enforce_eager, the default
    mode, piecewise needs VLLM_COMPILE, then the capture sizes, then
    ``set_splitting_ops_for_v1``) and the worker's ``resolve_cudagraph_mode_and_sizes``
    (Stage B, spec-decode rounding), the last ones as one dialect step."""
    out = Contribution(dialect="vllm")
    out.notes += vin.notes
    level_mode, level_graphs = LEVEL_DEFAULTS[engine.optimization_level]
    mode_chain = vin.effective("cudagraph_mode")
    for cc in mode_chain:
        mode = _mode_of(cc)
        decode, prefill = modes.mode_to_phases(mode)
        why = f"cudagraph_mode={mode.name} → decode {decode}, prefill {prefill}"
        out.leaves += [_leaf("decode.backend", decode, cc, why),
                       _leaf("prefill.backend", prefill, cc, why)]
    if vin.enforce_eager is not None:
        eager = CcValue(True, "--enforce-eager", "", 30_000 + vin.enforce_eager)
        why = "equivalent to -cc.mode=none -cc.cudagraph_mode=none"
        out.leaves += [_leaf("decode.backend", "disabled", eager, why),
                       _leaf("prefill.backend", "disabled", eager, why)]
    size_chain = vin.effective("cudagraph_capture_sizes")
    for cc in size_chain:
        sizes = _sizes_of(cc)
        out.leaves += [_leaf("decode.bs", sizes, cc, "capture sizes, in tokens"),
                       _leaf("prefill.bs", sizes, cc, "capture sizes, in tokens")]
    user_sizes = _sizes_of(size_chain[-1]) if size_chain else None
    user_max = vin.final("max_cudagraph_capture_size")
    if user_max is not None and (not isinstance(user_max.value, int)
                                 or isinstance(user_max.value, bool)):
        raise InputError(f"must be an integer, got {quote(user_max.value)}",
                         where=f"{user_max.source} {user_max.at}".strip())

    # VllmConfig.__post_init__: enforce_eager turns compilation and graphs off (vllm.A1); an
    # unset mode takes the -O2 default (vllm.A5); piecewise graphs need VLLM_COMPILE (vllm.A8).
    # Only then are the sizes computed, and only when graphs are still on (vllm.A12/A13).
    vllm_compile = vin.compilation_mode(level_mode) == COMPILATION_MODES["VLLM_COMPILE"]
    default_mode = modes.CudaGraphMode[compile_changes.default_mode(engine.release, vllm_compile,
                                                                    level_graphs)]

    requested = (modes.CudaGraphMode.NONE if vin.enforce_eager is not None
                 else _mode_of(mode_chain[-1]) if mode_chain
                 else default_mode)
    at_sizes = requested if vllm_compile else releases.piecewise_fallback(requested, engine.release)
    replan = None
    if at_sizes is modes.CudaGraphMode.NONE:
        capture = CapturePlan([], 0, f"cudagraph_mode is NONE when vLLM sets the capture sizes "
                                     f"(requested {requested.name}): no sizes, no size checks")
    else:
        if v2_runner:
            def replan(model_facts: dict[str, Any]) -> CapturePlan:
                return _capture_plan(vin, model_facts, user_sizes,
                                     user_max.value if user_max is not None else None, engine)
        capture = _capture_plan(vin, facts, user_sizes,
                                user_max.value if user_max is not None else None, engine)
        out.notes += capture.notes
        if user_sizes is None and capture.sizes:
            out.defaults += [DialectDefault(f"{phase}.bs", capture.sizes, "vLLM default grid",
                                            capture.why) for phase in ("decode", "prefill")]
    if v2_runner:  # a whole `vllm serve` line: SchedulerConfig validates what it was given
        check_scheduler(vin, facts, engine)
    if not mode_chain and vin.enforce_eager is None:
        decode, prefill = modes.mode_to_phases(default_mode)
        why_mode = compile_changes.default_mode_why(
            engine.release, default_mode.name, vllm_compile,
            f"{engine.optimization_level} ({engine.level_source})") + \
            f" → decode {decode}, prefill {prefill}"
        out.defaults += [DialectDefault("decode.backend", decode, "vLLM default", why_mode),
                         DialectDefault("prefill.backend", prefill, "vLLM default", why_mode)]
    out.steps.append(stage_b_step(_support(vin), vin.attention_backend or "",
                                  vin.num_speculative_tokens, vllm_compile, vin.splitting_ops(),
                                  capture, graphs_off=lambda known: _graphs_off(
                                      vin, engine, level_mode, v2_runner, known),
                                  v2_runner=_runner(vin, engine, level_mode) if v2_runner
                                  else False, release=engine.release,
                                  fuse_attn_quant=vin.pass_config.get(str(value_at(
                                      compile_changes.ATTN_FUSION_KEY, engine.release))) is True,
                                  attention=_attention(vin, engine) if v2_runner else None,
                                  replan=replan, context_parallel=engine.context_parallel,
                                  v0_engine=v0_step(vin, engine, user_sizes) if v2_runner and
                                  holds_in(v0_engine.V0_FALLBACK, engine.release) else None,
                                  hybrid_default=not mode_chain and vin.enforce_eager is None
                                  and holds_in(compile_changes.HYBRID_DEFAULT_FULL_AND_PIECEWISE,
                                               engine.release),
                                  deepep_piecewise=holds_in(compile_changes.DEEPEP_HT_PIECEWISE,
                                                            engine.release)
                                  and engine.all2all_backend == "deepep_high_throughput"
                                  and engine.data_parallel_size > 1))
    return out


def _runner(vin: VllmInput, engine: EngineArgs, level_mode: str) -> Callable[[Draft], bool]:
    """Whether a `vllm serve` line runs on Model Runner V2 once the model's facts are known."""
    method = vin.speculative[0] if vin.speculative is not None else engine.spec_method
    draft_model = vin.speculative[1] if vin.speculative is not None else engine.spec_model
    spec_flag = "--speculative-config" if vin.speculative is not None else "--spec-method"
    stock = vin.compilation_mode(level_mode) == COMPILATION_MODES["STOCK_TORCH_COMPILE"]

    def pick(draft: Draft) -> bool:
        arch = draft.facts.get("model_arch")
        # the draft's PP check again: a local folder's config.json is read after the line
        check_draft_pipeline_parallel(method, draft_model, draft.facts, spec_flag, engine.release)
        forced = draft.facts.get("vllm_use_v2_model_runner")
        ignored = compile_changes.v2_variable_ignored(engine.release) if forced is not None else None
        if ignored:
            draft.warnings.append(ignored)
            return False
        if forced is True:  # VLLM_USE_V2_MODEL_RUNNER=1: V2, or a refusal for what it lacks
            unsupported = releases.v2_unsupported(
                engine.release, hybrid=arch in vllm_attention.HYBRID_ARCHS,
                spec_method=method if isinstance(method, str) else None,
                stock_torch_compile=stock)
            if unsupported:
                raise InputError(f"vLLM {engine.release}: VLLM_USE_V2_MODEL_RUNNER does not yet support: "
                                 f"{', '.join(unsupported)}", where="VLLM_USE_V2_MODEL_RUNNER")
            return True
        if forced is False:  # VLLM_USE_V2_MODEL_RUNNER=0: the V1 runner
            return False
        return releases.uses_v2_runner(
            engine.release, model_arch=arch if isinstance(arch, str) else None,
            moe=model_is_moe(draft.facts) is True, hybrid=arch in vllm_attention.HYBRID_ARCHS,
            spec_method=method if isinstance(method, str) else None,
            stock_torch_compile=stock)

    return pick


def _graphs_off(vin: VllmInput, engine: EngineArgs, level_mode: str, v2_runner: bool,
                facts: dict[str, Any]) -> list[tuple[str, str, str]]:
    """vLLM's steps that turn every graph off after the mode is chosen: (rule, message,
    function)."""
    off = []
    if v2_runner and holds_in(releases.V2_STOCK_TORCH_COMPILE, engine.release) \
            and vin.compilation_mode(level_mode) == COMPILATION_MODES["STOCK_TORCH_COMPILE"]:
        off.append(("vllm.v2-stock-torch-compile",
                    "CUDA graphs are not supported with stock torch.compile in Model Runner V2.",
                    "VllmConfig._disable_cudagraphs_for_v2_stock_torch_compile"))
    if engine.deepep_high_throughput_off(facts) and not holds_in(
            compile_changes.DEEPEP_HT_PIECEWISE, engine.release) and \
            vin.compilation_mode(level_mode) == \
            COMPILATION_MODES["VLLM_COMPILE"]:  # set_splitting_ops_for_v1 runs only then
        off.append(("vllm.deepep-high-throughput",
                    "DeepEP: Disabling CUDA Graphs since DeepEP high-throughput kernels are "
                    "optimized for prefill and are incompatible with CUDA Graphs.",
                    "CompilationConfig.set_splitting_ops_for_v1"))
    return off


def _capture_plan(vin: VllmInput, facts: dict[str, Any], user_sizes: list[int] | None,
                  user_max: int | None, engine: EngineArgs) -> CapturePlan:
    """``VllmConfig._set_cudagraph_sizes`` with graphs on: user sizes capped by
    ``max_num_batched_tokens``, else the default grid (1024 ceiling on the SM100 family)."""
    max_num_seqs, max_num_batched_tokens, basis = scheduler(vin, facts, engine)
    sm = _number_fact(facts, "gpu_sm")
    model_note = ""
    if capture_size_changes.scheduler_sizes(engine.release):  # vLLM 0.10.2
        given = vin.cuda_graph_sizes.value if vin.cuda_graph_sizes is not None else None
        result = scheduler_capture_sizes(
            max_num_seqs, max_num_batched_tokens, cuda_graph_sizes=given,
            capture_sizes=user_sizes, gpt_oss=facts.get("model_arch") in GPT_OSS_ARCHS)
        why = (f"max_num_seqs={max_num_seqs}, max_num_batched_tokens={max_num_batched_tokens} "
               f"({basis}); " + ("compilation_config.cudagraph_capture_sizes as given (vLLM "
               f"{engine.release} does not cap them)" if user_sizes is not None else
               f"--cuda-graph-sizes {' '.join(map(str, given))}" if given else
               "SchedulerConfig.cuda_graph_sizes [min(2·max_num_seqs, 512)]") +
               "; one value N: 1, 2, 4 and every multiple of 8 up to N, capped by "
               "max_num_batched_tokens")
        return CapturePlan(result.sizes, result.max_size, why, notes=result.notes,
                           max_num_seqs=max_num_seqs)
    if user_max is None and user_sizes is None and facts.get("model_arch") in GPT_OSS_ARCHS:
        # GptOssForCausalLMConfig.verify_and_update_config: a 1024 ceiling unless the user
        # set the sizes or their maximum.
        user_max, model_note = GPT_OSS_MAX_CAPTURE_SIZE, (
            f"; GPT-OSS raises max_cudagraph_capture_size to {GPT_OSS_MAX_CAPTURE_SIZE}")
    try:
        result = default_capture_sizes(
            max_num_seqs, max_num_batched_tokens,
            num_speculative_tokens=vin.num_speculative_tokens, max_capture_size=user_max,
            capture_sizes=user_sizes, performance_mode=engine.performance_mode,
            blackwell=sm is not None and sm // 10 == 10, release=engine.release)
    except ValueError as exc:
        raise InputError(str(exc), where="--compilation-config") from None
    gpu = (f"--gpu-sm {sm}" if sm is not None else
           "GPU compute capability unknown (--gpu-sm): not Blackwell assumed")
    if sm is not None and sm // 10 == 10 \
            and not holds_in(releases.BLACKWELL_CEILING, engine.release):
        gpu += f" (vLLM {engine.release}: a 512 ceiling on Blackwell too; 1024 from 0.28)"
    dropped = sorted(set(user_sizes or []) - set(result.sizes))
    why = (f"max_num_seqs={max_num_seqs}, max_num_batched_tokens={max_num_batched_tokens} "
           f"({basis}), num_speculative_tokens={vin.num_speculative_tokens}, {gpu}{model_note}")
    if dropped:
        why += f"; sizes above max_num_batched_tokens dropped: {dropped}"
    return CapturePlan(result.sizes, result.max_size, why, notes=result.notes,
                       max_num_seqs=max_num_seqs)


def _attention(vin: VllmInput, engine: EngineArgs) -> Callable[[Draft], tuple[str, str]]:
    """A whole `vllm serve` line: the backend the model's layers select and its level, once the
    model's facts are known (``--cudagraph-support`` still wins)."""
    requested = vin.attention_backend
    given = vin.support

    def pick(draft: Draft) -> tuple[str, str]:
        facts = draft.facts
        check_world_size(facts, engine.release)
        check_max_model_len(facts, engine)
        if facts.get("model_arch") is None and facts.get("model_path") and given is None \
                and not facts.get("use_mla"):
            draft.warnings.append(
                f"the architecture of {facts['model_path']} is unknown (no config.json found): "
                "vLLM's attention backend and its CUDA-graph support depend on it (MLA, "
                "attention sinks, Mamba layers); a standard attention model is assumed; give "
                "--model-arch NAME or a local model folder")
        if given is not None:
            return given, requested or ""
        if holds_in(vllm_attention.V1_BACKEND_NAMES, engine.release):  # vLLM 0.10.2
            env = facts.get("vllm_attn_backend")
            try:
                choice = vllm_attention.choose_0_10(
                    env if isinstance(env, str) else None, sm=_number_fact(facts, "gpu_sm"),
                    mla=bool(facts.get("use_mla")), model_arch=facts.get("model_arch"),
                    release=engine.release, fp8_kv_cache=engine.kv_cache_dtype.startswith("fp8"))
            except vllm_attention.AttentionRefusal as exc:
                raise InputError(f"{exc} (vLLM {engine.release})",
                                 where="VLLM_ATTENTION_BACKEND") from None
            return choice.level.name, choice.backend
        if engine.kv_cache_dtype == "bfloat16" and facts.get("device", "cuda") == "cuda" \
                and not holds_in(releases.KV_CACHE_BF16, engine.release):
            raise InputError("No valid attention backend found for cuda: kv_cache_dtype "
                             f"bfloat16 not supported by FLASH_ATTN, FLASHINFER, TRITON_ATTN or "
                             f"FLEX_ATTENTION (vLLM {engine.release} attention selector)",
                             where="--kv-cache-dtype", hint="use auto (the model's dtype)")
        try:
            choice = vllm_attention.choose(
                requested, rocm=facts.get("device") == "hip", sm=_number_fact(facts, "gpu_sm"),
                mla=bool(facts.get("use_mla")), model_arch=facts.get("model_arch"),
                fp8_kv_cache=engine.kv_cache_dtype.startswith("fp8"), release=engine.release)
        except vllm_attention.AttentionRefusal as exc:
            raise InputError(f"{exc} (vLLM {engine.release})", where="--attention-backend") from None
        return choice.level.name, choice.backend

    return pick


def _support(vin: VllmInput) -> str | None:
    """The attention capability: ``--cudagraph-support``, else the named backend's level."""
    backend_name = vin.attention_backend
    if vin.support is not None or backend_name is None:
        return vin.support
    if backend_name.upper() not in modes.VLLM_BACKEND_SUPPORT:
        raise InputError(f"unknown vLLM attention backend {quote(backend_name)}",
                         where="--vllm-attention-backend",
                         allowed=", ".join(modes.VLLM_BACKEND_SUPPORT),
                         suggestion=did_you_mean(backend_name.upper(),
                                                 modes.VLLM_BACKEND_SUPPORT))
    return modes.backend_support(
        backend_name, num_speculative_tokens=vin.num_speculative_tokens).name


#: vLLM 0.33.0 ``model_executor/models/config.py:GptOssForCausalLMConfig``.
GPT_OSS_ARCHS = ("GptOssForCausalLM",)
GPT_OSS_MAX_CAPTURE_SIZE = 1024
