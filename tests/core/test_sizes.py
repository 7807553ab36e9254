"""Capture sizes, as SGLang 0.5.23 generates them
(``python/sglang/srt/arg_groups/cuda_graph_hook.py:generate_decode_cuda_graph_batch_sizes``,
``generate_prefill_cuda_graph_batch_sizes``; tiers in ``arg_groups/memory_hook.py``).

Expected lists are written literally or derived here from the ranges in those functions, never
by calling the product's generators.
"""

from __future__ import annotations

import pytest

from cgconfig import resolve_args as resolve_line
from cgconfig.api import request_from_argv
from cgconfig.api import resolve_request as resolve
from cgconfig.engines.sglang import grid as sz
from cgconfig.plan import Plan

#: The release these sizes are SGLang's for (so a newer release leaves these tests as they are).
RELEASE = "0.5.23"


def resolve_args(argv: list[str]) -> Plan:
    """A line answered as SGLang :data:`RELEASE`."""
    return resolve_line(["--engine-version", f"sglang=={RELEASE}", *argv])


def resolve_plain(argv: list[str]) -> Plan:
    """A line answered as SGLang :data:`RELEASE`, without rule packs."""
    request = request_from_argv(["--engine-version", f"sglang=={RELEASE}", *argv])
    request.use_rules = False
    return resolve(request)


# --- independent reference derivations from SGLang's generator ranges ---------------------


def ref_decode(max_bs: int) -> list[int]:
    """1, 2, 4, 8, 12; 16 … 256 step 8; 272 … 496 step 16; 512 … max_bs step 32; + max_bs."""
    sizes = [1, 2, 4, 8, 12]
    sizes += list(range(16, 257, 8))
    sizes += list(range(272, 497, 16))
    sizes += list(range(512, max_bs + 1, 32))
    sizes = [s for s in sizes if s <= max_bs]
    if max_bs not in sizes:
        sizes.append(max_bs)
    return sizes


def ref_spec_decode(max_bs: int) -> list[int]:
    """1 … 8; 10 … 32 step 2; 40 … 64 step 4; 72 … 256 step 8; 272 … max_bs step 16; + max_bs."""
    sizes = list(range(1, 9)) + list(range(10, 33, 2)) + list(range(40, 65, 4))
    sizes += list(range(72, 257, 8)) + list(range(272, max_bs + 1, 16))
    sizes = [s for s in sizes if s <= max_bs]
    if max_bs not in sizes:
        sizes.append(max_bs)
    return sizes


def ref_prefill(max_bs: int) -> list[int]:
    """4 … 32 step 4; 48 … 256 step 16; 288 … 512 step 32; 576 … 1024 step 64;
    1280 … 4096 step 256; 4608 … max_bs step 512; cut to ≤ max_bs, nothing appended."""
    sizes: list[int] = []
    for start, stop, step in ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64),
                              (1280, 4096, 256)):
        s = start
        while s <= stop and s <= max_bs:
            sizes.append(s)
            s += step
    s = 4608
    while s <= max_bs:
        sizes.append(s)
        s += 512
    return sizes


def ref_cpu(t: int) -> list[int]:
    """Sorted union of 1 … 16, 18 … 30 step 2, 32 … 80 step 4, 84 … T step 8, and T; ≤ T."""
    sizes = set(range(1, 17)) | set(range(18, 31, 2)) | set(range(32, 81, 4))
    sizes |= set(range(84, t + 1, 8)) | {t}
    return sorted(s for s in sizes if s <= t)


MAX_BS_VALUES = [1, 3, 7, 12, 13, 100, 160, 255, 256, 257, 300, 496, 500, 512, 513, 600, 1024]


# --- literal checks of the reference itself (and of the product) ---------------------------

LITERAL_DECODE = {
    1: [1],
    3: [1, 2, 3],
    7: [1, 2, 4, 7],
    12: [1, 2, 4, 8, 12],
    13: [1, 2, 4, 8, 12, 13],
    100: [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 100],
    300: [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136,
          144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256, 272, 288,
          300],
}
LITERAL_SPEC_DECODE = {
    1: [1],
    7: [1, 2, 3, 4, 5, 6, 7],
    13: [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13],
    100: [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 40, 44, 48,
          52, 56, 60, 64, 72, 80, 88, 96, 100],
}


