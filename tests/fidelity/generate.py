"""Random SGLang 0.5.23 and vLLM 0.33.0 inputs for the differential fidelity corpus.

Run by hand (``python tests/fidelity/record.py``), never in CI: the generator draws launch lines
over every graph-relevant flag and platform, the recorder asks the engines' real resolution code
for their answers, and the test suite replays the recorded answers against cgconfig.

A case is a dict: ``argv`` (the engine's own flags, exactly as a user would type them) plus the
machine it runs on (``platform``, ``gpu_memory_gib``, ``sm``) and the model (``model``, one of
:data:`MODELS`). The recorder turns the machine into the oracle's options; the test turns it into
cgconfig's deployment facts.
"""

from __future__ import annotations

import json
import random
from typing import Any

#: Model shapes the cases run against (the same shapes the recorder writes as config.json).
MODELS = ("llama", "llama-2", "qwen3_moe", "deepseek_v3", "qwen3_vl", "qwen3_5_moe_vl",
          "MuseGlimmerForCausalLM")
MODEL_WEIGHTS = (40, 6, 14, 14, 8, 4, 4)

#: SGLang 0.5.23 ``--attention-backend`` choices (``sglang/srt/arg_groups/choices.py``), plus
#: names it rejects, so refusals are exercised too.
ATTENTION_BACKENDS = ("triton", "torch_native", "flex_attention", "dsa", "nsa", "fa3", "fa4",
                      "flashinfer", "flashmla", "trtllm_mla", "cutedsl_mla", "trtllm_mha", "aiter",
                      "wave", "intel_amx", "ascend", "intel_xpu", "cutlass_mla")
BACKENDS = ("full", "breakable", "disabled")
GPU_MEMORY_GIB = (16, 24, 40, 48, 59.5, 80, 96, 141, 180, 256)
SPEC_ALGOS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH")
A2A = ("none", "deepep", "mooncake", "nixl", "mori", "flashinfer", "megamoe")
DECODE_SIZES = (0, 1, 2, 3, 8, 12, 16, 20, 48, 64, 100, 128, 160, 256, 300, 512, 1024)
PREFILL_SIZES = (2, 4, 64, 256, 512, 964, 1000, 2048, 4096, 8192, 16384)


def _maybe(rng: random.Random, p: float) -> bool:
    return rng.random() < p


def _size_list(rng: random.Random, pool: tuple[int, ...]) -> list[str]:
    return [str(v) for v in sorted(rng.sample([v for v in pool if v > 0], rng.randint(1, 4)))]


def _graph_flags(rng: random.Random) -> list[str]:
    argv: list[str] = []
    for phase in ("decode", "prefill"):
        if _maybe(rng, 0.25):
            argv += [f"--cuda-graph-backend-{phase}", rng.choice(BACKENDS)]
        if _maybe(rng, 0.2):
            argv += [f"--cuda-graph-max-bs-{phase}",
                     str(rng.choice(DECODE_SIZES if phase == "decode" else PREFILL_SIZES))]
        if _maybe(rng, 0.08):
            argv += [f"--cuda-graph-bs-{phase}",
                     *_size_list(rng, DECODE_SIZES if phase == "decode" else PREFILL_SIZES)]
    for flag, p in (("--disable-cuda-graph", 0.05), ("--disable-decode-cuda-graph", 0.04),
                    ("--disable-prefill-cuda-graph", 0.05), ("--disable-cuda-graph-padding", 0.07),
                    ("--enable-torch-compile", 0.06)):
        if _maybe(rng, p):
            argv.append(flag)
    if _maybe(rng, 0.05):
        argv += ["--torch-compile-max-bs", str(rng.choice((8, 16, 32, 64)))]
    if _maybe(rng, 0.12):
        doc: dict[str, Any] = {}
        for phase in ("decode", "prefill"):
            sub: dict[str, Any] = {}
            if _maybe(rng, 0.5):
                sub["backend"] = rng.choice(BACKENDS)
            if _maybe(rng, 0.4):
                sub["max_bs"] = rng.choice(DECODE_SIZES[1:] if phase == "decode" else PREFILL_SIZES)
            if sub:
                doc[phase] = sub
        argv += ["--cuda-graph-config", json.dumps(doc, separators=(",", ":"))]
    return argv


