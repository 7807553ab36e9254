"""``tune --max-graph-memory GIB --memory-log LOG``: graphs under a memory budget, the memory
per graph read from the server's log; and tune stays bounded on 65,536 distinct sizes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.tune.memory import graphs_for_budget

LAUNCH = ["python", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]
SGLANG_LOG = (
    "[2026-11-01 10:00:00 TP0] Capture target decode CUDA graph begin. backend=full, "
    "num_tokens_per_req=1, avail mem=60.00 GB\n"
    "[2026-11-01 10:00:05 TP0] Capture target decode CUDA graph end. bs=[1, 2, 4, 8], "
    "elapsed=5.10 s, mem usage=0.40 GB, avail mem=59.60 GB.\n")
VLLM_DEBUG = (
    "(EngineCore_DP0 pid=2) DEBUG 11-01 10:00:09 [gpu_model_runner.py:6360] Estimated FULL CUDA "
    "graph memory: 512.00 MiB first-capture + (35-1) × 8.00 MiB per-graph\n")


def test_sglang_total_over_count(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    log.write_text(SGLANG_LOG)
    budget = graphs_for_budget(0.25, str(log))
    assert budget.graphs == 2  # 0.40 GB / 4 graphs = 0.1 each
    assert "0.40 GiB over 4 graphs" in budget.how


def test_vllm_profile(tmp_path: Path) -> None:
    log = tmp_path / "v.log"
    log.write_text(VLLM_DEBUG)
    budget = graphs_for_budget(1.0, str(log))
    assert budget.graphs == 1 + (1024 - 512) // 8
    assert "first FULL graph" in budget.how
    with pytest.raises(Exception, match="first FULL graph alone"):
        graphs_for_budget(0.25, str(log))


def test_tune_under_a_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "s.log"
    log.write_text(SGLANG_LOG)
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps({"schema_version": 1, "phases": {
        "decode": {str(s): 10 for s in range(1, 200, 3)}}}))
    assert main(["tune", "--histogram", str(hist), "--max-graph-memory", "0.5",
                 "--memory-log", str(log), *LAUNCH, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["tune"]["memory_budget"]["graphs"] == 5
    assert len(doc["tune"]["tuned"]["sizes"]) <= 5
    # Without a log the budget uses cgconfig's own prediction (issue #34); a log alone is
    # still refused.
    assert main(["tune", "--histogram", str(hist), "--max-graph-memory", "0.5", *LAUNCH,
                 "-o", "json"]) == 0
    assert "cgconfig's prediction" in json.loads(capsys.readouterr().out)["tune"][
        "memory_budget"]["estimate"]
    assert main(["tune", "--histogram", str(hist), "--memory-log", str(log), *LAUNCH]) == 2
    assert "needs --max-graph-memory" in capsys.readouterr().err


def test_tune_is_bounded_on_65536_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps({"schema_version": 1, "phases": {
        "decode": {str(s): 1 for s in range(1, 65537)}}}))
    start = time.process_time()
    assert main(["tune", "--histogram", str(hist), *LAUNCH, "-o", "json"]) == 0
    assert time.process_time() - start < 60
    doc = json.loads(capsys.readouterr().out)
    assert doc["tune"]["allowed_sizes"]["max"] == 4096  # sizes above TUNE_LIMIT stay eager
