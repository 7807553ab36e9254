"""The TensorRT-LLM dialect: an options YAML with cuda_graph_config."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig import InputError, resolve_args


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "options.yaml"
    path.write_text(text)
    return str(path)


def test_defaults_are_trtllm_defaults(tmp_path: Path) -> None:
    plan = resolve_args(["--extra-llm-api-options", _write(tmp_path, "max_num_tokens: 8192\n")])
    assert plan.config["decode"]["bs"] == [*range(1, 32), 32, 64, 128]
    assert plan.options["disable_padding"] is True
    assert plan.backend("prefill") == "disabled"
    assert plan.locked == []


def test_padding_grid_and_lock(tmp_path: Path) -> None:
    path = _write(tmp_path, "cuda_graph_config:\n  enable_padding: true\n  max_batch_size: 512\n")
    plan = resolve_args(["--extra-llm-api-options", path])
    assert plan.config["decode"]["bs"][-7:] == [128, 192, 256, 320, 384, 448, 512]
    assert "decode.max_bs" in plan.locked
    assert plan.options["disable_padding"] is False


def test_null_disables_decode_graphs(tmp_path: Path) -> None:
    plan = resolve_args(["--extra-llm-api-options", _write(tmp_path, "cuda_graph_config: null\n")])
    assert plan.backend("decode") == "disabled"
    assert "decode.backend" in plan.locked


def test_inconsistent_max_batch_size_is_an_error_at_file_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "foo: 1\ncuda_graph_config:\n  batch_sizes: [1, 2, 4]\n"
                            "  max_batch_size: 8\n")
    with pytest.raises(InputError) as info:
        resolve_args(["--extra-llm-api-options", path])
    assert f"{path}:2" in str(info.value)
    assert "max_batch_size must equal max(batch_sizes)" in str(info.value)


def test_unknown_key_has_a_did_you_mean(tmp_path: Path) -> None:
    path = _write(tmp_path, "cuda_graph_config:\n  batch_size: [1, 2]\n")
    with pytest.raises(InputError, match="batch_sizes"):
        resolve_args(["--extra-llm-api-options", path])


def test_piecewise_prefill(tmp_path: Path) -> None:
    path = _write(tmp_path, "torch_compile_config:\n  enable_piecewise_cuda_graph: true\n"
                            "  capture_num_tokens: [64, 128, 256]\n")
    plan = resolve_args(["--extra-llm-api-options", path])
    assert plan.backend("prefill") == "breakable"
    assert plan.capture_sizes("prefill") == [64, 128, 256]
