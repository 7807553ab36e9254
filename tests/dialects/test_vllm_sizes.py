"""vLLM's default capture sizes against worked defaults of vLLM 0.33.0
``vllm/config/vllm.py:VllmConfig._set_cudagraph_sizes``. Expected lists are written out by hand
from that code, not computed by the code under test."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.engines.vllm import sizes
from cgconfig.engines.vllm.sizes import SizeResult

#: The release whose ``_set_cudagraph_sizes`` the lists below are written from.
RELEASE = "0.33.0"


def default_capture_sizes(*args: Any, **kwargs: Any) -> SizeResult:
    """vLLM :data:`RELEASE`'s default capture sizes."""
    return sizes.default_capture_sizes(*args, release=RELEASE, **kwargs)

# "[1,2,4,8,16,...,248,256,272,...,496,512]"
GRID_512 = [1, 2, 4, *range(8, 249, 8), *range(256, 513, 16)]
GRID_1024 = [1, 2, 4, *range(8, 249, 8), *range(256, 1025, 16)]


def test_openai_server_small_gpu() -> None:
    result = default_capture_sizes(256, 2048)
    assert result.sizes == GRID_512
    assert len(result.sizes) == 51
    assert result.max_size == 512
    assert result.notes == []


def test_h100_h200_same_51() -> None:
    result = default_capture_sizes(1024, 8192)
    assert (result.sizes, result.max_size) == (GRID_512, 512)


def test_blackwell_83_up_to_1024() -> None:
    result = default_capture_sizes(1024, 16384, blackwell=True)
    assert result.sizes == GRID_1024
    assert len(result.sizes) == 83
    assert result.max_size == 1024


def test_same_server_off_blackwell_stops_at_512() -> None:
    assert default_capture_sizes(1024, 16384).sizes == GRID_512


def test_scheduler_defaults_35() -> None:
    result = default_capture_sizes(128, 2048)
    assert result.sizes == [1, 2, 4, *range(8, 249, 8), 256]
    assert len(result.sizes) == 35
    assert result.max_size == 256


def test_off_stride_max_num_seqs_inserted() -> None:
    result = default_capture_sizes(100, 32768)
    assert result.max_size == 200
    assert result.sizes == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 100, 104,
                            112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200]


def test_four_seqs() -> None:
    result = default_capture_sizes(4, 2048)
    assert (result.sizes, result.max_size) == ([1, 2, 4, 8], 8)


def test_spec16_32_seqs_55_sizes() -> None:
    result = default_capture_sizes(32, 2048, num_speculative_tokens=16)
    assert len(result.sizes) == 55
    assert result.max_size == 512
    assert {17, 34, 68, 408} <= set(result.sizes)
    assert 544 not in result.sizes  # 32 × 17: the widest decode batch runs eagerly
    assert result.sizes == sorted({*GRID_512, 17, 34, 68, 408})


def test_spec2_small_server_adds_uniform_decode_sizes() -> None:
    # q = 3, ceiling min(8·3·2, 512) = 48; request counts {1,2,4,8} × 3 = 3, 6, 12, 24.
    result = default_capture_sizes(8, 2048, num_speculative_tokens=2)
    assert result.sizes == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48]
    assert result.max_size == 48


def test_token_budget_below_ceiling_is_appended() -> None:
    result = default_capture_sizes(256, 300)
    assert result.sizes == [1, 2, 4, *range(8, 249, 8), 256, 272, 288, 300]
    assert result.max_size == 300


def test_tiny_token_budget() -> None:
    result = default_capture_sizes(4, 5)
    assert (result.sizes, result.max_size) == ([1, 2, 4, 5], 5)


def test_interactivity_is_dense_below_32() -> None:
    result = default_capture_sizes(256, 2048, performance_mode="interactivity")
    assert result.sizes == [*range(1, 33), *range(40, 249, 8), *range(256, 513, 16)]
    assert default_capture_sizes(2, 2048, performance_mode="interactivity").sizes == [1, 2, 3, 4]


def test_throughput_mode_same_grid_as_balanced() -> None:
    assert default_capture_sizes(256, 2048, performance_mode="throughput").sizes == GRID_512


def test_invalid_performance_mode() -> None:
    with pytest.raises(ValueError, match="Allowed: balanced, interactivity, throughput"):
        default_capture_sizes(256, 2048, performance_mode="fast")


# ------------------------------------------------------------------------ user values


def test_user_max_on_grid_drops_decode_sizes() -> None:
    # With a user maximum vLLM adds no uniform-decode sizes: 100 is not inserted.
    result = default_capture_sizes(100, 32768, max_capture_size=64)
    assert result.sizes == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert result.max_size == 64
    assert result.notes == []


