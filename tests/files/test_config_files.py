"""The engines' --config FILE merged as each engine merges it, the file named in the notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.errors import InputError
from cgconfig.files.config_files import follow_config
from cgconfig.files.launch import find_launches
from cgconfig.files.plan import resolve_launch


def test_vllm_puts_the_file_after_serve_model_and_the_line_wins() -> None:
    script = ("cat > config.yaml << EOF\nmax-num-seqs: 256\nenforce-eager: false\n"
              "enable-chunked-prefill: true\ncompilation-config: {cudagraph_mode: PIECEWISE}\n"
              "cudagraph-capture-sizes: [1, 2, 4]\nEOF\n"
              "vllm serve M --config config.yaml --max-num-seqs 32\n")
    (launch,) = find_launches("run.sh", script)
    merged = follow_config(launch)
    assert merged.argv == (
        # false -> --no-KEY, since vLLM's parser has --no-enforce-eager
        "vllm", "serve", "M", "--max-num-seqs", "256", "--no-enforce-eager",
        "--enable-chunked-prefill",
        "--compilation-config", '{"cudagraph_mode": "PIECEWISE"}', "--cudagraph-capture-sizes",
        "1", "2", "4", "--max-num-seqs", "32")
    assert len(merged.arg_lines) == len(merged.argv)
    assert "--config config.yaml (run.sh:8)" in merged.notes[-1]
    plan = resolve_launch(launch, ["--gpu-memory-gib", "80"])
    assert plan.capture_sizes("decode") == [1, 2, 4]
    assert any("the command line wins" in note for note in plan.notes)


def test_vllm_does_not_merge_config_written_with_an_equals_sign() -> None:
    (launch,) = find_launches("run.sh", "vllm serve M --config=c.yaml\n")
    merged = follow_config(launch)
    assert merged.argv == launch.argv
    assert "is not merged" in merged.notes[-1]


def test_sglang_reads_the_file_beside_the_deployment_file(tmp_path: Path) -> None:
    (tmp_path / "server.yaml").write_text("cuda-graph-max-bs-decode: 48\ndisable-radix-cache: true\n"
                                          "enable-torch-compile: false\n")
    path = tmp_path / "run.sh"
    text = "python3 -m sglang.launch_server --config server.yaml --model-path m\n"
    (launch,) = find_launches(str(path), text)
    merged = follow_config(launch)
    assert merged.argv == ("python3", "-m", "sglang.launch_server", "--cuda-graph-max-bs-decode", "48",
                           "--disable-radix-cache", "--model-path", "m")
    plan = resolve_launch(launch, ["--gpu-memory-gib", "80"])
    assert max(plan.capture_sizes("decode")) == 48


def test_a_missing_config_file_is_one_error_line() -> None:
    (launch,) = find_launches("/nonexistent/run.sh", "vllm serve M --config nope.yaml\n")
    with pytest.raises(InputError, match="not written by the script and not found"):
        follow_config(launch)


def test_an_unexpanded_here_document_variable_is_named() -> None:
    script = "cat > c.yaml << EOF\nmax-model-len: $LEN\nEOF\nvllm serve M --config c.yaml\n"
    (launch,) = find_launches("run.sh", script)
    with pytest.raises(InputError, match="--set LEN=VALUE"):
        resolve_launch(launch)
    (given,) = find_launches("run.sh", script, variables={"LEN": "4096"})
    assert "4096" in follow_config(given).argv
