"""Small helpers: weak views, frozen GC, the per-size capture clock, output trees."""

from __future__ import annotations

import gc
import time
import weakref
from collections import namedtuple

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime.gc_freeze import frozen_gc  # noqa: E402
from cgconfig.runtime.memory import SizeClock  # noqa: E402
from cgconfig.runtime.tree import map_tensors, slice_rows, tensors  # noqa: E402
from cgconfig.runtime.weak_tensor import weak_tree, weak_view, weak_views_supported  # noqa: E402


def test_weak_view_aliases_with_same_geometry() -> None:
    base = torch.arange(24.0).view(4, 6)
    t = base[1:, 2:5]
    w = weak_view(t)
    assert (w.shape, w.stride(), w.storage_offset()) == (t.shape, t.stride(), t.storage_offset())
    assert w.data_ptr() == t.data_ptr()
    base.mul_(-1)
    torch.testing.assert_close(w, t)
    if weak_views_supported():
        # The view does not share the storage object, only its bytes.
        assert w.untyped_storage()._cdata != t.untyped_storage()._cdata


def test_weak_tree_keeps_structure() -> None:
    tree = {"a": torch.ones(2), "b": (torch.zeros(1), 3)}
    out = weak_tree(tree)
    assert out["b"][1] == 3 and out["a"].data_ptr() == tree["a"].data_ptr()


def test_frozen_gc_disables_and_restores() -> None:
    assert gc.isenabled()
    with frozen_gc():
        assert not gc.isenabled() and gc.get_freeze_count() > 0
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_frozen_gc_restores_after_error_and_respects_enable() -> None:
    with pytest.raises(RuntimeError), frozen_gc():
        raise RuntimeError
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with frozen_gc(enable_gc=True):
        assert gc.isenabled() and gc.get_freeze_count() == 0


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def _count_collects(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = gc.collect

    def counted(*args: int) -> int:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(gc, "collect", counted)
    return calls


def test_frozen_gc_collects_nothing_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_collects(monkeypatch)
    with frozen_gc():
        pass
    assert calls == []


def test_enable_gc_collects_once_then_leaves_the_collector_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_collects(monkeypatch)
    with frozen_gc(enable_gc=True):
        assert calls == [1] and gc.isenabled()
    assert calls == [1]


def test_garbage_frozen_during_capture_is_collected_after() -> None:
    cycle = _Cycle()
    gone = weakref.ref(cycle)
    del cycle  # dead but uncollected: a reference cycle
    with frozen_gc():
        gc.collect()  # a collection inside the block does not see frozen objects
        assert gone() is not None
    gc.collect()
    assert gone() is None


def test_size_clock_without_a_stream_times_the_host() -> None:
    clock = SizeClock()
    first = clock.done(8)
    time.sleep(0.02)
    second = clock.done(4)
    got = clock.seconds()
    assert list(got) == [8, 4] and got[8] == pytest.approx(first)
    assert second >= 0.02 and got[4] == pytest.approx(second)


Pair = namedtuple("Pair", "logits hidden")


def test_tree_helpers_cover_containers() -> None:
    tree = [Pair(torch.arange(6).view(3, 2), torch.tensor(1.0)), {"k": torch.arange(3)}, None]
    sliced = slice_rows(tree, 2)
    assert isinstance(sliced[0], Pair) and sliced[0].logits.shape == (2, 2)
    assert sliced[0].hidden.dim() == 0 and sliced[1]["k"].tolist() == [0, 1]
    assert sliced[2] is None
    assert len(tensors(tree)) == 3
    doubled = map_tensors(lambda t: t * 2, (torch.ones(1),))
    assert isinstance(doubled, tuple) and doubled[0].item() == 2


def test_slice_rows_of_a_bare_tensor() -> None:
    t = torch.arange(10).view(5, 2)
    assert slice_rows(t, 3).tolist() == [[0, 1], [2, 3], [4, 5]]
    assert slice_rows(t, 3).data_ptr() == t.data_ptr()
    scalar = torch.tensor(2.0)
    assert slice_rows(scalar, 1) is scalar


def test_capture_time_stops_before_the_memory_flush(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flush that makes the memory reading honest is timed apart, not charged to capture."""
    import time

    from cgconfig.runtime.memory import CaptureMeter

    flushes: list[float] = []

    def slow_flush() -> None:
        time.sleep(0.05)
        flushes.append(time.perf_counter())

    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    monkeypatch.setattr(torch.cuda, "empty_cache", slow_flush)
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device=None: 100 * len(flushes))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device=None: 300 * len(flushes))
    meter = CaptureMeter(torch.device("cuda", 0))
    meter.start()
    cost = meter.stop()
    assert len(flushes) == 2
    assert cost.seconds < 0.04 <= cost.flush_seconds
    assert (cost.allocated_bytes, cost.reserved_bytes) == (100, 300)
