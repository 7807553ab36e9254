"""TensorRT-LLM batch sizes against worked cases of ``tensorrt_llm/llmapi/llm_args.py``
(``_generate_cuda_graph_batch_sizes`` and the ``cuda_graph_config`` validators). Expected lists are
written out by hand from that code, not computed by the code under test."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.engines.trtllm.sizes import generate_batch_sizes, validate

UNPADDED_128 = [*range(1, 32), 32, 64, 128]  # "[1..31, 32, 64, 128]"
PADDED_128 = [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128]
VARIANTS = ("main", "v1.0")


@pytest.mark.parametrize("variant", VARIANTS)
def test_defaults_no_padding_34(variant: str) -> None:
    sizes, max_bs = validate(None, 0, False, variant=variant)
    assert (sizes, max_bs) == (UNPADDED_128, 128)
    assert len(sizes) == 34


@pytest.mark.parametrize("variant", VARIANTS)
def test_defaults_padding_19(variant: str) -> None:
    sizes, max_bs = validate(None, 0, True, variant=variant)
    assert (sizes, max_bs) == (PADDED_128, 128)
    assert len(sizes) == 19


def test_max_512_padding_newest_steps_of_64() -> None:
    assert generate_batch_sizes(512, True, variant="main") == [*PADDED_128, 192, 256, 320, 384, 448, 512]


def test_max_512_padding_v1_powers_of_two() -> None:
    assert generate_batch_sizes(512, True, variant="v1.0") == [*PADDED_128, 256, 512]


@pytest.mark.parametrize("variant", VARIANTS)
def test_max_1024_no_padding(variant: str) -> None:
    assert generate_batch_sizes(1024, False, variant=variant) == [
        *range(1, 32), 32, 64, 128, 256, 512, 1024]


@pytest.mark.parametrize("variant", VARIANTS)
def test_max_129_padding_appends_max(variant: str) -> None:
    assert generate_batch_sizes(129, True, variant=variant) == [*PADDED_128, 129]


@pytest.mark.parametrize("max_bs, padding, expected", [
    (1, False, [1]),
    (1, True, [1]),
    (4, False, [1, 2, 3, 4]),
    (4, True, [1, 2, 4]),
    (5, True, [1, 2, 4, 5]),
    (100, False, [*range(1, 32), 32, 64, 100]),
    (256, False, [*range(1, 32), 32, 64, 128, 256]),
    (300, False, [*range(1, 32), 32, 64, 128, 256, 300]),
    (200, True, [*PADDED_128, 192, 200]),
])
def test_small_and_off_grid_maxima(max_bs: int, padding: bool, expected: list[int]) -> None:
    assert generate_batch_sizes(max_bs, padding, variant="main") == expected


def test_padding_tail_differs_between_variants() -> None:
    assert generate_batch_sizes(300, True, variant="main") == [*PADDED_128, 192, 256, 300]
    assert generate_batch_sizes(300, True, variant="v1.0") == [*PADDED_128, 256, 300]


def test_generate_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        generate_batch_sizes(0, False, variant="main")
    with pytest.raises(ValueError, match=r"Allowed: main, v1\.0"):
        generate_batch_sizes(8, False, variant="v2")


# ------------------------------------------------------------------------- validate


def test_max_only_generates() -> None:
    assert validate(None, 512, True, variant="main") == ([*PADDED_128, 192, 256, 320, 384, 448, 512], 512)
    assert validate([], 4, False, variant="main") == ([1, 2, 3, 4], 4)  # an empty list counts as unset


@pytest.mark.parametrize("variant", VARIANTS)
def test_list_only_sorted_and_max_derived(variant: str) -> None:
    assert validate([8, 1, 4], 0, False, variant=variant) == ([1, 4, 8], 8)
    assert validate([2, 2, 1], variant=variant) == ([1, 2, 2], 2)  # not deduplicated


def test_newest_both_consistent() -> None:
    assert validate([1, 3, 16], 16, False, variant="main") == ([1, 3, 16], 16)


def test_newest_both_inconsistent_raises() -> None:
    with pytest.raises(ValueError) as info:
        validate([16, 1, 8], 32, False, variant="main")
    assert str(info.value) == (
        "CudaGraphConfig.max_batch_size is incompatible with CudaGraphConfig.batch_sizes. When "
        "both are provided, max_batch_size must equal max(batch_sizes).\n"
        "CudaGraphConfig.batch_sizes: [1, 8, 16], max(batch_sizes): 16, "
        "CudaGraphConfig.max_batch_size: 32")


def test_v1_both_must_equal_generated() -> None:
    assert validate([4, 2, 1, 3], 4, False, variant="v1.0") == ([1, 2, 3, 4], 4)
    with pytest.raises(ValueError) as info:
        validate([1, 3, 16], 16, False, variant="v1.0")
    assert str(info.value) == (
        "Please don't set both cuda_graph_config.batch_sizes and "
        "cuda_graph_config.max_batch_size.\n"
        "cuda_graph_config.batch_sizes: [1, 3, 16], cuda_graph_config.max_batch_size: 16")


@pytest.mark.parametrize("variant", VARIANTS)
def test_negative_max_rejected(variant: str) -> None:
    with pytest.raises(ValueError, match="must be non-negative"):
        validate(None, -1, False, variant=variant)


# ------------------------------------------------------------------------- properties


@given(max_bs=st.integers(1, 8192), padding=st.booleans(), variant=st.sampled_from(VARIANTS))
def test_generated_sizes_properties(max_bs: int, padding: bool, variant: str) -> None:
    sizes = generate_batch_sizes(max_bs, padding, variant=variant)
    assert sizes == sorted(set(sizes))
    assert sizes[0] == 1 and sizes[-1] == max_bs
    assert validate(None, max_bs, padding, variant=variant) == (sizes, max_bs)
    # The generated list always satisfies both variants' own consistency rule.
    assert validate(sizes, max_bs, padding, variant=variant) == (sizes, max_bs)
    if padding and variant == "main":
        above = [s for s in sizes if s > 128]
        steps = [b - a for a, b in zip([128, *above], above, strict=False)]
        assert all(step == 64 for step in steps[:-1]) and all(0 < s <= 64 for s in steps)


# model_engine.py:_filter_cuda_graph_batch_sizes (TensorRT-LLM 603c8a0a), worked by hand.
def test_filter_keeps_sizes_up_to_the_bound_without_padding() -> None:
    from cgconfig.engines.trtllm.sizes import filter_batch_sizes

    assert filter_batch_sizes([1, 2, 4, 8, 16], 6, False) == ([1, 2, 4], None)


def test_filter_pads_to_the_bound_once_with_padding() -> None:
    from cgconfig.engines.trtllm.sizes import filter_batch_sizes

    sizes, warning = filter_batch_sizes([1, 2, 4, 8, 16], 6, True)
    assert sizes == [1, 2, 4, 6] and warning is not None and "(8)" in warning
    assert filter_batch_sizes([1, 2, 6, 8], 6, True) == ([1, 2, 6], None)  # the bound is there
    assert filter_batch_sizes([4, 8], 0, True)[0] == [0]  # before the first size: the bound


def test_filter_keeps_duplicates_and_the_bound_uses_float_division() -> None:
    from cgconfig.engines.trtllm.sizes import filter_batch_sizes, graph_batch_bound

    assert filter_batch_sizes([1, 1, 2], 8, False) == ([1, 1, 2], None)
    assert graph_batch_bound(2048, 16, 3) == 4 and graph_batch_bound(2048, 17, 3) == 4
    assert graph_batch_bound(20, 8192, 0) == 20


@given(st.one_of(st.integers(-5, 5), st.booleans(), st.lists(st.integers(-3, 300), max_size=4),
                 st.none()))
def test_lax_fast_path_is_pydantic(value: object) -> None:
    """Values cgconfig checks itself (already of the field's type) come out as pydantic has them."""
    from pydantic import ValidationError

    from cgconfig.engines.trtllm.llm_args import ConfigProblem, _adapter, lax

    for kind in ("int", "nonneg", "bool", "int_list", "pos_list"):
        try:
            want: object = _adapter(kind).validate_python(value)
        except ValidationError:
            want = "refused"
        try:
            got: object = lax(value, kind, ("k",))
        except ConfigProblem:
            got = "refused"
        assert got == want and type(got) is type(want), (kind, value)
