"""Entry points anywhere in a line, VAR=value prefixes, and the engine environment table."""

from __future__ import annotations

import pytest

from cgconfig.errors import InputError
from cgconfig.line import env_vars_for, find_entry_point, graph_env
from cgconfig.sources.engine_line import read_engine_line

LINES = [
    ("SGLANG_MEMORY_SAVER_CUDA_GRAPH=1 CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server "
     "--model-path X --tp 2", "sglang",
     {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1", "CUDA_VISIBLE_DEVICES": "0,1"},
     ["--model-path", "X", "--tp", "2"]),
    ("python -m sglang.launch_server --model-path X", "sglang", {}, ["--model-path", "X"]),
    ("docker run --gpus all --ipc=host lmsysorg/sglang:latest python3 -m sglang.launch_server --model X",
     "sglang", {}, ["--model", "X"]),
    ("sglang serve Qwen/Qwen3-8B --model-type llm --tp 2", "sglang", {},
     ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]),
    ("VLLM_USE_V2_MODEL_RUNNER=1 vllm serve meta-llama/Llama-3.1-8B -tp 2", "vllm",
     {"VLLM_USE_V2_MODEL_RUNNER": "1"}, ["meta-llama/Llama-3.1-8B", "-tp", "2"]),
    ("python -m vllm.entrypoints.openai.api_server --model X", "vllm", {}, ["--model", "X"]),
    ("env NCCL_DEBUG=INFO trtllm-serve nvidia/DeepSeek-R1-FP4 --tp_size 8", "trtllm",
     {"NCCL_DEBUG": "INFO"}, ["nvidia/DeepSeek-R1-FP4", "--tp_size", "8"]),
    ("trtllm-serve serve nvidia/X --backend pytorch", "trtllm", {}, ["nvidia/X", "--backend", "pytorch"]),
    ("/usr/bin/python3 -u -m sglang.launch_server --model-path X \\\n  --port 30000", "sglang", {},
     ["--model-path", "X", "--port", "30000"]),
]


@pytest.mark.parametrize(("line", "dialect", "env", "argv"), LINES)
def test_entry_points(line: str, dialect: str, env: dict[str, str], argv: list[str]) -> None:
    entry = find_entry_point(line)
    assert entry is not None
    assert (entry.dialect, entry.env, entry.argv) == (dialect, env, argv)
    read_engine_line(dialect, entry.argv)  # read as cgconfig resolve reads it: no refusal


def test_no_entry_point_and_bad_quotes() -> None:
    assert find_entry_point("echo hello") is None
    with pytest.raises(InputError, match="quotes"):
        find_entry_point("vllm serve 'unclosed")


def test_graph_env_prefers_the_line_and_names_the_source() -> None:
    (setting,) = graph_env("sglang", {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"},
                           {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "0", "HOME": "/root"})
    assert (setting.value, setting.origin) == ("1", "launch line")
    assert "sglang 0.5.23" in setting.var.source
    (setting,) = graph_env("vllm", {}, {"VLLM_USE_V2_MODEL_RUNNER": "1"})
    assert setting.origin == "environment"


def test_vllm_attention_backend_variable_is_read_for_the_releases_without_the_flag() -> None:
    var = env_vars_for("vllm")["VLLM_ATTENTION_BACKEND"]
    assert var.read_by_engine is True and var.fact == "vllm_attn_backend"
    assert "--attention-backend" in var.effect and "vllm 0.10.2" in var.source
