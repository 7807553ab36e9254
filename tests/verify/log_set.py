"""The real-log set: excerpts of server logs others published (tests/data/verify_logs/), each with
its source, what a careful reader finds in it, and the verdict a careful operator would give.

``python -m tests.verify.log_set`` prints the table (engine, format, version, counts read,
verdict against the operator's) and the counts for the report; ``test_log_set.py`` holds each
row to it. Excerpts are kept as published; where a published line was cut, the file ends
there. ``vllm_25848_full67.log`` keeps the thread's lines with its long bar glyph runs
shortened; ``trtllm_jeansblog_4_warmups.log`` is the first nine lines of
``trtllm_jeansblog.log`` (an excerpt that shows 4 of 11 warm-up lines, as threads often quote).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

LOGS = Path(__file__).parents[1] / "data" / "verify_logs"
SGLANG_DECODE_512 = [1, 2, 4, 8, 12, *range(16, 257, 8), *range(272, 513, 16)]
JEANS_LINE = ("trtllm-serve", "openai/gpt-oss-120b", "--max_batch_size", "64",
              "--trust_remote_code", "--port", "8355", "--host", "0.0.0.0",
              "--extra_llm_api_options", str(LOGS / "trtllm_jeansblog_extra.yml"))
JEANS = "https://github.com/jeansblog/trt_llm/blob/bd60fddc2941401fc6182da80ebcd4741e66fe15/README.md"

SGL_OLD = "SGLang 0.4-0.5.13"
SGL_PCG = "SGLang 0.5.6-0.5.13"
SGL_NEW = "SGLang 0.5.18+"
V1 = "vLLM 0.10-0.33 (V1 engine)"
V1_EARLY = "vLLM 0.8-0.10.1 (V1 engine)"
V0 = "vLLM V0 engine (0.10 and older)"
TRT = "TensorRT-LLM 1.x (PyTorch backend)"


@dataclass(frozen=True)
class LogCase:
    """One excerpt, what it shows, and the operator's verdict."""

    name: str
    url: str
    engine: str
    era: str | None
    version: str | None
    graphs: dict[str, int] = field(default_factory=dict)
    """Group → graphs the excerpt shows (a list's length, or the bar's / line's count)."""
    lists: dict[str, list[int]] = field(default_factory=dict)
    """Group → the exact list the excerpt prints."""
    line: tuple[str, ...] = ()
    """The launch line (or cgconfig facts) the thread gives."""
    interval: int = 40
    operator: str = "matches"
    """The verdict a careful operator gives from the excerpt (and the thread's line)."""
    why: str = ""


