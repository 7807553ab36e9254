"""vLLM 0.10.2's V0 engine as a plan step (:mod:`.v0_engine` holds its rows): whether a whole
`vllm serve` line falls back to V0 once the model's facts are known, the refusals V0 adds, and
the plan: one decode-only graph of the whole model per V0 size, nothing for prefill, no
cudagraph_mode, with the reason on the plan. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cgconfig.engines.vllm import modes
from cgconfig.engines.vllm.stage_b import apply_mode, set_sizes
from cgconfig.engines.vllm.v0_engine import (
    V0_MAX_NUM_SEQS,
    V0_MIN_BATCHED_TOKENS,
    kv_dtype_on_v1,
    v0_backend_refusal,
    v0_chunked_prefill,
    v0_reason,
    v0_sizes,
)
from cgconfig.errors import InputError

if TYPE_CHECKING:
    from cgconfig.draft import Draft
    from cgconfig.engines.vllm.argv import VllmInput
    from cgconfig.engines.vllm.engine_args import EngineArgs

#: The decision that says a line runs on vLLM 0.10.2's V0 engine.
V0_RULE = "vllm.v0-engine"


def _number_fact(facts: dict[str, Any], name: str) -> Any:
    value = facts.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def v0_step(vin: VllmInput, engine: EngineArgs,
            user_sizes: list[int] | None) -> Callable[[Draft], bool]:
    """vLLM 0.10.2: whether a `vllm serve` line falls back to the V0 engine, once the model's
    facts are known, and that engine's plan : one decode-only graph of the
    whole model per V0 size, nothing for prefill, no cudagraph_mode."""
    def plan(draft: Draft) -> bool:
        facts = draft.facts
        env = facts.get("vllm_attn_backend")
        env = env if isinstance(env, str) else None
        sm = _number_fact(facts, "gpu_sm")
        mla = bool(facts.get("use_mla"))
        kv_on_v1 = kv_dtype_on_v1(env, engine.kv_cache_dtype,
                                                 sm=int(sm) if sm is not None else 90, mla=mla)
        reason = v0_reason(env_backend=env, kv_cache_dtype=engine.kv_cache_dtype,
                                     kv_on_v1=kv_on_v1, v0_flags=(), release=engine.release)
        if reason is None:
            return False
        speculative = vin.speculative is not None or engine.spec_method is not None
        max_model_len = engine.max_model_len or _number_fact(facts, "model_context_length")
        seqs = vin.max_num_seqs or V0_MAX_NUM_SEQS
        chunked = v0_chunked_prefill(
            given=None, max_model_len=max_model_len, mla=mla,
            multimodal=bool(facts.get("is_multimodal")), speculative=speculative)
        tokens = vin.max_num_batched_tokens
        if tokens is None:
            tokens = V0_MIN_BATCHED_TOKENS if chunked else max(
                max_model_len or 8192, V0_MIN_BATCHED_TOKENS)
        if max_model_len is not None and tokens < max_model_len and not chunked:
            raise InputError(f"max_num_batched_tokens ({tokens}) is smaller than max_model_len "
                             f"({max_model_len}) on the V0 engine ({reason}), whose chunked "
                             f"prefill is off here (vLLM {engine.release} SchedulerConfig)",
                             where="--max-num-batched-tokens")
        if tokens < seqs:
            raise InputError(f"max_num_batched_tokens ({tokens}) must be greater than or equal "
                             f"to max_num_seqs ({seqs}) (vLLM {engine.release} SchedulerConfig, "
                             "V0 engine)", where="--max-num-batched-tokens")
        if speculative:
            raise InputError(f"Speculative decoding is not supported on vLLM V0. (vLLM "
                             f"{engine.release} runs this line on V0: {reason}; "
                             "CudaPlatform.check_and_update_config)", where="--speculative-config")
        refusal = v0_backend_refusal(env, mla=mla, sm=int(sm) if sm is not None else 90,
                                     release=engine.release)
        if refusal is not None:
            raise InputError(f"{refusal} (vLLM {engine.release} runs this line on V0: {reason}; "
                             "its attention layers select the backend in "
                             "attention/selector.py get_attn_backend)",
                             where="VLLM_ATTENTION_BACKEND")
        sizes = [] if vin.enforce_eager is not None else (
            user_sizes if user_sizes is not None else v0_sizes(seqs))
        apply_v0(draft, sizes, reason, seqs, engine.release,
                 user_sizes=user_sizes is not None and vin.enforce_eager is None)
        return True

    return plan


def apply_v0(draft: Draft, sizes: list[int], reason: str, max_num_seqs: int, release: str,
             *, user_sizes: bool) -> None:
    """vLLM 0.10.2's V0 engine : one decode-only graph of the whole model per
    size (the plan's decode phase, backend full), nothing for prefill; no cudagraph_mode."""
    where = ("compilation_config.cudagraph_capture_sizes as given" if user_sizes else
             f"1, 2, 4 and multiples of 8 up to the first at least max_num_seqs={max_num_seqs}"
             if sizes else "none: --enforce-eager")
    message = (f"vLLM {release} runs this line on its V0 engine: {reason}. V0 sets no "
               "cudagraph_mode (the line's is not read) and captures one decode-only CUDA graph "
               f"of the whole model per size ({where}), per pipeline stage; prefill runs eagerly")
    mode = modes.phases_to_mode(draft.get("decode.backend"), draft.get("prefill.backend")).mode
    after = modes.CudaGraphMode.FULL_DECODE_ONLY if sizes else modes.CudaGraphMode.NONE
    apply_mode(draft, V0_RULE, mode, after, message,
           "EngineArgs._is_v1_supported_oracle, worker/model_runner.py "
           "GPUModelRunnerBase.capture_model", release)
    set_sizes(draft, sizes, V0_RULE, f"V0 decode graphs: {where}", message,
               f"vLLM {release} VllmConfig._set_cudagraph_sizes (V0 branch)",
               "run the V1 engine (see why V0 was chosen)")
    draft.warnings.append(message)
    draft.derived["vllm_engine"] = "v0"