def _parallel_flags(rng: random.Random) -> list[str]:
    argv: list[str] = []
    tp = rng.choice((1, 1, 2, 4, 8))
    if tp > 1:
        argv += ["--tp-size", str(tp)]
    if _maybe(rng, 0.06):
        argv += ["--pp-size", "2"]
    if _maybe(rng, 0.15) and tp > 1:
        dp = rng.choice([d for d in (2, 4, 8) if d <= tp] or [2])
        argv += ["--dp-size", str(dp)]
        if _maybe(rng, 0.8):
            argv.append(rng.choice(("--enable-dp-attention", "--enable-dp-attention")))
    if _maybe(rng, 0.06):
        argv += ["--attn-cp-size", str(rng.choice((2, 4)))]
        if _maybe(rng, 0.5):
            argv.append("--enable-prefill-cp")
        if _maybe(rng, 0.5):
            argv += ["--cp-strategy", rng.choice(("zigzag", "interleave"))]
    return argv


def _feature_flags(rng: random.Random, model: str) -> list[str]:
    argv: list[str] = []
    if _maybe(rng, 0.25):
        argv += ["--attention-backend", rng.choice(ATTENTION_BACKENDS)]
    if _maybe(rng, 0.05):
        argv += ["--prefill-attention-backend", rng.choice(ATTENTION_BACKENDS)]
    if _maybe(rng, 0.05):
        argv += ["--decode-attention-backend", rng.choice(ATTENTION_BACKENDS)]
    if _maybe(rng, 0.12):
        argv += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    if _maybe(rng, 0.12):
        algo = rng.choice(SPEC_ALGOS)
        argv += ["--speculative-algorithm", algo]
        if algo not in ("NGRAM", "NEXTN"):
            argv += ["--speculative-draft-model-path", "@llama"]
        if _maybe(rng, 0.6):
            argv += ["--speculative-num-draft-tokens", str(rng.choice((2, 3, 4, 8)))]
        if _maybe(rng, 0.5):
            argv += ["--speculative-num-steps", str(rng.choice((1, 2, 3)))]
        if _maybe(rng, 0.4):
            argv += ["--speculative-eagle-topk", str(rng.choice((1, 2, 4)))]
    if model in ("qwen3_moe", "deepseek_v3") and _maybe(rng, 0.3):
        argv += ["--moe-a2a-backend", rng.choice(A2A)]
        if _maybe(rng, 0.5):
            argv += ["--deepep-mode", rng.choice(("auto", "normal", "low_latency"))]
    for flag, p in (("--enable-two-batch-overlap", 0.04), ("--enable-memory-saver", 0.05),
                    ("--enable-unified-memory", 0.03), ("--enable-deterministic-inference", 0.03),
                    ("--enable-return-hidden-states", 0.03)):
        if _maybe(rng, p):
            argv.append(flag)
    if _maybe(rng, 0.04):
        argv += ["--enable-lora"] + (["--lora-paths", "a=/x", "b=/y"] if _maybe(rng, 0.5) else [])
    return argv


def _size_facts(rng: random.Random) -> list[str]:
    argv: list[str] = []
    if _maybe(rng, 0.15):
        argv += ["--chunked-prefill-size", str(rng.choice((-1, 256, 1024, 2048, 4096, 8192, 16384)))]
    if _maybe(rng, 0.15):
        argv += ["--max-running-requests", str(rng.choice((8, 32, 48, 100, 300, 1024)))]
    if _maybe(rng, 0.05):
        argv += ["--context-length", str(rng.choice((2048, 4096, 32768)))]
    if _maybe(rng, 0.06):
        argv += ["--max-total-tokens", str(rng.choice((1000, 4096, 100000)))]
    if _maybe(rng, 0.05):
        argv += ["--page-size", str(rng.choice((1, 16, 64)))]
    return argv