@pytest.mark.parametrize("max_bs", sorted(LITERAL_DECODE))
def test_decode_grid_literal(max_bs: int) -> None:
    assert ref_decode(max_bs) == LITERAL_DECODE[max_bs]
    assert sz.decode_sizes(max_bs) == LITERAL_DECODE[max_bs]


@pytest.mark.parametrize("max_bs", sorted(LITERAL_SPEC_DECODE))
def test_speculative_decode_grid_literal(max_bs: int) -> None:
    assert ref_spec_decode(max_bs) == LITERAL_SPEC_DECODE[max_bs]
    assert sz.decode_sizes(max_bs, speculative=True) == LITERAL_SPEC_DECODE[max_bs]


def test_decode_grid_tail_around_the_step_changes() -> None:
    assert sz.decode_sizes(256)[-3:] == [240, 248, 256]
    assert sz.decode_sizes(257)[-3:] == [248, 256, 257]
    assert sz.decode_sizes(512)[-4:] == [464, 480, 496, 512]
    assert sz.decode_sizes(513)[-3:] == [496, 512, 513]
    assert sz.decode_sizes(600)[-4:] == [512, 544, 576, 600]
    assert sz.decode_sizes(1024)[-3:] == [960, 992, 1024]
    assert len(sz.decode_sizes(256)) == 5 + 31


@pytest.mark.parametrize("max_bs", MAX_BS_VALUES)
def test_decode_grid_normal(max_bs: int) -> None:
    sizes = sz.decode_sizes(max_bs)
    assert sizes == ref_decode(max_bs)
    assert sizes[-1] == max_bs
    assert sizes == sorted(set(sizes))


@pytest.mark.parametrize("max_bs", MAX_BS_VALUES)
def test_decode_grid_speculative(max_bs: int) -> None:
    sizes = sz.decode_sizes(max_bs, speculative=True)
    assert sizes == ref_spec_decode(max_bs)
    assert sizes[-1] == max_bs


@pytest.mark.parametrize("max_bs", MAX_BS_VALUES)
def test_decode_grid_padding_disabled_is_every_size(max_bs: int) -> None:
    assert sz.decode_sizes(max_bs, padding=False) == list(range(1, max_bs + 1))
    assert sz.decode_sizes(max_bs, speculative=True, padding=False) == list(range(1, max_bs + 1))


@pytest.mark.parametrize("max_bs", MAX_BS_VALUES)
def test_decode_grid_end_to_end(max_bs: int) -> None:
    plan = resolve_args(["--cuda-graph-max-bs-decode", str(max_bs)])
    assert plan.config["decode"]["bs"] == ref_decode(max_bs)
    assert plan.capture["decode"]["sizes"] == ref_decode(max_bs)


@pytest.mark.parametrize("max_bs", [7, 13, 100, 300, 600])
def test_speculative_decode_grid_end_to_end(max_bs: int) -> None:
    plan = resolve_plain(["--cuda-graph-max-bs-decode", str(max_bs),
                          "--speculative-algorithm", "EAGLE"])
    assert plan.config["decode"]["bs"] == ref_spec_decode(max_bs)


@pytest.mark.parametrize("max_bs", [1, 13, 100])
def test_padding_disabled_end_to_end(max_bs: int) -> None:
    plan = resolve_plain(["--cuda-graph-max-bs-decode", str(max_bs),
                          "--disable-cuda-graph-padding"])
    assert plan.config["decode"]["bs"] == list(range(1, max_bs + 1))


# --- prefill ------------------------------------------------------------------------------


@pytest.mark.parametrize("max_bs", [0, 1, 2, 3])
def test_prefill_grid_below_four_tokens_is_empty(max_bs: int) -> None:
    assert sz.prefill_sizes(max_bs) == []


