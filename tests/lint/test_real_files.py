"""Real files from public repositories (tests/data/lint/SOURCES.md), checked as CI would."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.lint.conftest import Run, findings

DATA = Path(__file__).parents[1] / "data" / "lint"


def test_trtllm_reference_config_keeps_the_default_graph_maximum(check: Run,
                                                                 tmp_path: Path) -> None:
    """The issue's TensorRT-LLM reference config for concurrency 1024: ``max_batch_size: 512``
    beside ``cuda_graph_config`` without a maximum (TensorRT-LLM's default 128)."""
    for name in ("ds-r1-b200-1k1k-conc1024.yaml", "ds-r1-h200-1k1k-conc1024.yaml"):
        shutil.copy(DATA / "trtllm" / name, tmp_path / name)
    _, out, _ = check("-o", "json", ".")
    (found,) = findings(out)  # the H200 one captures up to 1024 and has no bound of its own
    assert (found["file"], found["line"], found["id"]) == ("ds-r1-b200-1k1k-conc1024.yaml", 1,
                                                           "CG001")
    assert "batches of 129..512 requests run eagerly, 75% of the range 1..512" in \
        found["message"]
    assert "(1 + 1 draft tokens: speculative_config.max_draft_len)" in found["message"]
    assert found["fix"].startswith("raise cuda_graph_config.max_batch_size to 512")