CASES = [
    # -- SGLang ---------------------------------------------------------------------------
    LogCase("sglang_musa_pr20758.log", "https://github.com/sgl-project/sglang/pull/20758",
            "sglang", SGL_PCG, None, {"decode": 4, "prefill": 5},
            {"decode": [1, 2, 4, 8], "prefill": [4, 8, 12, 16, 20]}, operator="cannot judge",
            why="the legacy + piecewise lines are 0.5.6-0.5.13's; cgconfig models 0.5.19+"),
    LogCase("sglang_pr11716.log", "https://github.com/sgl-project/sglang/pull/11716",
            "sglang", SGL_OLD, None, {"decode": 52}, {"decode": SGLANG_DECODE_512},
            operator="cannot judge", why="0.4-0.5.13 format (no prefill graphs then)"),
    LogCase("sglang_pr13023.log", "https://github.com/sgl-project/sglang/pull/13023",
            "sglang", None, None, line=("--gpu-memory-gib", "45"), operator="warn",
            why="2 decode lines x 40 = 80 steps at 36 and 46 ran without a graph: the plan's "
                "own eager range on the thread's L40S, but the operator should widen it"),
    LogCase("sglang_pr22166.log", "https://github.com/sgl-project/sglang/pull/22166",
            "sglang", None, None, operator="warn",
            why="per-step lines only: nothing about the capture to check"),
    LogCase("sglang_qwen3_8b_elided.log",
            "a public repository document's expected start-up log (code-search file id "
            "52132052242)", "sglang", SGL_PCG, None, {"decode": 52, "prefill": 74},
            operator="cannot judge", why="0.5.6-0.5.13 format"),
    LogCase("sglang_10088_legacy_draft.log", "https://github.com/sgl-project/sglang/issues/10088",
            "sglang", SGL_OLD, None, operator="cannot judge", why="0.4-0.5.13 end lines"),
    LogCase("sglang_0.4_bare_bar_23.log",
            "a public repository document's SGLang 2025-01 server log (code-search file id "
            "18084549501)", "sglang", SGL_OLD, None, {"decode": 23}, operator="cannot judge",
            why="0.4.x: an unlabelled 23/23 bar between begin and end; no prefill graphs then"),
    LogCase("sglang_2026_02_granite_legacy.log",
            "a public repository document's SGLang 2026-02 bench log (code-search file id "
            "46857556603)", "sglang", SGL_OLD, None, {"decode": 4}, {"decode": [1, 2, 4, 8]},
            operator="cannot judge", why="legacy lines in 2026: a release before 0.5.18"),
    LogCase("sglang_2026_04_tp2_legacy.log",
            "a public repository document's SGLang 2026-04 TP2 log (code-search file id "
            "53944457073)", "sglang", SGL_OLD, None, {"decode": 7},
            {"decode": [1, 2, 4, 8, 12, 16, 24]}, operator="cannot judge",
            why="legacy lines; the excerpt ends at 0/7"),
    LogCase("sglang_8336_draft_legacy.log", "https://github.com/sgl-project/sglang/issues/8336",
            "sglang", SGL_OLD, None, {"draft decode": 2}, operator="cannot judge",
            why="0.4-0.5.13 draft lines (EAGLE-3, 2025-07)"),
    LogCase("sglang_5029_capture_failed.log", "https://github.com/sgl-project/sglang/issues/5029",
            "sglang", SGL_OLD, None, operator="cannot judge",
            why="SGLang 0.4.4 (the thread's image): the crash is named, the release is not "
                "one cgconfig models"),
    LogCase("sglang_1479_capture_crash.log", "https://github.com/sgl-project/sglang/issues/1479",
            "sglang", SGL_OLD, None, operator="cannot judge",
            why="2024-09 (0.3.x): eight ranks begin, TP4's capture raises; release not modelled"),
    LogCase("sglang_2026_05_lora_eager_steps.log",
            "a public repository's SGLang LoRA notebook output, 2026-05 (code-search file id "
            "56673501152)", "sglang", None, None, operator="warn",
            why="no capture lines; every step ran without a graph (the notebook's server has "
                "graphs off); 50.69 GB free at weight load is read as the GPU's memory"),
    LogCase("sglang_new_end_only_ornith.log",
            "a public repository document's load log (code-search file id 56671970114)",
            "sglang", SGL_NEW, None, operator="warn",
            why="one decode end line with neither list nor count, no launch arguments"),
    LogCase("sglang_new_dsv4_steps.log",
            "a public repository runbook's expected DeepSeek-V4 log (code-search file id "
            "54942251315)", "sglang", SGL_NEW, None, operator="warn",
            why="prefill disabled by the engine, but without the launch line the plan is a "
                "generic model's defaults"),
    LogCase("gen_sglang_0.5.23_l40.log", "generated from SGLang 0.5.23's log format (not a "
            "published log; README example)", "sglang", SGL_NEW, None,
            {"decode": 8, "prefill": 50}, line=("--gpu-memory-gib", "45"), operator="warn",
            why="generated: 240 decode steps ran without a graph"),
    # -- vLLM -----------------------------------------------------------------------------
    LogCase("vllm_v0_pr11349.log", "https://github.com/vllm-project/vllm/pull/11349",
            "vllm", V0, None, {"decode FULL": 35}, operator="cannot judge",
            why="V0 engine (0.6): decode graphs only, no mixed ones"),
    LogCase("vllm_pr46389.log", "https://github.com/vllm-project/vllm/pull/46389",
            "vllm", V1, None, {"mixed PIECEWISE": 51, "decode FULL": 35}, operator="warn",
            why="the excerpt ends at decode FULL 18/35"),
    LogCase("vllm_pr33756.log", "https://github.com/vllm-project/vllm/pull/33756",
            "vllm", V1, None, {"mixed PIECEWISE": 83, "decode FULL": 83},
            operator="cannot judge", why="no version line; 83 graphs is not the defaults"),
    LogCase("vllm_0.11.0_qwen3vl_tp4.log",
            "a public repository README's 'Example server output' (code-search file id "
            "42514581982)", "vllm", V1, "0.11.0", {"mixed PIECEWISE": 67, "decode FULL": 35},
            operator="cannot judge", why="vLLM 0.11 (its 67-size grid); cgconfig models 0.20.2+"),
    LogCase("vllm_53013.log", "https://github.com/vllm-project/vllm/issues/53013",
            "vllm", None, None, operator="warn", why="an estimate line only"),
    LogCase("vllm_v0_4432_capture_crash.log", "https://github.com/vllm-project/vllm/issues/4432",
            "vllm", V0, None, operator="cannot judge",
            why="V0 (0.4): the capture crashed, named as seen; the release is not modelled"),
    LogCase("vllm_v0_mlcommons2408.log", "https://github.com/mlcommons/inference/issues/2408",
            "vllm", V0, None, operator="cannot judge", why="V0's capture line (0.6.x)"),
    LogCase("vllm_v0_0.6.6_rust2107.log",
            "https://github.com/rust-lang/www.rust-lang.org/issues/2107", "vllm", None, "0.6.6",
            operator="cannot judge", why="vLLM 0.6.6 config line (the line is cut as posted)"),
    LogCase("vllm_v0_0.6.4_13027_eager.log", "https://github.com/vllm-project/vllm/pull/13027",
            "vllm", None, "0.6.4.post2.dev395+g02222a02.d20241217", operator="cannot judge",
            why="V0 0.6.4 with enforce_eager=True"),
    LogCase("vllm_lmcache2522_enforce_eager.log", "https://github.com/LMCache/LMCache/pull/2522",
            "vllm", None, None, operator="matches",
            why="enforce_eager: the server captured nothing, as its arguments say"),
    LogCase("vllm_v0_lmcache503.log", "https://github.com/LMCache/LMCache/issues/503",
            "vllm", V0, None, operator="cannot judge", why="V0 (0.8) decoding capture"),
    LogCase("vllm_0.10_23739_shapes.log", "https://github.com/vllm-project/vllm/issues/23739",
            "vllm", V1_EARLY, None, {"mixed PIECEWISE": 53}, operator="cannot judge",
            why="'Capturing CUDA graph shapes' on V1: 0.10.1 or older"),
    LogCase("vllm_pangu_27521_downgrade.log", "https://github.com/vllm-project/vllm/pull/27521",
            "vllm", V1, None, {"mixed PIECEWISE": 67}, operator="cannot judge",
            why="2025-10, 67-size grid, no version line"),
    LogCase("vllm_45150_partial.log", "https://github.com/vllm-project/vllm/pull/45150",
            "vllm", V1, None, {"mixed PIECEWISE": 51}, operator="warn",
            why="the excerpt ends at 32/51"),
    LogCase("vllm_34154_rocm_partial.log", "https://github.com/vllm-project/vllm/issues/34154",
            "vllm", V1, None, {"mixed PIECEWISE": 51}, operator="warn",
            why="the excerpt ends at 28/51"),
    LogCase("vllm_25848_full67.log", "https://github.com/vllm-project/vllm/issues/25848",
            "vllm", V1, None, {"decode FULL": 67}, operator="cannot judge",
            why="2025-09, 67 FULL graphs, no version line"),
    LogCase("dynamo_4087_piecewise67.log", "https://github.com/ai-dynamo/dynamo/issues/4087",
            "vllm", V1, None, {"mixed PIECEWISE": 67}, operator="cannot judge",
            why="67-size grid (0.11 era), no version line"),
    LogCase("vllm_0.9.2_22721_rocm.log", "https://github.com/vllm-project/vllm/pull/22721",
            "vllm", None, "0.9.2rc2.dev1221+ga4eaba3e8", operator="cannot judge",
            why="vLLM 0.9.2 (ROCm)"),
    LogCase("vllm_0.26.0_mrv2_t4.log",
            "a public repository notebook's vLLM 0.26.0 run (code-search file id 69421856836)",
            "vllm", V1, "0.26.0", {"mixed PIECEWISE": 51, "decode FULL": 35},
            operator="matches",
            why="Model Runner V2 '(PIECEWISE)'/'(FULL)' bars; 15.55 GiB GPU from the log"),
    LogCase("vllm_club356_pool.log", "https://github.com/noonghunna/club-3090/issues/356",
            "vllm", V1, None, {"mixed PIECEWISE": 5}, operator="cannot judge",
            why="no version line and no launch arguments"),
    LogCase("vllm_mrv2_full35_summary.log",
            "a public repository report's quoted capture lines (code-search file id "
            "60779019717)", "vllm", V1, None, {"decode FULL": 35}, operator="cannot judge",
            why="two quoted lines, no version"),
    LogCase("vllm_v0_7593_gemma_l4.log", "https://github.com/vllm-project/vllm/issues/7593",
            "vllm", V0, None, operator="cannot judge", why="V0 (0.5) on 8 L4"),
    LogCase("vllm_v0_0.8_17939.log", "https://github.com/vllm-project/vllm/issues/17939",
            "vllm", V0, None, {"decode FULL": 35}, operator="cannot judge",
            why="V0 (0.8.x): 35 decode graphs"),
    LogCase("vllm_glmv208_piecewise67.log", "https://github.com/zai-org/GLM-V/issues/208",
            "vllm", V1, None, {"mixed PIECEWISE": 67}, operator="cannot judge",
            why="67-size grid, no version line; the excerpt ends at 23/67 before the crash"),
    LogCase("vllm_v0_14447_decoding.log", "https://github.com/vllm-project/vllm/pull/14447",
            "vllm", V0, None, operator="cannot judge", why="V0 (0.8) decoding capture"),
    # -- TensorRT-LLM ---------------------------------------------------------------------
    LogCase("trtllm_jeansblog.log", JEANS, "trtllm", TRT, "1.1.0rc3", {"decode": 11},
            {"decode": [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]}, line=JEANS_LINE,
            why="the launch pads to 128; TensorRT-LLM captured the 11 sizes up to 64"),
    LogCase("trtllm_jeansblog_4_warmups.log", JEANS, "trtllm", TRT, "1.1.0rc3", {"decode": 11},
            line=JEANS_LINE, why="11 announced, 4 warm-up lines shown: 11 graphs, not 4"),
    LogCase("trtllm_1.1.0rc3_pytorchconfig.log", JEANS, "trtllm", TRT, "1.1.0rc3",
            {"decode": 11}, {"decode": [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]},
            why="no launch line: PyTorchConfig's padding and max batch 128, the executor's "
                "max_batch_size 64 and 119.70 GiB come from the log"),
    LogCase("trtllm_18242_skip_warmup.log", "https://github.com/NVIDIA/TensorRT-LLM/pull/18242",
            "trtllm", TRT, None, operator="differs",
            why="2026-08: the warm-up of batch 32 was skipped (not enough KV cache)"),
]


