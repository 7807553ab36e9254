"""A disabled phase checks its batches as a full or breakable one does, and a meta tensor is
refused with a clear error on every path, not ``NotImplementedError`` from the copy (#35's
runtime causes; docs/runtime.md "Input checks")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from toy_slots import TOY_SLOTS  # noqa: E402

from cgconfig.runtime.plan_view import PhaseCapture  # noqa: E402
from cgconfig.runtime.runner import PhaseRunner  # noqa: E402

SEEN: list[Mapping[str, Any]] = []


def forward(inputs: Mapping[str, Any]) -> Any:
    SEEN.append(inputs)
    return inputs["x"].sum(-1)


def _runner(backend: str) -> PhaseRunner:
    sizes = () if backend == "disabled" else (1, 2, 4, 8)
    runner = PhaseRunner(PhaseCapture("decode", backend, sizes), forward, TOY_SLOTS,
                         device="cpu")
    runner.capture()
    return runner


def _batch(n: int) -> dict[str, Any]:
    return {"x": torch.ones(n, 2), "loc": torch.arange(n), "lens": torch.full((n,), 3)}


BAD: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("string", {"loc": "0 1 2"}, TypeError, "slot 'loc': expected a torch.Tensor"),
    ("none", {"x": None}, TypeError, "slot 'x': expected a torch.Tensor"),
    ("float into int64", {"loc": torch.tensor([0.5, 1.5, 2.5])}, ValueError,
     "slot 'loc'.*torch.float32.*torch.int64"),
    ("meta", {"x": torch.ones(3, 2, device="meta")}, ValueError, "slot 'x'.*meta device"),
    ("meta index", {"loc": torch.arange(3, device="meta")}, ValueError,
     "slot 'loc'.*meta device"),
    ("rows", {"x": torch.ones(4, 2)}, ValueError, "slot 'x'.*shape"),
    ("missing", {"lens": None}, KeyError, "missing \\['lens'\\]"),
    ("unexpected", {"extra": torch.ones(3)}, KeyError, "unexpected \\['extra'\\]"),
]


@pytest.mark.parametrize("backend", ["disabled", "full", "breakable"])
@pytest.mark.parametrize(("what", "change", "error", "match"), BAD, ids=[b[0] for b in BAD])
def test_every_backend_refuses_the_same_batches(backend: str, what: str, change: dict[str, Any],
                                                error: type[Exception], match: str) -> None:
    runner = _runner(backend)
    runner.run(_batch(3), 3)  # a good batch first: the fast path remembers it where it can
    batch = _batch(3) | change
    if what == "missing":
        del batch["lens"]
    SEEN.clear()
    with pytest.raises(error, match=match):
        runner.run(batch, 3)
    assert SEEN == []  # the forward never saw it


@pytest.mark.parametrize("backend", ["disabled", "full"])
def test_a_good_batch_still_runs(backend: str) -> None:
    out = _runner(backend).run(_batch(3), 3)
    assert out.shape == (3,)