def test_prefill_grid_100_ends_at_96() -> None:
    assert sz.prefill_sizes(100) == [4, 8, 12, 16, 20, 24, 28, 32, 48, 64, 80, 96]


def test_prefill_grid_4096_literal() -> None:
    expected = [4, 8, 12, 16, 20, 24, 28, 32,
                48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
                288, 320, 352, 384, 416, 448, 480, 512,
                576, 640, 704, 768, 832, 896, 960, 1024,
                1280, 1536, 1792, 2048, 2304, 2560, 2816, 3072, 3328, 3584, 3840, 4096]
    assert ref_prefill(4096) == expected
    assert sz.prefill_sizes(4096) == expected


@pytest.mark.parametrize(("max_bs", "last", "count"), [
    (4, 4, 1), (100, 96, 12), (1000, 960, 37), (4096, 4096, 50), (8192, 8192, 58),
    (20000, 19968, 81),
])
def test_prefill_grid_ends(max_bs: int, last: int, count: int) -> None:
    sizes = sz.prefill_sizes(max_bs)
    assert sizes == ref_prefill(max_bs)
    assert sizes[-1] == last
    assert len(sizes) == count


def test_prefill_max_bs_is_not_appended() -> None:
    assert 100 not in sz.prefill_sizes(100)
    assert 20000 not in sz.prefill_sizes(20000)


# --- CPU ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("t", "expected"), [
    (1, [1]),
    (17, [*range(1, 17), 17]),
    (32, [*range(1, 17), 18, 20, 22, 24, 26, 28, 30, 32]),
    (90, [*range(1, 17), *range(18, 31, 2), *range(32, 81, 4), 84, 90]),
    (100, [*range(1, 17), *range(18, 31, 2), *range(32, 81, 4), 84, 92, 100]),
])
def test_cpu_grid(t: int, expected: list[int]) -> None:
    assert ref_cpu(t) == expected
    assert sz.cpu_sizes(t) == expected


def test_cpu_grid_padding_disabled() -> None:
    assert sz.cpu_sizes(20, padding=False) == list(range(1, 21))


def test_cpu_device_decode_sizes_come_from_torch_compile_max_bs() -> None:
    plan = resolve_plain(["--device", "cpu"])
    assert plan.config["decode"]["max_bs"] == 32
    assert plan.config["decode"]["bs"] == ref_cpu(32)
    plan = resolve_plain(["--device", "cpu", "--torch-compile-max-bs", "90"])
    assert plan.config["decode"]["bs"] == ref_cpu(90)


def test_non_cuda_platform_defaults_prefill_to_disabled() -> None:
    plan = resolve_plain(["--device", "cpu"])
    assert plan.config["prefill"]["backend"] == "disabled"
    assert plan.capture["prefill"]["sizes"] == []


# --- GPU memory tiers (memory_hook.handle_gpu_memory_settings) ----------------------------

# GiB → (chunked-prefill size, decode max_bs tp<4, decode max_bs tp>=4)
TIERS = [
    (19.9, 2048, 8, 8),
    (20, 4096, 48, 160),
    (34.9, 4096, 48, 160),
    (35, 4096, 32, 160),
    (59.9, 4096, 32, 160),
    (60, 8192, 256, 512),
    (80, 8192, 256, 512),
    (141, 8192, 256, 512),
    (159.9, 8192, 256, 512),
    (160, 16384, 512, 512),
    (192, 16384, 512, 512),
]


@pytest.mark.parametrize(("gib", "chunked", "lt4", "ge4"), TIERS)
def test_memory_tier_function(gib: float, chunked: int, lt4: int, ge4: int) -> None:
    tier = sz.memory_tier(gib, "cuda", RELEASE)
    assert tier.chunked_prefill_size == chunked
    assert [tier.decode_max_bs(tp) for tp in (1, 2, 4, 8)] == [lt4, lt4, ge4, ge4]


def test_unknown_memory_tier() -> None:
    tier = sz.memory_tier(None, "cuda", RELEASE)
    assert tier.chunked_prefill_size == 4096
    assert [tier.decode_max_bs(tp) for tp in (1, 2, 4, 8)] == [160, 160, 160, 160]


