"""Real log excerpts from public threads: engine, format and every captured list read exactly.

Each case names the thread the excerpt was published in (tests/verify/log_set.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cgconfig.verify.read import read_log

LOGS = Path(__file__).parents[1] / "data" / "verify_logs"
SGLANG_DECODE_512 = [1, 2, 4, 8, 12, *range(16, 257, 8), *range(272, 513, 16)]

CASES = [
    # (file, url, engine, format, {group: (sizes or None, graphs, memory, seconds)})
    ("sglang_musa_pr20758.log", "https://github.com/sgl-project/sglang/pull/20758",
     "sglang", "SGLang 0.5.6-0.5.13",
     {"decode": ([1, 2, 4, 8], 4, 0.83, 27.41), "prefill": ([4, 8, 12, 16, 20], 5, None, None)}),
    ("sglang_pr11716.log", "https://github.com/sgl-project/sglang/pull/11716",
     "sglang", "SGLang 0.4-0.5.13", {"decode": (SGLANG_DECODE_512, 52, None, None)}),
    ("vllm_v0_pr11349.log", "https://github.com/vllm-project/vllm/pull/11349",
     "vllm", "vLLM V0 engine (0.10 and older)", {"decode FULL": (None, 35, None, None)}),
    ("vllm_pr46389.log", "https://github.com/vllm-project/vllm/pull/46389",
     "vllm", "vLLM 0.10-0.33 (V1 engine)",
     {"mixed PIECEWISE": (None, 51, None, None), "decode FULL": (None, 35, None, None)}),
    ("vllm_pr33756.log", "https://github.com/vllm-project/vllm/pull/33756",
     "vllm", "vLLM 0.10-0.33 (V1 engine)",
     {"mixed PIECEWISE": (None, 83, None, None), "decode FULL": (None, 83, None, None)}),
]


@pytest.mark.parametrize(("name", "url", "engine", "era", "groups"), CASES,
                         ids=[c[0] for c in CASES])
def test_real_capture_lines(name: str, url: str, engine: str, era: str,
                            groups: dict[str, tuple[list[int] | None, int, float | None,
                                                    float | None]]) -> None:
    record = read_log(str(LOGS / name))
    assert (record.engine, record.era) == (engine, era), url
    assert set(record.captures) == set(groups), url
    for group, (sizes, graphs, memory, seconds) in groups.items():
        capture = record.captures[group]
        assert capture.sizes == sizes, url
        assert capture.graphs == graphs, url
        assert (capture.memory_gib, capture.seconds) == (memory, seconds), url


def test_v0_totals() -> None:
    """https://github.com/vllm-project/vllm/pull/11349: 14 secs, 0.21 GiB."""
    record = read_log(str(LOGS / "vllm_v0_pr11349.log"))
    assert (record.total_seconds, record.total_memory_gib) == (14.0, 0.21)


def test_interleaved_ranks_take_rank_zero() -> None:
    """https://github.com/sgl-project/sglang/pull/11716: TP7 and TP2 begin first; only TP0
    prints the list, and the record is TP0's."""
    record = read_log(str(LOGS / "sglang_pr11716.log"))
    assert {"TP0", "TP2", "TP7"} <= record.ranks
    assert record.captures["decode"].line == 4


def test_decode_steps_with_and_without_graph() -> None:
    """https://github.com/sgl-project/sglang/pull/13023: two steps ran without a graph."""
    record = read_log(str(LOGS / "sglang_pr13023.log"), interval=1)
    steps = record.steps["decode"]
    assert dict(steps.eager) == {46: 1, 36: 1}
    assert dict(steps.graph) == {28: 1, 22: 1, 20: 1, 15: 1}


def test_prefill_steps() -> None:
    """https://github.com/sgl-project/sglang/pull/22166: prefill lines with `cuda graph: True`."""
    record = read_log(str(LOGS / "sglang_pr22166.log"), interval=40)
    assert dict(record.steps["prefill"].graph) == {158: 1, 290: 1}
    assert dict(record.steps["decode"].graph) == {32: 40}


def test_estimate_with_a_multi_rank_prefix() -> None:
    """https://github.com/vllm-project/vllm/issues/53013: `(Worker_DP1_TP1_EP3 pid=...)`."""
    record = read_log(str(LOGS / "vllm_53013.log"))
    assert record.engine == "vllm" and record.estimate_gib == {"total": 118.65}


def test_an_elided_list_is_not_read_as_a_list() -> None:
    """`Capture cuda graph bs [1, 2, 4, ...]` as a document quoted it: the count comes from the
    progress bar (52/52), the list is not guessed."""
    record = read_log(str(LOGS / "sglang_qwen3_8b_elided.log"))
    decode, prefill = record.captures["decode"], record.captures["prefill"]
    assert (decode.sizes, decode.graphs, prefill.sizes, prefill.graphs) == (None, 52, None, 74)
