"""Entry points, ``VAR=value`` prefixes and engine environment variables reach the resolution."""

from __future__ import annotations

import pytest

from cgconfig.api import request_from_argv, resolve_args, resolve_request
from cgconfig.errors import CgConfigError
from cgconfig.line import engine_env_vars, env_prefixes, tokenize
from cgconfig.resolve.request import ResolveRequest


def request(line: str, environ: dict[str, str] | None = None) -> ResolveRequest:
    """The request of a launch line, reading only ``environ`` (default: no variables)."""
    return request_from_argv(tokenize(line), environ=environ or {})


@pytest.mark.parametrize(("line", "dialect", "model"), [
    ("python -m sglang.launch_server --model-path org/A --tp 2", "sglang", "org/A"),
    ("python3 -u -m sglang.launch_server --model org/A", "sglang", "org/A"),
    ("X=1 sglang serve org/A --tp 2", "sglang", "org/A"),
    ("docker run --gpus all img sglang serve --model-path org/A", "sglang", "org/A"),
    ("vllm serve org/V -tp 2 -cc '{\"cudagraph_mode\":\"FULL\"}'", "vllm", "org/V"),
    ("env CUDA_VISIBLE_DEVICES=0,1 vllm serve org/V --tensor_parallel_size 2", "vllm", "org/V"),
    ("python -m vllm.entrypoints.openai.api_server --model org/V -O3", "vllm", "org/V"),
    ("trtllm-serve org/T --max_batch_size 64 --tp_size 2", "trtllm", "org/T"),
])
def test_entry_point_names_the_dialect_and_the_model(line: str, dialect: str, model: str) -> None:
    got = request(line)
    assert got.dialect == dialect
    assert got.facts["model_path"] == model


def test_model_positional_has_provenance() -> None:
    got = request("vllm serve org/V")
    assert got.fact_sources["model_path"] == "vllm serve MODEL"


def test_vllm_line_reads_its_modelled_flags_and_lists_the_rest() -> None:
    plan = resolve_args(tokenize("vllm serve M -tp 2 -cc '{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}' "
                                 "--max-num-seqs 32 --gpu-memory-utilization 0.8"), environ={})
    assert plan.config["decode"]["backend"] == "full"
    assert plan.config["prefill"]["backend"] == "disabled"
    assert plan.config["decode"]["max_bs"] < 512  # vLLM's grid follows --max-num-seqs
    assert plan.ignored_args == ["--gpu-memory-utilization"]
    assert (plan.facts["tp_size"], plan.fact_sources["tp_size"]) == (2, "-tp")


@pytest.mark.parametrize(("line", "tp", "pp"), [
    ("vllm serve M --tensor-parallel-size 4 -pp 2", 4, 2),
    ("vllm serve M --tensor_parallel_size=8", 8, 1),
    ("trtllm-serve M --tp_size 2 --pp_size 2", 2, 2),
])
def test_the_engines_parallel_layout_is_a_fact(line: str, tp: int, pp: int) -> None:
    got = request(line)
    assert (got.facts.get("tp_size", 1), got.facts.get("pp_size", 1)) == (tp, pp)


def test_a_bad_parallel_size_names_the_flag_as_the_line_wrote_it() -> None:
    # The spelling the user typed (-tp), not the engine's long name, and the engine's release.
    with pytest.raises(CgConfigError, match=r"^-tp: expected int, got 'two' \(vLLM "):
        request("vllm serve M -tp two")


def test_dotted_speculative_tokens_reach_vllm() -> None:
    plain = resolve_args(tokenize("vllm serve M --max-num-seqs 64"), environ={})
    # with a method: the tokens alone are SpeculativeConfig's refusal, dotted or not
    spec = resolve_args(tokenize("vllm serve M --max-num-seqs 64 --speculative-config.method ngram "
                                 "--speculative-config.num_speculative_tokens 3"), environ={})
    assert plain.config["decode"]["bs"] != spec.config["decode"]["bs"]


