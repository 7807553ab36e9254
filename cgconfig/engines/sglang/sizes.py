"""SGLang 0.5.23's CUDA-graph sizing, ported as pure functions over plain values.

Each function names the upstream function it ports (SGLang 0.5.23,
``sglang/srt/arg_groups/...``). The order in which the resolver calls them is upstream's
(``arg_groups/pipeline.py:run_resolution_pipeline``):

1. ``cuda_graph_hook.handle_cuda_graph_config`` → :func:`deepep_prefill_adjustment`
   (before any memory default exists, hence its 2048 fallback);
2. ``memory_hook.handle_gpu_memory_settings`` → ``grid.memory_tier``,
   :func:`default_decode_max_bs`, :func:`expand_multimodal_decode_max_bs`,
   :func:`materialize_decode`, :func:`default_prefill_max_bs`, :func:`materialize_prefill`;
3. ``speculative_hook.handle_speculative_decoding`` → :func:`speculative_draft_params`.

Memory is taken in GiB (cgconfig's unit); upstream compares MiB, so a GiB value ``g`` is
compared as ``g * 1024`` MiB. Standard library only: this module must stay importable anywhere.
"""

from __future__ import annotations

from typing import NamedTuple

from cgconfig.engines.release_change import value_at
from cgconfig.engines.sglang import grid
from cgconfig.engines.sglang.releases import MLA_PREFILL_MAX_BS, MlaPrefillDefault

#: ``memory_hook._DEFAULT_PP_PREFILL_CUDA_GRAPH_MAX_TOKENS`` (SGLang 0.5.23).
PP_BREAKABLE_PREFILL_MAX_BS = 8192
#: ``"llama-2" in model_path`` cap in ``memory_hook.handle_gpu_memory_settings``.
LLAMA2_PREFILL_MAX_BS_CAP = 4096
#: ``cuda_graph_hook.apply_deepep_adjustments``: "documented prefill default; max_bs unresolved".
DEEPEP_PREFILL_FALLBACK_MAX_BS = 2048
#: ``model_overrides/qwen3_vl._HOPPER_QWEN3_VL_TYPES``.
HOPPER_QWEN3_VL_MODEL_TYPES = ("qwen3_vl", "qwen3_vl_moe")


def default_decode_max_bs(tier_max_bs: int, max_running_requests: int | None) -> int:
    """A defaulted decode max_bs clamped to ``--max-running-requests``.

    ``memory_hook.handle_gpu_memory_settings`` (SGLang 0.5.23): only when max_bs was not
    configured (``decode_max_bs_is_default``) is it lowered to the running limit.
    """
    if max_running_requests is not None and tier_max_bs > max_running_requests:
        return max_running_requests
    return tier_max_bs


def expand_multimodal_decode_max_bs(max_bs: int | None, *, gpu_memory_gib: float | None,
                                    max_running_requests: int | None, decode_max_bs_locked: bool,
                                    decode_bs_locked: bool, gpu_sm: int | None,
                                    is_multimodal: bool, model_type: str | None) -> int | None:
    """Qwen3-VL on a large Hopper-or-newer GPU: decode max_bs raised to the running limit.

    ``model_overrides/qwen3_vl.expand_multimodal_decode_graph_to_running_limit`` with
    ``large_hopper_qwen3_vl_model_type`` (SGLang 0.5.23): memory known and ≥ 60 GiB, SM ≥ 90,
    a multimodal model of type ``qwen3_vl``/``qwen3_vl_moe``, a running limit ≤ 512 above the
    current max_bs, and neither decode max_bs nor bs configured by the user. ``gpu_sm`` None
    is taken as SM 90 (upstream's probe on the H100 it was profiled on).
    """
    if (gpu_memory_gib is None or max_running_requests is None or max_running_requests > 512
            or max_bs is None or max_bs >= max_running_requests
            or decode_max_bs_locked or decode_bs_locked):
        return max_bs
    sm = 90 if gpu_sm is None else gpu_sm
    if sm < 90 or gpu_memory_gib * 1024 < 60 * 1024:
        return max_bs
    if is_multimodal and model_type in HOPPER_QWEN3_VL_MODEL_TYPES:
        return max_running_requests
    return max_bs


class DecodeSizes(NamedTuple):
    """Decode sizes after materialisation."""

    max_bs: int
    bs: list[int]
    torch_compile_max_bs: int | None
    """Set on the CPU path only (upstream declares it there)."""