def _absent(argv: list[str], *flags: str) -> bool:
    return not any(flag in argv for flag in flags)


def _refusal_flags(rng: random.Random, model: str, argv: list[str]) -> list[str]:
    """More of the inputs SGLang 0.5.23 refuses over (``focus="refusals"``): speculative tree
    drafts with paged KV and page-forcing backends, megamoe hardware and overlap, unified
    memory with drafts, DFLASH under DP attention, LoRA with drafts, context lengths around
    the model's, deterministic inference, MLA prefill CP. Flags already drawn are kept."""
    extra: list[str] = []
    if _absent(argv, "--speculative-algorithm") and _maybe(rng, 0.35):
        algo = rng.choice(SPEC_ALGOS)
        extra += ["--speculative-algorithm", algo]
        if algo not in ("NGRAM", "NEXTN"):
            extra += ["--speculative-draft-model-path", "@llama"]
        if algo != "NGRAM" and _maybe(rng, 0.7):
            steps = rng.choice((1, 2, 3))
            extra += ["--speculative-num-steps", str(steps),
                      "--speculative-eagle-topk", str(rng.choice((1, 2, 4)))]
            if _maybe(rng, 0.5):
                extra += ["--speculative-num-draft-tokens", str(rng.choice((4, 8)))]
        if _maybe(rng, 0.15):
            extra.append("--enable-dp-lm-head")
    if _absent(argv, "--page-size") and _maybe(rng, 0.3):
        extra += ["--page-size", str(rng.choice((1, 16, 32, 64, 128)))]
    if _absent(argv, "--attention-backend") and _maybe(rng, 0.3):
        extra += ["--attention-backend", rng.choice(("flashmla", "trtllm_mha", "trtllm_mla",
                                                     "intel_xpu", "fa3", "fa4", "flashinfer",
                                                     "triton", "torch_native"))]
    if model in ("qwen3_moe", "deepseek_v3") and _absent(argv, "--moe-a2a-backend") \
            and _maybe(rng, 0.25):
        extra += ["--moe-a2a-backend", rng.choice(("megamoe", "megamoe", "deepep", "flashinfer"))]
        if _maybe(rng, 0.3):
            extra.append("--enable-two-batch-overlap")
    if _absent(argv, "--tp-size") and _maybe(rng, 0.2):
        tp = rng.choice((2, 4, 8))
        extra += ["--tp-size", str(tp), "--dp-size", str(rng.choice((2, tp))),
                  "--enable-dp-attention"]
    for flag, p in (("--enable-unified-memory", 0.12), ("--enable-deterministic-inference", 0.1),
                    ("--enable-dp-lm-head", 0.05)):
        if _absent(argv + extra, flag) and _maybe(rng, p):
            extra.append(flag)
    if _absent(argv, "--enable-lora") and _maybe(rng, 0.08):
        extra += ["--enable-lora", "--lora-paths", "a=/x"]
    if _absent(argv, "--context-length") and _maybe(rng, 0.1):
        extra += ["--context-length", str(rng.choice((4096, 8192, 65536, 262144)))]
    if model == "deepseek_v3" and _absent(argv, "--attn-cp-size") and _maybe(rng, 0.15):
        extra += ["--attn-cp-size", str(rng.choice((2, 4))), "--enable-prefill-cp",
                  "--cp-strategy", rng.choice(("zigzag", "interleave"))]
    return extra


def _graph_flag_draws(rng: random.Random, argv: list[str]) -> list[str]:
    """The SGLang 0.5.23 flags of issue #9 that its resolution reads while deciding the graph
    config (``focus="graphflags"``): PD-multiplexing and its companions, the overlap schedule,
    a speculative draft path, embedding models, DWDP and msprobe. Flags already drawn are kept."""
    extra: list[str] = []
    if _maybe(rng, 0.35):
        extra.append("--enable-pdmux")
        if _absent(argv, "--chunked-prefill-size") and _maybe(rng, 0.7):
            extra += ["--chunked-prefill-size", "-1"]
        if _maybe(rng, 0.7):
            extra.append("--disable-overlap-schedule")
    elif _maybe(rng, 0.3):
        extra.append("--disable-overlap-schedule")
    if _absent(argv, "--speculative-draft-model-path") and _maybe(rng, 0.2):
        extra += ["--speculative-draft-model-path", "@llama"]
    if _maybe(rng, 0.1):
        extra.append("--is-embedding")
    if _absent(argv, "--tp-size") and _maybe(rng, 0.1):
        extra += ["--tp-size", "2", "--attn-dp-size", "2"]
    if _maybe(rng, 0.05):
        extra += ["--dwdp-size", "2"]
    return extra


