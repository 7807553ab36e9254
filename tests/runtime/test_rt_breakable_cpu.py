"""Breakable capture mechanics with stand-in segments (the real ones need CUDA).

The fake segment records what the backend asks of it, so these tests check the control flow:
where segments start and end, in which order replay runs segments and breaks, and how break
outputs reach the bridge buffers the next segment reads.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime.breakable import (  # noqa: E402
    BreakableGraph,
    BridgePool,
    capture_breakable,
    eager_on_graph,
    is_eager_on_graph,
)


class FakeSegment:
    """Records capture calls and appends its id to a shared log on replay."""

    log: ClassVar[list[str]] = []
    count = 0

    def __init__(self) -> None:
        self.id = FakeSegment.count
        FakeSegment.count += 1
        self.events: list[str] = []

    def capture_begin(self, pool: Any = None) -> None:
        self.events.append(f"begin:{pool}")

    def capture_end(self) -> None:
        self.events.append("end")

    def replay(self) -> None:
        FakeSegment.log.append(f"seg{self.id}")


@pytest.fixture(autouse=True)
def _reset_fake() -> None:
    FakeSegment.log = []
    FakeSegment.count = 0


calls: list[tuple[int, ...]] = []


@eager_on_graph
def scale(x: Any, factor: float) -> Any:
    """The eager-marked function: records its input shape and logs its call."""
    calls.append(tuple(x.shape))
    FakeSegment.log.append(f"break{len(calls)}")
    return x * factor


def forward(x: Any) -> Any:
    a = x + 1
    b = scale(a, 2.0)
    c = b - 1
    d = scale(c, 3.0)
    return d + 5


def test_decorator_is_transparent_outside_capture() -> None:
    calls.clear()
    x = torch.ones(3)
    assert is_eager_on_graph(scale) and not is_eager_on_graph(forward)
    torch.testing.assert_close(forward(x), ((x + 1) * 2 - 1) * 3 + 5)
    assert calls == [(3,), (3,)]


def test_segments_surround_breaks_and_replay_alternates() -> None:
    calls.clear()
    bridges = BridgePool()
    graph = capture_breakable(lambda: forward(torch.ones(4)), pool="P", bridges=bridges,
                              new_segment=FakeSegment)
    assert isinstance(graph, BreakableGraph)
    assert len(graph.segments) == 3 and graph.num_breaks == 2
    assert all(s.events == ["begin:P", "end"] for s in graph.segments)  # type: ignore[attr-defined]
    FakeSegment.log.clear()
    graph.replay()
    assert FakeSegment.log == ["seg0", "break3", "seg1", "break4", "seg2"]


def test_break_outputs_land_in_shared_bridges() -> None:
    calls.clear()
    bridges = BridgePool()
    inputs = {8: torch.arange(8.0), 4: torch.arange(4.0)}
    big = capture_breakable(lambda: forward(inputs[8]), pool=None, bridges=bridges,
                            new_segment=FakeSegment)
    small = capture_breakable(lambda: forward(inputs[4]), pool=None, bridges=bridges,
                              new_segment=FakeSegment)
    # Largest first: the 4-row graph reuses the 8-row bridges as leading-row views.
    assert bridges.nbytes == 2 * 8 * 4
    assert len(bridges._buffers) == 2
    # At replay, break 0 recomputes from its captured argument and overwrites its bridge.
    captured_arg = inputs[8] + 1
    big.replay()
    torch.testing.assert_close(bridges._buffers[(0, 0)], captured_arg * 2)
    small.replay()
    torch.testing.assert_close(bridges._buffers[(0, 0)][:4], (inputs[4] + 1) * 2)


def test_mismatched_outputs_get_own_bridge() -> None:
    pool = BridgePool()
    first = pool.bridge(0, torch.zeros(4, 2))
    other = pool.bridge(0, torch.zeros(2, 3))
    assert first.shape == (4, 2) and other.shape == (2, 3)
    assert other.data_ptr() != first.data_ptr()
    same = pool.bridge(0, (torch.ones(3, 2),))
    assert same[0].data_ptr() == first.data_ptr() and same[0].tolist() == [[1, 1]] * 3


def test_replay_rejects_changed_output_structure() -> None:
    flip = {"single": False}

    @eager_on_graph
    def shifty(x: Any) -> Any:
        return x if flip["single"] else (x, x)

    graph = capture_breakable(lambda: shifty(torch.ones(2))[0] + 1, pool=None,
                              bridges=BridgePool(), new_segment=FakeSegment)
    flip["single"] = True
    with pytest.raises(RuntimeError, match="returned 1 tensors at replay but 2"):
        graph.replay()


def test_replay_rejects_non_tensor_where_a_tensor_was_captured() -> None:
    flip = {"none": False}

    @eager_on_graph
    def maybe(x: Any) -> Any:
        return None if flip["none"] else x * 2

    graph = capture_breakable(lambda: maybe(torch.ones(2)) + 1, pool=None, bridges=BridgePool(),
                              new_segment=FakeSegment)
    flip["none"] = True
    with pytest.raises(RuntimeError, match="returned NoneType at replay but a tensor"):
        graph.replay()


def test_error_during_capture_closes_the_open_segment() -> None:
    made: list[FakeSegment] = []

    def factory() -> FakeSegment:
        made.append(FakeSegment())
        return made[-1]

    def broken() -> Any:
        scale(torch.ones(2), 1.0)
        raise ValueError("model bug")

    with pytest.raises(ValueError, match="model bug"):
        capture_breakable(broken, pool=None, bridges=BridgePool(), new_segment=factory)
    assert [s.events[-1] for s in made] == ["end", "end"]
    # The capture context is gone: the marked function is a plain call again.
    calls.clear()
    torch.testing.assert_close(scale(torch.ones(1), 2.0), torch.full((1,), 2.0))


def test_break_reads_its_arguments_at_replay_time_keywords_included() -> None:
    # Each break's call is bound once at capture; at replay it must still read the current
    # contents of its (static) arguments and pass keyword arguments through.
    @eager_on_graph
    def affine(x: Any, *, scale: float, shift: Any) -> Any:
        return x * scale + shift

    x, shift = torch.arange(3.0), torch.ones(3)
    graph = capture_breakable(lambda: affine(x, scale=2.0, shift=shift), pool=None,
                              bridges=BridgePool(), new_segment=FakeSegment)
    x.copy_(torch.tensor([5.0, 6.0, 7.0]))
    shift.fill_(10.0)
    out = graph.replay()
    torch.testing.assert_close(out, torch.tensor([20.0, 22.0, 24.0]))
