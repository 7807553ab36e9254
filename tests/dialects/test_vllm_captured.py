"""The graphs vLLM's model runner captures (``cgconfig.engines.vllm.captured``), the one list
``resolve``, ``explain``, ``--emit``, ``diff``, ``tune`` and ``verify`` share.

Expected lists are written out by hand from each release's code:
- V1 runner, 0.20.2-0.33.0: ``vllm/v1/cudagraph_dispatcher.py:
  CudagraphDispatcher.initialize_cudagraph_keys``: FULL decode keys for the sizes ``x`` with
  ``uniform_decode_query_len <= x <= uniform_decode_query_len * max_num_seqs``;
- Model Runner V2, 0.20.2-0.24.0: ``vllm/v1/worker/gpu/cudagraph_utils.py:
  CudaGraphManager._init_candidates``: the same window (``decode_query_len <= num_tokens <=
  max_decode_tokens``); 0.21.0-0.24.0 ``CudaGraphManager.__init__`` first calls
  ``adjust_cudagraph_sizes_for_spec_decode`` in every mode;
- Model Runner V2, 0.25.1, 0.27.1, 0.31.0, 0.33.0: ``ModelCudaGraphManager._init_candidates``:
  ``round_up(num_tokens, decode_query_len)``, skipped above ``max_decode_tokens`` or
  ``max_cudagraph_capture_size``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.engines.vllm.captured import captured_lists, plan_groups
from cgconfig.engines.vllm.modes import CudaGraphMode, phases_to_mode
from cgconfig.engines.vllm.verify import expected_groups
from cgconfig.line.versions import choose
from cgconfig.plan import Plan

GRID_512 = [1, 2, 4, *range(8, 249, 8), *range(256, 513, 16)]
F = CudaGraphMode


def plan(*line: str, version: str | None = None, memory: str | None = None,
         sm: str | None = None) -> Plan:
    facts = ([] if memory is None else ["--gpu-memory-gib", memory]) + \
        ([] if sm is None else ["--gpu-sm", sm]) + ["--model-arch", "LlamaForCausalLM"]
    request = request_from_argv([*facts, "vllm", "serve", "meta-llama/Llama-3.1-8B", *line],
                                environ={}, engine_version=None if version is None
                                else choose("vllm", version, "test"))
    return resolve_request(request)


def mode_of(p: Plan) -> str:
    return phases_to_mode(p.backend("decode"), p.backend("prefill")).mode.name


# ---- the issue's lines (vLLM 0.33.0's code; Model Runner V2) ------------------------------

def test_max_num_seqs_64_captures_11_full_graphs_up_to_64() -> None:
    p = plan("--max-num-seqs", "64")
    assert p.capture_sizes("decode") == [1, 2, 4, *range(8, 65, 8)]  # 11 graphs
    assert p.capture_sizes("prefill") == [1, 2, 4, *range(8, 129, 8)]  # 19 mixed graphs


def test_unknown_gpu_memory_captures_35_full_graphs_up_to_256() -> None:
    """max_num_seqs 256 (the small default tier): the four public logs' 35 graphs."""
    p = plan()
    assert p.capture_sizes("decode") == [1, 2, 4, *range(8, 257, 8)]
    assert len(p.capture_sizes("decode")) == 35
    assert p.capture_sizes("prefill") == GRID_512


def test_a100_80gb_keeps_the_small_tier() -> None:
    """``EngineArgs.get_batch_defaults``: ``"a100" not in device_name`` for the 70 GiB tier."""
    p = plan(memory="80", sm="80")
    assert p.capture_sizes("decode")[-1] == 256
    assert plan(memory="80", sm="90").capture_sizes("decode")[-1] == 512


def test_max_num_seqs_32() -> None:
    p = plan("--max-num-seqs", "32")
    assert p.capture_sizes("decode") == [1, 2, 4, 8, 16, 24, 32]
    assert p.capture_sizes("prefill") == [1, 2, 4, *range(8, 65, 8)]


def test_explicit_sizes_above_max_num_seqs() -> None:
    p = plan("--max-num-seqs", "64", "--cudagraph-capture-sizes", "32", "128", "256")
    assert p.config["decode"]["bs"] == [32, 128, 256]
    assert p.capture_sizes("decode") == [32]
    assert p.capture_sizes("prefill") == [32, 128, 256]
    assert any(d.rule == "vllm.full-decode-window" for d in p.decisions)


def test_v2_rounds_decode_sizes_up_to_multiples_of_q() -> None:
    """eagle3, 3 draft tokens, max_num_seqs 256: round_up(n, 4) ≤ 1024 and ≤ 512."""
    p = plan("--speculative-config",
             '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
             '"num_speculative_tokens": 3}')
    decode = p.capture_sizes("decode")
    assert decode[:4] == [4, 8, 16, 24] and decode[-1] == 512
    assert all(s % 4 == 0 for s in decode)
    assert 1 in p.capture_sizes("prefill")  # the mixed graphs keep the unrounded list


def test_no_size_left_keeps_the_mode_label() -> None:
    """Every size above max_num_batched_tokens: vLLM keeps FULL_AND_PIECEWISE, captures none."""
    p = plan("--max-num-batched-tokens", "100", "--cudagraph-capture-sizes", "128", "256")
    assert mode_of(p) == "FULL_AND_PIECEWISE"
    assert p.capture_sizes("decode") == p.capture_sizes("prefill") == []


# ---- the release bugs (0.27.1 / 0.31.0) ----------------------------------------------------

