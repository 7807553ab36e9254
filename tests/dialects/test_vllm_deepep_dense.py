"""DeepEP high-throughput turns every graph off only when the DP size
``set_splitting_ops_for_v1`` sees is above 1: from vLLM 0.14.1 that is 1 for a dense model
(``VllmConfig.__post_init__``: ``effective_dp_size``, from ``model_config.is_moe``).
Measured on the oracle: 0.33.0's engine path gives ``vllm serve @llama --data-parallel-size 2
--all2all-backend deepep_high_throughput`` FULL_AND_PIECEWISE and the same line on
``@deepseek_v3`` NONE; 0.14.1 keeps the dense line's graphs and 0.13.0 turns them off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.line.versions import EngineVersion

MODELS = Path(__file__).parents[1] / "fidelity" / "models"
LINE = ["--gpu-memory-gib", "80", "--gpu-sm", "90", "--data-parallel-size", "2",
        "--all2all-backend", "deepep_high_throughput"]


def _decode(tmp_path: Path, model: str, release: str) -> str:
    folder = tmp_path / model
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(json.loads(
        (MODELS / f"engine-{model}.json").read_text())))
    plan = resolve_request(request_from_argv(
        ["vllm", "serve", str(folder), *LINE], environ={},
        engine_version=EngineVersion("vllm", release, "--engine-version")))
    return plan.backend("decode")


@pytest.mark.parametrize(("model", "release", "decode"), [
    ("llama", "0.33.0", "full"), ("llama", "0.14.1", "full"), ("llama", "0.13.0", "disabled"),
    ("deepseek_v3", "0.33.0", "disabled"), ("deepseek_v3", "0.14.1", "disabled")])
def test_deepep_high_throughput_reads_the_effective_dp_size(
        tmp_path: Path, model: str, release: str, decode: str) -> None:
    assert _decode(tmp_path, model, release) == decode
