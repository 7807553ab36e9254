"""The CLI takes real launch lines in every command that accepts one, and reads the process
environment (the Python API does not: see test_launch_line_sources.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

MEMORY_SAVER = ["python", "-m", "sglang.launch_server", "--model-path", "m",
                "--enable-memory-saver"]


def cgconfig(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "VLLM_"))}
    return subprocess.run([sys.executable, "-m", "cgconfig.cli", *args], capture_output=True,
                          text=True, env={**clean, "CGCONFIG_NO_GPU_PROBE": "1", **(env or {})},
                          check=False)


def test_resolve_reads_the_process_environment() -> None:
    assert cgconfig("resolve", *MEMORY_SAVER).returncode == 0
    refused = cgconfig("resolve", *MEMORY_SAVER, env={"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"})
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "feature.memory-saver-cuda-graph-breakable" in refused.stderr


def test_resolve_takes_a_vllm_line_and_lists_its_other_flags() -> None:
    done = cgconfig("resolve", "-o", "json", "vllm", "serve", "org/M", "-tp", "2", "-cc",
                    '{"cudagraph_mode":"FULL_DECODE_ONLY"}', "--enable-prefix-caching")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["config"]["prefill"]["backend"] == "disabled"
    assert plan["facts"]["model_path"] == "org/M"
    assert plan["facts"]["tp_size"] == 2
    assert plan["ignored_args"] == ["--enable-prefix-caching"]


def test_unknown_flag_is_one_line_with_the_engines_suggestion() -> None:
    done = cgconfig("resolve", "python", "-m", "sglang.launch_server", "--enable-epbl")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "did you mean '--enable-eplb'?" in done.stderr


def test_explain_and_diff_take_launch_lines() -> None:
    explained = cgconfig("explain", "vllm", "serve", "M", "-tp", "2", "decode.backend")
    assert explained.returncode == 0, explained.stderr
    assert "cudagraph_mode" not in explained.stderr
    diffed = cgconfig("diff", "-o", "json", "--a", "sglang serve m --tp 2 --enable-eplb",
                      "--b", "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve m -tp 2")
    assert diffed.returncode in (0, 1), diffed.stderr
    facts = {row["key"]: (row["a"], row["b"]) for row in json.loads(diffed.stdout)["facts"]}
    assert facts["derived.dialect"] == ("sglang", "vllm")


def test_explain_takes_its_key_before_the_launch_line() -> None:
    line = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--device", "hip"]
    before = cgconfig("explain", "prefill.backend", *line)
    after = cgconfig("explain", *line, "prefill.backend")
    assert before.returncode == after.returncode == 0, before.stderr + after.stderr
    assert before.stdout == after.stdout
    assert before.stdout.startswith('prefill.backend = "disabled"')
    assert "not read: the words before" not in before.stderr


def test_emit_env_hands_the_server_the_engines_arguments_only() -> None:
    done = cgconfig("resolve", "--emit", "env", "SGLANG_X=1", "python", "-m",
                    "sglang.launch_server", "--model-path", "m", "--tp", "2",
                    "--cuda-graph-max-bs-decode", "64")
    assert done.returncode == 0, done.stderr
    assert "export CGCONFIG_SERVER_ARGS='--model-path m --tp 2'\n" in done.stdout
    assert "set SGLANG_X in the launch script's environment" in done.stderr
    vllm = cgconfig("resolve", "--emit", "env", "vllm", "serve", "M", "--tensor_parallel_size",
                    "2", "--compilation_config", '{"cudagraph_mode":"FULL"}')
    assert "export CGCONFIG_SERVER_ARGS='M --tensor-parallel-size 2'\n" in vllm.stdout