#: SGLang 0.5.23 ``--moe-a2a-backend`` values the default generator does not draw
#: (``sglang/srt/arg_groups/choices.py``).
A2A_MORE = ("deepep_v2", "flashinfer_megamoe", "pplx", "ascend_tp")
#: ``--disaggregation-transfer-backend`` choices of SGLang 0.5.23.
TRANSFER_BACKENDS = ("mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp")


def _engine_check_draws(rng: random.Random, argv: list[str]) -> list[str]:
    """The SGLang 0.5.23 start-up checks of issue #20 (``focus="enginechecks"``): attention DP
    by ``--attn-dp-size`` at any tp, multi-item scoring with and without flashinfer, the newer
    MoE all-to-all backends on dense and MoE models, the KV transfer backend under PD
    disaggregation, UNO with and without its LoRA, DFLASH and DSPARK block sizes, LoRA under
    every draft algorithm, decode context parallelism, and the prefill graph's context bucket
    around the model's context. Flags already drawn are kept."""
    extra: list[str] = []
    if _absent(argv, "--dp-size", "--attn-dp-size") and _maybe(rng, 0.15):
        extra += ["--attn-dp-size", str(rng.choice((2, 4, 8)))]
    if _maybe(rng, 0.12):
        extra.append("--enable-mis")
        if _absent(argv, "--attention-backend") and _maybe(rng, 0.4):
            extra += ["--attention-backend", "flashinfer"]
    if _absent(argv, "--moe-a2a-backend") and _maybe(rng, 0.15):
        extra += ["--moe-a2a-backend", rng.choice(A2A_MORE)]
    if _maybe(rng, 0.15):
        extra += ["--disaggregation-transfer-backend", rng.choice(TRANSFER_BACKENDS)]
        if _absent(argv, "--disaggregation-mode") and _maybe(rng, 0.6):
            extra += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    if _absent(argv, "--speculative-algorithm") and _maybe(rng, 0.2):
        algo = rng.choice(("UNO", "DFLASH", "DSPARK", "FROZEN_KV_MTP", "EAGLE", "NGRAM"))
        extra += ["--speculative-algorithm", algo]
        if algo in ("DFLASH", "DSPARK", "EAGLE"):
            extra += ["--speculative-draft-model-path", "@llama"]
        if algo == "UNO" and _maybe(rng, 0.6):
            extra += ["--uno-lora-path", "/uno"]
        if algo in ("DFLASH", "DSPARK") and _maybe(rng, 0.6):
            extra += [f"--speculative-{algo.lower()}-block-size", str(rng.choice((0, 3, 4, 7, 8)))]
        if _maybe(rng, 0.5):
            extra += ["--speculative-num-draft-tokens", str(rng.choice((4, 8, 16)))]
        if _absent(argv, "--enable-lora") and _maybe(rng, 0.25):
            extra += ["--enable-lora", "--lora-paths", "a=/x"]
    if _maybe(rng, 0.1):
        extra += ["--dcp-size", str(rng.choice((2, 4)))]
    if _maybe(rng, 0.12):
        extra += ["--cuda-graph-prefill-max-context",
                  str(rng.choice((1000, 4096, 8192, 40960, 131072, 200000, 1000000)))]
    return extra


