"""Each class where cgconfig's trtllm-serve plans once parted from TensorRT-LLM, as a named case.

The expected lists and warnings are TensorRT-LLM's own answers for the same input (its
``serve.py`` 00209af ``get_llm_args`` + YAML merge, ``llm_args.py`` 603c8a0a ``CudaGraphConfig``
validation and ``model_engine.py`` 603c8a0a ``_filter_cuda_graph_batch_sizes``, run unmodified),
copied here by hand; the corpus (``test_fidelity_trtllm.py``) holds 2,400 more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cgconfig import InputError, resolve_args
from cgconfig.plan import Plan

UNPADDED_128 = [*range(1, 32), 32, 64, 128]
PAD_WARNING = ("TensorRT-LLM: CUDA graph padding is enabled, but one of the given CUDA graph "
               "batch sizes ({}) is larger than the executor's max batch size ({}). We will pad "
               "batches to {}.")


def _plan(tmp_path: Path, yaml_text: str | None, *flags: str) -> Plan:
    argv = ["trtllm-serve", "MODEL", *flags]
    if yaml_text is not None:
        path = tmp_path / "options.yaml"
        path.write_text(yaml_text)
        argv += ["--extra_llm_api_options", str(path)]
    return resolve_args(argv)


def _lists(plan: Plan) -> tuple[Any, Any]:
    return plan.config["decode"]["bs"], plan.capture["decode"]["sizes"]


def test_a_engine_max_batch_size_clamps(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {max_batch_size: 8}", "--max_batch_size", "4")
    assert _lists(plan) == ([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4])
    assert "--max_batch_size" not in plan.ignored_args


def test_a_padding_special_case_and_its_warning(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {enable_padding: true, max_batch_size: 64}",
                 "--max_batch_size", "20")
    assert plan.capture["decode"]["sizes"] == [1, 2, 4, 8, 16, 20]
    assert PAD_WARNING.format(24, 20, 20) in plan.warnings
    (step,) = [d for d in plan.decisions if d.rule == "trtllm.capture-filter"]
    assert "min(max_batch_size 20 (--max_batch_size)" in step.why


def test_a_default_engine_max_is_2048(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {enable_padding: true, max_batch_size: 4096}")
    assert plan.config["decode"]["bs"][-1] == 4096
    assert plan.capture["decode"]["sizes"][-2:] == [1984, 2048]
    assert not any("pad batches" in w for w in plan.warnings)  # 2048 is on the grid


def test_a_no_options_file_with_max_batch_size_64(tmp_path: Path) -> None:
    # The real line of the issue: the default list stops at 128, the engine keeps sizes <= 64.
    plan = _plan(tmp_path, None, "--max_batch_size", "64")
    assert _lists(plan) == (UNPADDED_128, UNPADDED_128[:-1])
    assert plan.ignored_args == []


def test_b_max_num_tokens_clamps_and_warns(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {max_batch_size: 8}", "--max_num_tokens", "6")
    assert plan.capture["decode"]["sizes"] == [1, 2, 3, 4, 5, 6]
    assert ("TensorRT-LLM: max_batch_size [2048] should be less than or equal to "
            "max_num_tokens [6]") in plan.warnings


@pytest.mark.parametrize(("spec", "captured"), [
    ("{decoding_type: Eagle3, max_draft_len: 3}", [1, 2, 3, 4]),
    ("{decoding_type: MTP, num_nextn_predict_layers: 1}", [1, 2, 3, 4, 5, 6, 7, 8]),
    ("{decoding_type: Eagle, max_draft_len: 2, max_total_draft_tokens: 7}", [1, 2]),
])
def test_c_draft_tokens_divide_max_num_tokens(tmp_path: Path, spec: str,
                                              captured: list[int]) -> None:
    text = f"cuda_graph_config: {{max_batch_size: 8}}\nspeculative_config: {spec}\n"
    plan = _plan(tmp_path, text, "--max_num_tokens", "16")
    assert plan.capture["decode"]["sizes"] == captured
    assert any(n.startswith("speculative decoding: each decode step carries") for n in plan.notes)


def test_d_top_level_yaml_max_batch_size_wins_over_the_flag(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "max_batch_size: 4\ncuda_graph_config: {max_batch_size: 8}",
                 "--max_batch_size", "64")
    assert plan.capture["decode"]["sizes"] == [1, 2, 3, 4]


def test_e_duplicates_are_kept_aloud(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {batch_sizes: [1, 1, 2]}")
    assert _lists(plan) == ([1, 1, 2], [1, 1, 2])
    assert any("repeats [1]" in w for w in plan.warnings)


@pytest.mark.parametrize("entry", ["0", "-1"])
def test_f_nonpositive_entries_are_warned_and_left_out(tmp_path: Path, entry: str) -> None:
    # TensorRT-LLM: batch_sizes and captured [0, 4] / [-1, 4]; cgconfig stays stricter, aloud.
    plan = _plan(tmp_path, f"cuda_graph_config: {{batch_sizes: [{entry}, 4]}}")
    assert _lists(plan) == ([4], [4])
    assert any(f"holds [{entry}]" in w and "leaves them out" in w for w in plan.warnings)


def test_f_padding_to_a_bound_of_zero_is_warned(tmp_path: Path) -> None:
    # TensorRT-LLM captures [0] (padding to max_num_tokens 0); cgconfig captures none, aloud.
    plan = _plan(tmp_path, "cuda_graph_config: {enable_padding: true}", "--max_num_tokens", "0")
    assert plan.capture["decode"]["sizes"] == []
    assert PAD_WARNING.format(1, 0, 0) in plan.warnings
    assert any("cgconfig captures none" in w for w in plan.warnings)


def test_g_empty_options_file_is_an_empty_mapping(tmp_path: Path) -> None:
    assert _lists(_plan(tmp_path, "")) == _lists(_plan(tmp_path, "{}"))


def test_h_false_is_refused_null_disables(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="mapping or null"):
        _plan(tmp_path, "cuda_graph_config: false")
    assert _plan(tmp_path, "cuda_graph_config: null").capture["decode"]["sizes"] == []


@pytest.mark.parametrize(("text", "configured", "padding"), [
    ('{enable_padding: "yes", max_batch_size: "8"}', [1, 2, 4, 8], True),
    ("{batch_sizes: [1.0, 2]}", [1, 2], False),
    ("{batch_sizes: [true, 2]}", [1, 2], False),
])
def test_i_lax_values_as_pydantic_reads_them(tmp_path: Path, text: str, configured: list[int],
                                             padding: bool) -> None:
    plan = _plan(tmp_path, f"cuda_graph_config: {text}")
    assert _lists(plan) == (configured, configured)
    assert plan.options["disable_padding"] is not padding


@pytest.mark.parametrize("text", ['{enable_padding: "maybe"}', "{max_batch_size: 8.5}",
                                  '{batch_sizes: ["x"]}'])
def test_i_values_pydantic_rejects_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(InputError, match=r"options\.yaml:1"):
        _plan(tmp_path, f"cuda_graph_config: {text}")


def test_j_encoder_keys_and_mode(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "cuda_graph_config: {max_num_token: 64}")
    assert _lists(plan) == (UNPADDED_128, UNPADDED_128)
    assert any("EncodeCudaGraphConfig" in n for n in plan.notes)
    plan = _plan(tmp_path, "cuda_graph_config: {mode: decode, max_batch_size: 4}")
    assert _lists(plan) == ([1, 2, 3, 4], [1, 2, 3, 4])
    with pytest.raises(InputError, match="need mode: encode"):
        _plan(tmp_path, "cuda_graph_config: {mode: decode, num_tokens: [64]}")


def test_attention_dp_is_explained(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "enable_attention_dp: true")
    assert any(n.startswith("enable_attention_dp: every rank captures") for n in plan.notes)
    assert not any("enable_attention_dp" in a for a in plan.ignored_args)


@pytest.mark.parametrize("command", ["disaggregated", "disaggregated_mpi_worker", "grpc",
                                     "mm_embedding_serve"])
def test_other_subcommands_are_named(command: str) -> None:
    with pytest.raises(InputError) as info:
        resolve_args(["trtllm-serve", command, "-c", "disagg.yaml"])
    text = str(info.value)
    assert text.startswith(f"trtllm-serve {command}: this subcommand")
    assert "\n" not in text and "cgconfig reads only the serve subcommand" in text


def test_backend_other_than_pytorch_is_refused() -> None:
    with pytest.raises(InputError, match="pytorch backend only"):
        resolve_args(["trtllm-serve", "MODEL", "--backend", "tensorrt"])


def test_version_is_named_tensorrt_llm_with_the_commit() -> None:
    with pytest.raises(InputError) as info:
        resolve_args(["trtllm-serve", "MODEL", "--max_batch_size", "x"])
    assert "TensorRT-LLM (main, commit 00209af)" in str(info.value)


#: TensorRT-LLM's curated options for Qwen3-Next, verbatim:
#: https://github.com/NVIDIA/TensorRT-LLM/blob/21c1b298d4dc2166cbe7660b16335dcb4bdb4809/examples/configs/curated/qwen3-next.yaml
QWEN3_NEXT = """max_batch_size: 16
max_num_tokens: 4096
tensor_parallel_size: 4
moe_expert_parallel_size: 4
trust_remote_code: true
cuda_graph_config:
  enable_padding: true
  max_batch_size: 720