@pytest.mark.parametrize("version", ["0.27.1", "0.31.0"])
def test_dotted_ngram_runs_on_the_v1_runner(version: str) -> None:
    """``VllmConfig._get_v2_model_runner_unsupported_features``: n-gram stays on V1 in 0.27/0.31,
    whose B7 rounds the one list: 48 sizes from 8 in steps of 8 (the JSON form agrees)."""
    dotted = plan("--speculative-config.method", "ngram",
                  "--speculative-config.num_speculative_tokens", "7",
                  "--speculative-config.prompt_lookup_max", "4", version=version)
    json_form = plan("--speculative-config",
                     '{"method": "ngram", "num_speculative_tokens": 7, "prompt_lookup_max": 4}',
                     version=version)
    expected = [*range(8, 249, 8), *range(256, 513, 16)]  # 48 sizes, all ≤ 256 requests × 8
    assert dotted.config["decode"]["bs"] == json_form.config["decode"]["bs"] == expected
    assert dotted.capture_sizes("decode") == json_form.capture_sizes("decode") == expected


@pytest.mark.parametrize(("version", "mode"), [("0.27.1", "FULL_AND_PIECEWISE"),
                                               ("0.31.0", "FULL_AND_PIECEWISE"),
                                               ("0.33.0", "FULL")])
def test_flash_attn_on_blackwell(version: str, mode: str) -> None:
    """``flash_attn.py``: ALWAYS only ``if get_flash_attn_version() == 3`` before 0.33 (``in
    (3, 4)`` from 0.33); Blackwell runs FlashAttention 4, so UNIFORM_BATCH → B2."""
    p = plan("--attention-backend", "FLASH_ATTN", "-cc.cudagraph_mode=FULL", version=version,
             memory="180", sm="100")
    assert mode_of(p) == mode


def test_v2_runner_of_0_23_rounds_in_every_mode() -> None:
    """0.23.0 ``CudaGraphManager.__init__``: PIECEWISE graphs at multiples of 3 too."""
    p = plan("--speculative-config",
             '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
             '"num_speculative_tokens": 2}', "-cc.cudagraph_mode=PIECEWISE",
             "--max-cudagraph-capture-size", "100", version="0.23.0")
    assert p.capture_sizes("prefill") == [3, 6, 9, 18, 24, 33, 42, 48, 57, 66, 72, 81, 90, 96]


# ---- the window rule itself ----------------------------------------------------------------

@pytest.mark.parametrize("release", ["0.20.2", "0.27.1", "0.31.0", "0.33.0"])
def test_v1_window(release: str) -> None:
    lists = captured_lists(F.FULL_AND_PIECEWISE, [4, 8, 12, 16, 24, 32], max_num_seqs=4,
                           tokens_per_request=4, v2_runner=False, release=release)
    assert lists.full_decode == (4, 8, 12, 16)
    assert lists.mixed == (4, 8, 12, 16, 24, 32)


@pytest.mark.parametrize(("release", "full"), [("0.20.2", (5, 8, 10)), ("0.24.0", (5, 10)),
                                               ("0.25.1", (5, 10)), ("0.27.1", (5, 10)),
                                               ("0.33.0", (5, 10))])
def test_v2_window_by_release(release: str, full: tuple[int, ...]) -> None:
    """Sizes 1, 2, 5, 8, 10, 16, q = 5, max_num_seqs 2: 0.20.2 keeps 5..10 as listed; 0.21-0.24
    round the list first ({5, 10, 20}); 0.25+ round each size up, ≤ 10."""
    lists = captured_lists(F.FULL_DECODE_ONLY, [1, 2, 5, 8, 10, 16], max_num_seqs=2,
                           tokens_per_request=5, v2_runner=True, release=release)
    assert lists.full_decode == full
    assert lists.mixed == ()


def test_full_mode_has_no_separate_decode_graphs() -> None:
    lists = captured_lists(F.FULL, [1, 2, 4, 512], max_num_seqs=2, tokens_per_request=1,
                           v2_runner=True, release="0.33.0")
    assert lists.full_decode == () and lists.decode_steps == (1, 2, 4, 512)
    assert lists.groups() == {"FULL": {"mixed": [1, 2, 4, 512]}}


@given(st.lists(st.integers(1, 2048), min_size=1, max_size=40), st.integers(1, 2048),
       st.integers(1, 8), st.booleans())
def test_full_decode_graphs_are_whole_requests_within_the_window(
        sizes: list[int], seqs: int, q: int, v2: bool) -> None:
    lists = captured_lists(F.FULL_AND_PIECEWISE, sizes, max_num_seqs=seqs,
                           tokens_per_request=q, v2_runner=v2, release="0.33.0")
    assert all(q <= n <= seqs * q and n <= max(sizes) for n in lists.full_decode)
    if v2:  # every graph is round_up of a listed size
        assert all(n % q == 0 for n in lists.full_decode)
    assert list(lists.mixed) == sorted(set(sizes))


# ---- one list for every command --------------------------------------------------------------

def test_verify_expects_the_plans_lists() -> None:
    p = plan("--max-num-seqs", "64")
    groups = {g.group: g.sizes for g in expected_groups(p, [])}
    assert groups == {"decode FULL": p.capture_sizes("decode"),
                      "mixed PIECEWISE": p.capture_sizes("prefill")}
    assert plan_groups(p.config, p.capture) == {
        "FULL": {"uniform_decode": p.capture_sizes("decode")},
        "PIECEWISE": {"mixed": p.capture_sizes("prefill")}}