@pytest.mark.parametrize(("gib", "chunked", "lt4", "ge4"), TIERS)
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_memory_tier_end_to_end(gib: float, chunked: int, lt4: int, ge4: int, tp: int) -> None:
    plan = resolve_plain(["--gpu-memory-gib", str(gib), "--tp-size", str(tp)])
    expected = lt4 if tp < 4 else ge4
    assert plan.config["decode"]["max_bs"] == expected
    assert plan.config["decode"]["bs"] == ref_decode(expected)
    assert plan.config["prefill"]["max_bs"] == chunked
    assert plan.config["prefill"]["bs"] == ref_prefill(chunked)
    assert plan.facts["derived"]["chunked_prefill_size"] == chunked


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_unknown_memory_end_to_end(tp: int) -> None:
    plan = resolve_plain(["--tp-size", str(tp)])  # the GPU probe is off in tests
    assert plan.facts["derived"]["gpu_memory_gib"] is None
    assert plan.config["decode"]["max_bs"] == 160
    assert plan.config["prefill"]["max_bs"] == 4096


# --- max_bs defaults and overrides --------------------------------------------------------


def test_default_decode_max_bs_clamped_to_max_running_requests() -> None:
    plan = resolve_plain(["--gpu-memory-gib", "80", "--max-running-requests", "100"])
    assert plan.config["decode"]["max_bs"] == 100
    assert plan.config["decode"]["bs"] == ref_decode(100)
    assert plan.capture["decode"]["sizes"] == ref_decode(100)


def test_max_running_requests_above_default_does_not_raise_max_bs() -> None:
    plan = resolve_plain(["--gpu-memory-gib", "80", "--max-running-requests", "400"])
    assert plan.config["decode"]["max_bs"] == 256


def test_explicit_decode_max_bs_is_not_clamped_to_max_running_requests() -> None:
    plan = resolve_plain(["--cuda-graph-max-bs-decode", "256", "--max-running-requests", "100"])
    assert plan.config["decode"]["max_bs"] == 256
    assert plan.config["decode"]["bs"] == ref_decode(256)
    # The capture filter still caps at the request pool and adds the pool size.
    assert plan.capture["decode"]["sizes"] == ref_decode(100)


def test_explicit_bs_overrides_max_bs() -> None:
    plan = resolve_plain(["--cuda-graph-max-bs-decode", "64", "--cuda-graph-bs-decode",
                          "1", "2", "4", "8"])
    assert plan.config["decode"]["max_bs"] == 8
    assert plan.config["decode"]["bs"] == [1, 2, 4, 8]
    assert plan.capture["decode"]["sizes"] == [1, 2, 4, 8]


def test_explicit_prefill_bs_decides_capture_and_keeps_an_explicit_max_bs() -> None:
    # Prefill follows SGLang: the runner captures sorted(bs); an explicit max_bs is kept as given.
    plan = resolve_plain(["--cuda-graph-max-bs-prefill", "4096", "--cuda-graph-bs-prefill",
                          "256", "64"])
    assert plan.config["prefill"]["max_bs"] == 4096
    assert plan.capture["prefill"]["sizes"] == [64, 256]


def test_explicit_prefill_bs_keeps_the_default_max_bs() -> None:
    # SGLang 0.5.23 memory_hook: only decode takes max(bs); prefill keeps the chunked size.
    plan = resolve_plain(["--cuda-graph-bs-prefill", "256", "964", "--gpu-memory-gib", "80"])
    assert plan.config["prefill"]["max_bs"] == 8192
    assert plan.config["prefill"]["bs"] == [256, 964]


def test_prefill_max_bs_from_chunked_prefill_size() -> None:
    plan = resolve_plain(["--gpu-memory-gib", "80", "--chunked-prefill-size", "1000"])
    assert plan.config["prefill"]["max_bs"] == 1000
    assert plan.config["prefill"]["bs"] == ref_prefill(1000)
    assert plan.config["prefill"]["bs"][-1] == 960


