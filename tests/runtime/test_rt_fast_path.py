"""The runner's shortcut for a batch shaped like one it already replayed (runtime/fast_path.py).

Every test compares the shortcut with the full path on the same batches: same outputs, same
buffer contents (padding policies included), same counters, and the full path's refusals for
anything the shortcut does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from toy_slots import TOY_SLOTS  # noqa: E402

from cgconfig.runtime.buffers import Axis, Slot  # noqa: E402
from cgconfig.runtime.plan_view import PhaseCapture  # noqa: E402
from cgconfig.runtime.runner import PhaseRunner  # noqa: E402

SLOTS = [
    *TOY_SLOTS,
    Slot("table", torch.int64, trailing=(3,), axis=Axis.NONE),
]


def _forward(inputs: Mapping[str, Any]) -> Any:
    return (inputs["x"] * 2 + inputs["lens"][:, None] + inputs["loc"][:, None]
            + inputs["table"].sum())


def _batch(n: int, seed: int) -> dict[str, Any]:
    g = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(n, 2, generator=g),
            "loc": torch.randint(1, 100, (n,), generator=g),
            "lens": torch.randint(2, 50, (n,), generator=g),
            "table": torch.randint(0, 9, (3,), generator=g)}


def _runner(**kwargs: Any) -> PhaseRunner:
    plan = PhaseCapture("decode", "breakable", (1, 2, 4, 8))
    runner = PhaseRunner(plan, _forward, SLOTS, device="cpu", progress=False, **kwargs)
    runner.capture()
    return runner


class FillSpy:
    """Counts the full path's fills (the shortcut copies without calling it)."""

    def __init__(self, runner: PhaseRunner) -> None:
        assert runner.buffers is not None
        self.calls = 0
        original = runner.buffers.fill

        def fill(*args: Any, **kwargs: Any) -> int:
            self.calls += 1
            return original(*args, **kwargs)

        runner.buffers.fill = fill  # type: ignore[method-assign]


def test_second_batch_of_a_shape_takes_the_shortcut_with_the_same_result() -> None:
    fast, full = _runner(), _runner()
    spy = FillSpy(fast)
    with torch.no_grad():
        for seed, n in enumerate([5, 5, 3, 5, 8, 3, 3]):
            batch = _batch(n, seed)
            got, want = fast.run(batch, n), full.run(batch, n, features=["none"])
            torch.testing.assert_close(got, want)
            torch.testing.assert_close(got, _forward(batch))
            assert fast.buffers is not None and full.buffers is not None
            for name in ("x", "loc", "lens", "table"):  # the padded tails as well
                assert torch.equal(fast.buffers[name], full.buffers[name]), name
    assert spy.calls == 3  # one full fill for each of the sizes 5, 3 and 8
    assert len(fast._fast) == 3
    assert fast.stats.to_dict() == full.stats.to_dict()
    assert fast.stats.replays == {8: 4, 4: 3}


def test_padding_tail_is_reset_on_the_shortcut() -> None:
    runner = _runner()
    assert runner.buffers is not None
    with torch.no_grad():
        runner.run(_batch(8, 0), 8)
        runner.run(_batch(5, 1), 5)  # full path: rows 5..7 reset
        runner.run(_batch(8, 2), 8)  # shortcut for 8: every row real
        runner.run(_batch(5, 3), 5)  # shortcut for 5 must reset rows 5..7 again
    assert runner.buffers["loc"][5:8].tolist() == [0, 0, 0]
    assert runner.buffers["lens"][5:8].tolist() == [1, 1, 1]


@pytest.mark.parametrize("change, error", [
    (lambda b: b.update(loc=b["loc"].to(torch.int32)), None),   # lossless: copied, full path
    (lambda b: b.update(x=b["x"][:, :1]), ValueError),           # wrong shape
    (lambda b: b.update(x=b["x"].to(torch.int64)), ValueError),  # truncating dtype
    (lambda b: b.pop("lens"), KeyError),                         # missing slot
    (lambda b: b.update(extra=b["loc"]), KeyError),              # unknown slot
    (lambda b: b.update(x=b["x"].tolist()), TypeError),          # not a tensor
])
def test_anything_unexpected_goes_the_full_way(change: Any, error: Any) -> None:
    runner = _runner()
    spy = FillSpy(runner)
    with torch.no_grad():
        runner.run(_batch(5, 0), 5)
        batch = _batch(5, 1)
        change(batch)
        if error is None:
            torch.testing.assert_close(runner.run(batch, 5), _forward(
                {k: v.to(torch.int64) if k == "loc" else v for k, v in batch.items()}))
        else:
            with pytest.raises(error):
                runner.run(batch, 5)
    # The full path refused it where it always does: names in fill, the rest before it.
    assert spy.calls == (2 if error in (None, KeyError) else 1)


def test_counts_are_still_checked() -> None:
    runner = _runner()
    with torch.no_grad():
        runner.run(_batch(1, 0), 1)
        with pytest.raises(TypeError):
            runner.run(_batch(1, 1), True)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            runner.run(_batch(1, 1), 2)  # rows do not match the size


def test_features_votes_and_grad_mode_skip_the_shortcut() -> None:
    runner = _runner(unsupported_features=["lora"])
    spy = FillSpy(runner)
    with torch.no_grad():
        runner.run(_batch(4, 0), 4)
        runner.run(_batch(4, 1), 4, features=["lora"])  # eager fallback, counted
        runner.run(_batch(4, 2), 4, features=["other"])
    runner.run(_batch(4, 3), 4)  # autograd on: the full path enters no_grad itself
    assert spy.calls == 3
    assert runner.stats.fallbacks == {"unsupported:lora": 1}


def test_release_and_recapture_forget_the_shortcuts() -> None:
    runner = _runner()
    with torch.no_grad():
        runner.run(_batch(3, 0), 3)
        assert len(runner._fast) == 1
        runner.recapture()
        assert len(runner._fast) == 0
        torch.testing.assert_close(runner.run(_batch(3, 1), 3), _forward(_batch(3, 1)))
        runner.release()
        assert len(runner._fast) == 0
        with pytest.raises(RuntimeError, match="before capture"):
            runner.run(_batch(3, 2), 3)
