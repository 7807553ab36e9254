"""split_line follows each engine's own parser: arity, abbreviations, choices, dialect rewrites."""

from __future__ import annotations

import json

import pytest

from cgconfig.line import load_table, split_line


def test_enable_eplb_is_known_to_sglang() -> None:
    split = split_line("sglang", ["--enable-eplb"])
    assert split.errors == [] and split.ignored == ["--enable-eplb"]
    assert load_table("sglang").did_you_mean("--enable-eplb") == "--enable-eplb"


def test_did_you_mean_comes_from_the_engine_table() -> None:
    sglang = load_table("sglang")
    assert sglang.did_you_mean("--disable-overlap-schedul") == "--disable-overlap-schedule"
    # SGLang's argparse has allow_abbrev: the unique prefix is accepted, as the engine does.
    assert split_line("sglang", ["--disable-overlap-schedul"]).errors == []
    (error,) = split_line("sglang", ["--disable-overlap-schedulx"]).errors
    assert "did you mean '--disable-overlap-schedule'" in str(error)
    assert "SGLang 0.5.23" in str(error)
    (error,) = split_line("sglang", ["--enable-eplbb"]).errors
    assert "did you mean '--enable-eplb'" in str(error)


def test_multi_value_flags() -> None:
    split = split_line("sglang", ["--lora-paths", "a=/x", "b=/y", "--numa-node", "0", "1",
                                  "--lora-target-modules", "q_proj", "k_proj", "--enable-lora"])
    assert split.errors == []
    assert split.ignored == ["--numa-node", "0", "1"]
    # cgconfig reads the LoRA facts (SGLang 0.5.23 lora_hook refuses LoRA without adapters).
    assert split.modelled == ["--lora-paths", "a=/x", "b=/y", "--lora-target-modules", "q_proj",
                              "k_proj", "--enable-lora"]


def test_nargs_plus_stops_at_the_next_option_and_needs_one() -> None:
    split = split_line("sglang", ["--cuda-graph-bs-decode", "1", "2", "4", "--tp-size", "2"])
    assert split.modelled == ["--cuda-graph-bs-decode", "1", "2", "4", "--tp-size", "2"]
    (error,) = split_line("sglang", ["--cuda-graph-bs-decode", "--tp-size", "2"]).errors
    assert "expected 1 or more" in str(error)


def test_store_true_takes_no_value() -> None:
    split = split_line("sglang", ["--trust-remote-code", "--tp-size", "2"])
    assert split.ignored == ["--trust-remote-code"] and split.modelled == ["--tp-size", "2"]
    (error,) = split_line("sglang", ["--trust-remote-code=yes"]).errors
    assert "explicit argument" in str(error)
    (error,) = split_line("sglang", ["--trust-remote-code", "yes"]).errors
    assert "unexpected argument" in str(error)


@pytest.mark.parametrize("backend", ["dsa", "qsa", "dsv4", "compressed", "cutedsl_mla", "tokenspeed_mla",
                                     "hpc_ops", "minicpm_flashattn", "minicpm_flashinfer"])
def test_attention_backends_sglang_accepts(backend: str) -> None:
    assert split_line("sglang", ["--attention-backend", backend]).errors == []


@pytest.mark.parametrize("backend", ["cutlass_mla", "dual_chunk_flash_attn", "hybrid_linear_attn"])
def test_attention_backends_sglang_rejects(backend: str) -> None:
    (error,) = split_line("sglang", ["--attention-backend", backend]).errors
    assert "SGLang 0.5.23" in str(error) and backend in str(error) and "allowed: triton" in str(error)


@pytest.mark.parametrize("value", ["ascend_tp", "pplx", "deepep_v2", "flashinfer_megamoe"])
def test_a2a_backends(value: str) -> None:
    assert split_line("sglang", ["--moe-a2a-backend", value]).errors == []


@pytest.mark.parametrize("value", ["DSPARK", "UNO", "FROZEN_KV_MTP", "eagle"])
def test_speculative_algorithms_pass_argparse(value: str) -> None:
    assert split_line("sglang", ["--speculative-algorithm", value]).modelled[1] == value


def test_equals_form_negative_numbers_and_types() -> None:
    split = split_line("sglang", ["--tp-size=4", "--chunked-prefill-size", "-1"])
    assert split.errors == [] and split.modelled == ["--tp-size", "4", "--chunked-prefill-size", "-1"]
    (error,) = split_line("sglang", ["--tp-size", "two"]).errors
    assert "expected int" in str(error)


def test_ambiguous_prefix_is_the_engines_error() -> None:
    (error,) = split_line("sglang", ["--cuda-graph-max-bs", "64"]).errors
    assert "ambiguous" in str(error) and "--cuda-graph-max-bs-decode" in str(error)


def test_unknown_flag_swallows_its_values_and_suggests_from_the_engine() -> None:
    (error,) = split_line("sglang", ["--gpu-memory-utilisation", "0.9"]).errors
    assert "unknown flag" in str(error) and "SGLang 0.5.23" in str(error)
    assert "--gpu-memory-gib" not in str(error)  # cgconfig's own flags are not SGLang's


def test_vllm_short_forms_dotted_and_underscores() -> None:
    split = split_line("vllm", ["meta-llama/Llama-3.1-8B", "-tp", "2", "-O3", "--max_num_seqs", "16",
                                "-cc.cudagraph_mode=FULL_DECODE_ONLY", "-cc.cudagraph_capture_sizes+",
                                "1,2", "--enforce-eager"])
    assert split.errors == []
    assert split.ignored == ["meta-llama/Llama-3.1-8B", "-tp", "2"]
    assert split.modelled[:5] == ["--optimization-level", "3", "--max-num-seqs", "16",
                                  "--enforce-eager"]
    assert split.modelled[5] == "--compilation-config"
    assert json.loads(split.modelled[6]) == {"cudagraph_mode": "FULL_DECODE_ONLY",
                                             "cudagraph_capture_sizes": ["1", "2"]}


def test_vllm_rejects_what_it_does_not_know() -> None:
    (error,) = split_line("vllm", ["M", "--gpu-memory-utilisation", "0.9"]).errors
    assert "vLLM 0.33.0" in str(error) and "--gpu-memory-utilization" in str(error)
    (error,) = split_line("vllm", ["M", "N"]).errors
    assert "unexpected argument" in str(error)


def test_trtllm_click_rules() -> None:
    split = split_line("trtllm", ["nvidia/DeepSeek-R1-FP4", "--tp_size", "8", "--ep_size=8",
                                  "--extra_llm_api_options", "opts.yaml", "--trust_remote_code"])
    assert split.errors == []
    assert split.modelled == ["--config", "opts.yaml"]
    (error,) = split_line("trtllm", ["M", "--tp", "8"]).errors[:1]
    assert "unknown option" in str(error) and "TensorRT-LLM (main, commit 00209af)" in str(error)
    (error,) = split_line("trtllm", ["M", "--backend", "onnx"]).errors
    assert "invalid choice" in str(error)


def test_vllm_config_flags_need_a_json_object() -> None:
    assert split_line("vllm", ["M", "-ac", '{"backend": "FLASHINFER"}']).errors == []
    (error,) = split_line("vllm", ["M", "-ac", "1"]).errors
    assert "JSON object" in str(error) and "vLLM 0.33.0" in str(error)
