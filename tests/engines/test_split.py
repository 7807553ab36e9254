"""A line after an engine's entry point is read as the engine's own parser reads it: arity,
abbreviations, choices, the dialect's rewrites. Read through the production path
(``sources.engine_line.read_engine_line``: the splitter, the engine's argv reader and its
sources), the one ``scripts/check_split_against_engines.py`` sets against the real parsers."""

from __future__ import annotations

import pytest

from cgconfig.errors import InputError
from cgconfig.line import load_table
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.engine_line import read_engine_line


def sglang(*argv: str) -> ResolveRequest:
    return read_engine_line("sglang", ["--model-path", "m", *argv])


def refused(engine: str, *argv: str) -> str:
    words = ["--model-path", "m", *argv] if engine == "sglang" else ["M", *argv]
    with pytest.raises(InputError) as caught:
        read_engine_line(engine, words)
    return str(caught.value)


def test_enable_eplb_is_known_to_sglang() -> None:
    assert sglang("--enable-eplb").ignored_args == ["--enable-eplb"]
    assert load_table("sglang").did_you_mean("--enable-eplb") == "--enable-eplb"


def test_did_you_mean_comes_from_the_engine_table() -> None:
    table = load_table("sglang")
    assert table.did_you_mean("--disable-overlap-schedul") == "--disable-overlap-schedule"
    # SGLang's argparse has allow_abbrev: the unique prefix is accepted, as the engine does.
    sglang("--disable-overlap-schedul")
    error = refused("sglang", "--disable-overlap-schedulx")
    assert "did you mean '--disable-overlap-schedule'" in error and "SGLang 0.5.23" in error
    assert "did you mean '--enable-eplb'" in refused("sglang", "--enable-eplbb")


def test_multi_value_flags() -> None:
    request = sglang("--lora-paths", "a=/x", "b=/y", "--numa-node", "0", "1",
                     "--lora-target-modules", "q_proj", "k_proj", "--enable-lora")
    assert request.ignored_args == ["--numa-node"]
    # cgconfig reads the LoRA facts (SGLang 0.5.23 lora_hook refuses LoRA without adapters).
    assert request.facts["lora_paths"] == "a=/x b=/y"
    assert request.facts["lora_target_modules"] == "q_proj k_proj"
    assert request.facts["enable_lora"] is True


def test_nargs_plus_stops_at_the_next_option_and_needs_one() -> None:
    request = sglang("--cuda-graph-bs-decode", "1", "2", "4", "--tp-size", "2")
    assert [(leaf.key, leaf.value) for leaf in request.leaves] == [("decode.bs", [1, 2, 4])]
    assert request.facts["tp_size"] == 2
    assert "expects one or more values" in refused("sglang", "--cuda-graph-bs-decode",
                                                   "--tp-size", "2")


def test_store_true_takes_no_value() -> None:
    assert sglang("--trust-remote-code", "--tp-size", "2").ignored_args == ["--trust-remote-code"]
    assert "takes no value" in refused("sglang", "--trust-remote-code=yes")
    assert "unexpected argument 'yes'" in refused("sglang", "--trust-remote-code", "yes")


@pytest.mark.parametrize("backend", ["dsa", "qsa", "dsv4", "compressed", "cutedsl_mla", "tokenspeed_mla",
                                     "hpc_ops", "minicpm_flashattn", "minicpm_flashinfer"])
def test_attention_backends_sglang_accepts(backend: str) -> None:
    # accepted; some are read as what SGLang maps them to (compressed: dsv4)
    assert "attention_backend" in sglang("--attention-backend", backend).facts


def test_an_attention_backend_no_engine_has_is_refused_with_the_choices() -> None:
    error = refused("sglang", "--attention-backend", "nope")
    assert "invalid value 'nope'" in error and "allowed: aiter" in error


@pytest.mark.parametrize("value", ["ascend_tp", "pplx", "deepep_v2", "flashinfer_megamoe"])
def test_a2a_backends(value: str) -> None:
    assert sglang("--moe-a2a-backend", value).facts["moe_a2a_backend"] == value


@pytest.mark.parametrize("value", ["DSPARK", "UNO", "FROZEN_KV_MTP", "eagle"])
def test_speculative_algorithms_pass_argparse(value: str) -> None:
    assert sglang("--speculative-algorithm", value).facts["speculative_algorithm"].upper() == value.upper()


def test_equals_form_negative_numbers_and_types() -> None:
    request = sglang("--tp-size=4", "--chunked-prefill-size", "-1")
    assert request.facts["tp_size"] == 4 and request.facts["chunked_prefill_size"] == -1
    assert "expected an integer, got 'two'" in refused("sglang", "--tp-size", "two")


def test_ambiguous_prefix_is_the_engines_error() -> None:
    error = refused("sglang", "--cuda-graph-max-bs", "64")
    assert "ambiguous option" in error and "--cuda-graph-max-bs-decode" in error


def test_unknown_flag_suggests_from_the_engine() -> None:
    error = refused("sglang", "--gpu-memory-utilisation", "0.9")
    assert "unknown flag" in error and "SGLang 0.5.23" in error


def test_vllm_short_forms_dotted_and_underscores() -> None:
    request = read_engine_line("vllm", [
        "meta-llama/Llama-3.1-8B", "-tp", "2", "-O3", "--max_num_seqs", "16",
        "-cc.cudagraph_mode=FULL_DECODE_ONLY", "--enforce-eager"])
    assert request.facts["tp_size"] == 2
    assert request.engine_args[0] == ("optimization_level", "--optimization-level", ["3"])
    assert ("decode.backend", "disabled") in [(leaf.key, leaf.value) for leaf in request.leaves]


@pytest.mark.xfail(strict=True, reason="vLLM's FlexibleArgumentParser appends with "
                   "-cc.KEY+ VALUE (vllm/utils/argparse_utils.py); engines/vllm/argv.py refuses "
                   "the key (found when this test moved off the dead splitter)")
def test_vllm_dotted_append() -> None:
    read_engine_line("vllm", ["M", "-cc.cudagraph_capture_sizes+", "1,2"])


def test_vllm_rejects_what_it_does_not_know() -> None:
    error = refused("vllm", "--gpu-memory-utilisation", "0.9")
    assert "vLLM 0.33.0" in error and "--gpu-memory-utilization" in error
    assert "unrecognized arguments: N" in refused("vllm", "N")


def test_trtllm_click_rules() -> None:
    request = read_engine_line("trtllm", ["nvidia/DeepSeek-R1-FP4", "--tp_size", "8", "--ep_size=8",
                                          "--trust_remote_code"])
    assert request.ignored_args == ["--ep_size", "--trust_remote_code"]
    assert request.facts["tp_size"] == 8
    error = refused("trtllm", "--bogus", "8")
    assert "unknown flag --bogus" in error and "TensorRT-LLM (main, commit 00209af)" in error
    assert "expected int, got 'x'" in refused("trtllm", "--max_batch_size", "x")


def test_vllm_config_flags_need_a_json_object() -> None:
    read_engine_line("vllm", ["M", "-ac", '{"backend": "FLASHINFER"}'])
    error = refused("vllm", "-ac", "1")
    assert "JSON object" in error and "vLLM 0.33.0" in error
