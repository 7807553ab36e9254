"""The runner's whole fill -> replay -> slice path on CPU, where buckets run eagerly."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from toy_slots import TOY_SLOTS  # noqa: E402

from cgconfig.runtime import runner as runner_module  # noqa: E402
from cgconfig.runtime.buffers import Axis, PaddingPolicy, Slot  # noqa: E402
from cgconfig.runtime.plan_view import PhaseCapture  # noqa: E402
from cgconfig.runtime.runner import PhaseRunner, capture_report  # noqa: E402

SLOTS = TOY_SLOTS


class Toy:
    """A forward that remembers the row counts it was called with."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append(inputs["x"].shape[0])
        y = inputs["x"] * 2 + inputs["lens"][:, None] + inputs["loc"][:, None]
        return {"y": y, "pair": (y.sum(-1), inputs["loc"].clone())}


def _batch(n: int, seed: int = 0) -> dict[str, Any]:
    g = torch.Generator().manual_seed(seed)
    return {"x": torch.randn(n, 2, generator=g),
            "loc": torch.randint(1, 100, (n,), generator=g),
            "lens": torch.randint(2, 50, (n,), generator=g)}


def _expected(batch: dict[str, Any]) -> Any:
    return batch["x"] * 2 + batch["lens"][:, None] + batch["loc"][:, None]


def _runner(sizes: tuple[int, ...] = (1, 2, 4, 8, 16), **kwargs: Any) -> tuple[PhaseRunner, Toy]:
    toy = Toy()
    plan = PhaseCapture("decode", kwargs.pop("backend", "full"), sizes,
                        disable_padding=kwargs.pop("disable_padding", False))
    r = PhaseRunner(plan, toy, SLOTS, device="cpu", **kwargs)
    r.capture()
    toy.calls.clear()
    return r, toy


@pytest.mark.parametrize("n, bucket", [(1, 1), (3, 4), (5, 8), (8, 8), (9, 16), (16, 16)])
def test_bucket_fill_and_slice(n: int, bucket: int) -> None:
    r, toy = _runner()
    batch = _batch(n, seed=n)
    out = r.run(batch, n)
    assert toy.calls == [bucket]
    assert out["y"].shape == (n, 2) and out["pair"][0].shape == (n,)
    torch.testing.assert_close(out["y"], _expected(batch))
    assert out["pair"][1].tolist() == batch["loc"].tolist()
    assert r.stats.replays == {bucket: 1}
    assert r.stats.padded_rows == bucket - n and r.stats.real_rows == n


def test_padded_rows_follow_policies_in_the_forward_view() -> None:
    r, _ = _runner()
    r.run(_batch(8, seed=1), 8)
    r.run(_batch(5, seed=2), 5)
    assert r.buffers is not None
    # The 8-bucket saw: real rows, then loc 0 and lens 1 on rows 5..7 (not batch 1's values).
    assert r.buffers["loc"][5:8].tolist() == [0, 0, 0]
    assert r.buffers["lens"][5:8].tolist() == [1, 1, 1]


def test_over_max_runs_eagerly_on_the_real_batch() -> None:
    r, toy = _runner(sizes=(1, 2, 4))
    batch = _batch(6)
    out = r.run(batch, 6)
    assert toy.calls == [6]
    torch.testing.assert_close(out["y"], _expected(batch))
    assert r.stats.fallbacks == {"over_max_size": 1} and r.stats.eager_rows == 6
    assert r.can_run(6) == "over_max_size" and r.can_run(3) is None


def test_disable_padding_replays_exact_sizes_only() -> None:
    r, toy = _runner(disable_padding=True)
    r.run(_batch(4), 4)
    r.run(_batch(3), 3)
    assert toy.calls == [4, 3]
    assert r.stats.replays == {4: 1} and r.stats.fallbacks == {"no_exact_size": 1}


def test_unsupported_feature_falls_back_with_reason() -> None:
    r, toy = _runner(unsupported_features={"lora"})
    r.run(_batch(3), 3, features={"lora"})
    r.run(_batch(3), 3, features={"sampling"})
    assert toy.calls == [3, 4]
    assert r.stats.fallbacks == {"unsupported:lora": 1}


def test_prefill_padding_factor_and_request_rows() -> None:
    slots = [Slot("x", torch.float32, trailing=(2,)),
             Slot("starts", torch.int64, axis=Axis.REQUESTS, policy=PaddingPolicy.ZERO)]
    seen: list[tuple[int, int]] = []

    def forward(inputs: Mapping[str, Any]) -> Any:
        seen.append((inputs["x"].shape[0], inputs["starts"].shape[0]))
        return inputs["x"] + 1

    plan = PhaseCapture("prefill", "breakable", (16, 64, 256))
    r = PhaseRunner(plan, forward, slots, device="cpu", max_requests=4)
    r.capture()
    seen.clear()
    batch = {"x": torch.ones(40, 2), "starts": torch.tensor([0, 20])}
    out = r.run(batch, 40, num_requests=2)
    assert seen == [(64, 4)] and out.shape == (40, 2)
    assert r.buffers is not None and r.buffers["starts"].tolist() == [0, 20, 0, 0]
    # 17 tokens would pad to 64 (> 2x): eager.
    r.run({"x": torch.ones(17, 2), "starts": torch.tensor([0])}, 17, num_requests=1)
    # 5 requests do not fit the 4 request rows: eager.
    r.run({"x": torch.ones(16, 2), "starts": torch.arange(5)}, 16, num_requests=5)
    assert r.stats.fallbacks == {"padding_over_factor": 1, "over_max_requests": 1}
    assert seen[1:] == [(17, 1), (16, 5)]


