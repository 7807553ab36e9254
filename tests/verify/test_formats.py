"""Each format as its engine's source prints it (generated lines; docs/verify.md names the
source of each), and the launch line a log implies."""

from __future__ import annotations

from cgconfig.verify.check import launch_for, verify
from cgconfig.verify.read import read_lines


def test_dp_attention_prefixes_count_each_rank() -> None:
    """SGLang's prefix `[time DP2 TP2 EP2]` (utils/common.py configure_logger); each attention-DP
    rank logs its own decode line (metrics_reporter.py is_stats_logging_rank)."""
    lines = [f"[2026-11-01 10:00:00 DP{r} TP{r} EP{r}] Decode batch, #running-req: {n}, #token: 1, "
             f"token usage: 0.01, cuda graph: True, gen throughput (token/s): 1.00, #queue-req: 0"
             for r, n in ((0, 8), (1, 9), (2, 8), (3, 12))]
    record = read_lines(lines, "log", interval=40)
    assert record.ranks == {"DP0 TP0 EP0", "DP1 TP1 EP1", "DP2 TP2 EP2", "DP3 TP3 EP3"}
    assert dict(record.steps["decode"].graph) == {8: 80, 9: 40, 12: 40}


def test_sglang_0_5_18_prints_the_decode_list_on_the_begin_line() -> None:
    """0.5.18 cuda_graph_setup.py: `begin. backend=..., num_tokens_per_req=..., bs=[...]`."""
    record = read_lines([
        "[t TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, "
        "bs=[1, 2, 4, 8], avail mem=70.00 GB",
        "[t TP0] Capture target decode CUDA graph end. elapsed=1.50 s, mem usage=0.30 GB, "
        "avail mem=69.70 GB."], "log")
    capture = record.captures["decode"]
    assert (capture.sizes, capture.backend, capture.seconds, capture.memory_gib) == (
        [1, 2, 4, 8], "full", 1.5, 0.3)
    assert record.era == "SGLang 0.5.18+"


def test_sglang_legacy_draft_and_cpu_lines() -> None:
    """0.4.10 speculative/eagle_worker.py draft lines; 0.5.10 `Capture cpu graph bs [...]`."""
    record = read_lines([
        "[t TP0] Capture cpu graph begin. This can take up to several minutes. avail mem=9.00 GB",
        "[t TP0] Capture cpu graph bs [1, 2]",
        "[t TP0] Capture draft cuda graph begin. This can take up to several minutes. avail mem=8 GB",
        "[t TP0] Capture draft cuda graph end. Time elapsed: 3.00 s. mem usage=0.20 GB. avail "
        "mem=7.80 GB."], "log")
    assert record.captures["decode"].sizes == [1, 2]
    assert record.captures["draft decode"].memory_gib == 0.2


def test_server_args_repr_becomes_a_launch_line() -> None:
    """0.4.10-0.5.18 `server_args=ServerArgs(...)`: graph flags kept, others dropped, an old
    spelling cgconfig still reads written as its replacement (every supported release reads
    it), a removed one left out with a note."""
    line = ("[t] server_args=ServerArgs(model_path='org/m', tokenizer_path='org/m', tp_size=2, "
            "cuda_graph_max_bs=8, enable_piecewise_cuda_graph=True, watchdog_timeout=300, "
            "lora_paths=None)")
    record = read_lines([line, "[t TP0] Capture cuda graph bs [1, 2, 4, 8]"], "log")
    argv, source, _ = launch_for(record, [], "0.5.23")
    assert argv == ["python", "-m", "sglang.launch_server", "--model-path", "org/m",
                    "--tp-size", "2", "--cuda-graph-max-bs-decode", "8",
                    "--enable-piecewise-cuda-graph"]
    assert source.startswith("log line 1")
    # ``ServerArgs(...)`` is 0.4.10-0.5.18's: judged only when the user names a release.
    assert verify(record, ["--gpu-memory-gib", "80"]).level == "cannot judge"
    result = verify(record, ["--gpu-memory-gib", "80"], engine_version="sglang==0.5.23")
    assert result.comparison is not None
    assert "--enable-piecewise-cuda-graph" not in result.comparison.argv
    assert any("left out --enable-piecewise-cuda-graph" in n for n in result.notes)
    assert result.comparison.expected[0].sizes[-1] == 8


