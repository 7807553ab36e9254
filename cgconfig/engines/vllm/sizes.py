"""vLLM's default CUDA-graph capture sizes (``VllmConfig._set_cudagraph_sizes``, vLLM 0.19-0.33).

Reproduces ``vllm/config/vllm.py`` with a single decode tier ``(q, max_num_seqs)``;
dynamic speculative-decoding tiers are out of scope. Sizes are token counts. vLLM only runs
this when CUDA graphs are on (not eager, mode ≠ NONE); otherwise it sets sizes ``[]`` and max
``0``, which is the caller's branch. Spec-decode rounding (rule B7) happens later, in
:func:`cgconfig.engines.vllm.mode_resolution.round_sizes_for_spec`.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.vllm.capture_size_changes import captures_token_budget, ceiling_query_len
from cgconfig.engines.vllm.releases import BLACKWELL_CEILING, MAX_NUM_SEQS_SIZE, SPEC_DECODE_SIZES
from cgconfig.limits import check_decode_batch, check_prefill_tokens

__all__ = [
    "BLACKWELL_MAX_GRAPH_SIZE",
    "DEFAULT_MAX_GRAPH_SIZE",
    "PERFORMANCE_MODES",
    "SizeResult",
    "default_capture_sizes",
]

PERFORMANCE_MODES: tuple[str, ...] = ("balanced", "interactivity", "throughput")

#: The automatic ceiling; the SM100 family (Blackwell) gets twice as many graphs.
DEFAULT_MAX_GRAPH_SIZE = 512
BLACKWELL_MAX_GRAPH_SIZE = 1024

# The default grid: dense where padding waste would hurt most, coarser above.
_SMALL_SIZES = (1, 2, 4)
_STEP8_FROM, _STEP8_BELOW = 8, 256  # 8, 16, ..., 248
_STEP16_FROM = 256  # 256, 272, ..., max
_INTERACTIVITY_DENSE = 32  # "interactivity": every size 1..32


@dataclass(frozen=True)
class SizeResult:
    """Capture sizes (sorted, in tokens), their maximum, and vLLM's warnings in its wording."""

    sizes: list[int]
    max_size: int
    notes: list[str] = field(default_factory=list)


def _grid(max_size: int, interactivity: bool) -> list[int]:
    """vLLM's generated token grid up to ``max_size``."""
    if interactivity:
        sizes = list(range(1, min(max_size, _INTERACTIVITY_DENSE) + 1))
    else:
        sizes = [i for i in _SMALL_SIZES if i <= max_size]
    if max_size >= _STEP8_FROM:
        sizes += range(_STEP8_FROM, min(max_size + 1, _STEP8_BELOW), 8)
    if max_size >= _STEP16_FROM:
        sizes += range(_STEP16_FROM, max_size + 1, 16)
    return sizes


def _request_counts(max_num_seqs: int, ceiling: int) -> set[int]:
    """Request counts whose uniform decode batches get a graph: the same grid, plus the widest."""
    m = min(max_num_seqs, ceiling)
    counts = {i for i in _SMALL_SIZES if i <= m}
    counts.update(range(_STEP8_FROM, min(m + 1, _STEP8_BELOW), 8))
    counts.update(range(_STEP16_FROM, m + 1, 16))
    counts.add(m)
    return counts


#: vLLM 0.10.2 ``model_executor/models/config.py GptOssForCausalLMConfig.verify_and_update_config``:
#: a single ``cuda_graph_sizes`` value below 1024 becomes this list (83 sizes, "Overriding max
#: cuda graph capture size to 1024 for performance").
_GPT_OSS_0_10_LIST = (1, 2, 4, *range(8, 256, 8), *range(256, 1025, 16))


