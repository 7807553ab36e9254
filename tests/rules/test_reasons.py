"""The reason text of representative rules, with the deployment's values filled in."""

from __future__ import annotations

import pytest

from cgconfig import resolve_args as resolve_line
from cgconfig.plan import Plan

REASONS: list[tuple[str, list[str], str]] = [
    (
        "role.prefill-instance-no-decode",
        ["--disaggregation-mode", "prefill"],
        "a prefill instance of a disaggregated deployment never decodes "
        "(disaggregation_mode=prefill), so decode graphs would only cost memory",
    ),
    (
        "attention.torch-native-eager",
        ["--attention-backend", "torch_native"],
        "the torch_native attention backend (prefill: torch_native, decode: "
        "torch_native) is plain PyTorch attention that SGLang only runs eagerly, so "
        "neither decode nor prefill graphs can be captured",
    ),
    (
        "attention.decode-capability-never",
        ["--decode-attention-backend", "intel_amx"],
        "the decode attention backend intel_amx has CUDA-graph support level NEVER, and "
        "a full decode graph needs at least UNIFORM_SINGLE_TOKEN_DECODE; breakable "
        "decode still captures everything around attention and runs the attention "
        "kernels eagerly between graph segments (vLLM falls back to PIECEWISE the same "
        "way)",
    ),
    (
        "attention.spec-decode-needs-uniform-batch",
        [
            "--device",
            "cuda",
            "--attention-backend",
            "intel_xpu",
            "--speculative-algorithm",
            "EAGLE",
            "--speculative-num-steps",
            "3",
            "--speculative-eagle-topk",
            "1",
        ],
        "speculative decoding (EAGLE) verifies 4 tokens per request, and the weakest "
        "attention backend in use (prefill: intel_xpu, decode: intel_xpu) can only "
        "capture single-token decode batches (below UNIFORM_BATCH); decode is captured "
        "breakable, with attention run eagerly between graph segments",
    ),
    (
        "attention.full-prefill-needs-always",
        ["--attention-backend", "flashinfer", "--cuda-graph-backend-prefill", "full"],
        "a full prefill graph captures mixed, ragged batches, which needs attention "
        "support level ALWAYS, but the prefill attention backend flashinfer is below it; "
        "prefill is captured breakable instead, with attention run eagerly between graph "
        "segments",
    ),
    (
        "attention.deepseek-v3-trtllm-mla-prefill",
        ["--model-arch", "DeepseekV3ForCausalLM", "--attention-backend", "trtllm_mla"],
        "DeepseekV3ForCausalLM with the trtllm_mla prefill attention backend: under a "
        "captured prefill graph trtllm_mla falls back to FlashAttention, which makes "
        "prefill slower than running it eagerly, so the breakable prefill graph is "
        "turned off",
    ),
    (
        "breakable.pipeline-parallel",
        ["--pp-size", "2"],
        "pipeline parallelism (pp_size=2) is not validated with breakable prefill "
        "graphs, so SGLang leaves prefill eager by default under PP",
    ),
    (
        "breakable.context-parallel",
        ["--tp-size", "4", "--attn-cp-size", "2"],
        "attention context parallel (attn_cp_size=2, tp_size=4, dp_size=1, prefill "
        "attention fa3): the CP all-gather replays with the wrong size under breakable "
        "graphs; only attn_cp_size == tp_size with dp_size 1, pp_size 1 and trtllm_mha "
        "prefill attention is supported",
    ),
    (
        "breakable.unvalidated-a2a-backend",
        ["--moe-a2a-backend", "mooncake"],
        "the MoE all-to-all backend mooncake has not been validated with breakable "
        "prefill graphs (validated: none, deepep, megamoe, flashinfer); prefill runs "
        "eagerly",
    ),
    (
        "breakable.multimodal-not-allowlisted",
        ["--is-multimodal", "--model-arch", "Qwen2_5_VLForConditionalGeneration"],
        "multimodal model Qwen2_5_VLForConditionalGeneration is not on SGLang's "
        "breakable-prefill allowlist (Qwen3.5, Qwen4-Exp, GLM-5 Next, Kimi K2.5/K3, MiniMax-M3, "
        "Muse, InternS2-Mobius, PaddleOCR-VL, Cohere2-Vision); its prefill replay faults under "
        "breakable graphs, so prefill runs eagerly",
    ),
    (
        "breakable.pp-max-tokens",
        ["--pp-size", "2", "--cuda-graph-backend-prefill", "breakable", "--gpu-memory-gib", "180"],
        "pipeline parallelism (pp_size=2) with breakable prefill: the derived prefill "
        "max_bs 16384 is capped at 8192 tokens, the largest PP prefill graph SGLang "
        "captures",
    ),
    (
        "platform.xpu-decode-breakable",
        ["--device", "xpu", "--cuda-graph-backend-decode", "breakable"],
        "Intel XPU only captures whole decode graphs (backend full); the requested "
        "decode backend breakable is not supported there, so decode runs eagerly",
    ),
    (
        "platform.cpu-decode-needs-torch-compile",
        ["--device", "cpu"],
        "on CPU the decode graph is a torch.compile'd forward, and torch.compile is off, "
        "so SGLang creates no decode graph runner: the configured full decode backend is "
        "kept (as SGLang 0.5.23's config has it) and nothing is captured",
    ),
    (
        "platform.debug-cuda-graph-unsupported",
        ["--device", "npu", "--debug-cuda-graph"],
        "--debug-cuda-graph runs every op through the breakable capture/replay path, "
        "which exists only on CUDA and ROCm, not on npu; the debug mode is switched off",
    ),
    (
        "platform.npu-whole-graphs",
        ["--device", "npu", "--cuda-graph-backend-decode", "breakable"],
        "on Ascend NPU every enabled phase is captured by the NPU graph backend as one "
        "whole graph, so backend breakable/full makes no difference there "
        "(decode=breakable, prefill=disabled); prefill graphs are not validated on NPU",
    ),
    (
        "feature.dp-attention-prefill-clamp",
        ["--enable-dp-attention", "--dp-size", "4", "--tp-size", "4", "--gpu-memory-gib", "80"],
        "DP attention divides the chunked-prefill budget of 8192 tokens over dp_size=4 "
        "ranks, so no rank prefills more than 2048 tokens at once; prefill graphs above "
        "that (max_bs 8192) would never replay",
    ),
    (
        "feature.deepep-prefill-align-8",
        ["--moe-a2a-backend", "deepep", "--cuda-graph-bs-prefill", "4", "12", "100"],
        "DeepEP all-to-all capture under breakable prefill can hang on token counts that "
        "are not multiples of 8, so every prefill size is rounded up to a multiple of 8 "
        "(sizes were [4, 12, 100])",
    ),
    (
        "feature.tensor-dump",
        ["--debug-tensor-dump-output-folder", "/tmp/dump"],
        "tensor dump mode (--debug-tensor-dump-output-folder /tmp/dump) records every "
        "layer's tensors from Python, which graph replay would skip; CUDA graphs (and "
        "server warm-up) are off",
    ),
    (
        "feature.unified-memory-implicit-prefill",
        ["--enable-unified-memory"],
        "the unified memory pool (--enable-unified-memory) is not wired into prefill "
        "capture, so the default breakable prefill graph is turned off",
    ),
    (
        "model.glm5-next-prefill-max-bs",
        ["--model-arch", "Glm5NextForConditionalGeneration", "--gpu-memory-gib", "80"],
        "Glm5NextForConditionalGeneration with breakable prefill: SGLang's GLM-5 policy "
        "captures prefill graphs up to 4096 tokens (prefill max_bs was 8192)",
    ),
]

