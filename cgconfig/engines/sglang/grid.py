"""Capture-size grids, GPU-memory tiers and the capture-time filter, as SGLang 0.5.23 does them.

The grids and tiers are data (tuples below); the functions only walk them. Decode sizes count
requests, prefill sizes count tokens. See SGLang 0.5.23
``python/sglang/srt/arg_groups/cuda_graph_hook.py:generate_decode_cuda_graph_batch_sizes`` /
``generate_prefill_cuda_graph_batch_sizes`` and ``arg_groups/memory_hook.py:handle_gpu_memory_settings``.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.release_change import value_at
from cgconfig.engines.sglang.releases import GPU_MEMORY_TIERS, TierValues
from cgconfig.fields.values import round_up
from cgconfig.limits import check_decode_batch, check_prefill_tokens

#: A grid is a union of inclusive ranges ``(start, stop, step)``; ``None`` as stop means
#: "up to max_bs".
Grid = tuple[tuple[int, int | None, int], ...]

DECODE_GRID: Grid = ((1, 2, 1), (4, 12, 4), (16, 256, 8), (272, 496, 16), (512, None, 32))
"""Decode without speculative decoding: 1, 2, 4, 8, 12; 16…256 step 8; 272…496 step 16;
512…max_bs step 32."""

SPECULATIVE_DECODE_GRID: Grid = ((1, 8, 1), (10, 32, 2), (40, 64, 4), (72, 256, 8),
                                 (272, None, 16))
"""Decode with speculative decoding: denser at small sizes, where verify batches live."""

PREFILL_GRID: Grid = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64),
                      (1280, 4096, 256), (4608, None, 512))
"""Prefill token counts; max_bs itself is not appended (100 ends at 96; below 4 is empty)."""

PREFILL_GRID_WITHOUT_576: Grid = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (640, 1024, 64),
                                  (1280, 4096, 256), (4608, None, 512))
"""SGLang 0.5.8's prefill token counts: its 64-step range starts at 640
(``releases.PREFILL_GRID_HAS_576``)."""

CPU_GRID: Grid = ((1, 16, 1), (18, 30, 2), (32, 80, 4), (84, None, 8))
"""CPU (torch.compile) sizes up to torch_compile_max_bs, which is appended."""


class MemoryTier(NamedTuple):
    """Defaults for GPUs below ``below_gib`` (the first matching row wins)."""

    below_gib: float
    chunked_prefill_size: int
    decode_max_bs_tp_lt4: int
    decode_max_bs_tp_ge4: int
    label: str

    def decode_max_bs(self, tp_size: int) -> int:
        """The default decode max_bs for this tier at a tensor-parallel size."""
        return self.decode_max_bs_tp_lt4 if tp_size < 4 else self.decode_max_bs_tp_ge4


#: The GPU tiers' names, by upper bound (GiB, exclusive); what each gives in a release is the
#: rows of :data:`cgconfig.engines.sglang.releases.GPU_MEMORY_TIERS`.
GPU_MEMORY_TIER_LABELS: dict[float, str] = {
    20: "< 20 GiB (T4, RTX 4080)",
    35: "20–35 GiB (A10, RTX 4090/5090)",
    60: "35–60 GiB (A100-40G, L40)",
    160: "60–160 GiB (H100, A100-80G, H200)",
    float("inf"): "≥ 160 GiB (B200, MI300)",
}
UNKNOWN_MEMORY_TIER = MemoryTier(float("nan"), 4096, 160, 160, "unknown GPU memory")

#: Ascend NPU tiers (SGLang hardware_backend/npu): ≤ 32 GiB and ≤ 64 GiB.
NPU_MEMORY_TIERS: tuple[MemoryTier, ...] = (
    MemoryTier(32.0001, 4096, 16, 64, "NPU ≤ 32 GiB"),
    MemoryTier(64.0001, 8192, 64, 256, "NPU ≤ 64 GiB"),
)


def gpu_memory_tiers(release: str) -> tuple[MemoryTier, ...]:
    """SGLang ``release``'s GPU tiers (``arg_groups/memory_hook.py:handle_gpu_memory_settings``),
    smallest first."""
    tiers = []
    for bound, rows in GPU_MEMORY_TIERS.items():
        values = value_at(rows, release)
        if not isinstance(values, TierValues):
            raise ValueError(f"SGLang {release} has no row for the GPU tier below {bound:g} GiB")
        tiers.append(MemoryTier(bound, *values, GPU_MEMORY_TIER_LABELS[bound]))
    return tuple(tiers)


def memory_tier(gpu_memory_gib: float | None, device: str, release: str) -> MemoryTier:
    """The tier for a GPU's memory in SGLang ``release``; unknown memory gives SGLang's unknown
    tier."""
    if gpu_memory_gib is None:
        return UNKNOWN_MEMORY_TIER
    gpu = gpu_memory_tiers(release)
    tiers = NPU_MEMORY_TIERS + gpu if device == "npu" else gpu
    return next((tier for tier in tiers if gpu_memory_gib < tier.below_gib), gpu[-1])


def expand_grid(grid: Grid, limit: int) -> list[int]:
    """Every size of ``grid`` that is ``<= limit``, ascending."""
    sizes: set[int] = set()
    for start, stop, step in grid:
        end = limit if stop is None else min(stop, limit)
        sizes.update(range(start, end + 1, step))
    return sorted(sizes)


def decode_sizes(max_bs: int, *, speculative: bool = False, padding: bool = True,
                 append_max_bs: bool = True) -> list[int]:
    """SGLang's default decode list: the grid up to ``max_bs``, then ``max_bs`` itself (not in
    the releases without ``append_max_bs``: ``releases.DECODE_MAX_BS_APPENDED``)."""
    check_decode_batch(max_bs, "decode.max_bs")
    if not padding:
        sizes = list(range(1, max_bs + 1))
    else:
        sizes = expand_grid(SPECULATIVE_DECODE_GRID if speculative else DECODE_GRID, max_bs)
    if append_max_bs and max_bs not in sizes:  # also without padding: max_bs 0 gives [0]
        # Without it a batch of exactly max_running_requests ran eagerly (SGLang PR #21005).
        sizes.append(max_bs)
    return sizes


def prefill_sizes(max_bs: int, *, with_576: bool = True) -> list[int]:
    """SGLang's default prefill token list up to ``max_bs`` (not appended; may be empty);
    without ``with_576``, SGLang 0.5.8's grid (:data:`PREFILL_GRID_WITHOUT_576`)."""
    check_prefill_tokens(max_bs, "prefill.max_bs")
    return expand_grid(PREFILL_GRID if with_576 else PREFILL_GRID_WITHOUT_576, max_bs)