def test_prefill_max_bs_from_memory_tier() -> None:
    plan = resolve_plain(["--gpu-memory-gib", "192"])
    assert plan.config["prefill"]["max_bs"] == 16384
    assert plan.capture["prefill"]["sizes"] == ref_prefill(16384)


def test_chunked_prefill_disabled_gives_no_prefill_sizes() -> None:
    plan = resolve_plain(["--chunked-prefill-size", "-1"])
    assert plan.capture["prefill"]["sizes"] == []


def test_explicit_prefill_max_bs_wins_over_chunked_prefill_size() -> None:
    plan = resolve_plain(["--chunked-prefill-size", "8192", "--cuda-graph-max-bs-prefill", "100"])
    assert plan.config["prefill"]["max_bs"] == 100
    assert plan.capture["prefill"]["sizes"] == [4, 8, 12, 16, 20, 24, 28, 32, 48, 64, 80, 96]


# --- capture filter -----------------------------------------------------------------------

DEFAULT_160 = ref_decode(160)  # the unknown tier's list


def _align(**kw) -> sz.CaptureAlignment:
    base = {"tp_size": 1, "dp_size": 1, "enable_dp_attention": False, "attn_cp_size": 1,
            "moe_a2a_backend": "none", "enable_two_batch_overlap": False, "request_width": 1,
            "pool_size": None, "cp_aligned": True}
    base.update(kw)
    return sz.capture_alignment(**base)


def test_alignment_plain_deployment_is_one() -> None:
    a = _align(tp_size=8)
    assert (a.multiple, a.request_width) == (1, 1)


def test_alignment_two_batch_overlap_doubles_and_counts_requests() -> None:
    a = _align(enable_two_batch_overlap=True, request_width=4)
    assert (a.multiple, a.request_width) == (2, 1)


def test_alignment_dp_attention_gather_uses_attention_tp() -> None:
    a = _align(tp_size=8, dp_size=2, enable_dp_attention=True)
    assert a.multiple == 4


def test_alignment_moe_a2a_gather_uses_attention_tp() -> None:
    assert _align(tp_size=4, moe_a2a_backend="deepep").multiple == 4
    assert _align(tp_size=1, moe_a2a_backend="deepep").multiple == 1


def test_alignment_attention_cp() -> None:
    assert _align(tp_size=2, attn_cp_size=2).multiple == 2
    # already a multiple: TBO gives 2, CP 2 keeps it
    assert _align(enable_two_batch_overlap=True, attn_cp_size=2, tp_size=2).multiple == 2
    # not a multiple: TBO 2, CP 4 → 8
    assert _align(enable_two_batch_overlap=True, attn_cp_size=4, tp_size=4).multiple == 8


def test_alignment_tbo_times_dp_attention() -> None:
    a = _align(tp_size=8, dp_size=2, enable_dp_attention=True, enable_two_batch_overlap=True)
    assert a.multiple == 8


def test_filter_pool_cap_rounds_up_and_adds_pool_size() -> None:
    a = _align(tp_size=8, dp_size=2, enable_dp_attention=True, enable_two_batch_overlap=True,
               pool_size=100)
    assert sz.filter_capture_sizes([8, 16, 64, 128, 256], a) == [8, 16, 64, 104]


def test_filter_pool_not_added_when_largest_size_fits() -> None:
    a = _align(pool_size=100)
    assert sz.filter_capture_sizes([8, 16, 64], a) == [8, 16, 64]
    assert sz.filter_capture_sizes([8, 16, 64, 100], a) == [8, 16, 64, 100]


def test_filter_speculative_width() -> None:
    # attention-TP 8 gather: size × width 4 must be a multiple of 8 → even sizes.
    a = _align(tp_size=8, moe_a2a_backend="deepep", request_width=4)
    assert sz.filter_capture_sizes([1, 2, 3, 4, 6, 7, 8], a) == [2, 4, 6, 8]


def test_filter_dedupes_and_sorts() -> None:
    assert sz.filter_capture_sizes([8, 4, 4, 2, 8], _align()) == [2, 4, 8]