def measure() -> list[dict[str, object]]:
    """One row per excerpt: what verify read and decided, against the excerpt and operator."""
    from cgconfig.verify.check import verify
    from cgconfig.verify.read import read_log

    rows: list[dict[str, object]] = []
    for case in CASES:
        record = read_log(str(LOGS / case.name), interval=case.interval)
        verdict = verify(record, list(case.line))
        read = {g: c.graphs for g, c in record.captures.items() if c.graphs is not None}
        rows.append({
            "log": case.name, "engine": record.engine, "format": record.era,
            "version": record.version, "graphs": read,
            "lists": {g: len(c.sizes) for g, c in record.captures.items() if c.sizes},
            "verdict": verdict.level, "operator": case.operator,
            "read_ok": (record.engine == case.engine and record.era == case.era
                        and record.version == case.version
                        and all(read.get(g) == n for g, n in case.graphs.items())
                        and all(record.captures[g].sizes == s for g, s in case.lists.items())),
            "reason": (verdict.reasons or ["the log agrees with the plan"])[0][:110],
        })
    return rows


def main() -> None:
    """Print the table and the counts."""
    rows = measure()
    for row in rows:
        mark = "ok " if row["verdict"] == row["operator"] else "XX "
        print(f"{mark}{row['log'][:36]:36} {row['engine']:6} {str(row['format'])[:27]:27} "
              f"{str(row['version'])[:12]:12} {str(row['graphs'])[:44]:44} "
              f"{row['verdict']:12} (operator: {row['operator']})")
    real = [r for r in rows if not str(r["log"]).startswith("gen_")]
    print(f"{len(real)} real logs: read as the excerpt shows {sum(bool(r['read_ok']) for r in real)}"
          f"/{len(real)}; verdict as the operator's "
          f"{sum(r['verdict'] == r['operator'] for r in real)}/{len(real)}")


if __name__ == "__main__":
    main()
