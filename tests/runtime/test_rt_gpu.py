"""GPU tests: real graphs must compute what the eager model computes, for every size.

Run with ``pytest tests/runtime -m gpu`` on a CUDA machine; skipped elsewhere.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from cgconfig.runtime import PhaseCapture, PhaseRunner, ShapeKey  # noqa: E402
from cgconfig.runtime.memory import SizeClock  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]

DECODE_SIZES = (1, 2, 4, 8, 12, 16, 24, 32)
PREFILL_SIZES = (16, 32, 64, 128, 256)
POISON = 77.0


class Setup:
    """A model whose KV pool holds random history for request rows 1..N."""

    def __init__(self, llama: ModuleType, dtype: Any, layers: int = 4, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.llama = llama
        self.cfg = llama.ModelConfig(hidden=256, heads=4, mlp=704, layers=layers, vocab=1024,
                                     max_context=64, max_requests=41)
        self.model = llama.LlamaDecoder(self.cfg, dtype, torch.device("cuda")).eval()
        kv = self.model.kv
        kv.k.normal_()
        kv.v.normal_()
        rows = self.cfg.max_requests - 1
        slots = torch.randperm(self.cfg.num_slots - 1, device="cuda")[: rows * self.cfg.max_context]
        kv.req_to_token[1:] = (slots + 1).view(rows, self.cfg.max_context)
        self.rng = random.Random(seed)

    def decode_batch(self, n: int) -> dict[str, Any]:
        kv, cap = self.model.kv, self.cfg.max_context
        rows = self.rng.sample(range(1, self.cfg.max_requests), n)
        lens = [self.rng.randint(1, cap) for _ in rows]
        table = kv.req_to_token
        def t(values: list[int]) -> Any:
            return torch.tensor(values, device="cuda")

        return {
            "input_ids": t([self.rng.randrange(self.cfg.vocab) for _ in rows]),
            "positions": t([n_ - 1 for n_ in lens]),
            "out_cache_loc": t([int(table[r, n_ - 1]) for r, n_ in zip(rows, lens, strict=True)]),
            "req_pool_indices": t(rows),
            "seq_lens": t(lens),
        }

    def prefill_batch(self, tokens: int) -> dict[str, Any]:
        """Random requests with cached prefixes covering ``tokens`` new tokens; sets the meta."""
        table, cap = self.model.kv.req_to_token, self.cfg.max_context
        meta = self.llama.PrefillMeta()
        ids: list[int] = []
        positions: list[int] = []
        locs: list[int] = []
        rows = iter(self.rng.sample(range(1, self.cfg.max_requests), self.cfg.max_requests - 1))
        left = tokens
        while left:
            row, prefix = next(rows), self.rng.randint(0, 8)
            new = min(left, self.rng.randint(1, cap - prefix))
            meta.requests.append((row, prefix, new))
            ids += [self.rng.randrange(self.cfg.vocab) for _ in range(new)]
            positions += range(prefix, prefix + new)
            locs += table[row, prefix: prefix + new].tolist()
            left -= new
        self.model.prefill_meta = meta
        return {"input_ids": torch.tensor(ids, device="cuda"),
                "positions": torch.tensor(positions, device="cuda"),
                "out_cache_loc": torch.tensor(locs, device="cuda")}

    def decode_runner(self, backend: str, sizes: tuple[int, ...] = DECODE_SIZES,
                      **kwargs: Any) -> PhaseRunner:
        plan = PhaseCapture("decode", backend, sizes, **kwargs)
        runner = PhaseRunner(plan, self.model.decode_forward, self.llama.decode_slots(),
                             device="cuda")
        runner.capture()
        return runner

    def prefill_runner(self, sizes: tuple[int, ...] = PREFILL_SIZES) -> PhaseRunner:
        def prepare(key: ShapeKey) -> None:
            self.model.prefill_meta = self.llama.PrefillMeta.dummy(key.size, self.cfg.max_context)

        runner = PhaseRunner(PhaseCapture("prefill", "breakable", sizes),
                             self.model.prefill_forward, self.llama.prefill_slots(),
                             device="cuda", prepare_capture=prepare)
        runner.capture()
        return runner


def _close(got: Any, want: Any, dtype: Any) -> None:
    got, want = got.float(), want.float()
    assert torch.isfinite(got).all()
    if dtype == torch.float32:
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    else:
        rel = ((got - want).norm() / want.norm()).item()
        assert rel < 2e-2, rel


DTYPES = [pytest.param(torch.float32, id="fp32"), pytest.param(torch.bfloat16, id="bf16")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", ["full", "breakable"])
def test_decode_replay_matches_eager_for_every_size(llama: ModuleType, backend: str,
                                                    dtype: Any) -> None:
    s = Setup(llama, dtype)
    runner = s.decode_runner(backend)
    assert runner.backend is not None and runner.backend.value == backend
    for n in range(1, DECODE_SIZES[-1] + 1):
        batch = s.decode_batch(n)
        got = runner.run(batch, n).clone()
        _close(got, s.model.decode_forward(batch), dtype)
    assert sum(runner.stats.replays.values()) == DECODE_SIZES[-1]
    assert set(runner.stats.replays) == set(DECODE_SIZES)
    assert not runner.stats.fallbacks


@pytest.mark.parametrize("dtype", DTYPES)
def test_prefill_breakable_matches_eager(llama: ModuleType, dtype: Any) -> None:
    s = Setup(llama, dtype)
    runner = s.prefill_runner()
    report = runner.report()
    assert report["bridge_bytes"] > 0 and report["runtime_backend"] == "breakable"
    between = [9, 17, 31, 40, 65, 100, 129, 200]
    for n in sorted({*PREFILL_SIZES, *between, 5}):
        batch = s.prefill_batch(n)
        got = runner.run(batch, n).clone()
        _close(got, s.model.prefill_forward(batch), dtype)
    assert runner.stats.fallbacks == {"padding_over_factor": 1}  # 5 tokens -> 16 is > 2x
    assert set(runner.stats.replays) == set(PREFILL_SIZES)


@pytest.mark.parametrize("backend", ["full", "breakable"])
def test_padded_rows_never_write_a_live_kv_slot(llama: ModuleType, backend: str) -> None:
    s = Setup(llama, torch.float32, layers=2)
    runner = s.decode_runner(backend, sizes=(4, 8))
    first = s.decode_batch(8)
    runner.run(first, 8)
    kv = s.model.kv
    kv.k.fill_(POISON)
    second = s.decode_batch(5)
    runner.run(second, 5)
    torch.cuda.synchronize()
    written = (kv.k[0] != POISON).flatten(1).any(1).nonzero().flatten().tolist()
    assert set(written) == set(second["out_cache_loc"].tolist()) | {0}


@pytest.mark.parametrize("backend", ["full", "breakable"])
def test_recapture_100_times_does_not_grow_memory(llama: ModuleType, backend: str) -> None:
    s = Setup(llama, torch.bfloat16, layers=2)
    runner = s.decode_runner(backend, sizes=(1, 2, 4, 8))
    batch = s.decode_batch(3)
    reference = runner.run(batch, 3).clone()

    def settled() -> tuple[int, int]:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        return torch.cuda.memory_allocated(), torch.cuda.memory_reserved()

    alloc0, res0 = settled()
    for _ in range(100):
        runner.recapture()
    alloc1, res1 = settled()
    assert alloc1 <= alloc0 + (1 << 20), (alloc0, alloc1)
    assert res1 <= res0 + (2 << 20), (res0, res1)
    torch.testing.assert_close(runner.run(batch, 3), reference)


def test_shared_pool_largest_first_is_close_to_largest_graph(llama: ModuleType) -> None:
    s = Setup(llama, torch.bfloat16)
    sizes = (1, 2, 4, 8, 12, *range(16, 65, 8))
    largest = s.decode_runner("full", sizes=(sizes[-1],)).report()["reserved_bytes"]
    everything = s.decode_runner("full", sizes=sizes).report()
    assert everything["reserved_bytes"] <= 1.5 * largest + (4 << 20), (everything, largest)


def test_compile_sizes_use_the_compiled_forward(llama: ModuleType) -> None:
    s = Setup(llama, torch.bfloat16, layers=1)
    seen: list[int] = []

    def fake_compile(forward: Any) -> Any:
        def compiled(inputs: Any) -> Any:
            seen.append(inputs["input_ids"].shape[0])
            return forward(inputs)
        return compiled

    plan = PhaseCapture("decode", "full", (1, 2, 4), compile_sizes=(1, 2))
    runner = PhaseRunner(plan, s.model.decode_forward, llama.decode_slots(), device="cuda",
                         compile_forward=fake_compile)
    report = runner.capture()
    assert sorted(set(seen)) == [1, 2] and report["compile_sizes"] == [1, 2]


def test_size_clock_counts_device_work_the_host_did_not_wait_for() -> None:
    stream = torch.cuda.Stream()
    torch.cuda.synchronize()
    clock = SizeClock(stream)
    with torch.cuda.stream(stream):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of device time, queued without waiting
    host = clock.done(64)
    clock.done(32)
    got = clock.seconds()
    assert host < 0.01 and got[64] > 0.04, (host, got)
    assert list(got) == [64, 32] and got[32] < 0.01, got


def test_capture_waits_for_no_stream_between_sizes(llama: ModuleType,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    s = Setup(llama, torch.bfloat16, layers=1)
    waits: list[int] = []
    real = torch.cuda.Stream.synchronize

    def counted(self: Any) -> None:
        waits.append(1)
        real(self)

    monkeypatch.setattr(torch.cuda.Stream, "synchronize", counted)
    report = s.decode_runner("full", sizes=(1, 2, 4, 8)).report()
    by_size = report["capture_seconds_by_size"]
    assert waits == [] and sorted(by_size, key=int) == ["1", "2", "4", "8"]
    assert all(t > 0 for t in by_size.values())
    assert sum(by_size.values()) <= report["capture_seconds"] + 1e-3, report