def test_vllm_debug_lines_give_the_exact_list_and_downgrades_are_kept() -> None:
    """0.33.0 compilation/cuda_graph.py DEBUG capture lines; config/compilation.py downgrade."""
    lines = [
        "(Worker_TP0 pid=1) WARNING 11-01 10:00:00 [compilation.py:1414] CUDAGraphMode."
        "FULL_AND_PIECEWISE is not supported with TRITON_ATTN backend (support: UNIFORM_BATCH); "
        "setting cudagraph_mode=FULL_DECODE_ONLY",
        *(f"(Worker_TP0 pid=1) DEBUG 11-01 10:00:01 [cuda_graph.py:274] Capturing a cudagraph on "
          f"(FULL,BatchDescriptor(num_tokens={n}, num_reqs={n}, uniform=True, has_lora=False))"
          for n in (4, 2, 1)),
    ]
    record = read_lines(lines, "log")
    assert record.captures["decode FULL"].sizes == [1, 2, 4]
    assert record.downgrades[0][0] == 1 and "FULL_DECODE_ONLY" in record.downgrades[0][1]


def test_vllm_banner_version() -> None:
    """0.15+ start-up banner (entrypoints/utils.py)."""
    record = read_lines([
        "(APIServer pid=1) INFO 03-10 15:49:42 [utils.py:302]  \u2584\u2584 \u2584\u2588 \u2588"
        "     \u2588     \u2588 \u2580\u2584\u2580 \u2588  version 0.17.0",
        "(APIServer pid=1) INFO 03-10 15:49:42 [utils.py:238] non-default args: {'model_tag': "
        "'openai/gpt-oss-20b', 'model': 'openai/gpt-oss-20b', 'gpu_memory_utilization': 0.8}"],
        "log")
    assert record.version == "0.17.0" and record.args is not None


def _sglang_0_5_13_log(decode: list[int], prefill: list[int]) -> list[str]:
    """A 0.5.13 start-up with --enable-breakable-cuda-graph: its own server_args dump
    (tests/data/server_args), then model_runner.py's capture lines and
    breakable_cuda_graph_runner.py's ``[BCG] Capture num tokens`` inside the piecewise ones."""
    import json
    from pathlib import Path

    rows = (Path(__file__).parents[1] / "data" / "server_args" / "sglang.jsonl").read_text()
    dump = next(json.loads(r)["line"] for r in rows.splitlines() if '"0.5.13"' in r)
    assert "enable_breakable_cuda_graph=False" in dump
    dump = dump.replace("enable_breakable_cuda_graph=False", "enable_breakable_cuda_graph=True")
    return [f"[t] {dump}",
            "[t TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=60.00 GB",
            f"[t TP0] Capture cuda graph bs {decode}",
            "[t TP0] Capture cuda graph end. Time elapsed: 9.00 s. mem usage=1.00 GB. avail mem=59.00 GB.",
            "[t TP0] Capture piecewise CUDA graph begin. avail mem=59.00 GB",
            f"[t TP0] [BCG] Capture num tokens: {prefill}",
            "[t TP0] Capture piecewise CUDA graph end. Time elapsed: 12.00 s. mem usage=0.80 GB. "
            "avail mem=58.20 GB."]


def test_sglang_0_5_13_breakable_prefill_sizes_are_read_and_judged_by_0_5_13() -> None:
    first = verify(read_lines(_sglang_0_5_13_log([1, 2], [4, 8]), "log"), [])
    assert first.release is not None and first.release.chosen is not None
    assert first.release.chosen.version == "0.5.13"
    record = first.record
    assert record.captures["prefill"].backend == "breakable"
    assert record.captures["prefill"].size_source.startswith("[BCG]")
    assert any(h.what.startswith("'[BCG]") and (h.oldest, h.newest) == ("0.5.11", "0.5.13")
               for h in record.hints)
    assert first.comparison is not None
    want = {w.group: w.sizes for w in first.comparison.expected}
    assert want["prefill"] and want["decode"]
    same = verify(read_lines(_sglang_0_5_13_log(want["decode"], want["prefill"]), "log"), [])
    assert same.level == "matches", same.reasons
    short = verify(read_lines(_sglang_0_5_13_log(want["decode"], want["prefill"][:-1]), "log"), [])
    assert short.level == "differs"
    assert any(d.group == "prefill" for d in short.comparison.differences)  # type: ignore[union-attr]