#: Graph flags and values that one SGLang release of 0.5.19 to 0.5.23 has and another lacks
#: (the releases' flag tables, ``ServerArgs.add_cli_args`` of each): what a release leak
#: shows up on. Drawn by ``focus="releases"``.
RELEASE_FLAGS: tuple[tuple[str, ...], ...] = (
    ("--cuda-graph-max-bs", "64"), ("--cuda-graph-bs", "1", "2", "8"),
    ("--disable-piecewise-cuda-graph",), ("--enforce-piecewise-cuda-graph",),
    ("--piecewise-cuda-graph-compiler", "eager"), ("--piecewise-cuda-graph-max-tokens", "2048"),
    ("--cuda-graph-tc-compiler", "eager"), ("--cuda-graph-backend-prefill", "tc_piecewise"),
    ("--cuda-graph-backend-decode", "tc_piecewise"), ("--context-bucket", "4096"),
    ("--cuda-graph-max-seq-len-prefill", "4096"), ("--cuda-graph-prefill-max-context", "8192"),
    ("--cuda-graph-config", '{"prefill":{"max_seq_len":4096}}'),
    ("--cuda-graph-config", '{"prefill":{"max_context_size":8192}}'),
    ("--cuda-graph-config", '{"prefill":{"backend":"tc_piecewise"}}'),
    ("--enable-hicache",), ("--speculative-skip-dp-mlp-sync",), ("--enable-kv-cache-sharding",),
    ("--attn-dp-size", "2"), ("--enable-breakable-cuda-graph",), ("--stream-output",),
    ("--cuda-graph-max-bs-decode", "0"), ("--cuda-graph-max-bs-prefill", "0"),
    ("--cuda-graph-max-bs-decode", "-4"), ("--cuda-graph-bs-decode", "0", "4"),
)


#: The tc_piecewise backend's words of :data:`RELEASE_FLAGS` (SGLang 0.5.19-0.5.21).
TC_PIECEWISE_FLAGS = tuple(words for words in RELEASE_FLAGS
                           if any("tc_" in w or "tc-" in w or w in ("--enforce-piecewise-cuda-graph",
                                                      "--piecewise-cuda-graph-compiler")
                                  for w in words))


def _release_draws(rng: random.Random, argv: list[str]) -> list[str]:
    """One to three of :data:`RELEASE_FLAGS` (``focus="releases"``)."""
    extra: list[str] = []
    for words in rng.sample(RELEASE_FLAGS, rng.randint(1, 3)):
        if words[0] not in argv + extra:
            extra += list(words)
    return extra


def _startup_check_draws(rng: random.Random, model: str, argv: list[str]) -> list[str]:
    """The start-up refusals issue #31 found unmodelled (``focus="startupchecks"``): a chunked
    prefill that is no multiple of the page size (flashmla's 64, or ``--page-size``), EAGLE
    with a draft on flashmla / trtllm_mha with page 64, ``--enable-kv-cache-sharding`` on and
    off a prefill server, the FlashInfer all-to-all under DP attention on any model, MLA
    prefill CP with ``--dp-size 8``; and the tc_piecewise backend of 0.5.19-0.5.21."""
    extra: list[str] = []
    if _absent(argv, "--chunked-prefill-size") and _maybe(rng, 0.4):
        extra += ["--chunked-prefill-size", str(rng.choice((1000, 2500, 3000, 3072, 4096)))]
    if _absent(argv, "--page-size", "--attention-backend") and _maybe(rng, 0.4):
        extra += rng.choice((["--attention-backend", "flashmla"], ["--page-size", "64"],
                             ["--page-size", "16"], ["--attention-backend", "trtllm_mha",
                                                     "--page-size", "64"]))
    if _absent(argv, "--speculative-algorithm") and _maybe(rng, 0.25):
        extra += ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "@llama"]
    if _maybe(rng, 0.12):
        extra.append("--enable-kv-cache-sharding")
        if _absent(argv, "--disaggregation-mode") and _maybe(rng, 0.5):
            extra += ["--disaggregation-mode", "prefill"]
    if _absent(argv, "--moe-a2a-backend", "--tp-size", "--dp-size") and _maybe(rng, 0.2):
        extra += ["--tp-size", "2", "--dp-size", "2", "--enable-dp-attention",
                  "--moe-a2a-backend", "flashinfer"]
    if model == "deepseek_v3" and _absent(argv, "--dp-size", "--enable-prefill-cp") \
            and _maybe(rng, 0.4):
        extra += ["--dp-size", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]
    if _maybe(rng, 0.15):
        extra += list(rng.choice(TC_PIECEWISE_FLAGS))
    return extra


