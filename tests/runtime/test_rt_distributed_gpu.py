"""Two GPUs: graphs with NCCL collectives inside, the vote, plan agreement and recapture memory.

Collected everywhere; run only where at least two CUDA devices exist (``pytest tests/runtime -m
gpu`` on such a machine). Each test starts one process per GPU; a watchdog fails a test whose
ranks stop answering instead of letting it hang.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import dist_harness  # noqa: E402
import dist_workers  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                       reason="needs 2 CUDA devices"),
]
BF16_REL = 2e-2  # relative error of bf16 results computed with other GEMM shapes / orders


def _run(fn: object, timeout: float = 300) -> list[dict]:
    return dist_harness.values(dist_harness.run_ranks(fn, backend="nccl",  # type: ignore[arg-type]
                                                      timeout=timeout))


def test_tp2_replay_equals_eager_and_the_full_model_for_every_size() -> None:
    for out in _run(dist_workers.tp_decode):
        for backend in ("full", "breakable"):
            entry = out[backend]
            assert entry["runtime_backend"] == backend  # real graphs, NCCL inside
            assert entry["replays"] == list(dist_workers.TP_SIZES) and not entry["fallbacks"]
            assert entry["vs_eager"] < BF16_REL and entry["vs_full"] < BF16_REL, entry


def test_dp_vote_with_graphs_on_two_gpus() -> None:
    first, second = _run(dist_workers.vote_scenarios)
    for out in (first, second):
        assert out["basic"]["padded"] == 40 and out["basic"]["replays"] == {40: 1}
        assert out["idle"]["padded"] == 16
        assert out["max_error"] < 1e-4
    assert first["over"]["fallbacks"] == {"peer_over_max_size": 1}
    assert second["over"]["fallbacks"] == {"over_max_size": 1}
    assert first["unsupported"]["fallbacks"] == {"unsupported:lora": 1}
    assert second["unsupported"]["fallbacks"] == {"peer_unsupported:lora": 1}
    assert first["routes"] == second["routes"] and len(first["routes"]) == 100


def test_dp_attention_example_equals_the_full_model_on_two_gpus() -> None:
    first, second = _run(dist_workers.dp_decode)
    assert first["routes"] == second["routes"] and None in first["routes"]
    for out in (first, second):
        assert out["max_rel_err"] < BF16_REL, out


def test_plan_mismatch_and_wrong_backend_are_errors_on_every_rank() -> None:
    outs = _run(dist_workers.plan_mismatch)
    for out in outs:
        assert "ranks [1] differ from rank 0" in out["mismatch"]
        assert "rank 1: made-up problem" in out["settings"]
        assert "ranks [1] differ from rank 0" in out["disabled"]
        assert "backend is 'gloo'" in out["gloo_graphs"]
        assert out["after"] == 2 * 4 * (1 + 4)


def test_20_tp2_recaptures_do_not_grow_memory() -> None:
    for out in _run(dist_workers.tp_recapture):
        (alloc0, res0), (alloc1, res1) = out["before"], out["after"]
        assert alloc1 <= alloc0 + (1 << 20), out
        assert res1 <= res0 + (2 << 20), out
        assert out["same_output"]
