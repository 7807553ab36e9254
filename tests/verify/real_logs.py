"""The real-log measurement set: excerpts published by others, with what a careful reader finds
in each (read by hand from the excerpt and its thread), for ``test_real_logs.py`` and for
``python -m tests.verify.real_logs`` (the figures in the report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

LOGS = Path(__file__).parent / "logs"
SGLANG_DECODE_512 = [1, 2, 4, 8, 12, *range(16, 257, 8), *range(272, 513, 16)]


@dataclass(frozen=True)
class RealLog:
    """One excerpt and what it shows."""

    name: str
    url: str
    engine: str
    era: str
    version: str | None = None
    lists: dict[str, list[int]] = field(default_factory=dict)
    """Group → the captured list the log prints."""
    counts: dict[str, int] = field(default_factory=dict)
    """Group → the graph count where only a count is printed."""
    line: tuple[str, ...] | None = None
    """The launch line the thread gives, when it gives one."""
    verdict: str | None = None
    """``matches`` or ``differs`` for that line, by hand: the plan against the log."""
    why: str = ""


REAL_LOGS = [
    RealLog("sglang_musa_pr20758.log", "https://github.com/sgl-project/sglang/pull/20758",
            "sglang", "SGLang 0.5.6-0.5.17",
            lists={"decode": [1, 2, 4, 8], "prefill": [4, 8, 12, 16, 20]}),
    RealLog("sglang_pr11716.log", "https://github.com/sgl-project/sglang/pull/11716",
            "sglang", "SGLang 0.4-0.5.17", lists={"decode": SGLANG_DECODE_512}),
    RealLog("sglang_pr13023.log", "https://github.com/sgl-project/sglang/pull/13023",
            "sglang", "unknown", line=("--gpu-memory-gib", "45", "--decode-log-interval", "1"),
            verdict="matches",
            why="the thread's L40S (46068 MiB): the plan's largest decode size is 32; the log's "
                "steps at 36 and 46 ran eagerly, those at 28 and below on a graph"),
    RealLog("sglang_pr22166.log", "https://github.com/sgl-project/sglang/pull/22166",
            "sglang", "unknown"),
    RealLog("sglang_qwen3_8b_elided.log",
            "a public repository document's expected start-up log (code-search file id "
            "52132052242; repository not resolved): Qwen3-8B, 2026-04, lists elided as [1, 2, 4, ...]",
            "sglang", "SGLang 0.5.6-0.5.17", counts={"decode": 52, "prefill": 74}),
    RealLog("vllm_v0_pr11349.log", "https://github.com/vllm-project/vllm/pull/11349",
            "vllm", "vLLM 0.6-0.9 (V0 engine)", counts={"decode FULL": 35},
            line=("vllm", "serve", "meta-llama/Llama-3.2-1B-Instruct"), verdict="differs",
            why="vLLM 0.6's V0 engine captured 35 decode graphs and no mixed ones; vLLM "
                "0.33.0's rules capture FULL decode and PIECEWISE mixed graphs"),
    RealLog("vllm_pr46389.log", "https://github.com/vllm-project/vllm/pull/46389",
            "vllm", "vLLM 0.10-0.33 (V1 engine)",
            counts={"mixed PIECEWISE": 51, "decode FULL": 35}),
    RealLog("vllm_pr33756.log", "https://github.com/vllm-project/vllm/pull/33756",
            "vllm", "vLLM 0.10-0.33 (V1 engine)",
            counts={"mixed PIECEWISE": 83, "decode FULL": 83}),
    RealLog("vllm_0.11.0_qwen3vl_tp4.log",
            "a public repository README's 'Example server output' (code-search file id "
            "42514581982; repository not resolved): vllm serve Qwen3-VL-30B-A3B, 4x RTX 3090",
            "vllm", "vLLM 0.10-0.33 (V1 engine)", version="0.11.0",
            counts={"mixed PIECEWISE": 67, "decode FULL": 35}, line=(), verdict="differs",
            why="the arguments come from the log; vLLM 0.11's grid has 67 sizes to 512 (step 8), "
                "vLLM 0.33.0's rules give 51; the FULL decode graphs (35, up to max_num_seqs "
                "256) agree"),
    RealLog("vllm_53013.log", "https://github.com/vllm-project/vllm/issues/53013",
            "vllm", "unknown"),
    RealLog("trtllm_jeansblog.log",
            "https://github.com/jeansblog/trt_llm/blob/bd60fddc2941401fc6182da80ebcd4741e66fe15/README.md",
            "trtllm", "TensorRT-LLM 1.x (PyTorch backend)", version="1.1.0rc3",
            lists={"decode": [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]},
            line=("trtllm-serve", "openai/gpt-oss-120b", "--max_batch_size", "64",
                  "--trust_remote_code", "--port", "8355", "--host", "0.0.0.0",
                  "--extra_llm_api_options", str(LOGS / "trtllm_jeansblog_extra.yml")),
            verdict="matches",
            why="the launch (jeansblog/trt_llm setup_and_run.sh) pads to 128; TensorRT-LLM "
                "captured only the 11 sizes up to max_batch_size 64, and so does the plan "
                "(model_engine._filter_cuda_graph_batch_sizes)"),
]


def measure() -> list[dict[str, object]]:
    """One row per log: what verify read against what the excerpt shows."""
    from cgconfig.verify.check import verify
    from cgconfig.verify.read import read_log

    rows: list[dict[str, object]] = []
    for log in REAL_LOGS:
        interval = 1 if log.line and "--decode-log-interval" in log.line else 40
        record = read_log(str(LOGS / log.name), interval=interval)
        lists_ok = all(record.captures.get(g) is not None and record.captures[g].sizes == s
                       for g, s in log.lists.items())
        counts_ok = all(record.captures.get(g) is not None and record.captures[g].graphs == c
                        for g, c in log.counts.items())
        verdict = None
        if log.line is not None:
            line = [t for t in log.line if t not in ("--decode-log-interval", "1")]
            verdict = "matches" if verify(record, line).matches else "differs"
        rows.append({"log": log.name, "engine": record.engine == log.engine,
                     "format": (record.era or "unknown") == log.era,
                     "version": record.version == log.version, "lists": lists_ok,
                     "counts": counts_ok, "n_lists": len(log.lists), "n_counts": len(log.counts),
                     "verdict": verdict, "verdict_expected": log.verdict})
    return rows


if __name__ == "__main__":
    table = measure()
    for row in table:
        print(row)
    n = len(table)
    print(f"engine {sum(bool(r['engine']) for r in table)}/{n}, "
          f"format {sum(bool(r['format']) for r in table)}/{n}, "
          f"version {sum(bool(r['version']) for r in table)}/{n}, "
          f"lists {sum(int(r['n_lists']) for r in table if r['lists'])}/"
          f"{sum(int(r['n_lists']) for r in table)}, "
          f"counts {sum(int(r['n_counts']) for r in table if r['counts'])}/"
          f"{sum(int(r['n_counts']) for r in table)}, "
          f"verdicts {sum(r['verdict'] == r['verdict_expected'] for r in table if r['verdict'])}/"
          f"{sum(1 for r in table if r['verdict'])}")
