"""ShapeKey, bucket rounding and the graph registry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.runtime.shape_key import GraphRegistry, ShapeKey, pad_to_bucket

DECODE = [1, 2, 4, 8, 12, *range(16, 257, 8)]


@pytest.mark.parametrize("size, bucket", [
    (1, 1), (3, 4), (4, 4), (5, 8), (9, 12), (13, 16), (17, 24), (200, 200), (201, 208),
    (256, 256), (257, None),
])
def test_pad_to_bucket_rounds_up(size: int, bucket: int | None) -> None:
    assert pad_to_bucket(size, DECODE) == bucket


@given(st.lists(st.integers(1, 4096), min_size=1, unique=True), st.integers(1, 5000))
def test_bucket_is_smallest_fitting(sizes: list[int], n: int) -> None:
    sizes.sort()
    got = pad_to_bucket(n, sizes)
    fitting = [s for s in sizes if s >= n]
    assert got == (min(fitting) if fitting else None)


def test_shape_key_identity() -> None:
    assert ShapeKey(8) == ShapeKey(8, None, None)
    assert ShapeKey(8) != ShapeKey(8, variant="lora") != ShapeKey(8, stream_idx=1)
    assert len({ShapeKey(8), ShapeKey(8), ShapeKey(8, 0)}) == 2
    with pytest.raises(ValueError):
        ShapeKey(0)


def test_registry_keeps_sizes_per_variant_sorted() -> None:
    reg: GraphRegistry[str] = GraphRegistry()
    for size in (64, 8, 32):
        reg.add(ShapeKey(size), f"g{size}")
    reg.add(ShapeKey(16, variant="lora"), "lora16")
    assert list(reg.sizes()) == [8, 32, 64]
    assert list(reg.sizes(variant="lora")) == [16]
    assert reg.bucket(9) == ShapeKey(32)
    assert reg.bucket(9, variant="lora") == ShapeKey(16, variant="lora")
    assert reg.bucket(65) is None and reg.bucket(1, stream_idx=3) is None
    assert reg.get(ShapeKey(32)) == "g32" and ShapeKey(64) in reg and len(reg) == 4
    with pytest.raises(KeyError, match="already"):
        reg.add(ShapeKey(8), "again")
    with pytest.raises(KeyError, match="no graph"):
        reg.get(ShapeKey(7))
    reg.clear()
    assert len(reg) == 0 and list(reg.sizes()) == []