def sglang_case(rng: random.Random, case_id: int, focus: str | None = None) -> dict[str, Any]:
    """One random SGLang launch line with the machine and model it runs on. ``focus="refusals"``
    adds :func:`_refusal_flags` (drawn after the rest, so the default stream is unchanged)."""
    platform = rng.choices(("cuda", "hip", "xpu", "cpu"), weights=(76, 12, 6, 6))[0]
    model = rng.choices(MODELS, weights=MODEL_WEIGHTS)[0]
    argv = _graph_flags(rng) + _parallel_flags(rng) + _feature_flags(rng, model) + _size_facts(rng)
    if platform in ("xpu", "cpu"):
        argv += ["--device", platform]
    case = {
        "id": case_id,
        "platform": platform,
        "gpu_memory_gib": rng.choice(GPU_MEMORY_GIB),
        "sm": rng.choices((90, 100, 80), weights=(80, 14, 6))[0] if platform == "cuda" else 90,
        "model": model,
        "argv": argv,
    }
    if focus == "refusals":
        case["argv"] = argv + _refusal_flags(rng, model, argv)
    elif focus == "graphflags":
        case["argv"] = argv + _graph_flag_draws(rng, argv)
    elif focus == "enginechecks":
        case["argv"] = argv + _engine_check_draws(rng, argv)
    elif focus == "releases":
        case["argv"] = argv + _release_draws(rng, argv)
    elif focus == "startupchecks":
        case["argv"] = argv + _startup_check_draws(rng, model, argv)
    return case


VLLM_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
VLLM_SUPPORT = ("ALWAYS", "UNIFORM_BATCH", "UNIFORM_SINGLE_TOKEN_DECODE", "NEVER")


def vllm_case(rng: random.Random, case_id: int) -> dict[str, Any]:
    """One random vLLM compilation input (the oracle's option names)."""
    case: dict[str, Any] = {
        "id": case_id,
        "cudagraph_mode": rng.choice(VLLM_MODES),
        "support": rng.choice(VLLM_SUPPORT),
        "num_spec_tokens": rng.choice((0, 0, 0, 1, 2, 3, 5, 16)),
        "splitting_ops_attention": rng.choice(("auto", "auto", "yes", "no")),
        "compilation_mode": rng.choices(
            ("VLLM_COMPILE", "NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE"), weights=(7, 1, 1, 1))[0],
        "max_num_seqs": rng.choice((1, 8, 16, 32, 128, 256, 512, 1024)),
        "max_num_batched_tokens": rng.choice((16, 512, 2048, 8192, 16384, 32768)),
        "blackwell": _maybe(rng, 0.15),
        "enforce_eager": _maybe(rng, 0.05),
    }
    if _maybe(rng, 0.2):
        pool = (1, 2, 4, 8, 16, 24, 32, 64, 128, 256, 512)
        case["capture_sizes"] = sorted(rng.sample(pool, rng.randint(1, 5)))
    if _maybe(rng, 0.2):
        case["max_capture_size"] = rng.choice((8, 32, 100, 256, 512, 2048))
    return case


def generate(kind: str, count: int, seed: int, *, first_id: int = 0,
             focus: str | None = None) -> list[dict[str, Any]]:
    """``count`` cases of ``kind`` ("sglang" or "vllm"), reproducible from ``seed``, numbered
    from ``first_id``; ``focus="refusals"`` (SGLang) draws more of the inputs SGLang refuses."""
    rng = random.Random(seed)
    if kind == "sglang":
        return [sglang_case(rng, first_id + i, focus) for i in range(count)]
    return [vllm_case(rng, first_id + i) for i in range(count)]
