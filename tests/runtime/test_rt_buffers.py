"""Static buffers: every padding policy, grouped fills, and input validation."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime.buffers import Axis, PaddingPolicy, RowCounts, Slot, StaticBuffers  # noqa: E402

I64, F32 = torch.int64, torch.float32


def _buffers(*slots: Slot, max_tokens: int = 8, max_requests: int = 8) -> StaticBuffers:
    return StaticBuffers(slots, max_tokens=max_tokens, max_requests=max_requests, device="cpu")


def _counts(n: int, padded: int) -> RowCounts:
    return RowCounts(n, padded, n, padded)


def _rows(n: int, start: int = 100) -> Any:
    return torch.arange(start, start + n, dtype=I64)


def test_copy_writes_real_rows_and_leaves_the_rest() -> None:
    buf = _buffers(Slot("ids", I64, policy=PaddingPolicy.COPY))
    buf.fill({"ids": _rows(6)}, _counts(6, 8))
    buf.fill({"ids": _rows(3, 200)}, _counts(3, 4))
    # Rows 3..5 still hold the first batch: COPY promises nothing about padded rows.
    assert buf["ids"].tolist() == [200, 201, 202, 103, 104, 105, 0, 0]


def test_fill_sentinel_resets_padded_rows_every_batch() -> None:
    buf = _buffers(Slot("seq_lens", I64, axis=Axis.REQUESTS,
                        policy=PaddingPolicy.FILL_SENTINEL, pad_value=1))
    assert buf["seq_lens"].tolist() == [1] * 8
    buf.fill({"seq_lens": _rows(7, 50)}, _counts(7, 8))
    buf.fill({"seq_lens": _rows(2, 90)}, _counts(2, 4))
    # Padded rows 2..3 are back to the sentinel; rows past the bucket (4..6) are not read.
    assert buf["seq_lens"].tolist()[:4] == [90, 91, 1, 1]


def test_zero_points_padded_rows_at_dummy_entry() -> None:
    buf = _buffers(Slot("out_cache_loc", I64, policy=PaddingPolicy.ZERO))
    buf.fill({"out_cache_loc": _rows(8, 10)}, _counts(8, 8))
    buf.fill({"out_cache_loc": _rows(5, 30)}, _counts(5, 8))
    assert buf["out_cache_loc"].tolist() == [30, 31, 32, 33, 34, 0, 0, 0]


def test_fill_once_sets_initial_value_but_never_resets() -> None:
    buf = _buffers(Slot("enc", I64, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_ONCE,
                        pad_value=7))
    assert buf["enc"].tolist() == [7] * 8
    buf.fill({"enc": _rows(6, 40)}, _counts(6, 8))
    buf.fill({"enc": _rows(2, 60)}, _counts(2, 8))
    assert buf["enc"].tolist() == [60, 61, 42, 43, 44, 45, 7, 7]
    buf.reset()
    assert buf["enc"].tolist() == [7] * 8


def test_keep_is_caller_owned() -> None:
    buf = _buffers(Slot("table", I64, trailing=(3,), axis=Axis.NONE, policy=PaddingPolicy.KEEP),
                   Slot("ids", I64))
    buf["table"].copy_(torch.tensor([5, 6, 7]))
    buf.fill({"ids": _rows(2)}, _counts(2, 4))
    buf.reset()
    assert buf["table"].tolist() == [5, 6, 7]
    with pytest.raises(KeyError, match="unexpected \\['table'\\]"):
        buf.fill({"ids": _rows(2), "table": torch.zeros(3, dtype=I64)}, _counts(2, 4))
    inputs = buf.eager_inputs({"ids": _rows(2)}, _counts(2, 2))
    assert inputs["table"].data_ptr() == buf["table"].data_ptr()


def test_reset_restores_pad_values_for_capture() -> None:
    buf = _buffers(Slot("ids", I64), Slot("loc", I64, policy=PaddingPolicy.ZERO),
                   Slot("lens", I64, policy=PaddingPolicy.FILL_SENTINEL, pad_value=1))
    buf.fill({"ids": _rows(8), "loc": _rows(8), "lens": _rows(8)}, _counts(8, 8))
    buf.reset()
    assert buf["ids"].tolist() == [0] * 8
    assert buf["loc"].tolist() == [0] * 8
    assert buf["lens"].tolist() == [1] * 8


def test_rows_on_dim_one_and_trailing_dims() -> None:
    buf = _buffers(Slot("mrope", I64, trailing=(3,), dim=1, policy=PaddingPolicy.ZERO),
                   Slot("hidden", F32, trailing=(2,)))
    assert buf["mrope"].shape == (3, 8) and buf["hidden"].shape == (8, 2)
    buf.fill({"mrope": torch.ones(3, 8, dtype=I64), "hidden": torch.ones(8, 2)},
             _counts(8, 8))
    buf.fill({"mrope": torch.full((3, 2), 9, dtype=I64), "hidden": torch.zeros(2, 2)},
             _counts(2, 4))
    assert buf["mrope"][:, :4].tolist() == [[9, 9, 0, 0]] * 3
    assert buf["mrope"][:, 4:].tolist() == [[1] * 4] * 3
    assert buf["hidden"][:4].tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]


def test_views_are_stable_and_cut_to_each_axis() -> None:
    buf = _buffers(Slot("ids", I64), Slot("lens", I64, axis=Axis.REQUESTS),
                   Slot("scalar", I64, trailing=(1,), axis=Axis.NONE), max_requests=3)
    views = buf.views(4, 2)
    assert views["ids"].shape == (4,) and views["lens"].shape == (2,)
    assert views["scalar"].shape == (1,)
    assert buf.views(4, 2) is views
    assert views["ids"].data_ptr() == buf["ids"].data_ptr()


def test_fill_groups_copies_into_one_launch_per_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = [Slot(f"i{k}", I64, policy=p) for k, p in enumerate(
        [PaddingPolicy.COPY, PaddingPolicy.ZERO, PaddingPolicy.ZERO])]
    slots += [Slot("lens", torch.int32, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_SENTINEL,
                   pad_value=1), Slot("h", F32, trailing=(4,))]
    buf = _buffers(*slots)
    calls: list[int] = []
    real = torch._foreach_copy_

    def counting(dsts: list[Any], srcs: list[Any], *args: Any) -> Any:
        calls.append(len(dsts))
        return real(dsts, srcs, *args)

    monkeypatch.setattr(torch, "_foreach_copy_", counting)
    batch = {"i0": _rows(3), "i1": _rows(3), "i2": _rows(3),
             "lens": torch.ones(3, dtype=torch.int32), "h": torch.ones(3, 4)}
    launches = buf.fill(batch, _counts(3, 8))
    # int64 group: 3 real copies + 2 zero tails; int32: copy + sentinel tail; float32: copy.
    assert launches == 3 and sorted(calls) == [1, 2, 5]


def test_source_dtype_and_device_groups_are_separate() -> None:
    buf = _buffers(Slot("a", I64), Slot("b", I64))
    launches = buf.fill({"a": _rows(2), "b": torch.arange(2, dtype=torch.int32)}, _counts(2, 2))
    assert launches == 2 and buf["b"][:2].tolist() == [0, 1]


@pytest.mark.parametrize("batch, counts, error, match", [
    ({"ids": _rows(3)}, _counts(2, 4), ValueError, "shape \\(3,\\), expected \\(2,\\)"),
    ({}, _counts(2, 4), KeyError, "missing \\['ids'\\]"),
    ({"ids": _rows(2), "idz": _rows(2)}, _counts(2, 4), KeyError, "unexpected \\['idz'\\]"),
    ({"ids": _rows(2)}, _counts(2, 16), ValueError, "do not fit"),
])
def test_fill_rejects_bad_batches(batch: dict[str, Any], counts: RowCounts,
                                  error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        _buffers(Slot("ids", I64)).fill(batch, counts)


@pytest.mark.parametrize("kwargs, match", [
    ({"policy": PaddingPolicy.FILL_SENTINEL}, "needs a pad_value"),
    ({"policy": PaddingPolicy.FILL_ONCE}, "needs a pad_value"),
    ({"policy": PaddingPolicy.ZERO, "pad_value": 3}, "pads with 0"),
    ({"policy": PaddingPolicy.ZERO, "axis": Axis.NONE}, "no rows"),
    ({"dim": 2}, "outside shape"),
])
def test_slot_declaration_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Slot("x", I64, **kwargs)


def test_duplicate_slot_names_rejected() -> None:
    with pytest.raises(ValueError, match="twice"):
        _buffers(Slot("x", I64), Slot("x", I64))


def test_kept_fill_plans_stay_right_as_batch_sizes_alternate() -> None:
    # The views a row count writes are worked out once and reused: going back to a count seen
    # before must still copy the new batch and reset the tail the earlier, larger batch wrote.
    buf = _buffers(Slot("loc", I64, policy=PaddingPolicy.ZERO),
                   Slot("lens", I64, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_SENTINEL,
                        pad_value=1))
    for n, start in ((3, 10), (8, 20), (3, 30), (5, 40), (3, 50)):
        buf.fill({"loc": _rows(n, start), "lens": _rows(n, start)}, _counts(n, 8))
        assert buf["loc"].tolist() == [*range(start, start + n)] + [0] * (8 - n)
        assert buf["lens"].tolist() == [*range(start, start + n)] + [1] * (8 - n)


def test_kept_plan_splits_a_source_of_another_dtype() -> None:
    # Same row counts, so the same kept plan: a batch whose source dtype differs still lands
    # (cast exactly) and takes its own launch.
    buf = _buffers(Slot("a", I64, policy=PaddingPolicy.ZERO), Slot("b", I64))
    assert buf.fill({"a": _rows(2), "b": _rows(2, 7)}, _counts(2, 4)) == 1
    launches = buf.fill({"a": _rows(2, 3), "b": torch.arange(2, dtype=torch.int32)},
                        _counts(2, 4))
    assert launches == 2
    assert buf["a"][:4].tolist() == [3, 4, 0, 0] and buf["b"][:2].tolist() == [0, 1]


def test_fill_without_shape_checks_still_checks_names_and_room() -> None:
    buf = _buffers(Slot("ids", I64))
    buf.fill({"ids": _rows(2)}, _counts(2, 4), check_shapes=False)
    assert buf["ids"][:2].tolist() == [100, 101]
    with pytest.raises(KeyError, match="missing \\['ids'\\]"):
        buf.fill({}, _counts(2, 4), check_shapes=False)
    with pytest.raises(ValueError, match="do not fit"):
        buf.fill({"ids": _rows(2)}, _counts(2, 16), check_shapes=False)


def test_kept_plans_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from cgconfig.runtime import buffers as buffers_module

    monkeypatch.setattr(buffers_module, "_PLAN_CACHE_LIMIT", 4)
    buf = _buffers(Slot("ids", I64, policy=PaddingPolicy.ZERO), max_tokens=16)
    for n in range(1, 13):
        buf.fill({"ids": _rows(n)}, _counts(n, 16))
        assert buf["ids"].tolist() == [*range(100, 100 + n)] + [0] * (16 - n)
    assert len(buf._plans) <= 4


def test_row_counts_is_a_tuple_with_axis_lookups() -> None:
    counts = RowCounts(tokens=3, padded_tokens=4, requests=2, padded_requests=8)
    assert counts == (3, 4, 2, 8) and hash(counts) == hash((3, 4, 2, 8))
    assert counts.real(Axis.TOKENS) == 3 and counts.padded(Axis.REQUESTS) == 8


@pytest.mark.parametrize("value", [-2**63 - 1, 2**64])
def test_a_float_slot_refuses_an_int_pad_value_torch_cannot_take(value: int) -> None:
    """torch.full converts a Python int through a C integer even for a float dtype: outside
    [-2**63, 2**64) it raises OverflowError, so the declaration is refused first (found by the
    hostile fuzzing: pad_value -9223372036854775809 on a float32 slot)."""
    with pytest.raises(ValueError, match="does not fit"):
        Slot("s", torch.float32, pad_value=value, policy=PaddingPolicy.FILL_SENTINEL)