def scheduler_capture_sizes(max_num_seqs: int, max_num_batched_tokens: int, *,
                            cuda_graph_sizes: Sequence[int] | None,
                            capture_sizes: Sequence[int] | None,
                            gpt_oss: bool = False) -> SizeResult:
    """vLLM 0.10.2's V1 capture sizes (``capture_size_changes.SCHEDULER_GRAPH_SIZES``):
    ``SchedulerConfig.cuda_graph_sizes`` (unset: ``[min(2·max_num_seqs, 512)]``, GPT-OSS's
    83-size list for a single value below 1024), one value N → ``[1, 2, 4]`` and every
    multiple of 8 up to N, several → sorted, then capped by ``max_num_batched_tokens``; an
    explicit ``cudagraph_capture_sizes`` list replaces it, de-duplicated, not capped."""
    check_decode_batch(max_num_seqs, "max_num_seqs")
    check_prefill_tokens(max_num_batched_tokens, "max_num_batched_tokens")
    for size in [*(cuda_graph_sizes or ()), *(capture_sizes or ())]:
        check_prefill_tokens(size, "cudagraph_capture_sizes")
    notes: list[str] = []
    if capture_sizes is not None:
        sizes = sorted(set(capture_sizes))
        if len(sizes) < len(capture_sizes):
            notes.append(f"cudagraph sizes specified by model runner {sorted(capture_sizes)} is "
                         f"overridden by config {sizes}")
        return SizeResult(sizes, sizes[-1] if sizes else 0, notes)
    given = list(cuda_graph_sizes or [min(2 * max_num_seqs, DEFAULT_MAX_GRAPH_SIZE)])
    if gpt_oss and len(given) == 1 and given[0] < 1024:
        given = list(_GPT_OSS_0_10_LIST)
        notes.append("GPT-OSS: Overriding max cuda graph capture size to 1024 for performance")
    grid = ([*_SMALL_SIZES, *range(_STEP8_FROM, given[0] + 1, 8)] if len(given) == 1
            else sorted(given))
    sizes = sorted({s for s in grid if s <= max_num_batched_tokens})
    return SizeResult(sizes, sizes[-1] if sizes else 0, notes)


