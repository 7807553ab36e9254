"""TensorRT-LLM's CUDA-graph batch sizes: ``_generate_cuda_graph_batch_sizes`` and the
``cuda_graph_config`` validators, per TensorRT-LLM
``tensorrt_llm/llmapi/llm_args.py`` (``CudaGraphConfig`` and its validators).

``filter_batch_sizes`` is ``model_engine.py:_filter_cuda_graph_batch_sizes`` (what the engine
keeps of that list, bounded by its own max batch size, ``max_num_tokens`` and draft tokens).

Two variants: ``"main"`` (the 2026 main branch, ``BaseCudaGraphConfig``; padding grid grows in
+64 steps, PR #12895), the one the supported release (``versions.SUPPORTED["trtllm"]``, a
main-branch commit) runs, :data:`RELEASE_VARIANT`; and ``"v1.0"`` (plain ``CudaGraphConfig`` validated by
``TorchLlmArgs.validate_cuda_graph_config``). Sizes are batch sizes (requests), not tokens.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from cgconfig.limits import check_decode_batch

__all__ = [
    "DEFAULT_MAX_BATCH_SIZE",
    "FILTER_SOURCE",
    "RELEASE_VARIANT",
    "VARIANTS",
    "filter_batch_sizes",
    "generate_batch_sizes",
    "graph_batch_bound",
    "validate",
]

VARIANTS: tuple[str, ...] = ("main", "v1.0")
#: The variant of the supported TensorRT-LLM release (a main-branch commit: no release number,
#: so no ReleaseChange rows until a numbered release is supported).
RELEASE_VARIANT = "main"

#: ``max_batch_size`` when neither it nor ``batch_sizes`` is set.
DEFAULT_MAX_BATCH_SIZE = 128

_PADDED_BASE = (1, 2, 4, *range(8, 129, 8))  # 1, 2, 4, 8, 16, ..., 128
_UNPADDED_BASE = (*range(1, 32), 32, 64, 128)  # every size below 32: no padding to hide gaps
_SLIDING_STEP = 64


def _powers_of_two_tail(max_batch_size: int) -> list[int]:
    """256, 512, ... below 2**ceil(log2(max)); TensorRT-LLM's own float expression, kept so
    that rounding matches it exactly."""
    return [2**i for i in range(8, math.ceil(math.log(max_batch_size, 2)))]


def _finish(batch_sizes: list[int], max_batch_size: int) -> list[int]:
    """Drop sizes above the maximum, sort, and make the maximum the last size."""
    kept = sorted(s for s in batch_sizes if s <= max_batch_size)
    if not kept or kept[-1] != max_batch_size:
        kept.append(max_batch_size)
    return kept


def _generate_main(max_batch_size: int, enable_padding: bool) -> list[int]:
    if enable_padding:
        # Padded batches round up to the next size, so a +64 step bounds waste above 128.
        sizes = list(_PADDED_BASE)
        while sizes[-1] + _SLIDING_STEP <= max_batch_size:
            sizes.append(sizes[-1] + _SLIDING_STEP)
    else:
        sizes = [*_UNPADDED_BASE, *_powers_of_two_tail(max_batch_size)]
    return _finish(sizes, max_batch_size)


def _generate_v1_0(max_batch_size: int, enable_padding: bool) -> list[int]:
    base = _PADDED_BASE if enable_padding else _UNPADDED_BASE
    return _finish([*base, *_powers_of_two_tail(max_batch_size)], max_batch_size)


_GENERATORS: dict[str, Callable[[int, bool], list[int]]] = {
    "main": _generate_main,
    "v1.0": _generate_v1_0,
}


def _generator(variant: str) -> Callable[[int, bool], list[int]]:
    try:
        return _GENERATORS[variant]
    except KeyError:
        raise ValueError(f"Invalid TensorRT-LLM variant: {variant!r}. "
                         f"Allowed: {', '.join(VARIANTS)}") from None


def generate_batch_sizes(max_batch_size: int, enable_padding: bool, *,
                         variant: str) -> list[int]:
    """TensorRT-LLM's default CUDA-graph batch sizes for ``max_batch_size`` (sorted, ending at
    ``max_batch_size``). Raises ``ValueError`` for a maximum below 1 or an unknown variant."""
    generate = _generator(variant)
    if max_batch_size < 1:
        raise ValueError(f"max_batch_size must be >= 1 to generate batch sizes, got "
                         f"{max_batch_size}")
    check_decode_batch(max_batch_size, "cuda_graph_config.max_batch_size")
    return generate(max_batch_size, enable_padding)


def validate(batch_sizes: Sequence[int] | None, max_batch_size: int = 0,
             enable_padding: bool = False, *, variant: str) -> tuple[list[int], int]:
    """``cuda_graph_config`` as TensorRT-LLM settles it: ``(sorted batch_sizes, max_batch_size)``.

    ``max_batch_size`` 0 means unset. No (or an empty) list: generated from the maximum, or from
    128 when that is unset too. A list: sorted as given (TensorRT-LLM does not deduplicate);
    an unset maximum becomes ``max(batch_sizes)``. Both set: ``"main"`` requires
    ``max_batch_size == max(batch_sizes)``; ``"v1.0"`` required the list to equal the generated
    one. Either mismatch raises ``ValueError`` with TensorRT-LLM's message.
    """
    _generator(variant)  # an unknown variant fails whatever the other inputs are
    if max_batch_size < 0:
        raise ValueError("cuda_graph_config.max_batch_size must be non-negative")
    check_decode_batch(max_batch_size, "cuda_graph_config.max_batch_size")
    if not batch_sizes:
        chosen = max_batch_size or DEFAULT_MAX_BATCH_SIZE
        return generate_batch_sizes(chosen, enable_padding, variant=variant), chosen
    ordered = sorted(batch_sizes)
    derived_max = ordered[-1]
    if max_batch_size == 0:
        return ordered, derived_max
    if variant == "v1.0":
        if ordered != generate_batch_sizes(max_batch_size, enable_padding, variant=variant):
            raise ValueError("Please don't set both cuda_graph_config.batch_sizes and "
                             "cuda_graph_config.max_batch_size.\n"
                             f"cuda_graph_config.batch_sizes: {ordered}, "
                             f"cuda_graph_config.max_batch_size: {max_batch_size}")
    elif max_batch_size != derived_max:
        raise ValueError("CudaGraphConfig.max_batch_size is incompatible with "
                         "CudaGraphConfig.batch_sizes. When both are provided, max_batch_size "
                         "must equal max(batch_sizes).\n"
                         f"CudaGraphConfig.batch_sizes: {ordered}, max(batch_sizes): "
                         f"{derived_max}, CudaGraphConfig.max_batch_size: {max_batch_size}")
    return ordered, max_batch_size


#: Where the engine's filter lives (the commit whose text cgconfig's port follows).
FILTER_SOURCE = ("TensorRT-LLM 603c8a0a tensorrt_llm/_torch/pyexecutor/model_engine.py:"
                 "_filter_cuda_graph_batch_sizes")


def graph_batch_bound(max_batch_size: int, max_num_tokens: int, draft_tokens: int) -> int:
    """The largest pure-decode batch: ``min(max_batch_size, int(max_num_tokens / (1 +
    draft_tokens)))``, TensorRT-LLM's own float division kept."""
    return min(max_batch_size, int(max_num_tokens / (1 + draft_tokens)))


def filter_batch_sizes(batch_sizes: Sequence[int], bound: int,
                       enable_padding: bool) -> tuple[list[int], str | None]:
    """The sizes the engine captures from a sorted ``batch_sizes`` (duplicates kept), and the
    warning TensorRT-LLM logs when padding makes it capture ``bound`` itself.

    Sizes up to ``bound`` are kept; at the first larger one the list stops, except that with
    padding ``bound`` is appended (once) so that batches still pad to a graph."""
    result: list[int] = []
    for i, size in enumerate(batch_sizes):
        if size <= bound:
            result.append(size)
            continue
        if enable_padding and (i == 0 or result[i - 1] != bound):
            result.append(bound)
            return result, ("CUDA graph padding is enabled, but one of the given CUDA graph "
                            f"batch sizes ({size}) is larger than the executor's max batch size "
                            f"({bound}). We will pad batches to {bound}.")
        break
    return result, None
