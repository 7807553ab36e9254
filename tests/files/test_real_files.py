"""The real public deployment files of issue #32, each read to the words its engine receives.

Each expected argv below was written by hand from the fixture (tests/data/files/, sources in
SOURCES.json): what the kubelet, compose, the chart's template, srtctl or the shell hands the
engine's process, with Dynamo's entry point read as the engine's and Kubernetes' $(VAR)
substituted where the file or its operator gives the value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.files.launch import Launch, find_launches

DATA = Path(__file__).resolve().parent.parent / "data" / "files"

SGLANG = ["python3", "-m", "sglang.launch_server"]
DYNAMO_QWEN = ["--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "Qwen/Qwen3-0.6B",
               "--page-size", "16", "--tp", "1", "--trust-remote-code", "--skip-tokenizer-init",
               "--disaggregation-mode", "{role}", "--disaggregation-transfer-backend", "nixl",
               "--disaggregation-bootstrap-port", "12345", "--host", "0.0.0.0"]


def _dynamo(role: str) -> list[str]:
    return [*SGLANG, *(w.format(role=role) for w in DYNAMO_QWEN)]


KIMI_PREFILL_TAIL = [
    "--model-path", "$(MODEL_PATH)", "--disaggregation-ib-device", "mlx5_1",
    "--chunked-prefill-size", "524288", "--ep-dispatch-algorithm", "dynamic",
    "--eplb-algorithm", "deepseek", "--enable-dp-lm-head", "--disable-cuda-graph",
    "--enable-two-batch-overlap", "--enable-dp-attention", "--disable-shared-experts-fusion",
    "--dp-size", "$(PARALLELISM_SIZE)", "--disable-radix-cache", "--enable-deepep-moe",
    "--deepep-mode", "normal", "--disaggregation-mode", "prefill", "--mem-fraction-static",
    "0.849", "--tp-size", "$(PARALLELISM_SIZE)", "--dist-init-addr",
    "$(LWS_LEADER_ADDRESS):5757", "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank",
    "{rank}", "--trust-remote-code", "--moe-dense-tp-size", "1", "--decode-log-interval",
    "1", "--max-running-requests", "1024", "--max-total-tokens", "131072", "--enable-eplb",
    "--ep-num-redundant-experts", "$(PARALLELISM_SIZE)"]

KIMI_DECODE_TAIL = [
    "--model-path", "$(MODEL_PATH)", "--enable-dp-attention", "--enable-dp-lm-head",
    "--dp-size", "$(PARALLELISM_SIZE)", "--disable-radix-cache",
    "--disable-shared-experts-fusion", "--enable-deepep-moe", "--deepep-mode", "low_latency",
    "--disaggregation-mode", "decode", "--enable-two-batch-overlap", "--mem-fraction-static",
    "0.6", "--disaggregation-ib-device", "mlx5_1", "--cuda-graph-bs", "480",
    "--max-running-requests", "46080", "--tp-size", "$(PARALLELISM_SIZE)", "--dist-init-addr",
    "$(LWS_LEADER_ADDRESS):5757", "--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "{rank}",
    "--decode-log-interval", "1", "--trust-remote-code", "--served-model-name",
    "moonshotai/Kimi-K2-Instruct", "--moe-dense-tp-size", "1", "--ep-num-redundant-experts",
    "$(PARALLELISM_SIZE)", "--enable-eplb"]


def _kimi(tail: list[str], rank: str, leader: bool) -> list[str]:
    head = ["--port", "30000", "--host", "0.0.0.0"] if leader else []
    return [*SGLANG, *head, *(w.format(rank=rank) for w in tail)]


SRT_COMMON = {  # srtctl: sorted keys, true -> bare flag, lists -> values
    "prefill": [
        "--attention-backend", "trtllm_mla", "--chunked-prefill-size", "8192",
        "--context-length", "2200", "--cuda-graph-max-bs", "128", "--data-parallel-size", "1",
        "--disable-radix-cache", "--disaggregation-bootstrap-port", "30001",
        "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl",
        "--enable-symm-mem", "--expert-parallel-size", "1", "--fp8-gemm-backend",
        "flashinfer_trtllm", "--kv-cache-dtype", "fp8_e4m3", "--load-balance-method",
        "round_robin", "--max-running-requests", "512", "--max-total-tokens", "8192",
        "--mem-fraction-static", "0.95", "--moe-runner-backend", "flashinfer_trtllm",
        "--numa-node", "0", "0", "1", "1", "--quantization", "fp8",
        "--scheduler-recv-interval", "10", "--served-model-name", "deepseek-ai/DeepSeek-R1",
        "--stream-interval", "10", "--tensor-parallel-size", "4", "--trust-remote-code",
        "--watchdog-timeout", "1000000"],
    "decode": [
        "--attention-backend", "trtllm_mla", "--chunked-prefill-size", "8192",
        "--context-length", "2200", "--cuda-graph-max-bs", "128", "--data-parallel-size", "1",
        "--disable-radix-cache", "--disaggregation-bootstrap-port", "30001",
        "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl",
        "--enable-symm-mem", "--expert-parallel-size", "1", "--fp8-gemm-backend",
        "flashinfer_trtllm", "--kv-cache-dtype", "fp8_e4m3", "--max-running-requests", "128",
        "--mem-fraction-static", "0.95", "--moe-runner-backend", "flashinfer_trtllm",
        "--numa-node", "0", "0", "1", "1", "--prefill-round-robin-balance", "--quantization",
        "fp8", "--scheduler-recv-interval", "10", "--served-model-name",
        "deepseek-ai/DeepSeek-R1", "--stream-interval", "10", "--tensor-parallel-size", "4",
        "--trust-remote-code", "--watchdog-timeout", "1000000"],
}


def _srt(mode: str) -> list[str]:
    return [*SGLANG, "--model-path", "dsr1-fp8", "--served-model-name",
            "deepseek-ai/DeepSeek-R1", "--host", "0.0.0.0", "--disaggregation-mode", mode,
            *SRT_COMMON[mode]]


def _prodstack(model: str, max_len: str, tp: str) -> list[str]:
    return ["vllm", "serve", model, "--host", "0.0.0.0", "--port", "8000",
            "--no-enable-prefix-caching", "--max-model-len", max_len, "--dtype", "half",
            "--tensor-parallel-size", tp, "--gpu_memory_utilization", "0.9", "--enforce-eager"]


LLMD = ["vllm", "serve", "deepseek-ai/DeepSeek-V4-Pro", "--port", "8200", "--tokenizer-mode",
        "deepseek_v4", "--gpu-memory-utilization", "0.9", "--trust-remote-code",
        "--api-server-count", "1", "--disable-access-log-for-endpoints=/health,/metrics",
        "--data-parallel-hybrid-lb", "--enable-expert-parallel", "--enable-ep-weight-filter",
        "--tensor-parallel-size", "1",              # $TP_SIZE from the container's env
        "--data-parallel-size", "8",                # $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)) = 2*4
        "--data-parallel-size-local", "4",
        "--data-parallel-address", "${LWS_LEADER_ADDRESS}",   # set by LWS, unknown here
        "--data-parallel-rpc-port", "5555",
        "--data-parallel-start-rank", "$START_RANK",  # from LWS_WORKER_INDEX, unknown
        # quoted JSON over lines: the block scalar's own 16-space indent is YAML's, not the
        # script's, so 26 spaces stay inside the quotes
        "--kv_transfer_config", '{"kv_connector":"NixlConnector",\n' + " " * 26
        + '"kv_role":"kv_both",\n' + " " * 26 + '"kv_load_failure_policy":"fail"}',
        "--moe-backend", "deep_gemm_mega_moe", "--max-num-batched-tokens", "512",
        "--max-num-seqs", "512", "--max-cudagraph-capture-size", "512", "--block-size", "256",
        "--no-disable-hybrid-kv-cache-manager", "--enable-cumem-allocator",
        "--stream-interval", "50", "--kv-cache-dtype", "fp8", "--compilation-config",
        '{"cudagraph_mode":"FULL_DECODE_ONLY","mode":0}', "--kv-cache-memory-bytes="]

#: fixture → [(line, kind, container, role, engine_version, gpu_count, argv)] per launch.
EXPECTED: dict[str, list[tuple[int, str, str | None, str | None, str | None, int | None,
                               list[str]]]] = {
    "dynamo-sglang-disagg-v1alpha1.yaml": [
        (29, "dynamo-dgd-v1alpha1", "decode", "decode", None, 1, _dynamo("decode")),
        (64, "dynamo-dgd-v1alpha1", "prefill", "prefill", None, 1, _dynamo("prefill"))],
    "dynamo-sglang-disagg-v1beta1.yaml": [
        (42, "dynamo-dgd-v1beta1", "decode", "decode", None, 1, _dynamo("decode")),
        (80, "dynamo-dgd-v1beta1", "prefill", "prefill", None, 1, _dynamo("prefill"))],
    "dynamo-vllm-disagg-v1alpha1.yaml": [  # Dynamo's --is-*-worker: the role, then left out
        (29, "dynamo-dgd-v1alpha1", "VllmDecodeWorker", "decode", None, 1,
         ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-0.6B"]),
        (49, "dynamo-dgd-v1alpha1", "VllmPrefillWorker", "prefill", None, 1,
         ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-0.6B"])],
    "skypilot-vllm-service.yaml": [  # the release from setup's pip install vllm==0.3.0
        (35, "skypilot", None, None, "vllm==0.3.0", 1,
         ["python", "-m", "vllm.entrypoints.openai.api_server", "--model",
          "meta-llama/Llama-2-7b-chat-hf", "--tokenizer", "hf-internal-testing/llama-tokenizer",
          "--host", "0.0.0.0"])],
    "lws-sglang.yaml": [
        (22, "lws", "sglang-leader", None, None, 1,
         [*SGLANG, "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--tp", "2",
          "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000", "--nnodes", "2", "--node-rank",
          "0", "--trust-remote-code", "--host", "0.0.0.0", "--port", "40000"]),
        (66, "lws", "sglang-worker", None, None, 1,
         [*SGLANG, "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--tp", "2",
          "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000", "--nnodes", "2", "--node-rank",
          "$(LWS_WORKER_INDEX)", "--trust-remote-code"])],
    "lws-vllm-gpu.yaml": [  # the sh -c script's second statement; the worker starts Ray only
        (24, "lws", "vllm-leader", None, "vllm==0.8.5", 8,
         ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8080", "--model",
          "meta-llama/Llama-3.1-405B-Instruct", "--tensor-parallel-size", "8",
          "--pipeline_parallel_size", "2"])],
    "lws-disaggregatedset-sglang.yaml": [
        (27, "disaggregatedset", "sglang", "prefill", "sglang==0.5.18", 1,
         [*SGLANG, "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct",
          "--disaggregation-mode", "prefill", "--host", "0.0.0.0", "--port", "40000",
          "--trust-remote-code"]),
        (65, "disaggregatedset", "sglang", "decode", "sglang==0.5.18", 1,
         [*SGLANG, "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct",
          "--disaggregation-mode", "decode", "--host", "0.0.0.0", "--port", "40000",
          "--trust-remote-code"])],
    "llmd-wide-ep-lws-vllm-deepseek-v4-decode.yaml": [
        (79, "lws", "vllm", "decode", "vllm==0.22.1", 4, LLMD)],
    "ome-kimi-k2-pd-rt.yaml": [
        (58, "ome-runtime", "engineConfig.leader", "prefill", None, 8,
         _kimi(KIMI_PREFILL_TAIL, "0", True)),  # the LWS leader is worker 0
        (161, "ome-runtime", "engineConfig.worker", "prefill", None, 8,
         _kimi(KIMI_PREFILL_TAIL, "$(LWS_WORKER_INDEX)", False)),
        (262, "ome-runtime", "decoderConfig.leader", "decode", None, 8,
         _kimi(KIMI_DECODE_TAIL, "0", True)),
        (362, "ome-runtime", "decoderConfig.worker", "decode", None, 8,
         _kimi(KIMI_DECODE_TAIL, "$(LWS_WORKER_INDEX)", False))],
    "ome-vllm-llama-405b-rt.yaml": [
        (47, "ome-runtime", "engineConfig.runner", None, "vllm==0.9.0.1", 8,
         ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8080", "--model",
          "$(MODEL_PATH)", "--middleware", "vllm.entrypoints.openai.middleware.log_opc_header",
          "--max-log-len", "0", "--served-model-name", "vllm-model", "--tensor-parallel-size",
          "8", "--max-model-len", "131072", "--gpu-memory-utilization", "0.9",
          "--enable-chunked-prefill", "--enable-auto-tool-choice", "--tool-call-parser",
          "llama3_json", "--chat-template", "examples/tool_chat_template_llama3.1_json.jinja",
          "--cuda-graph-sizes", "256"])],
    "prodstack-gpu-deployment.yaml": [
        (19, "k8s-deployment", "vllm", None, None, 1,
         ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
          "meta-llama/Llama-3.2-1B-Instruct", "--tensor-parallel-size", "1", "--port", "8000",
          "--max-num-seq", "1024", "--compilation-config", "3", "--enable-lora", "--max-loras",
          "2", "--max-lora-rank", "32", "--max-cpu-loras", "12"])],
    "prodstack-values-25-v100-single-gpu.yaml": [
        (23, "helm-production-stack", "qwen05b", None, "vllm==0.8.5", 1,
         _prodstack("Qwen/Qwen2.5-0.5B-Instruct", "16384", "1"))],
    "prodstack-values-25-v100-multi-gpu-tp2.yaml": [
        (27, "helm-production-stack", "qwen7b", None, "vllm==0.8.5", 2,
         _prodstack("Qwen/Qwen2.5-7B-Instruct", "8192", "2"))],
    "sglang-compose.yaml": [
        (14, "compose", "sglang", None, None, 1,
         [*SGLANG, "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--host",
          "0.0.0.0", "--port", "30000"])],
    "skypilot-sglang.yaml": [
        (33, "skypilot", None, None, None, 1,
         ["python", "-m", "sglang.launch_server", "--model-path",
          "meta-llama/Llama-2-7b-chat-hf", "--host", "0.0.0.0", "--port", "8000"])],
    "srt-slurm-gb200-fp8-1k1k-low-latency.yaml": [  # frontend dynamo: python3 -m dynamo.sglang
        (63, "srt-slurm", "prefill", "prefill", "sglang==0.5.6.post2", 4, _srt("prefill")),
        (91, "srt-slurm", "decode", "decode", "sglang==0.5.6.post2", 4, _srt("decode"))],
    "inferencex-gptoss-fp4-h200-slurm.sh": [
        (42, "shell", None, None, None, None,
         ["vllm", "serve", "$MODEL", "--host", "0.0.0.0", "--port", "$PORT", "--config",
          "config.yaml", "--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "$TP",
          "--max-num-seqs", "$CONC", "--disable-log-requests", "--served-model-name",
          "$MODEL_NAME"])],
}


def _read(name: str) -> list[Launch]:
    return find_launches(name, (DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_real_file_gives_the_engines_words(name: str) -> None:
    found = _read(name)
    got = [(launch.line, launch.kind, launch.container, launch.role, launch.engine_version,
            launch.gpu_count, list(launch.argv)) for launch in found]
    assert got == EXPECTED[name]
    for launch in found:
        assert len(launch.arg_lines) == len(launch.argv)


def test_every_fixture_names_its_source_and_is_tested() -> None:
    sources = json.loads((DATA / "SOURCES.json").read_text())["files"]
    fixtures = {p.name for p in DATA.iterdir() if p.name != "SOURCES.json"}
    assert fixtures == set(sources)
    assert set(EXPECTED) == fixtures
    for source in sources.values():
        repo, _, rest = source.partition(":")
        assert repo.count("/") == 1 and "@" in rest and len(rest.rsplit("@", 1)[1]) == 40


def test_words_keep_the_lines_they_come_from() -> None:
    (launch,) = _read("llmd-wide-ep-lws-vllm-deepseek-v4-decode.yaml")
    by_word = dict(zip(launch.argv, launch.arg_lines, strict=True))
    assert by_word["deepseek-ai/DeepSeek-V4-Pro"] == 80
    assert by_word["--max-num-seqs"] == 101
    (leader, _) = _read("lws-sglang.yaml")
    assert leader.arg_lines[leader.argv.index("--tp") + 1] == 28


def test_release_and_environment_come_from_the_file() -> None:
    (launch,) = _read("llmd-wide-ep-lws-vllm-deepseek-v4-decode.yaml")
    assert launch.version_origin is not None and "vllm/vllm-openai:v0.22.1" in launch.version_origin
    env = dict(launch.env)
    assert env["VLLM_USE_DEEP_GEMM"] == "1" and "HF_TOKEN" not in env  # valueFrom: unknown
    assert set(launch.unresolved) == {"LWS_LEADER_ADDRESS", "START_RANK"}
    (compose,) = _read("sglang-compose.yaml")
    assert any("latest names no release" in note for note in compose.notes)
    decode, _ = _read("dynamo-sglang-disagg-v1alpha1.yaml")
    assert any("Dynamo 1.3.1 is not in aiconfigurator's release matrix" in n for n in decode.notes)
    assert any("read python3 -m dynamo.sglang as python3 -m sglang.launch_server" in n
               for n in decode.notes)
    (sky,) = _read("skypilot-sglang.yaml")
    assert any("L4:1" not in n and "any of L4, A10G" in n for n in sky.notes)


def test_a_template_image_tag_takes_set_and_dynamo_maps_it_to_the_engine() -> None:
    name = "dynamo-vllm-disagg-v1alpha1.yaml"
    decode, _ = find_launches(name, (DATA / name).read_text(), variables={"VERSION": "1.3.0"})
    assert decode.engine_version == "vllm==0.24.0"  # aiconfigurator's matrix: Dynamo 1.3.0
    assert decode.version_origin is not None and "Dynamo 1.3.0 ships vLLM 0.24.0" in \
        decode.version_origin
