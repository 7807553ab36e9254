"""Process groups without GPUs: the vote's logic, plan agreement and the settings checks.

The multi-process tests start two ranks on the gloo backend; the runners use their eager
stand-ins, so buckets, fills, votes and slicing run the same code as on GPUs. A watchdog fails a
test whose ranks stop answering instead of letting it hang.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import dist_harness  # noqa: E402
import dist_workers  # noqa: E402

from cgconfig.runtime import Guards, PhaseCapture  # noqa: E402
from cgconfig.runtime.distributed import (  # noqa: E402
    mismatch_message,
    plan_digest,
    settings_problems,
)
from cgconfig.runtime.vote import ballot, decide  # noqa: E402
from tests.bounds import HANG_S  # noqa: E402

GUARDS = Guards(sizes=dist_workers.TOY_SIZES, unsupported=frozenset({"lora"}))
VOCAB = ("lora",)
needs_gloo = pytest.mark.skipif(not torch.distributed.is_available(),
                                reason="torch.distributed is not available")


# -- pure logic ----------------------------------------------------------------------------


def _combined(*ballots: list[int]) -> list[int]:
    return [max(column) for column in zip(*ballots, strict=True)]


def test_vote_routes_every_rank_to_the_largest_ranks_bucket() -> None:
    a, b = ballot(5, 5, (), VOCAB), ballot(37, 37, (), VOCAB)
    for own in (a, b):
        result = decide(GUARDS, VOCAB, own, _combined(a, b))
        assert (result.padded, result.reason, result.max_size) == (40, None, 37)


def test_vote_over_the_largest_size_is_own_on_one_rank_and_peer_on_the_other() -> None:
    small, big = ballot(3, 3, (), VOCAB), ballot(60, 60, (), VOCAB)
    both = _combined(small, big)
    assert decide(GUARDS, VOCAB, big, both).route == (None, "over_max_size")
    assert decide(GUARDS, VOCAB, small, both).route == (None, "peer_over_max_size")


def test_vote_unsupported_feature_anywhere_sends_everyone_eager() -> None:
    user, other = ballot(7, 7, ("lora", "ignored"), VOCAB), ballot(7, 7, (), VOCAB)
    both = _combined(user, other)
    assert decide(GUARDS, VOCAB, user, both).reason == "unsupported:lora"
    assert decide(GUARDS, VOCAB, other, both).reason == "peer_unsupported:lora"


def test_idle_rank_replays_the_busy_ranks_bucket() -> None:
    idle, busy = ballot(0, 0, (), VOCAB), ballot(9, 9, (), VOCAB)
    assert decide(GUARDS, VOCAB, idle, _combined(idle, busy)).route == (16, None)


def test_ballot_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        ballot(-1, 0, (), VOCAB)


def test_plan_digest_follows_what_decides_the_graphs() -> None:
    plan = PhaseCapture("decode", "full", (1, 2, 4))

    def digest(p: PhaseCapture, **kw: Any) -> str:
        args: dict[str, Any] = {"runtime_backend": "full", "max_requests": 4, "unsupported": ()}
        return plan_digest(p, **{**args, **kw})

    assert digest(plan) == digest(PhaseCapture("decode", "full", (1, 2, 4)))
    assert digest(plan) != digest(PhaseCapture("decode", "full", (1, 2, 8)))
    assert digest(plan) != digest(PhaseCapture("decode", "breakable", (1, 2, 4)))
    assert digest(plan) != digest(plan, runtime_backend="eager")
    assert digest(plan) != digest(plan, unsupported=("lora",))


def test_mismatch_message_names_the_ranks_that_differ() -> None:
    assert mismatch_message("decode", ["a", "a", "a"]) is None
    message = mismatch_message("decode", ["a", "b", "a", "b"])
    assert message is not None and "ranks [1, 3] differ from rank 0" in message


GOOD = {"backend_name": "nccl", "device": torch.device("cuda", 1), "current_device": 1,
        "nccl_version": (2, 21, 5), "environ": {}}


def test_settings_good_nccl_setup_has_no_problem() -> None:
    assert settings_problems(**GOOD) == []


@pytest.mark.parametrize(("change", "expected"), [
    ({"backend_name": "gloo"}, "backend is 'gloo'"),
    ({"current_device": 0}, "torch.cuda.set_device(1)"),
    ({"nccl_version": (2, 8, 4)}, "NCCL 2.8.4 cannot run collectives inside CUDA graphs"),
    ({"environ": {"TORCH_NCCL_BLOCKING_WAIT": "1"}}, "TORCH_NCCL_BLOCKING_WAIT=1 is set"),
    ({"environ": {"NCCL_GRAPH_MIXING_SUPPORT": "0"}}, "NCCL_GRAPH_MIXING_SUPPORT=0 is set"),
])
def test_settings_problems_are_named(change: dict[str, Any], expected: str) -> None:
    problems = settings_problems(**{**GOOD, **change})
    assert len(problems) == 1 and expected in problems[0], problems


# -- two ranks on gloo ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_ranks() -> Any:
    """Every scenario of ``dist_workers`` run once on two gloo ranks (one start for all)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OMP_NUM_THREADS", "1")  # two ranks on a small CI machine
        return dist_harness.values(dist_harness.run_ranks(dist_workers.all_scenarios,
                                                          timeout=HANG_S))