moe_config:
  backend: TRTLLM
stream_interval: 20
num_postprocess_workers: 4
"""


def test_curated_qwen3_next_captures_up_to_its_max_batch_size(tmp_path: Path) -> None:
    # TensorRT-LLM: 29 configured sizes up to 720, captured [1, 2, 4, 8, 16], no warning.
    plan = _plan(tmp_path, QWEN3_NEXT)
    assert len(plan.config["decode"]["bs"]) == 29 and plan.config["decode"]["bs"][-1] == 720
    assert plan.capture["decode"]["sizes"] == [1, 2, 4, 8, 16]
    assert not any("pad batches" in w for w in plan.warnings)
    assert plan.facts["tp_size"] == 4 and plan.fact_sources["tp_size"].endswith(
        ":tensor_parallel_size")
    ignored = " ".join(plan.ignored_args)
    assert "max_batch_size" not in ignored and "max_num_tokens" not in ignored


def test_locked_padding_option_shows_its_value(tmp_path: Path) -> None:
    """``enable_padding: true`` locks cgconfig's ``options.disable_padding``: the locked line
    says ``=false``, so it does not read as padding turned off (issue #21's real-line check)."""
    from cgconfig.cli.render import locked_line

    plan = _plan(tmp_path, "cuda_graph_config: {enable_padding: true, max_batch_size: 64}",
                 "--max_batch_size", "32")
    line = locked_line(plan)
    assert "options.disable_padding=false" in line and "decode.max_bs" in line
