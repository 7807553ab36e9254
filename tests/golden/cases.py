"""The inputs of the golden plan file: every dialect and input form, as plain data.

``generate.py`` resolves each case and records the plan (or the one-line error) in
``plans.jsonl``; ``test_golden.py`` resolves each recorded input again and compares. Paths are
relative to the repository root, which both run from.
"""

from __future__ import annotations

import argparse
import itertools
from typing import Any

G = "tests/golden/inputs/"

SGLANG_CONFIGS: list[list[str]] = [
    [],
    ["--cuda-graph-max-bs-decode", "64"],
    ["--cuda-graph-bs-decode", "1", "2", "4", "8", "16"],
    ["--cuda-graph-backend-prefill", "full"],
    ["--disable-cuda-graph"],
    ["--cuda-graph-max-bs", "32"],
    ["--cuda-graph-backend-decode", "breakable", "--cuda-graph-max-bs-prefill", "2048"],
    ["--disable-cuda-graph-padding", "--cuda-graph-max-bs-decode", "24"],
    ["--enable-torch-compile", "--torch-compile-max-bs", "16"],
    ["--cuda-graph-config", '{"decode":{"max_bs":48}}', "--cuda-graph-max-bs-decode", "96"],
    ["--cuda-graph-config", G + "graph.yaml"],
    ["--cuda-graph-config", "@" + G + "graph_bs.json"],
    ["--deployment", G + "deploy_h200.yaml", "--tp", "4"],
    ["--disable-prefill-cuda-graph", "--enable-breakable-cuda-graph"],
    ["--cuda-graph-prefill-max-context", "200k", "--cuda-graph-max-seq-len-prefill", "4096"],
    ["--piecewise-cuda-graph-tokens", "64", "128", "256", "--strict"],
    ["python", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000",
     "--cuda-graph-max-bs-decode", "80"],
    ["--foo", "1", "--ignore-unknown-args", "--cuda-graph-bs-prefill", "512", "1024"],
    ["--cuda-graph-config", G + "graph_disabled.yaml", "--disable-rule",
     "role.prefill-instance-no-decode"],
    ["--strict", "--cuda-graph-backend-decode", "full", "--cuda-graph-backend-prefill", "full"],
    ["--cuda-graph-backend-decode=breakable", "--cuda-graph-max-bs-decode=40",
     "--allow-override", "role.prefill-instance-no-decode", "--strict"],
]

SGLANG_FACTS: list[list[str]] = [
    ["--gpu-memory-gib", "80"],
    ["--gpu-memory-gib", "141", "--tp", "8", "--attention-backend", "fa3"],
    ["--gpu-memory-gib", "24", "--max-running-requests", "48"],
    ["--device", "cpu"],
    ["--gpu-memory-gib", "80", "--disaggregation-mode", "prefill"],
    ["--gpu-memory-gib", "80", "--speculative-algorithm", "EAGLE",
     "--speculative-num-draft-tokens", "4"],
    ["--gpu-memory-gib", "80", "--enable-dp-attention", "--dp", "4", "--tp", "4"],
    ["--gpu-memory-gib", "80", "--use-mla", "--attention-backend", "flashmla"],
    ["--device", "hip", "--gpu-memory-gib", "192", "--attention-backend", "aiter"],
    ["--gpu-memory-gib", "80", "--enable-lora", "--is-multimodal", "--pp", "2"],
    ["--gpu-memory-gib", "40", "--moe-a2a-backend", "deepep", "--deepep-mode", "normal",
     "--enable-two-batch-overlap", "--disaggregation-mode", "decode"],
    ["--device", "xpu", "--attention-backend", "torch_native", "--chunked-prefill-size", "4096"],
]

VLLM_CONFIGS: list[list[str]] = [
    ["--dialect", "vllm"],
    ["-cc", '{"cudagraph_mode":"FULL"}'],
    ["-cc", '{"cudagraph_mode":"PIECEWISE"}'],
    ["-cc.cudagraph_mode=FULL_DECODE_ONLY"],
    ["--enforce-eager"],
    ["-cc", '{"cudagraph_capture_sizes":[1,2,4,8]}'],
    ["--max-cudagraph-capture-size", "64"],
    ["-cc.max_cudagraph_capture_size=300"],
    ["--cudagraph-capture-sizes", "1", "2", "4"],
    ["-cc", '{"mode":"NONE"}'],
    ["--compilation-config",
     '{"cudagraph_mode":"FULL_AND_PIECEWISE","max_cudagraph_capture_size":512}'],
    ["-cc.mode=3", "-cc.cudagraph_mode=FULL", "-cc", '{"cudagraph_mode":"NONE"}'],
]

VLLM_FACTS: list[list[str]] = [
    [],
    ["--max-num-seqs", "128"],
    ["--gpu-memory-gib", "80"],
    ["--num-speculative-tokens", "3", "--vllm-attention-backend", "FLASH_ATTN"],
    ["--cudagraph-support", "UNIFORM_BATCH", "--num-speculative-tokens", "2"],
    ["--max-num-batched-tokens", "4096", "--gpu-memory-gib", "180"],
    ["--vllm-attention-backend", "FLASHINFER", "--speculative-config",
     '{"num_speculative_tokens": 1}'],
    ["--tp", "2", "--cudagraph-support", "NEVER", "--strict"],
]

TRTLLM_FILES = ["trt_basic.yaml", "trt_max.yaml", "trt_null.yaml", "trt_piecewise.yaml",
                "trt_piecewise_default.yaml", "trt_empty.yaml"]
TRTLLM_EXTRA: list[list[str]] = [
    [], ["--gpu-memory-gib", "80", "--tp", "2"], ["--device", "cpu"],
    ["--dialect", "trtllm", "--disaggregation-mode", "decode"],
]

