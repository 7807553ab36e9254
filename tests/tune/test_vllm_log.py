"""``cgconfig histogram --vllm-log``: vLLM 0.33.0's per-step lines (generated as
compilation/cuda_graph.py CUDAGraphLogging and forward_context.py print them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.engines.vllm.tune_log import histogram_from_lines
from cgconfig.errors import InputError
from cgconfig.tune import histogram

TABLE = """\
(EngineCore_DP0 pid=2) INFO 11-01 10:00:10 [loggers.py:259] **CUDAGraph Config Settings:**

- Mode: FULL_AND_PIECEWISE
- Capture sizes: [1, 2, 4, 8, 16]

**CUDAGraph Stats:**

| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |
|-----------------|---------------|--------------|--------------|-------|
| 3               | 4             | 1            | FULL         | 120   |
| 16              | 16            | 0            | FULL         | 30    |
| 40              | 40            | 0            | NONE         | 5     |
""".splitlines()

STATS = [
    "(EngineCore_DP0 pid=2) INFO 11-01 10:00:10 [forward_context.py:388] Batchsize forward time "
    "stats (batchsize, count, median_time(ms)): [(8, 10, 5.1), (1, 4, 3.2)]",
    "(EngineCore_DP0 pid=2) INFO 11-01 10:00:20 [forward_context.py:388] Batchsize forward time "
    "stats (batchsize, count, median_time(ms)): [(8, 25, 5.1), (1, 9, 3.2), (300, 2, 40.0)]",
]


def test_metrics_tables_add_up() -> None:
    hist = histogram_from_lines(TABLE + TABLE[1:])
    assert hist.phases == {"decode": {3: 240, 16: 60, 40: 10}}


def test_forward_stats_are_cumulative() -> None:
    hist = histogram_from_lines(STATS)
    assert hist.phases == {"decode": {1: 9, 8: 25, 300: 2}}


def test_eager_rows_are_read_as_eager() -> None:
    from cgconfig.verify.read import read_lines

    record = read_lines(TABLE, "log")
    steps = record.steps["mixed"]
    assert dict(steps.eager) == {40: 5} and dict(steps.graph) == {3: 120, 16: 30}
    assert record.configured_sizes == [1, 2, 4, 8, 16]


def test_no_step_lines() -> None:
    with pytest.raises(InputError, match="cudagraph-metrics"):
        histogram_from_lines(["INFO nothing"])


def test_command(tmp_path: Path) -> None:
    log = tmp_path / "v.log"
    log.write_text("\n".join(STATS) + "\n")
    out = tmp_path / "h.json"
    assert main(["histogram", "--vllm-log", str(log), "-o", str(out)]) == 0
    assert histogram.load(out).phases == {"decode": {1: 9, 8: 25, 300: 2}}
    assert main(["histogram"]) == 2
