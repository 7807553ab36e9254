"""Runtime input checks (issue #11 item 9): dtypes, row counts, count types, plan options, and a
broken forward failing at capture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime.buffers import Axis, PaddingPolicy, Slot  # noqa: E402
from cgconfig.runtime.checks import _lossless  # noqa: E402
from cgconfig.runtime.plan_view import PhaseCapture, phase_capture  # noqa: E402
from cgconfig.runtime.runner import PhaseRunner  # noqa: E402

SLOTS = [
    Slot("ids", torch.int64, policy=PaddingPolicy.COPY),
    Slot("small", torch.int32, policy=PaddingPolicy.ZERO),
    Slot("x", torch.float32, trailing=(2,), policy=PaddingPolicy.COPY),
    Slot("lens", torch.int64, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_SENTINEL,
         pad_value=1),
]


def forward(inputs: Mapping[str, Any]) -> Any:
    return inputs["x"].sum(-1) + inputs["ids"] + inputs["small"] + inputs["lens"]


def _runner(sizes: tuple[int, ...] = (1, 2, 4, 8)) -> PhaseRunner:
    r = PhaseRunner(PhaseCapture("decode", "full", sizes), forward, SLOTS, device="cpu")
    r.capture()
    return r


def _batch(n: int) -> dict[str, Any]:
    return {"ids": torch.arange(n), "small": torch.arange(n, dtype=torch.int32),
            "x": torch.ones(n, 2), "lens": torch.full((n,), 3)}


# Sizes 3 (replayed, padded to 4) and 12 (over the largest graph: eager): every path checks.
PATHS = [3, 12]


@pytest.mark.parametrize("n", PATHS)
def test_floats_into_an_int_slot_are_refused(n: int) -> None:
    batch = _batch(n) | {"ids": torch.tensor([6.7, 7.9, 8.5] + [1.0] * (n - 3))}
    with pytest.raises(ValueError, match=r"slot 'ids'.*torch.float32.*torch.int64"):
        _runner().run(batch, n)


@pytest.mark.parametrize("n", PATHS)
def test_narrowing_ints_are_refused(n: int) -> None:
    batch = _batch(n) | {"small": torch.full((n,), 2**40, dtype=torch.int64)}
    with pytest.raises(ValueError, match=r"slot 'small'.*wrap"):
        _runner().run(batch, n)


def test_lossless_casts_are_accepted() -> None:
    r = _runner()
    batch = _batch(3) | {"ids": torch.arange(3, dtype=torch.int32),
                         "x": torch.ones(3, 2, dtype=torch.float16)}
    out = r.run(batch, 3)
    assert out.tolist() == [2.0 + 0 + 0 + 3, 2.0 + 1 + 1 + 3, 2.0 + 2 + 2 + 3]
    assert _lossless(torch.uint8, torch.int16) and not _lossless(torch.int16, torch.uint8)
    assert not _lossless(torch.bfloat16, torch.float16)
    assert not _lossless(torch.float16, torch.bfloat16)
    assert _lossless(torch.bfloat16, torch.float32)
    assert not _lossless(torch.bool, torch.int64)


@pytest.mark.parametrize("n", PATHS)
def test_row_count_must_match_size(n: int) -> None:
    batch = _batch(n) | {"ids": torch.arange(n + 1)}
    with pytest.raises(ValueError, match=f"slot 'ids'.*expected \\({n},\\)"):
        _runner().run(batch, n)
    batch = _batch(n) | {"x": torch.ones(n, 3)}
    with pytest.raises(ValueError, match="slot 'x'"):
        _runner().run(batch, n)


@pytest.mark.parametrize("size", [3.0, None, "3", True, [3]])
def test_size_must_be_an_int(size: Any) -> None:
    with pytest.raises(TypeError, match="size must be an int"):
        _runner().run(_batch(3), size)


def test_negative_size_and_bad_num_requests() -> None:
    r = _runner()
    with pytest.raises(ValueError, match="size must be >= 0"):
        r.run(_batch(3), -1)
    with pytest.raises(TypeError, match="num_requests must be an int"):
        r.run(_batch(3), 3, num_requests=2.5)


def test_a_batch_value_must_be_a_tensor() -> None:
    with pytest.raises(TypeError, match=r"slot 'ids': expected a torch\.Tensor"):
        _runner().run(_batch(3) | {"ids": [0, 1, 2]}, 3)


def test_numpy_style_ints_are_counts() -> None:
    class Index:
        def __index__(self) -> int:
            return 3

    assert _runner().run(_batch(3), Index()).shape == (3,)


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None])
def test_plan_options_must_be_booleans(value: Any) -> None:
    plan = {"schema_version": 1, "options": {"disable_padding": value},
            "capture": {"decode": {"backend": "full", "sizes": [1, 2]}}}
    with pytest.raises(ValueError, match="disable_padding must be true or false"):
        phase_capture(plan, "decode")
    plan["options"] = {"disable_padding": False}
    assert phase_capture(plan, "decode").disable_padding is False


def test_a_broken_forward_fails_at_capture_on_cpu() -> None:
    calls: list[int] = []

    def broken(inputs: Mapping[str, Any]) -> Any:
        calls.append(inputs["ids"].shape[0])
        raise RuntimeError("shape mismatch inside the model")

    r = PhaseRunner(PhaseCapture("decode", "full", (1, 2, 4)), broken, SLOTS, device="cpu")
    with pytest.raises(RuntimeError, match="shape mismatch inside the model"):
        r.capture()
    assert calls == [4]  # largest first, and it ran at capture, not at the first batch


def test_any_mapping_is_a_batch_and_other_types_are_refused() -> None:
    # The per-step check takes a shortcut for dicts; other mappings still pass, and a list of
    # pairs still gets the one-line refusal.
    from types import MappingProxyType

    batch = _batch(3)
    torch.testing.assert_close(_runner().run(MappingProxyType(batch), 3), forward(batch))
    with pytest.raises(TypeError, match="batch must be a mapping"):
        _runner().run(list(batch.items()), 3)


def test_check_batch_function_matches_the_runner() -> None:
    from cgconfig.runtime.checks import check_batch

    slots = {s.name: s for s in SLOTS}
    assert check_batch(slots, _batch(3), 3, None, decode=True) == (3, None)
    with pytest.raises(ValueError, match=r"slot 'x'.*expected \(3, 2\)"):
        check_batch(slots, _batch(3) | {"x": torch.ones(3, 3)}, 3, None, decode=True)
