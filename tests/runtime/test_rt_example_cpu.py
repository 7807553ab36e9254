"""The example model through the runtime on CPU: padded rows never reach a real KV slot, and
the serving demo runs end to end."""

from __future__ import annotations

import dataclasses
import io
import json
from contextlib import redirect_stdout
from types import ModuleType
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime import PaddingPolicy, PhaseCapture, PhaseRunner  # noqa: E402

POISON = 1234.5


def _setup(llama: ModuleType, out_cache_policy: PaddingPolicy) -> tuple[Any, PhaseRunner]:
    torch.manual_seed(0)
    cfg = llama.ModelConfig.small()
    model = llama.LlamaDecoder(cfg, torch.float32, torch.device("cpu")).eval()
    slots = [dataclasses.replace(s, policy=out_cache_policy) if s.name == "out_cache_loc" else s
             for s in llama.decode_slots()]
    runner = PhaseRunner(PhaseCapture("decode", "full", (1, 2, 4, 8)), model.decode_forward,
                         slots, device="cpu")
    runner.capture()
    return model, runner


def _decode_batch(model: Any, rows: list[int], slots: list[int]) -> dict[str, Any]:
    kv = model.kv
    batch: dict[str, list[int]] = {k: [] for k in
                                   ("input_ids", "positions", "out_cache_loc",
                                    "req_pool_indices", "seq_lens")}
    for row, slot in zip(rows, slots, strict=True):
        kv.req_to_token[row, 0] = slot
        batch["input_ids"].append(row)
        batch["positions"].append(0)
        batch["out_cache_loc"].append(slot)
        batch["req_pool_indices"].append(row)
        batch["seq_lens"].append(1)
    return {k: torch.tensor(v) for k, v in batch.items()}


def _poisoned_step(llama: ModuleType, policy: PaddingPolicy) -> tuple[Any, set[int]]:
    """Batch of 8 (slots 11..18), then a batch of 5 (slots 21..25) padded to 8.

    Returns the KV pool's layer 0 keys and the slots the two batches own.
    """
    model, runner = _setup(llama, policy)
    first = list(range(11, 19))
    runner.run(_decode_batch(model, list(range(1, 9)), first), 8)
    model.kv.k.fill_(POISON)
    model.kv.v.fill_(POISON)
    second = list(range(21, 26))
    runner.run(_decode_batch(model, list(range(9, 14)), second), 5)
    assert runner.stats.replays == {8: 2}
    return model.kv.k[0], set(second)


def test_padded_rows_only_write_the_dummy_slot(llama: ModuleType) -> None:
    keys, owned = _poisoned_step(llama, PaddingPolicy.ZERO)
    written = {i for i in range(keys.shape[0]) if not bool((keys[i] == POISON).all())}
    # Real rows wrote their own slots; the three padded rows wrote slot 0 and nothing else.
    assert written == owned | {0}


def test_copy_policy_on_write_slots_corrupts_a_live_request(llama: ModuleType) -> None:
    # Control for the test above: with stale write slots, padded rows overwrite slots 16..18,
    # which belong to requests of the previous batch.
    keys, owned = _poisoned_step(llama, PaddingPolicy.COPY)
    written = {i for i in range(keys.shape[0]) if not bool((keys[i] == POISON).all())}
    assert written == owned | {16, 17, 18}


def test_runner_matches_direct_forward_on_every_size(llama: ModuleType) -> None:
    model, runner = _setup(llama, PaddingPolicy.ZERO)
    for n in range(1, 9):
        rows = list(range(1, n + 1))
        batch = _decode_batch(model, rows, [30 + r for r in rows])
        got = runner.run(batch, n).clone()
        torch.testing.assert_close(got, model.decode_forward(batch), rtol=1e-5, atol=1e-5)
    assert sum(runner.stats.replays.values()) == 8


def test_serving_demo_runs_on_cpu(llama: ModuleType) -> None:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert llama.main(["--cpu", "--steps", "3", "--max-bs", "8", "--check"]) == 0
    report = json.loads(buf.getvalue())
    assert report["device"] == "cpu" and report["model"]["layers"] == 2
    assert report["max_abs_error_vs_eager"] < 1e-4
    decode = report["stats"]["decode"]
    assert sum(decode["replays"].values()) + sum(decode["fallbacks"].values()) > 0
    assert report["capture"]["decode"]["runtime_backend"] in ("eager", "disabled")
    try:
        from cgconfig import resolve_args  # noqa: F401
    except ImportError:
        assert report["plan_source"] == "builtin"
    else:
        assert report["plan_source"].startswith("resolver")


def test_a_tensor_parallel_size_the_model_cannot_split_is_one_line(
        llama: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before any process group starts (was a ValueError traceback on every rank).
    with pytest.raises(SystemExit) as stop:
        llama.main(["--cpu", "--small", "--tp", "8"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--tp 8: heads (4) is not divisible by the tensor-parallel size" in err
    assert "--dp-attention" in err and "Traceback" not in err
    assert llama.shard_problem(llama.ModelConfig.small(), 8, True) is None
    assert llama.shard_problem(llama.ModelConfig(), 8, False) is None