def cpu_sizes(torch_compile_max_bs: int, *, padding: bool = True) -> list[int]:
    """SGLang's CPU list: the CPU grid up to ``torch_compile_max_bs``, plus that bound."""
    check_decode_batch(torch_compile_max_bs, "--torch-compile-max-bs")
    if not padding:
        return list(range(1, torch_compile_max_bs + 1))
    sizes = set(expand_grid(CPU_GRID, torch_compile_max_bs))
    sizes.add(torch_compile_max_bs)
    return sorted(sizes)


class CaptureAlignment(NamedTuple):
    """Inputs of the decode capture filter, derived from the deployment."""

    multiple: int
    """Sizes × request width must be a multiple of this (attention-TP gather, TBO, CP)."""
    request_width: int
    """Tokens per request in a captured step (draft tokens under speculative decoding)."""
    pool_size: int | None
    """Request-pool size (max running requests); ``None`` when not known before start-up."""
    reasons: tuple[str, ...] = ()


def capture_alignment(*, tp_size: int, dp_size: int, enable_dp_attention: bool,
                      attn_cp_size: int, moe_a2a_backend: str, enable_two_batch_overlap: bool,
                      request_width: int, pool_size: int | None,
                      cp_aligned: bool) -> CaptureAlignment:
    """Alignment base and request width of SGLang's ``get_batch_sizes_to_capture``.

    A gathered buffer (MLP-TP gather under DP attention, or attention-TP gather under an MoE
    all-to-all backend) multiplies the base by the attention-TP size, so the gathered token
    count splits evenly across ranks; two-batch overlap doubles it and counts requests, not
    tokens; the base is made a multiple of the attention-CP size where ``cp_aligned`` (the
    release and platform do so: ``cuda_graph_runner.HIP_SKIPS_CP_ALIGNMENT``).
    """
    multiple = 1
    reasons: list[str] = []
    width = request_width
    if enable_two_batch_overlap:
        multiple *= 2
        width = 1
        reasons.append("two-batch overlap splits each batch in two (×2, width counted as 1)")
    attn_tp = max(1, tp_size // (dp_size if enable_dp_attention else 1) // attn_cp_size)
    gathered = enable_dp_attention or moe_a2a_backend != "none"
    if gathered and attn_tp > 1:
        multiple *= attn_tp
        why = "DP-attention MLP gather" if enable_dp_attention else "attention-TP gather"
        reasons.append(f"{why} across attention-TP size {attn_tp} (×{attn_tp})")
    if cp_aligned and attn_cp_size > 1 and multiple % attn_cp_size:
        multiple *= attn_cp_size
        reasons.append(f"attention context-parallel size {attn_cp_size} (×{attn_cp_size})")
    return CaptureAlignment(multiple, width, pool_size, tuple(reasons))


def filter_capture_sizes(sizes: list[int], alignment: CaptureAlignment, *,
                         pool_aligned: bool = True) -> list[int]:
    """What will actually be captured from a configured decode list (SGLang's filter).

    The pool size is rounded up to the alignment (where ``pool_aligned``:
    ``releases.RUNNER_POOL_ALIGNED``); if the largest size exceeds it, the pool size joins the
    list; misaligned sizes and sizes over the pool are dropped; the result is de-duplicated and
    sorted.
    """
    captured = list(sizes)
    if alignment.pool_size is not None:
        pool = alignment.pool_size
        if pool_aligned:
            pool = round_up(pool, alignment.multiple)
        if captured and max(captured) > pool:
            captured.append(pool)
        captured = [s for s in captured if s <= pool]
    captured = [s for s in captured if (s * alignment.request_width) % alignment.multiple == 0]
    return sorted(set(captured))


def compile_sizes(captured: list[int], *, enable_torch_compile: bool,
                  torch_compile_max_bs: int) -> list[int]:
    """The captured decode sizes torch.compile also handles (none without torch.compile)."""
    if not enable_torch_compile:
        return []
    return [s for s in captured if s <= torch_compile_max_bs]
