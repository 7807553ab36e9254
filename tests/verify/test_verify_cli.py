"""``cgconfig verify`` end to end on generated logs (formats as in each engine's source, see
docs/verify.md): matches, differs, bad input, hostile input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.verify.read import read_lines

LAUNCH = ["python", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]


def _plan_sizes(phase: str) -> list[int]:
    from cgconfig.api import resolve_args

    return resolve_args(LAUNCH).capture_sizes(phase)


def _sglang_log(decode: list[int], prefill: list[int], steps: list[tuple[int, bool]]) -> str:
    """An SGLang 0.5.23 log as cuda_graph_setup.py and metrics_reporter.py print it."""
    lines = [
        "[2026-11-01 10:00:00 TP0] Capture target decode CUDA graph begin. backend=full, "
        "num_tokens_per_req=1, avail mem=60.00 GB",
        f"[2026-11-01 10:00:05 TP0] Capture target decode CUDA graph end. bs={decode}, "
        "elapsed=5.10 s, mem usage=0.50 GB, avail mem=59.50 GB.",
        f"[2026-11-01 10:00:05 TP0] Capture target prefill CUDA graph begin. backend=breakable, "
        f"num_tokens={prefill}, avail mem=59.50 GB",
        "[2026-11-01 10:00:15 TP0] Capture target prefill CUDA graph end. elapsed=10.00 s, "
        "mem usage=1.25 GB, avail mem=58.25 GB.",
    ]
    for size, graph in steps:
        lines.append(f"[2026-11-01 10:01:00 TP0] Decode batch, #running-req: {size}, #token: 9, "
                     f"token usage: 0.10, cuda graph: {graph}, gen throughput (token/s): 1.00, "
                     "#queue-req: 0")
    return "\n".join(lines) + "\n"


def test_matches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "server.log"
    log.write_text(_sglang_log(_plan_sizes("decode"), _plan_sizes("prefill"), [(8, True)]))
    assert main(["verify", str(log), *LAUNCH]) == 0
    out = capsys.readouterr().out
    assert out.startswith("matches: ") and "0.50 GB" in out and "10.00 s" in out


def test_differs_names_the_decision(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decode = _plan_sizes("decode")[:-3]
    log = tmp_path / "server.log"
    log.write_text(_sglang_log(decode, _plan_sizes("prefill"), [(250, False), (8, True)]))
    assert main(["verify", str(log), *LAUNCH, "-o", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "differs"
    (diff,) = doc["differences"]
    assert diff["group"] == "decode" and "not captured: 240, 248, 256" in diff["planned"]
    assert "decode.max_bs" in diff["plan_decision"]
    (eager,) = doc["eager"]
    assert eager["eager_steps"] == 40 and eager["eager_sizes"] == [250, 250]


def test_eager_steps_name_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "server.log"
    log.write_text(_sglang_log(_plan_sizes("decode"), _plan_sizes("prefill"),
                               [(300, False), (420, False), (8, True)]))
    assert main(["verify", str(log), *LAUNCH]) == 4  # warn: steps ran without a graph
    out = capsys.readouterr().out
    assert out.startswith("warn: 80 decode steps ran without a graph (sizes 300..420)\n")
    assert "80 without a graph (sizes 300..420)" in out
    assert "--cuda-graph-max-bs-decode 420 would cover them" in out


def test_unknown_format_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "server.log"
    log.write_text("hello\nworld\n")
    assert main(["verify", str(log)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Capture" in captured.err
    assert main(["verify", str(tmp_path / "missing")]) == 2
    capsys.readouterr()
    assert main(["verify"]) == 2  # #35 O8: bare verify is an error line, not the usage
    bare = capsys.readouterr()
    assert bare.out == "" and bare.err.startswith("cgconfig: error: ") and \
        bare.err.count("\n") == 1


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    text = _sglang_log(_plan_sizes("decode"), _plan_sizes("prefill"), [])
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["verify", "-", *LAUNCH]) == 0


def test_escape_codes_never_reach_the_terminal(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    decode = _plan_sizes("decode")
    text = _sglang_log(decode, _plan_sizes("prefill"), []).replace(
        "backend=full", "backend=full\x07\x1b[2J\x9b")
    log = tmp_path / "server.log"
    log.write_text(text)
    assert main(["verify", str(log), *LAUNCH]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\x07" in out and "\\x9b" in out


def test_vllm_args_and_profiling() -> None:
    """vLLM 0.33.0 lines (entrypoints/common/startup.py, v1/worker/gpu_model_runner.py)."""
    lines = [
        "(APIServer pid=1) INFO 11-01 10:00:00 [startup.py:96] non-default args: "
        "{'model_tag': 'org/m', 'model': 'org/m', 'max_num_seqs': 64}",
        "(EngineCore_DP0 pid=2) INFO 11-01 10:00:01 [core.py:140] Initializing a V1 LLM engine "
        "(v0.33.0) with config: model='org/m', compilation_config={'cudagraph_capture_sizes': "
        "[1, 2, 4, 8], 'max_cudagraph_capture_size': 8}",
        "(EngineCore_DP0 pid=2) INFO 11-01 10:00:09 [gpu_model_runner.py:6304] Profiling CUDA "
        "graph memory: FULL=35 (largest=256), PIECEWISE=51 (largest=512)",
        "(EngineCore_DP0 pid=2) INFO 11-01 10:00:20 [gpu_model_runner.py:6517] Graph capturing "
        "finished in 9 secs, took 0.61 GiB",
    ]
    record = read_lines(lines, "log")
    assert (record.engine, record.version) == ("vllm", "0.33.0")
    assert record.args == {"model_tag": "org/m", "model": "org/m", "max_num_seqs": 64}
    assert record.configured_sizes == [1, 2, 4, 8]
    full, piecewise = record.captures["profiled FULL"], record.captures["profiled PIECEWISE"]
    assert (full.count, full.largest, piecewise.count, piecewise.largest) == (35, 256, 51, 512)
    assert (record.total_seconds, record.total_memory_gib) == (9.0, 0.61)


def test_trtllm_warmup_lines() -> None:
    """TensorRT-LLM 1.x _torch/pyexecutor/model_engine.py warmup lines."""
    lines = ["[TensorRT-LLM] TensorRT-LLM version: 1.2.0",
             "[12/01/2026-10:00:00] [TRT-LLM] [I] Creating CUDA graph instances for 3 batch sizes.",
             *(f"[12/01/2026-10:00:0{i}] [TRT-LLM] [I] Run generation only CUDA graph warmup for "
               f"batch size={bs}, draft_len=0" for i, bs in enumerate((4, 2, 1)))]
    record = read_lines(lines, "log")
    assert (record.engine, record.version) == ("trtllm", "1.2.0")
    capture = record.captures["decode"]
    assert (capture.sizes, capture.count) == ([1, 2, 4], 3)


@pytest.mark.parametrize("line", [
    "Decode batch " * 5000,
    "Capture target decode CUDA graph end. bs=[" + "1, " * 20000,
    "non-default args: {" + "'a': [" * 5000,
    "server_args=ServerArgs(" + "(" * 30000,
    "Decode batch, #running-req: " + "9" * 5000,
    "Decode batch, #running-req: \u0668, cuda graph: True",
])
def test_hostile_lines_are_linear_and_never_raise(line: str) -> None:
    start = time.process_time()
    try:
        record = read_lines([line] * 30, "log")
    except Exception as error:  # only the one-line "no known format" error is allowed
        from cgconfig.errors import InputError

        assert isinstance(error, InputError)
    else:
        assert all(s for steps in record.steps.values() for s in steps.total())
    assert time.process_time() - start < 2.0


def test_metrics_scrape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """sglang:cuda_graph_passes_total / graph_memory_usage_gb as SGLang 0.5.23's
    observability/metrics_collector.py exports them (two ranks' label sets add up)."""
    log = tmp_path / "server.log"
    log.write_text(_sglang_log(_plan_sizes("decode"), _plan_sizes("prefill"), []))
    scrape = tmp_path / "metrics.txt"
    scrape.write_text(
        "# HELP sglang:cuda_graph_passes_total Total number of forward passes.\n"
        'sglang:cuda_graph_passes_total{model_name="m",tp_rank="0",mode="decode_cuda_graph"} 900.0\n'
        'sglang:cuda_graph_passes_total{model_name="m",tp_rank="0",mode="decode_none"} 100.0\n'
        'sglang:cuda_graph_passes_total{model_name="m",tp_rank="1",mode="decode_none"} 100.0\n'
        'sglang:graph_memory_usage_gb{model_name="m",phase="decode"} 0.5\n')
    assert main(["verify", str(log), "--metrics", str(scrape), *LAUNCH, "-o", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    assert metrics == {"passes decode_cuda_graph": 900.0, "passes decode_none": 200.0,
                       "graph memory GB decode": 0.5}
    empty = tmp_path / "empty.txt"
    empty.write_text("up 1\n")
    assert main(["verify", str(log), "--metrics", str(empty), *LAUNCH]) == 2