def default_capture_sizes(
    max_num_seqs: int,
    max_num_batched_tokens: int,
    *,
    num_speculative_tokens: int = 0,
    max_capture_size: int | None = None,
    capture_sizes: Sequence[int] | None = None,
    performance_mode: str = "balanced",
    blackwell: bool = False,
    release: str,
) -> SizeResult:
    """vLLM's capture sizes and ``max_cudagraph_capture_size`` for a server configuration.

    ``max_capture_size`` / ``capture_sizes`` are the user's ``max_cudagraph_capture_size`` /
    ``cudagraph_capture_sizes`` (None = unset). Without a user maximum, the ceiling is
    ``min(2 · max_num_seqs · q, 512 | 1024 on Blackwell)`` with q = 1 + num_speculative_tokens
    (q = 1 before 0.13: ``CEILING_COUNTS_SPEC_TOKENS``),
    and uniform-decode sizes (request counts × q, or ``max_num_seqs`` itself when q = 1) are
    added to the grid. Everything is capped at ``max_num_batched_tokens``, which is added when it
    falls under the ceiling.

    ``blackwell``: the GPU is of the SM100 family. What vLLM ``release`` does is read from its rows
    in ``engines/vllm/releases.py``: before 0.29 no uniform-decode sizes for speculative decoding
    (``SPEC_DECODE_SIZES``), before 0.31 not ``max_num_seqs`` either (``MAX_NUM_SEQS_SIZE``);
    before 0.28 the ceiling is 512 on every GPU (``BLACKWELL_CEILING``); before 0.20
    ``max_num_batched_tokens`` is not added to the grid (``capture_size_changes``).

    Raises ``ValueError`` where vLLM raises or asserts: both user values given but inconsistent,
    an empty user list, or a ceiling below 1. Non-fatal adjustments come back in ``notes``.
    """
    if performance_mode not in PERFORMANCE_MODES:
        raise ValueError(f"Invalid performance_mode: {performance_mode!r}. "
                         f"Allowed: {', '.join(PERFORMANCE_MODES)}")
    if max_num_seqs < 1 or max_num_batched_tokens < 1:
        raise ValueError("max_num_seqs and max_num_batched_tokens must be >= 1, got "
                         f"{max_num_seqs} and {max_num_batched_tokens}")
    if num_speculative_tokens < 0:
        raise ValueError(f"num_speculative_tokens must be >= 0, got {num_speculative_tokens}")
    # Bounded before any grid is built: a value of 10^11 would build a list that size.
    check_decode_batch(max_num_seqs, "max_num_seqs")
    check_prefill_tokens(max_num_batched_tokens, "max_num_batched_tokens")
    check_prefill_tokens(num_speculative_tokens, "num_speculative_tokens")
    if max_capture_size is not None:
        check_prefill_tokens(max_capture_size, "max_cudagraph_capture_size")
    for size in capture_sizes or ():
        check_prefill_tokens(size, "cudagraph_capture_sizes")
    ceiling = (BLACKWELL_MAX_GRAPH_SIZE if blackwell and holds_in(BLACKWELL_CEILING, release)
               else DEFAULT_MAX_GRAPH_SIZE)
    spec_decode_sizes = holds_in(SPEC_DECODE_SIZES, release)
    max_num_seqs_size = holds_in(MAX_NUM_SEQS_SIZE, release)
    token_budget_size = captures_token_budget(release)
    q = 1 + num_speculative_tokens

    uniform_decode_sizes: list[int] = []
    if max_capture_size is None:
        # Twice the widest decode batch leaves headroom for padding; decode sizes are only
        # added here, never when the user chose the maximum.
        max_size = min(max_num_seqs * ceiling_query_len(release, q) * 2, ceiling)
        if q > 1 and spec_decode_sizes:
            uniform_decode_sizes = sorted(n * q for n in _request_counts(max_num_seqs, ceiling)
                                          if n * q <= max_size)
        elif q == 1 and max_num_seqs_size and max_num_seqs <= max_size:
            uniform_decode_sizes = [max_num_seqs]
    else:
        max_size = max_capture_size
    max_size = min(max_num_batched_tokens, max_size)
    if max_size < 1:
        raise ValueError("Maximum cudagraph size should be greater than or equal to 1 when "
                         "using cuda graph.")

    if capture_sizes is None:
        sizes = _grid(max_size, performance_mode == "interactivity")
        if token_budget_size and max_num_batched_tokens <= max_size:
            # The token budget is the largest mixed batch, usually off-stride: give it a graph.
            sizes.append(max_num_batched_tokens)
        sizes += [s for s in uniform_decode_sizes if s <= max_num_batched_tokens]
        sizes = sorted(set(sizes))
    else:
        if not capture_sizes:
            raise ValueError("cudagraph_capture_sizes should contain at least one element when "
                             "using cuda graph.")
        # A user list is only deduplicated and capped by the token budget, not by max_size.
        sizes = sorted(s for s in set(capture_sizes) if s <= max_num_batched_tokens)

    notes: list[str] = []
    valid_max = sizes[-1] if sizes else 0
    if max_capture_size is not None and max_capture_size != valid_max:
        if capture_sizes is not None:
            raise ValueError(f"customized max_cudagraph_capture_size(={max_capture_size}) should "
                             "be consistent with the max value of "
                             f"cudagraph_capture_sizes(={valid_max})")
        notes.append(f"Truncating max_cudagraph_capture_size to {valid_max}")
    # vLLM compares lengths: dropped sizes and duplicates both count as "overridden".
    if capture_sizes is not None and len(sizes) < len(capture_sizes):
        notes.append(f"cudagraph_capture_sizes specified in compilation_config "
                     f"{list(capture_sizes)} is overridden by config {sizes}")
    return SizeResult(sizes, valid_max, notes)