@pytest.mark.parametrize(("line", "suggestion"), [
    ("python -m sglang.launch_server --enable-epbl", "'--enable-eplb'"),
    ("vllm serve M --tensor-paralel-size 2", "'--tensor-parallel-size'"),
    ("trtllm-serve M --max_batch_sise 8", "'--max_batch_size'"),
])
def test_a_flag_the_engine_lacks_is_an_error_with_the_engines_suggestion(
        line: str, suggestion: str) -> None:
    with pytest.raises(CgConfigError) as caught:
        resolve_args(tokenize(line), environ={})
    assert "unknown" in str(caught.value) and suggestion in str(caught.value)


def test_an_sglang_only_flag_on_a_vllm_line_is_unknown() -> None:
    with pytest.raises(CgConfigError, match=r"vLLM 0\.33\.0"):
        resolve_args(tokenize("vllm serve M --enable-hierarchical-cache"), environ={})


def test_a_value_the_engine_rejects_names_the_engine() -> None:
    with pytest.raises(CgConfigError, match=r"SGLang 0\.5\.23"):
        resolve_args(["--schedule-policy", "fastest"], environ={})
    with pytest.raises(CgConfigError, match=r"vLLM 0\.33\.0"):
        resolve_args(tokenize("vllm serve M --seed lots"), environ={})


def test_dialect_flag_contradicting_the_entry_point_is_an_error() -> None:
    with pytest.raises(CgConfigError, match="contradicts"):
        request("sglang serve org/A --dialect vllm")


def test_words_before_the_entry_point_are_named_in_a_note() -> None:
    got = request("docker run --gpus all img python3 -m sglang.launch_server --model-path a")
    assert any("docker run --gpus all img" in note for note in got.notes)


def test_cgconfig_flags_before_the_entry_point_are_read() -> None:
    got = request("--gpu-memory-gib 80 vllm serve M")
    assert got.facts["gpu_memory_gib"] == 80


MEMORY_SAVER = "python -m sglang.launch_server --model-path a --enable-memory-saver"