def test_capture_tbo_end_to_end() -> None:
    plan = resolve_plain(["--enable-two-batch-overlap"])
    assert plan.capture["decode"]["sizes"] == [s for s in DEFAULT_160 if s % 2 == 0]
    assert plan.capture["decode"]["alignment"]["multiple"] == 2


def test_capture_tbo_with_speculative_counts_requests_not_tokens() -> None:
    plan = resolve_plain(["--enable-two-batch-overlap", "--speculative-algorithm", "EAGLE",
                          "--speculative-num-draft-tokens", "3"])
    assert plan.capture["decode"]["alignment"]["request_width"] == 1
    # Speculative decoding without --max-running-requests resets it to 48, the request pool
    # the filter caps at (measured: tests/fidelity/sglang_request_pool*.jsonl).
    assert plan.capture["decode"]["alignment"]["pool_size"] == 48
    assert plan.capture["decode"]["sizes"] == [s for s in ref_spec_decode(160)
                                               if s % 2 == 0 and s <= 48]


def test_capture_dp_attention_tp8_dp2_aligns_to_four() -> None:
    plan = resolve_plain(["--tp-size", "8", "--dp-size", "2", "--enable-dp-attention"])
    assert plan.capture["decode"]["alignment"]["multiple"] == 4
    assert plan.capture["decode"]["sizes"] == [s for s in DEFAULT_160 if s % 4 == 0]
    assert plan.facts["derived"]["attn_tp_size"] == 4


def test_capture_moe_a2a_gather_end_to_end() -> None:
    plan = resolve_plain(["--tp-size", "4", "--moe-a2a-backend", "deepep"])
    assert plan.capture["decode"]["sizes"] == [s for s in DEFAULT_160 if s % 4 == 0]


def test_capture_attn_cp_end_to_end() -> None:
    plan = resolve_plain(["--tp-size", "2", "--attn-cp-size", "2"])
    assert plan.capture["decode"]["sizes"] == [s for s in DEFAULT_160 if s % 2 == 0]


def test_capture_pool_cap_end_to_end_mrr_100_alignment_8() -> None:
    # Each attention-DP worker's pool is its share, 100 // 2 = 50 (SGLang 0.5.23
    # KVCacheConfigurator.resolve_max_num_reqs), rounded up to the alignment 8: 56.
    plan = resolve_plain(["--tp-size", "8", "--dp-size", "2", "--enable-dp-attention",
                          "--enable-two-batch-overlap", "--max-running-requests", "100",
                          "--cuda-graph-bs-decode", "8", "16", "64", "128", "256"])
    assert plan.capture["decode"]["alignment"] == {"multiple": 8, "request_width": 1,
                                                   "pool_size": 50}
    assert plan.capture["decode"]["sizes"] == [8, 16, 56]
    assert plan.config["decode"]["bs"] == [8, 16, 64, 128, 256]  # configured list untouched
    # The pool cap is a decision of its own (issue #10), the alignment's stays separate.
    assert any(d.rule == "sizes.max-running-requests-cap" for d in plan.decisions)


def test_capture_pool_cap_alignment_one() -> None:
    plan = resolve_plain(["--max-running-requests", "100",
                          "--cuda-graph-bs-decode", "8", "16", "64", "128", "256"])
    assert plan.capture["decode"]["sizes"] == [8, 16, 64, 100]