BAD_ARGV: list[list[str]] = [
    ["--cuda-graph-max-bs-decode", "0"],
    ["--cuda-graph-max-bs-decod", "8"],
    ["--cuda-graph-backend-decode", "tc_piecewise"],
    ["--cuda-graph-backend-prefill", "fulll"],
    ["--cuda-graph-config", '{"decode":{"max_bs":"8"}}'],
    ["--cuda-graph-config", '{"decod":{}}'],
    ["--cuda-graph-config", '{"decode":{"tc_compiler":1}}'],
    ["--cuda-graph-prefill-max-context", "1.5x"],
    ["--enforce-piecewise-cuda-graph"],
    ["--attention-backend", "flashinfr"],
    ["-cc", '{"cudagraph_mode":"FULLL"}'],
    ["-cc", '{"unknown_key":1}'],
    ["-cc.mode=7"],
    ["--dialect", "trtllm"],
    ["--dialect", "vlm"],
    ["--cuda-graph-max-bs-decode"],
    ["positional"],
    ["--extra-llm-api-options", G + "missing.yaml"],
    ["--deployment", G + "trt_basic.yaml"],
    ["--tp", "x"],
]

DICTS: list[tuple[dict[str, Any] | None, dict[str, Any] | None]] = [
    (None, None),
    ({"decode": {"max_bs": 16}}, {"gpu_memory_gib": 80}),
    ({"decode": {"bs": [1, 3, 5]}, "prefill": {"backend": "disabled"}}, {"tp_size": 2}),
    ({"prefill": {"backend": "full"}}, {"disaggregation_mode": "decode", "gpu_memory_gib": 80}),
    ({"decode": {"backend": "breakable"}}, {"device": "cpu"}),
    ({}, {"gpu_memory_gib": 141, "speculative_algorithm": "NGRAM"}),
    ({"decode": {"max_bs": 8}, "prefill": {"max_bs": 1024, "max_seq_len": 2048}},
     {"use_mla": True, "gpu_memory_gib": 80}),
    ({"decode": {"max_bs": -1}}, None),
    ({"phase": {}}, None),
    (None, {"tp_siz": 2}),
    (None, {"attention_backend": "flex_attention", "gpu_memory_gib": 80}),
    ({"decode": {"backend": "full"}}, {"attention_backend": "torch_native",
                                         "gpu_memory_gib": 80}),
]

OBJECTS: list[dict[str, dict[str, Any]]] = [
    {}, {"decode": {"max_bs": 32}}, {"prefill": {"backend": "disabled", "max_bs": 512}},
    {"decode": {"bs": [2, 4, 6]}, "prefill": {"bs": [256, 512]}},
    {"decode": {"backend": "breakable"}},
]

NAMESPACES: list[list[str]] = [
    [], ["--cuda-graph-max-bs-decode", "64"], ["--cuda-graph-bs-decode", "1", "2", "3"],
    ["--disable-cuda-graph"], ["--tp", "4", "--gpu-memory-gib", "80"],
    ["--cuda-graph-config", '{"prefill":{"backend":"disabled"}}', "--enable-torch-compile"],
    ["--cuda-graph-max-bs", "12", "--device", "cpu"],
    ["--disaggregation-mode", "prefill", "--gpu-memory-gib", "24"],
]


def cases() -> list[dict[str, Any]]:
    """Every golden case: ``{"id", "form", "input"}``."""
    out: list[dict[str, Any]] = []
    for i, (cfg, facts) in enumerate(itertools.product(SGLANG_CONFIGS, SGLANG_FACTS)):
        out.append({"id": f"sglang-{i}", "form": "argv", "input": [*cfg, *facts]})
    for i, (cfg, facts) in enumerate(itertools.product(VLLM_CONFIGS, VLLM_FACTS)):
        out.append({"id": f"vllm-{i}", "form": "argv", "input": [*cfg, *facts]})
    for i, (name, extra) in enumerate(itertools.product(TRTLLM_FILES, TRTLLM_EXTRA)):
        flag = ("--extra-llm-api-options", "--extra_llm_api_options=", "--trtllm-options")[i % 3]
        head = [flag + G + name] if flag.endswith("=") else [flag, G + name]
        out.append({"id": f"trtllm-{i}", "form": "argv", "input": [*head, *extra]})
    for i, argv in enumerate(BAD_ARGV):
        out.append({"id": f"bad-{i}", "form": "argv", "input": argv})
    for i, (config, facts) in enumerate(DICTS):
        out.append({"id": f"dict-{i}", "form": "dict", "input": {"config": config, "facts": facts}})
    for i, obj in enumerate(OBJECTS):
        out.append({"id": f"object-{i}", "form": "object", "input": obj})
    for i, argv in enumerate(NAMESPACES):
        out.append({"id": f"namespace-{i}", "form": "namespace", "input": argv})
    return out


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Resolve one case: ``{"plan": ...}`` or ``{"error": "<type>: <message>"}``."""
    from cgconfig import CudaGraphConfig, api
    from cgconfig.errors import CgConfigError

    form, data = case["form"], case["input"]
    try:
        if form == "argv":
            plan = api.resolve_args(list(data))
        elif form == "dict":
            plan = api.resolve_dict(data["config"], data["facts"])
        elif form == "object":
            plan = api.resolve_dict(CudaGraphConfig(**data))
        else:
            parser = argparse.ArgumentParser()
            api.add_arguments(parser, facts=True)
            plan = api.resolve_namespace(parser.parse_args(list(data)))
    except CgConfigError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"plan": plan.to_dict()}