def materialize_decode(*, device: str, max_bs: int | None, bs: list[int] | None,
                       speculative: bool, disable_padding: bool,
                       torch_compile_max_bs: int | None) -> DecodeSizes:
    """Decode bs/max_bs materialisation of ``memory_hook.handle_gpu_memory_settings``.

    Off CPU: an explicit ``bs`` sets ``max_bs = max(bs)``, else ``bs`` is generated from
    ``max_bs``. On CPU (graphs come from torch.compile): an explicit ``bs`` sets
    ``torch_compile_max_bs = max(bs)``; otherwise ``torch_compile_max_bs`` (or, when it is
    unset/0, the decode max_bs) bounds the CPU grid; max_bs becomes ``torch_compile_max_bs``.
    """
    if device != "cpu":
        if bs is None:
            if max_bs is None:
                raise ValueError("decode max_bs must be resolved before its sizes")
            return DecodeSizes(max_bs, grid.decode_sizes(
                max_bs, speculative=speculative, padding=not disable_padding), None)
        return DecodeSizes(max(bs), list(bs), None)
    if bs is not None:
        bound = max(bs)
        return DecodeSizes(bound, list(bs), bound)
    limit = torch_compile_max_bs or max_bs
    if limit is None:
        raise ValueError("CPU graphs need torch_compile_max_bs or a decode max_bs")
    return DecodeSizes(limit, grid.cpu_sizes(limit, padding=not disable_padding), limit)


def default_prefill_max_bs(chunked_prefill_size: int, *, use_mla: bool, pp_size: int,
                           prefill_breakable: bool, prefill_bs_locked: bool,
                           max_total_tokens: int | None, model_path: str | None,
                           release: str) -> int:
    """Prefill max_bs when none is configured (``memory_hook.handle_gpu_memory_settings``).

    The chunked-prefill size (MLA models: ``min(8192, chunked)``); under pipeline parallelism
    with breakable prefill and no configured bs, at most 8192; at most ``--max-total-tokens``;
    at most 4096 when the model path contains ``llama-2`` (upstream's Llama-2 workaround).
    Chunked prefill off (-1) gives -1, hence no prefill sizes. The MLA default is SGLang
    ``release``'s row of :data:`cgconfig.engines.sglang.releases.MLA_PREFILL_MAX_BS` (before
    0.5.23: 2048, whatever the chunked size).
    """
    rule = value_at(MLA_PREFILL_MAX_BS, release)
    assert isinstance(rule, MlaPrefillDefault), release
    mla = min(rule.cap, chunked_prefill_size) if rule.from_chunked else rule.cap
    value = mla if use_mla else chunked_prefill_size
    if pp_size > 1 and prefill_breakable and not prefill_bs_locked:
        value = min(value, PP_BREAKABLE_PREFILL_MAX_BS)
    if max_total_tokens is not None:
        value = min(value, max_total_tokens)
    if model_path is not None and "llama-2" in model_path.lower():
        value = min(value, LLAMA2_PREFILL_MAX_BS_CAP)
    return value


def materialize_prefill(max_bs: int, bs: list[int] | None) -> list[int]:
    """Prefill bs: an explicit list is kept (and max_bs keeps its default, unlike decode);
    otherwise generated from ``max_bs`` (``memory_hook.handle_gpu_memory_settings``)."""
    return list(bs) if bs is not None else grid.prefill_sizes(max_bs)


def dp_attention_prefill_clamp(max_bs: int | None, bs: list[int] | None, *,
                               chunked_prefill_size: int, attn_dp_size: int,
                               prefill_enabled: bool, max_bs_locked: bool, bs_locked: bool
                               ) -> tuple[int, list[int] | None] | None:
    """DP attention's per-rank prefill clamp (``parallel_hook.handle_data_parallelism``).

    Runs after the memory defaults: the chunked-prefill size becomes ``chunked // dp`` and a
    defaulted prefill max_bs above it (prefill not disabled) is lowered to it, its bs list
    regenerated unless configured. Returns ``(max_bs, bs)`` when they change, else ``None``.
    """
    per_rank = chunked_prefill_size // attn_dp_size
    if not prefill_enabled or max_bs is None or max_bs <= per_rank or max_bs_locked:
        return None
    return per_rank, (bs if bs_locked else grid.prefill_sizes(per_rank))