def test_user_max_off_grid_is_truncated_with_warning() -> None:
    result = default_capture_sizes(256, 8192, max_capture_size=300)
    assert result.sizes[-3:] == [256, 272, 288]
    assert result.max_size == 288
    assert result.notes == ["Truncating max_cudagraph_capture_size to 288"]


def test_user_max_above_budget_is_capped_by_budget() -> None:
    result = default_capture_sizes(1024, 2048, max_capture_size=4096)
    assert result.max_size == 2048
    assert result.sizes[-1] == 2048
    assert result.notes == ["Truncating max_cudagraph_capture_size to 2048"]


def test_user_list_is_deduped_sorted_and_capped_by_budget_only() -> None:
    result = default_capture_sizes(4, 2048, capture_sizes=[32, 16, 16])
    assert (result.sizes, result.max_size) == ([16, 32], 32)  # 32 > automatic ceiling 8: kept
    assert result.notes == ["cudagraph_capture_sizes specified in compilation_config "
                            "[32, 16, 16] is overridden by config [16, 32]"]


def test_user_list_filtered_by_budget_warns() -> None:
    result = default_capture_sizes(256, 2048, capture_sizes=[1, 2, 4, 8, 4096])
    assert (result.sizes, result.max_size) == ([1, 2, 4, 8], 8)
    assert result.notes == ["cudagraph_capture_sizes specified in compilation_config "
                            "[1, 2, 4, 8, 4096] is overridden by config [1, 2, 4, 8]"]


def test_user_list_and_consistent_max() -> None:
    result = default_capture_sizes(256, 2048, capture_sizes=[1, 2, 4, 8], max_capture_size=8)
    assert (result.sizes, result.max_size, result.notes) == ([1, 2, 4, 8], 8, [])


def test_user_list_and_inconsistent_max_raises() -> None:
    with pytest.raises(ValueError) as info:
        default_capture_sizes(256, 2048, capture_sizes=[1, 2, 4, 8], max_capture_size=16)
    assert str(info.value) == ("customized max_cudagraph_capture_size(=16) should be consistent "
                               "with the max value of cudagraph_capture_sizes(=8)")


def test_user_list_above_budget_with_max_raises() -> None:
    # The SM70 case from vLLM's own tests: sizes up to 64, budget 50.
    with pytest.raises(ValueError, match=r"size\(=64\) should be consistent with the max value "
                                         r"of cudagraph_capture_sizes\(=48\)"):
        default_capture_sizes(8, 50, capture_sizes=[8, 16, 32, 48, 64], max_capture_size=64)


def test_empty_user_list_rejected() -> None:
    with pytest.raises(ValueError, match="should contain at least one element"):
        default_capture_sizes(256, 2048, capture_sizes=[])


def test_zero_user_max_rejected() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        default_capture_sizes(256, 2048, max_capture_size=0)


def test_bad_inputs_rejected() -> None:
    with pytest.raises(ValueError):
        default_capture_sizes(0, 2048)
    with pytest.raises(ValueError):
        default_capture_sizes(8, 2048, num_speculative_tokens=-1)


# ------------------------------------------------------------------------- properties


@given(seqs=st.integers(1, 2048), tokens=st.integers(1, 40000), spec=st.integers(0, 8),
       blackwell=st.booleans(), interactive=st.booleans())
def test_default_grid_properties(seqs: int, tokens: int, spec: int, blackwell: bool,
                                 interactive: bool) -> None:
    result = default_capture_sizes(
        seqs, tokens, num_speculative_tokens=spec, blackwell=blackwell,
        performance_mode="interactivity" if interactive else "balanced")
    ceiling = 1024 if blackwell else 512
    assert result.sizes == sorted(set(result.sizes))
    assert result.sizes[0] == 1
    assert result.max_size == result.sizes[-1] <= min(tokens, ceiling)
    assert result.notes == []
    if spec == 0 and seqs <= min(tokens, ceiling):
        # Every decode batch up to max_num_seqs has a graph to pad into.
        assert seqs in result.sizes


def test_token_budget_joins_the_grid_from_0_20() -> None:
    """vLLM 0.20's ``_set_cudagraph_sizes`` captures an off-stride ``max_num_batched_tokens``
    under the ceiling; 0.19's grid stops at the stride below it (capture_size_changes.py)."""
    from cgconfig.engines.vllm.capture_size_changes import captures_token_budget

    assert not captures_token_budget("0.19.1") and captures_token_budget("0.20.1")
    old = sizes.default_capture_sizes(1024, 500, release="0.19.1")
    new = sizes.default_capture_sizes(1024, 500, release="0.20.1")
    assert old.sizes[-1] == 496 and new.sizes[-1] == 500
    assert new.sizes[:-1] == old.sizes