def _scenario(ranks: Any, name: str) -> list[Any]:
    out = []
    for rank, results in enumerate(ranks):
        entry = results[name]
        if "error" in entry:
            pytest.fail(f"{name} on rank {rank}: {entry['error']}")
        out.append(entry["ok"])
    return out


@needs_gloo
def test_dp_vote_on_two_ranks(two_ranks: Any) -> None:
    first, second = _scenario(two_ranks, "vote_scenarios")
    for out in (first, second):
        assert out["basic"]["padded"] == 40 and out["basic"]["replays"] == {40: 1}
        assert out["idle"]["padded"] == 16
        assert out["max_error"] < 1e-4
    assert first["over"]["fallbacks"] == {"peer_over_max_size": 1}
    assert second["over"]["fallbacks"] == {"over_max_size": 1}
    assert first["unsupported"]["fallbacks"] == {"unsupported:lora": 1}
    assert second["unsupported"]["fallbacks"] == {"peer_unsupported:lora": 1}
    assert first["routes"] == second["routes"] and len(first["routes"]) == 100
    assert None in first["routes"] and 48 in first["routes"]  # both paths were exercised


@needs_gloo
def test_one_rank_over_the_max_sends_all_eight_ranks_eager(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue #26 at the world size most deployments use: the over-max rank counts its own
    # reason, the seven others the peer reason, and none of them replays; then every rank
    # replays the largest rank's bucket while one idles.
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    outs = dist_harness.values(dist_harness.run_ranks(dist_workers.vote_any_world, world=8,
                                                      timeout=HANG_S))
    for rank, out in enumerate(outs):
        over, ordinary = out["over"], out["ordinary"]
        assert over["padded"] is None and over["replays"] == {}
        want = "over_max_size" if rank == 4 else "peer_over_max_size"
        assert over["reason"] == want and over["fallbacks"] == {want: 1}
        # The largest rank holds 5 + 3 * 6 = 23 rows: everyone replays bucket 24, the idle
        # rank too (the graph's collective needs every rank).
        assert ordinary["padded"] == 24 and ordinary["reason"] is None
        assert ordinary["replays"] == {24: 1}
        assert over["error"] < 1e-4 and ordinary["error"] < 1e-4


@needs_gloo
def test_plan_mismatch_is_an_error_on_every_rank(two_ranks: Any) -> None:
    outs = _scenario(two_ranks, "plan_mismatch")
    for out in outs:
        assert "ranks [1] differ from rank 0" in out["mismatch"]
        assert "rank 1: made-up problem" in out["settings"]
        assert "ranks [1] differ from rank 0" in out["disabled"]
        assert out["after"] == 2 * 4 * (1 + 4)  # each 1 + the 4 ones of both ranks
    assert outs[0]["mismatch"] == outs[1]["mismatch"]


@needs_gloo
def test_example_tensor_parallel_equals_the_full_model(two_ranks: Any) -> None:
    outs = _scenario(two_ranks, "tp_decode")
    for out in outs:
        for backend in ("full", "breakable"):
            entry = out[backend]
            assert entry["runtime_backend"] == "eager"  # stand-ins without CUDA
            assert entry["replays"] == list(dist_workers.TP_SIZES) and not entry["fallbacks"]
            assert entry["vs_eager"] < 1e-5 and entry["vs_full"] < 1e-4, entry


@needs_gloo
def test_example_dp_attention_equals_the_full_model_per_rank(two_ranks: Any) -> None:
    first, second = _scenario(two_ranks, "dp_decode")
    assert first["routes"] == second["routes"]
    assert None in first["routes"]  # sizes over 16 sent both ranks eager
    for out in (first, second):
        assert out["max_rel_err"] < 1e-4, out


@needs_gloo
def test_harness_watchdog_fails_instead_of_hanging() -> None:
    with pytest.raises(pytest.fail.Exception, match=r"watchdog: ranks \[0, 1\]"):
        dist_harness.run_ranks(_rank1_never_joins_the_collective, timeout=4)


def _rank1_never_joins_the_collective(rank: int, world: int, device: Any) -> None:
    if rank == 0:
        torch.distributed.all_reduce(torch.ones(1))  # waits for rank 1 forever
    else:
        time.sleep(3600)
