"""The examples of the issue "resolve the whole `vllm serve` line as vLLM 0.33.0 does", each a
named test. Every expected value was answered by vLLM 0.33.0's own engine path
(``vllm_engine_oracle.py``: ``EngineArgs.from_cli_args`` → ``create_engine_config()`` → the
worker's ``resolve_cudagraph_mode_and_sizes``) on an 8 × H100-80GB machine (SM 90) with the
model templates kept in ``tests/fidelity/models/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.engines.vllm.modes import phases_to_mode
from cgconfig.errors import InputError

MODELS = Path(__file__).resolve().parent.parent / "fidelity" / "models"
MACHINE = ["--gpu-memory-gib", "80", "--gpu-sm", "90", "--gpu-count", "8"]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    for name in ("llama", "qwen3_moe"):
        (root / name).mkdir()
        (root / name / "config.json").write_text((MODELS / f"engine-{name}.json").read_text())
    return root


def plan(models: Path, *line: str, model: str = "llama") -> dict[str, Any]:
    argv = [*MACHINE, "vllm", "serve", str(models / model), *line]
    return resolve_request(request_from_argv(argv, environ={})).to_dict()


def mode(p: dict[str, Any]) -> str:
    cap = p["capture"]
    return phases_to_mode(cap["decode"]["backend"], cap["prefill"]["backend"]).mode.name


def sizes(p: dict[str, Any]) -> list[int]:
    """vLLM's one list as captured: the mixed graphs, else (FULL_DECODE_ONLY) the decode ones."""
    return list(p["capture"]["prefill"]["sizes"] or p["capture"]["decode"]["sizes"])


def test_O0_has_no_graphs(models: Path) -> None:
    p = plan(models, "-O0")
    assert mode(p) == "NONE" and sizes(p) == []
    assert "--optimization-level" not in p["ignored_args"]


def test_O1_is_piecewise(models: Path) -> None:
    p = plan(models, "-O1")
    assert mode(p) == "PIECEWISE"
    assert len(sizes(p)) == 51 and sizes(p)[-1] == 512


def test_vllms_own_attention_backend_flag_downgrades_full(models: Path) -> None:
    # FLASHINFER supports UNIFORM_BATCH: Stage B keeps full decode, mixed batches piecewise.
    p = plan(models, "--attention-backend", "FLASHINFER", "-cc.cudagraph_mode=FULL")
    assert mode(p) == "FULL_AND_PIECEWISE"
    assert "--attention-backend" not in p["ignored_args"]


def test_deepep_high_throughput_with_dp_has_no_graphs(models: Path) -> None:
    p = plan(models, "--all2all-backend", "deepep_high_throughput", "--enable-expert-parallel",
             "--data-parallel-size", "2", model="qwen3_moe")
    assert mode(p) == "NONE"
    assert any(d["rule"] == "vllm.deepep-high-throughput" for d in p["decisions"])


def test_deepep_low_latency_defaults_256_batched_tokens(models: Path) -> None:
    p = plan(models, "--all2all-backend", "deepep_low_latency", "--enable-expert-parallel",
             "--data-parallel-size", "2", model="qwen3_moe")
    assert mode(p) == "FULL_AND_PIECEWISE"
    assert len(sizes(p)) == 35 and sizes(p)[-1] == 256


def test_spec_shorthands_set_the_speculative_tokens(models: Path) -> None:
    # Model Runner V2 (vLLM 0.33.0's default) does not round the sizes to multiples of 1 + 3;
    # the uniform-decode sizes (request counts × 4) are in the grid: 51 sizes up to 512.
    p = plan(models, "--spec-method", "ngram", "--spec-tokens", "3")
    assert mode(p) == "FULL_AND_PIECEWISE"
    assert len(sizes(p)) == 51 and sizes(p)[-1] == 512
    assert p["facts"]["derived"]["vllm_tokens_per_request"] == 4


@pytest.mark.parametrize(("line", "message"), [
    (["--max-num-seqs", "512", "--max-num-batched-tokens", "256"],
     "max_num_batched_tokens (256) must be greater than or equal to max_num_seqs (512)"),
    (["--speculative-config", '{"method":"eagle3","num_speculative_tokens":3}'],
     "num_speculative_tokens was provided but without speculative model"),
    (["--spec-tokens", "3"], "num_speculative_tokens was provided but without speculative model"),
    (["--compilation-config", '{"pass_config":{"no_such_key":true}}'],
     "pass_config.no_such_key: Unexpected keyword argument"),
    (["-O4"], "optimization level must be one of 0, 1, 2, 3"),
    (["--attention-backend", "FLASHMLA"], "is not valid for this configuration"),
], ids=["tokens-below-seqs", "eagle-without-draft", "spec-tokens-alone", "nested-pass-config",
        "O4", "mla-backend-on-llama"])
def test_vllm_refuses(models: Path, line: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        plan(models, *line)


def test_nested_validation_error_names_the_key_path_and_exits_2(models: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cgconfig.cli", "resolve", *MACHINE, "vllm",
                           "serve", str(models / "llama"), "--compilation-config",
                           '{"pass_config":{"no_such_key":true}}'],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "/pass_config/no_such_key" in done.stderr


def test_vllm_line_error_names_only_vllm_flags(models: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cgconfig.cli", "resolve", "vllm", "serve",
                           str(models / "llama"), "--enforce_eager", "true"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "unrecognized arguments: true" in done.stderr
    assert "--cuda-graph" not in done.stderr


def test_graph_flags_are_never_listed_as_ignored(models: Path) -> None:
    p = plan(models, "-O1", "--attention-backend", "FLASHINFER", "--all2all-backend",
             "deepep_low_latency", "--data-parallel-size", "2", "--enable-expert-parallel",
             "--enable-dbo", "--gpu-memory-utilization", "0.9", model="qwen3_moe")
    assert p["ignored_args"] == ["--gpu-memory-utilization"]
    assert any("not modelled: --enable-dbo" in n for n in p["notes"])


def test_pipeline_parallel_keeps_full_and_piecewise(models: Path) -> None:
    p = plan(models, "--pipeline-parallel-size", "2")
    assert mode(p) == "FULL_AND_PIECEWISE"
    assert not any(d["rule"].startswith("breakable.") for d in p["decisions"])


def test_explain_prefill_max_bs_shows_no_sglang_default() -> None:
    done = subprocess.run([sys.executable, "-m", "cgconfig.cli", "explain", "prefill.max_bs",
                           "--dialect", "vllm", "--max-num-seqs", "8"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "chunked" not in done.stdout and "memory tier" not in done.stdout
    assert "vllm.sizes" in done.stdout


def test_max_running_requests_does_not_cap_vllm_sizes() -> None:
    p = resolve_request(request_from_argv(["--dialect", "vllm", "--max-num-seqs", "8",
                                           "--max-running-requests", "4"], environ={})).to_dict()
    assert sizes(p) == [1, 2, 4, 8, 16]
    assert not any("get_batch_sizes_to_capture" in (d.get("source") or "")
                   for d in p["decisions"])


def test_corpus_models_are_the_recorded_ones() -> None:
    # The templates the examples use are the oracle's own config.json files.
    assert json.loads((MODELS / "engine-llama.json").read_text())["architectures"] == [
        "LlamaForCausalLM"]