def test_prefill_request_slots_need_max_requests() -> None:
    slots = [Slot("starts", torch.int64, axis=Axis.REQUESTS)]
    with pytest.raises(ValueError, match="max_requests"):
        PhaseRunner(PhaseCapture("prefill", "breakable", (16,)), lambda i: i, slots, device="cpu")


def test_disabled_phase_runs_every_batch_eagerly() -> None:
    toy = Toy()
    r = PhaseRunner(PhaseCapture("decode", "disabled", ()), toy, SLOTS, device="cpu")
    report = r.capture()
    assert report["runtime_backend"] == "disabled" and report["sizes"] == []
    batch = _batch(3)
    torch.testing.assert_close(r.run(batch, 3)["y"], _expected(batch))
    assert r.stats.fallbacks == {"backend_disabled": 1}


def test_no_cuda_reason_is_stored_reported_and_logged_once(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_module, "_logged", set())
    with caplog.at_level(logging.WARNING, logger="cgconfig.runtime"):
        first, _ = _runner()
        _runner()
    assert first.eager_reason is not None and "no CUDA graphs captured" in first.eager_reason
    assert "\n" not in first.eager_reason
    assert [rec.getMessage() for rec in caplog.records].count(
        f"cgconfig.runtime decode: {first.eager_reason}") == 1
    report = first.report()
    assert report["runtime_backend"] == "eager" and report["backend"] == "full"
    assert report["eager_reason"] == first.eager_reason


def test_debug_option_uses_eager_stand_ins() -> None:
    plan = PhaseCapture("decode", "full", (1, 2), debug=True)
    r = PhaseRunner(plan, Toy(), SLOTS, device="cpu")
    assert r.backend is not None and r.backend.value == "eager"


def test_report_shape_and_capture_rules() -> None:
    r, _ = _runner()
    report = capture_report({"decode": r})
    assert set(report) == {"decode"}
    entry = report["decode"]
    assert entry["sizes"] == [1, 2, 4, 8, 16] and entry["compile_sizes"] == []
    assert entry["static_buffer_bytes"] > 0 and entry["capture_seconds"] >= 0
    with pytest.raises(RuntimeError, match="already captured"):
        r.capture()
    assert r.recapture()["sizes"] == [1, 2, 4, 8, 16]


def test_run_before_capture_is_an_error() -> None:
    r = PhaseRunner(PhaseCapture("decode", "full", (1, 2)), Toy(), SLOTS, device="cpu")
    with pytest.raises(RuntimeError, match="before capture"):
        r.run(_batch(1), 1)


def test_stats_reset_and_dict() -> None:
    r, _ = _runner()
    r.run(_batch(3), 3)
    r.run(_batch(20), 20)
    d = r.stats.to_dict()
    assert d["replays"] == {"4": 1} and d["fallbacks"] == {"over_max_size": 1}
    assert d["padded_rows"] == 1 and d["padding_ratio"] == pytest.approx(1 / 3, abs=1e-4)
    r.stats.reset()
    assert r.stats.to_dict()["real_rows"] == 0


def test_recapture_replays_the_new_buckets() -> None:
    # run() looks buckets up by size; after release and recapture the lookup must point at
    # the new graphs, and a release alone must leave nothing to replay.
    r, toy = _runner(sizes=(2, 4))
    r.run(_batch(3), 3)
    r.release()
    with pytest.raises(RuntimeError, match="before capture"):
        r.run(_batch(3), 3)
    r.capture()
    toy.calls.clear()
    batch = _batch(3, seed=5)
    torch.testing.assert_close(r.run(batch, 3)["y"], _expected(batch))
    assert toy.calls == [4]


def test_outputs_are_fresh_views_even_at_an_exact_bucket() -> None:
    # A caller may pop from a dict output or reshape a tensor in place; the next batch of the
    # same size must still get the whole output.
    # A real graph returns the same output objects at every replay; stand one in for size 4.
    from cgconfig.runtime.graphs import FullGraph

    class Replay:
        def replay(self) -> None:
            pass

    r, _ = _runner()
    fixed = {"y": torch.ones(4, 2), "pair": (torch.zeros(4), torch.arange(4))}
    r._by_size[4] = FullGraph(Replay(), fixed)  # type: ignore[arg-type]
    out = r.run(_batch(4, seed=1), 4)
    out.pop("y")
    out["pair"][0].unsqueeze_(0)
    again = r.run(_batch(4, seed=2), 4)
    assert set(again) == {"y", "pair"} and again["pair"][0].shape == (4,)
    assert set(fixed) == {"y", "pair"} and fixed["pair"][0].shape == (4,)
