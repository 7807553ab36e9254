"""vLLM's scheduler limits for a `vllm serve` line: ``max_num_seqs`` and ``max_num_batched_tokens``
as ``EngineArgs._set_default_max_num_seqs_and_batched_tokens_args`` leaves them (the OpenAI
server's defaults by GPU memory) and ``SchedulerConfig``'s refusal of fewer batched tokens than
sequences. Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from typing import Any

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.vllm import capture_size_changes, releases
from cgconfig.engines.vllm.argv import VllmInput
from cgconfig.engines.vllm.engine_args import BATCHED_DP_MAX_NUM_BATCHED_TOKENS, EngineArgs
from cgconfig.errors import InputError


def _number_fact(facts: dict[str, Any], name: str) -> Any:
    """A deployment fact when it is a number, else None."""
    value = facts.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def scheduler(vin: VllmInput, facts: dict[str, Any], engine: EngineArgs) -> tuple[int, int, str]:
    """max_num_seqs and max_num_batched_tokens as ``EngineArgs._set_default_max_num_seqs_and_
    batched_tokens_args`` leaves them (usage context OPENAI_API_SERVER), and why."""
    seqs, tokens, basis = engine_defaults(_number_fact(facts, "gpu_memory_gib"), engine.release,
                                           _number_fact(facts, "gpu_sm"))
    if engine.batched_dp_moe and capture_size_changes.batched_dp_token_budget(engine.release):
        tokens, basis = BATCHED_DP_MAX_NUM_BATCHED_TOKENS, (
            f"{basis}; {engine.all2all_backend} with expert parallelism and DP "
            f"{engine.data_parallel_size}: {BATCHED_DP_MAX_NUM_BATCHED_TOKENS} batched tokens")
    if engine.performance_mode == "throughput":
        seqs, tokens, basis = seqs * 2, tokens * 2, f"{basis}, doubled (--performance-mode throughput)"
    if vin.max_num_seqs and vin.max_num_batched_tokens:
        basis = "both given"
    elif vin.max_num_seqs or vin.max_num_batched_tokens:
        given = "max_num_seqs" if vin.max_num_seqs else "max_num_batched_tokens"
        basis = f"{given} given, the other from the {basis}"
    tokens = vin.max_num_batched_tokens or tokens
    # A defaulted max_num_seqs never exceeds the token budget.
    return vin.max_num_seqs or min(seqs, tokens), tokens, basis


def check_scheduler(vin: VllmInput, facts: dict[str, Any], engine: EngineArgs) -> None:
    """``SchedulerConfig``'s refusal: fewer batched tokens than sequences."""
    seqs, tokens, _ = scheduler(vin, facts, engine)
    if tokens < seqs:
        raise InputError(f"max_num_batched_tokens ({tokens}) must be greater than or equal to "
                         f"max_num_seqs ({seqs}) (vLLM {engine.release} SchedulerConfig)",
                         where="--max-num-batched-tokens" if vin.max_num_batched_tokens
                         else "--max-num-seqs")


#: vLLM's OpenAI-server engine defaults by GPU memory (arg_utils): (at least GiB,
#: max_num_seqs, max_num_batched_tokens), first match wins.
VLLM_ENGINE_DEFAULTS: tuple[tuple[float, int, int], ...] = (
    (160, 1024, 16384),
    (70, 1024, 8192),
    (0, 256, 2048),
)


def engine_defaults(memory_gib: float | None, release: str,
                     sm: float | None = None) -> tuple[int, int, str]:
    """vLLM's engine-argument defaults for a GPU's memory in ``release``, and where they came
    from. ``EngineArgs.get_batch_defaults`` keeps a device named A100 on the smallest tier below
    160 GiB; cgconfig knows the compute capability, not the name, so SM 80 stands for A100."""
    if memory_gib is None:
        _, seqs, tokens = VLLM_ENGINE_DEFAULTS[-1]
        return seqs, tokens, "vLLM server defaults for unknown GPU memory"
    rows = VLLM_ENGINE_DEFAULTS if holds_in(releases.LARGE_GPU_DEFAULTS, release) \
        else VLLM_ENGINE_DEFAULTS[1:]
    floor, seqs, tokens = next(row for row in rows if memory_gib >= row[0])
    if sm == 80 and floor == A100_SMALL_TIER_BELOW:
        floor, seqs, tokens = VLLM_ENGINE_DEFAULTS[-1]
        return seqs, tokens, (f"vLLM server defaults for an A100 ({memory_gib:g} GiB, --gpu-sm 80"
                              "): the small tier, as for < 70 GiB")
    return seqs, tokens, f"vLLM server defaults for ≥ {floor:g} GiB ({memory_gib:g} GiB)"


#: The tier vLLM skips for A100 devices (``"a100" not in device_name``, 0.20-0.33).
A100_SMALL_TIER_BELOW = 70