def test_capture_speculative_width_end_to_end() -> None:
    plan = resolve_plain(["--tp-size", "8", "--moe-a2a-backend", "deepep",
                          "--speculative-algorithm", "EAGLE", "--speculative-num-draft-tokens",
                          "4", "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                          "--cuda-graph-bs-decode", "1", "2", "3", "4", "6", "7", "8"])
    assert plan.capture["decode"]["alignment"]["request_width"] == 4
    assert plan.capture["decode"]["sizes"] == [2, 4, 6, 8]


def test_speculative_width_defaults_like_sglang() -> None:
    # #10 item 20: no --speculative-num-draft-tokens: NGRAM 12, EAGLE on Llama 8 (5 steps, topk 4).
    ngram = resolve_plain(["--speculative-algorithm", "NGRAM"])
    eagle = resolve_plain(["--speculative-algorithm", "EAGLE", "--model-arch", "LlamaForCausalLM"])
    assert ngram.capture["decode"]["alignment"]["request_width"] == 12
    assert eagle.capture["decode"]["alignment"]["request_width"] == 8


def test_capture_dedupes_and_sorts_configured_list() -> None:
    plan = resolve_plain(["--cuda-graph-bs-decode", "8", "4", "4", "2"])
    assert plan.config["decode"]["bs"] == [8, 4, 4, 2]
    assert plan.capture["decode"]["sizes"] == [2, 4, 8]


def test_capture_nothing_survives_is_the_start_up_refusal() -> None:
    # SGLang's get_batch_sizes_to_capture asserts a non-empty filtered list at start-up.
    from cgconfig.errors import InputError

    with pytest.raises(InputError, match="none survives the capture filter"):
        resolve_plain(["--enable-two-batch-overlap", "--cuda-graph-bs-decode", "1", "3"])


def test_disabled_phase_has_empty_capture() -> None:
    plan = resolve_plain(["--disable-decode-cuda-graph", "--disable-prefill-cuda-graph"])
    assert plan.capture["decode"]["sizes"] == []
    assert plan.capture["decode"]["compile_sizes"] == []
    assert plan.capture["prefill"]["sizes"] == []


# --- torch.compile sizes ------------------------------------------------------------------


def test_compile_sizes_empty_without_torch_compile() -> None:
    plan = resolve_plain([])
    assert plan.capture["decode"]["compile_sizes"] == []
    assert sz.compile_sizes([1, 2, 4], enable_torch_compile=False, torch_compile_max_bs=32) == []


def test_compile_sizes_default_bound_32() -> None:
    plan = resolve_plain(["--enable-torch-compile"])
    assert plan.capture["decode"]["compile_sizes"] == [1, 2, 4, 8, 12, 16, 24, 32]


def test_compile_sizes_custom_bound() -> None:
    plan = resolve_plain(["--enable-torch-compile", "--torch-compile-max-bs", "20"])
    assert plan.capture["decode"]["compile_sizes"] == [1, 2, 4, 8, 12, 16]


def test_compile_sizes_only_from_captured_sizes() -> None:
    plan = resolve_plain(["--enable-torch-compile", "--enable-two-batch-overlap"])
    assert plan.capture["decode"]["compile_sizes"] == [2, 4, 8, 12, 16, 24, 32]


def test_torch_compile_max_bs_alone_compiles_nothing() -> None:
    plan = resolve_plain(["--torch-compile-max-bs", "64"])
    assert plan.capture["decode"]["compile_sizes"] == []


def test_compile_sizes_function() -> None:
    assert sz.compile_sizes([1, 2, 4, 8, 16, 33], enable_torch_compile=True,
                            torch_compile_max_bs=16) == [1, 2, 4, 8, 16]


def test_cpu_explicit_bs_raises_the_torch_compile_bound() -> None:
    plan = resolve_plain(["--device", "cpu", "--cuda-graph-bs-decode", "1", "2", "64",
                          "--enable-torch-compile"])
    assert plan.capture["decode"]["sizes"] == [1, 2, 64]
    assert plan.capture["decode"]["compile_sizes"] == [1, 2, 64]


def test_cpu_decode_without_torch_compile_is_configured_not_captured() -> None:
    # #10 item 1: SGLang 0.5.23's config keeps decode full; its runtime captures nothing.
    plan = resolve_args(["--device", "cpu"])
    assert plan.config["decode"]["backend"] == "full"
    assert plan.capture["decode"]["sizes"] == []
    assert plan.capture["decode"]["backend"] == "disabled"
    compiled = resolve_args(["--device", "cpu", "--enable-torch-compile"])
    assert compiled.capture["decode"]["sizes"]


def test_muse_glimmer_prefill_max_bs_is_an_engine_flag() -> None:
    # #10 item 5: SGLang sets --cuda-graph-max-bs-prefill 512 before parsing, so it is locked;
    # item 19: with DP attention and a small chunk it settles (no rule cycle).
    plan = resolve_args(["--model-arch", "MuseGlimmerForCausalLM", "--chunked-prefill-size",
                         "256", "--enable-dp-attention", "--dp-size", "2", "--tp-size", "2"])
    assert plan.config["prefill"]["max_bs"] == 512
    assert plan.config["prefill"]["backend"] == "breakable"
    assert "prefill.max_bs" in plan.locked
    given = resolve_args(["--model-arch", "MuseGlimmerForCausalLM",
                          "--cuda-graph-max-bs-prefill", "1024"])
    assert given.config["prefill"]["max_bs"] == 1024


def _resolve_at(release: str, argv: list[str]) -> Plan:
    request = request_from_argv(["--engine-version", f"sglang=={release}", *argv])
    request.use_rules = False
    return resolve(request)


def test_request_pool_per_attention_dp_worker_by_release() -> None:
    """From SGLang 0.5.10 a DP-attention worker's request pool is its share of
    --max-running-requests (ModelRunner._resolve_max_num_reqs: max_running_requests //
    dp_size); 0.5.8 sizes it from the whole value (init_memory_pool), so the filter keeps the
    graphs above the share there. Read in the 0.5.8, 0.5.9, 0.5.10 and 0.5.23 wheels."""
    line = ["--tp-size", "8", "--dp-size", "8", "--enable-dp-attention",
            "--max-running-requests", "128", "--cuda-graph-bs", "8", "16", "32", "64"]
    new = _resolve_at("0.5.10", line)
    assert new.capture["decode"]["alignment"]["pool_size"] == 16
    assert new.capture["decode"]["sizes"] == [8, 16]
    assert any("each attention-DP worker's request pool (128 // 8 → 16)" in (d.why or "")
               for d in new.decisions if d.rule == "sizes.max-running-requests-cap")
    old = _resolve_at("0.5.8", line)
    assert old.capture["decode"]["alignment"]["pool_size"] == 128
    assert old.capture["decode"]["sizes"] == [8, 16, 32, 64]


def test_eager_range_counts_one_attention_dp_ranks_share() -> None:
    """Each rank's scheduler runs max_running_requests // dp_size requests (every release), so
    the eager range is measured against the share, and the hint names the release's flag."""
    line = ["--tp-size", "8", "--dp-size", "8", "--enable-dp-attention",
            "--max-running-requests", "512", "--cuda-graph-max-bs", "32"]
    plan = _resolve_at("0.5.8", line)
    (warned,) = [d for d in plan.decisions if d.rule == "coverage.decode-eager-range"]
    assert "(512 // 8 = 64) exceeds the largest decode graph (32); batches of 33..64" in warned.why
    assert warned.hint == "raise --cuda-graph-max-bs to 64 to cover every batch"
    covered = _resolve_at("0.5.8", [*line[:-2], "--cuda-graph-max-bs", "64"])
    assert not [d for d in covered.decisions if d.rule == "coverage.decode-eager-range"]


def test_eager_range_under_speculative_decodings_running_limit() -> None:
    """Speculative decoding without --max-running-requests runs 48 requests (measured on SGLang
    0.5.8-0.5.23, tests/fidelity/sglang_request_pool.jsonl): a decode max_bs below it leaves
    the larger batches eager."""
    line = ["--model-arch", "LlamaForCausalLM", "--speculative-algorithm", "NGRAM"]
    plan = resolve_plain([*line, "--cuda-graph-max-bs-decode", "16"])
    (warned,) = [d for d in plan.decisions if d.rule == "coverage.decode-eager-range"]
    assert warned.why.startswith("coverage: speculative decoding's running-request limit 48 "
                                 "(--max-running-requests unset) exceeds the largest decode "
                                 "graph (16); batches of 17..48")
    covered = resolve_plain([*line, "--cuda-graph-max-bs-decode", "48"])
    assert not [d for d in covered.decisions if d.rule == "coverage.decode-eager-range"]
