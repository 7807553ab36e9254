"""Issue #11 item 6: inputs that were accepted but read wrongly, now read as the engines do."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.errors import InputError


def test_cudagraph_mode_null_is_vllms_default() -> None:
    plain = resolve_args(["--dialect", "vllm"])
    null = resolve_args(["--dialect", "vllm", "-cc", '{"cudagraph_mode": null}'])
    assert null.config == plain.config
    assert null.backend("decode") != "disabled"


def test_trtllm_cuda_graph_config_null_disables_decode(tmp_path: Path) -> None:
    options = tmp_path / "t.yaml"
    options.write_text("cuda_graph_config: null\n", encoding="utf-8")
    plan = resolve_args(["--dialect", "trtllm", "--extra-llm-api-options", str(options)])
    assert plan.backend("decode") == "disabled"
    assert plan.capture_sizes("decode") == []


@pytest.mark.parametrize("value", ["false", "off", "no"])
def test_trtllm_cuda_graph_config_false_is_refused_as_tensorrt_llm_does(tmp_path: Path,
                                                                       value: str) -> None:
    # TensorRT-LLM 603c8a0a: only null turns decode graphs off; false fails its validation.
    options = tmp_path / "t.yaml"
    options.write_text(f"cuda_graph_config: {value}\n", encoding="utf-8")
    with pytest.raises(InputError, match="mapping or null"):
        resolve_args(["--dialect", "trtllm", "--extra-llm-api-options", str(options)])


@pytest.mark.parametrize("argv", [
    ["--dialect", "vllm", "-cc.max_cudagraph_capture_size=true"],
    ["--dialect", "vllm", "--speculative-config", '{"num_speculative_tokens": true}'],
    ["--dialect", "vllm", "-cc", '{"cudagraph_capture_sizes": [true, 2]}'],
    ["--tp-size", "\u0668"], ["--tp-size", "\uff16\uff14"], ["--tp-size", "1_0"],
    ["--cuda-graph-max-bs-decode", "\u0668"],
    ["--gpu-memory-gib", "inf"], ["--gpu-memory-gib", "NaN"], ["--gpu-memory-gib", "1e999"],
], ids=lambda a: " ".join(a))
def test_booleans_non_ascii_digits_and_non_finite_numbers_are_refused(argv: list[str]) -> None:
    with pytest.raises(InputError):
        resolve_args(argv)


def test_trtllm_boolean_batch_size_is_one_aloud(tmp_path: Path) -> None:
    # TensorRT-LLM's pydantic (lax mode) reads true as 1; the plan follows it and says so.
    options = tmp_path / "t.yaml"
    options.write_text("cuda_graph_config: {max_batch_size: true}\n", encoding="utf-8")
    plan = resolve_args(["--dialect", "trtllm", "--extra-llm-api-options", str(options)])
    assert plan.capture_sizes("decode") == [1]
    assert any("max_batch_size: True read as 1" in w for w in plan.warnings)


def test_json_plan_is_strict_json_and_ascii_safe() -> None:
    import json

    plan = resolve_args(["--gpu-memory-gib", "80"])
    json.loads(plan.to_json())  # no Infinity/NaN can reach it: inputs are finite