#: The release these texts are SGLang's reasons for (so a newer release leaves them as they are).
RELEASE = "0.5.23"


def resolve_args(argv: list[str]) -> Plan:
    """A line answered as SGLang :data:`RELEASE`."""
    return resolve_line(["--engine-version", f"sglang=={RELEASE}", *argv])


@pytest.mark.parametrize(("rule_id", "argv", "expected"), REASONS, ids=[r[0] for r in REASONS])
def test_reason_text(rule_id: str, argv: list[str], expected: str) -> None:
    plan = resolve_args(argv)
    decision = next(d for d in plan.decisions if d.rule == rule_id)
    assert decision.why == expected


def test_overriding_warning_carries_the_reason_and_the_hint() -> None:
    plan = resolve_args(["--device", "xpu", "--cuda-graph-backend-decode", "breakable"])
    assert plan.warnings == [
        "rule platform.xpu-decode-breakable overrode decode.backend set by "
        "--cuda-graph-backend-decode: Intel XPU only captures whole decode graphs (backend full); "
        "the requested decode backend breakable is not supported there, so decode runs eagerly "
        "(use --cuda-graph-backend-decode full on XPU)"
    ]


def test_the_refusal_message_carries_the_reason_and_the_hint() -> None:
    from cgconfig.errors import RuleRefusal

    with pytest.raises(RuleRefusal) as info:
        resolve_args(["--enable-two-batch-overlap"])
    assert str(info.value) == (
        "SGLang 0.5.23 refuses two-batch overlap without an MoE all-to-all backend "
        "(--moe-a2a-backend none) unless attention DP is on (--enable-dp-attention with "
        "--dp-size > 1) [rule refuse.two-batch-overlap-needs-a2a-or-dp-attention]; add "
        "--moe-a2a-backend deepep (or another a2a backend), or --enable-dp-attention "
        "--dp-size N, or drop --enable-two-batch-overlap"
    )