def deepep_prefill_adjustment(*, moe_a2a_backend: str, prefill_breakable: bool,
                              max_bs: int | None, bs: list[int] | None
                              ) -> tuple[int, list[int]] | None:
    """DeepEP's multiple-of-8 prefill buckets (``cuda_graph_hook.apply_deepep_adjustments``).

    Runs before the memory defaults, so an unset max_bs is taken as 2048. Returns the new
    ``(max_bs, bs)`` when the aligned list differs, else ``None`` (no change).
    """
    if moe_a2a_backend != "deepep" or not prefill_breakable:
        return None
    sizes = bs if bs is not None else grid.prefill_sizes(max_bs or DEEPEP_PREFILL_FALLBACK_MAX_BS)
    aligned = sorted({-(-b // 8) * 8 for b in sizes})
    if aligned == sorted(sizes):
        return None
    return aligned[-1], aligned


#: ``speculative_hook._auto_choose_speculative_params`` (SGLang 0.5.23): archs given
#: (steps, topk, draft tokens) = (5, 4, 8); every other arch and STANDALONE get (3, 1, 4).
EAGLE_WIDE_AUTO_ARCHS = ("LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM")
#: Algorithms handled by ``speculative_hook._handle_eagle_family`` (NEXTN aliases EAGLE).
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE")
#: ``speculative_hook._handle_ngram`` defaults (``speculative_ngram_max_bfs_breadth`` = 10).
NGRAM_DEFAULT_DRAFT_TOKENS = 12
NGRAM_DEFAULT_MAX_BFS_BREADTH = 10
#: ``speculative_hook._handle_dflash``: draft tokens when neither the flag nor the draft model's
#: config gives a block size.
DFLASH_DEFAULT_DRAFT_TOKENS = 16
#: ``speculative/dspark_components/dspark_config.py:DEFAULT_DSPARK_GAMMA`` (SGLang 0.5.23).
DSPARK_DEFAULT_GAMMA = 7


class SpeculativeParams(NamedTuple):
    """Resolved speculative parameters; ``num_draft_tokens`` is the captured request width."""

    num_steps: int | None
    eagle_topk: int | None
    num_draft_tokens: int | None


def eagle_params_incomplete(num_steps: int | None, eagle_topk: int | None,
                            num_draft_tokens: int | None) -> bool:
    """Whether an EAGLE-family set is one ``speculative_hook._handle_eagle_family`` refuses:
    topk or draft tokens without steps, or steps without topk (the refusal itself is rule
    ``refuse.speculative-incomplete-parameters``)."""
    if num_steps is None:
        return eagle_topk is not None or num_draft_tokens is not None
    return eagle_topk is None


def speculative_draft_params(algorithm: str, *, model_arch: str | None, num_steps: int | None,
                             eagle_topk: int | None, num_draft_tokens: int | None,
                             block_size: int | None = None) -> SpeculativeParams:
    """Draft width defaults of ``speculative_hook`` (SGLang 0.5.23).

    EAGLE family (``_handle_eagle_family``): with no steps, topk and draft tokens unset too,
    ``_auto_choose_speculative_params`` picks them; with topk 1 the draft tokens become
    steps + 1. An incomplete set (topk or draft tokens without steps: upstream's assertion;
    steps without topk: upstream compares ``None > 1``) comes back as given: rule
    ``refuse.speculative-incomplete-parameters`` refuses it, with the release's name. NGRAM
    (``_handle_ngram``): 12 draft tokens by default, topk = the BFS
    breadth (10), steps = draft // topk. DFLASH (``_handle_dflash``): the block size
    (``--speculative-dflash-block-size``), else 16 draft tokens when none are given. DSPARK
    (``_handle_dspark``): gamma + 1, gamma the block size (``--speculative-dspark-block-size``),
    else 7 when no draft tokens are given (the draft checkpoint's own gamma is not read). Other
    algorithms keep what was given. A block size whose draft tokens differ from the given ones
    is refused by rules ``refuse.dflash-block-size`` and ``refuse.dspark-block-size``.
    """
    algo = algorithm.upper()
    if algo in EAGLE_FAMILY:
        if eagle_params_incomplete(num_steps, eagle_topk, num_draft_tokens):
            return SpeculativeParams(num_steps, eagle_topk, num_draft_tokens)
        if num_steps is None:
            wide = algo != "STANDALONE" and model_arch in EAGLE_WIDE_AUTO_ARCHS
            num_steps, eagle_topk, num_draft_tokens = (5, 4, 8) if wide else (3, 1, 4)
        assert eagle_topk is not None
        if eagle_topk == 1 and num_draft_tokens != num_steps + 1:
            num_draft_tokens = num_steps + 1
        return SpeculativeParams(num_steps, eagle_topk, num_draft_tokens)
    if algo == "NGRAM":
        topk = NGRAM_DEFAULT_MAX_BFS_BREADTH
        draft = NGRAM_DEFAULT_DRAFT_TOKENS if num_draft_tokens is None else num_draft_tokens
        steps = draft // topk if num_steps is None else num_steps
        return SpeculativeParams(steps, topk, draft)
    if algo == "DFLASH" and num_draft_tokens is None and block_size is not None:
        return SpeculativeParams(num_steps, eagle_topk, block_size)
    if algo == "DSPARK" and (block_size is not None or num_draft_tokens is None):
        gamma = DSPARK_DEFAULT_GAMMA if block_size is None else block_size
        return SpeculativeParams(num_steps, eagle_topk, gamma + 1)
    if algo == "DFLASH" and num_draft_tokens is None:
        # cgconfig does not read the draft model's config: its block size is taken as unset.
        return SpeculativeParams(num_steps, eagle_topk, DFLASH_DEFAULT_DRAFT_TOKENS)
    return SpeculativeParams(num_steps, eagle_topk, num_draft_tokens)