@pytest.mark.parametrize(("line", "environ", "where"), [
    ("SGLANG_MEMORY_SAVER_CUDA_GRAPH=1 " + MEMORY_SAVER, {},
     "line prefix SGLANG_MEMORY_SAVER_CUDA_GRAPH=1"),
    ("env SGLANG_MEMORY_SAVER_CUDA_GRAPH=true " + MEMORY_SAVER, {},
     "line prefix SGLANG_MEMORY_SAVER_CUDA_GRAPH=true"),
    (MEMORY_SAVER, {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"}, "env SGLANG_MEMORY_SAVER_CUDA_GRAPH"),
])
def test_memory_saver_variable_is_a_fact_with_provenance(
        line: str, environ: dict[str, str], where: str) -> None:
    got = request(line, environ)
    assert got.facts["sglang_memory_saver_cuda_graph"] is True
    assert got.fact_sources["sglang_memory_saver_cuda_graph"] == where
    with pytest.raises(CgConfigError, match=r"feature\.memory-saver-cuda-graph-breakable"):
        resolve_request(got)


def test_line_prefix_wins_over_the_environment() -> None:
    got = request("SGLANG_MEMORY_SAVER_CUDA_GRAPH=0 " + MEMORY_SAVER,
                  {"SGLANG_MEMORY_SAVER_CUDA_GRAPH": "1"})
    assert got.facts["sglang_memory_saver_cuda_graph"] is False
    plan = resolve_request(got)
    assert plan.config["prefill"]["backend"] == "breakable"


def test_without_the_memory_saver_the_variable_changes_nothing() -> None:
    plan = resolve_args(tokenize("SGLANG_MEMORY_SAVER_CUDA_GRAPH=1 sglang serve a"), environ={})
    assert plan.config["prefill"]["backend"] == "breakable"


@pytest.mark.parametrize("value", ["maybe", ""])
def test_an_unrecognised_boolean_is_false_with_a_note_as_sglang_reads_it(value: str) -> None:
    got = request(f"SGLANG_MEMORY_SAVER_CUDA_GRAPH={value} " + MEMORY_SAVER)
    assert got.facts["sglang_memory_saver_cuda_graph"] is False
    assert any("neither true nor false" in note for note in got.notes)


@pytest.mark.parametrize("line", ["vllm serve M --tensor-parallel-size", "trtllm-serve M --host"])
def test_an_engine_flag_without_its_value_is_an_error(line: str) -> None:
    with pytest.raises(CgConfigError, match="expects a value"):
        request(line)


def test_vllm_attention_backend_variable_gets_a_note() -> None:
    got = request("VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve M")
    assert any("VLLM_ATTENTION_BACKEND" in n and "not read by vLLM 0.33.0" in n for n in got.notes)


def test_unmodelled_variable_is_a_note_and_other_engines_variables_are_not_read() -> None:
    got = request("sglang serve a", {"SGLANG_ENABLE_CUDA_GRAPH_DEDUP": "1",
                                     "VLLM_ATTENTION_BACKEND": "X"})
    assert [n.split(":")[0] for n in got.notes] == ["env SGLANG_ENABLE_CUDA_GRAPH_DEDUP"]


def test_the_api_reads_no_environment_unless_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGLANG_MEMORY_SAVER_CUDA_GRAPH", "1")
    plan = resolve_args(tokenize(MEMORY_SAVER))
    assert plan.facts["sglang_memory_saver_cuda_graph"] is False


@pytest.mark.parametrize("argv", [
    ["--lora-paths", "a=/x", "b=/y", "--lora-target-modules", "q_proj", "k_proj",
     "--numa-node", "0", "1"],
    # pplx needs attention DP and a small per-rank chunk, cutedsl_mla Blackwell: SGLang 0.5.23
    # refuses either line without them at start-up (rules refuse.pplx-*, refuse.cutedsl-*).
    ["--moe-a2a-backend", "pplx", "--tp-size", "2", "--attn-dp-size", "2",
     "--chunked-prefill-size", "-1"], ["--speculative-algorithm", "DSPARK"],
    ["--attention-backend", "dsa"], ["--attention-backend", "qsa"],
    ["--attention-backend", "cutedsl_mla", "--gpu-sm", "100"],
])
def test_values_sglang_accepts_resolve(argv: list[str]) -> None:
    resolve_args(argv, environ={})


def test_lowercase_speculative_algorithm_is_sglangs_upper_case() -> None:
    got = request_from_argv(["--speculative-algorithm", "eagle"], environ={})
    assert got.facts["speculative_algorithm"] == "EAGLE"


def test_engine_alias_and_abbreviation_read_the_modelled_flag() -> None:
    got = request_from_argv(["--model", "meta-llama/Llama-2-7b", "--speculative-algo", "NGRAM"],
                            environ={})
    assert got.facts["model_path"] == "meta-llama/Llama-2-7b"
    assert got.facts["speculative_algorithm"] == "NGRAM"
    assert any("--speculative-algo read as --speculative-algorithm" in n for n in got.notes)


def test_ignore_unknown_args_still_skips_what_neither_knows() -> None:
    plan = resolve_args(["--no-such-flag", "3", "--ignore-unknown-args"], environ={})
    assert "--no-such-flag" in plan.ignored_args


def test_every_engine_variable_has_an_engine_prefix() -> None:
    assert all(var.name.startswith(env_prefixes()) for var in engine_env_vars())


def test_another_engines_flag_is_named_as_such() -> None:
    with pytest.raises(CgConfigError) as caught:
        resolve_args(["--gpu-memory-utilization", "0.8"], environ={})
    assert "--gpu-memory-utilization is a vLLM 0.33.0 flag" in str(caught.value)
    assert "vllm serve MODEL" in str(caught.value)
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize(("line", "device"), [
    ("vllm serve M --attention-backend ROCM_AITER_FA", "hip"),
    ("vllm serve M --attention-backend=ROCM_AITER_UNIFIED_ATTN -tp 8", "hip"),
    ("vllm serve M --attention-backend FLASH_ATTN", "cuda"),
    ("vllm serve M --attention-backend ROCM_AITER_FA --device cuda", "cuda"),
])
def test_a_rocm_only_vllm_backend_names_the_platform(line: str, device: str) -> None:
    plan = resolve_request(request(line))
    assert plan.facts["device"] == device
    if device == "hip":
        assert "ROCm-only backend of vLLM 0.33.0" in plan.fact_sources["device"]
