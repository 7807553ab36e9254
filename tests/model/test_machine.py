"""The platform (inferred from platform-only attention backends) and the GPUs (probed with
nvidia-smi / rocm-smi through injected runners; no real binary runs)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from cgconfig import gpu_probe, resolve_args
from cgconfig.errors import InputError
from cgconfig.gpu_probe import GpuReading, probe_gpu

NVIDIA_H200_X8 = "\n".join(["143771, 9.0"] * 8) + "\n"
NVIDIA_B200 = "183359, 10.0\n"
ROCM_MI300X_X8 = json.dumps({f"card{i}": {"VRAM Total Memory (B)": "206141652992",
                                          "VRAM Total Used Memory (B)": "290455552"}
                             for i in range(8)})


def _runner(outputs: dict[str, tuple[int, str]], calls: list[list[str]] | None = None):
    def run(argv: list[str], timeout_s: float) -> tuple[int, str]:
        assert timeout_s == gpu_probe.PROBE_TIMEOUT_S
        if calls is not None:
            calls.append(argv)
        key = " ".join(argv[1:])
        for prefix, answer in outputs.items():
            if key.startswith(prefix):
                return answer
        return 1, ""
    return run


def _which(path: str):
    return lambda tool: f"/usr/bin/{tool}" if tool in path else None


@pytest.fixture
def probing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("CGCONFIG_NO_GPU_PROBE")
    gpu_probe._probe_once.cache_clear()
    yield
    gpu_probe._probe_once.cache_clear()


def test_nvidia_smi_gives_memory_sm_and_count(probing: None) -> None:
    calls: list[list[str]] = []
    reading = probe_gpu("cuda", run=_runner({"--query-gpu=memory.total,compute_cap":
                                             (0, NVIDIA_H200_X8)}, calls),
                        which=_which("nvidia-smi"))
    assert reading == GpuReading(140.4, 90, 8, "nvidia-smi")
    assert calls == [["/usr/bin/nvidia-smi", "--query-gpu=memory.total,compute_cap",
                      "--format=csv,noheader,nounits"]]


def test_old_driver_without_compute_cap_still_gives_memory(probing: None) -> None:
    run = _runner({"--query-gpu=memory.total,compute_cap": (6, "Field not valid"),
                   "--query-gpu=memory.total": (0, "81920\n")})
    assert probe_gpu("cuda", run=run, which=_which("nvidia-smi")) == GpuReading(
        80.0, None, 1, "nvidia-smi")


def test_sm_not_available_keeps_the_memory(probing: None) -> None:
    run = _runner({"--query-gpu=memory.total,compute_cap": (0, "81920, [N/A]\n")})
    assert probe_gpu("cuda", run=run, which=_which("nvidia-smi")) == GpuReading(
        80.0, None, 1, "nvidia-smi")


def test_rocm_smi_warnings_before_the_json(probing: None) -> None:
    run = _runner({"--showmeminfo": (0, "WARNING: AMD GPU device(s) is/are in a low-power "
                                        "state.\n" + ROCM_MI300X_X8)})
    assert probe_gpu("hip", run=run, which=_which("rocm-smi")).memory_gib == 191.98


def test_rocm_smi_same_path(probing: None) -> None:
    calls: list[list[str]] = []
    reading = probe_gpu("hip", run=_runner({"--showmeminfo vram --json": (0, ROCM_MI300X_X8)},
                                           calls), which=_which("rocm-smi"))
    assert reading == GpuReading(191.98, None, 8, "rocm-smi")
    assert calls == [["/usr/bin/rocm-smi", "--showmeminfo", "vram", "--json"]]


@pytest.mark.parametrize(("platform", "run", "which", "why"), [
    ("cuda", _runner({}), _which(""), "nvidia-smi not found"),
    ("hip", _runner({}), _which(""), "rocm-smi not found"),
    ("cuda", _runner({}), _which("nvidia-smi"), "nvidia-smi gave no memory reading"),
    ("hip", _runner({"--showmeminfo": (0, "not json")}), _which("rocm-smi"),
     "rocm-smi gave no memory reading"),
    ("hip", _runner({"--showmeminfo": (0, '{"card0": {"VRAM Total Memory (B)": "lots"}}')}),
     _which("rocm-smi"), "rocm-smi printed 'lots'"),
    ("cuda", _runner({"--query": (0, "N/A, 9.0\n")}), _which("nvidia-smi"),
     "nvidia-smi printed"),
    ("xpu", _runner({}), _which("nvidia-smi rocm-smi"), "no probe for device xpu"),
])
def test_unknown_readings_say_why(probing: None, platform: str, run, which, why: str) -> None:
    reading = probe_gpu(platform, run=run, which=which)
    assert reading.memory_gib is None and reading.sm is None and reading.gpu_count is None
    assert reading.source.startswith(f"unknown ({why}")


def test_slow_or_broken_tool_is_unknown(probing: None) -> None:
    def slow(argv: list[str], timeout_s: float) -> tuple[int, str]:
        raise TimeoutError(argv[0])

    def broken(argv: list[str], timeout_s: float) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    assert probe_gpu("hip", run=slow, which=_which("rocm-smi")).source == (
        "unknown (rocm-smi did not answer within 2s)")
    assert probe_gpu("cuda", run=broken, which=_which("nvidia-smi")).source == (
        "unknown (nvidia-smi could not run: Permission denied)")


def test_probe_off_by_environment() -> None:
    assert probe_gpu("cuda", run=_runner({}), which=_which("nvidia-smi")).source == (
        "unknown (CGCONFIG_NO_GPU_PROBE is set)")


def _machine(monkeypatch: pytest.MonkeyPatch, outputs: dict[str, tuple[int, str]]) -> None:
    monkeypatch.setattr(gpu_probe, "run_tool", _runner(outputs))
    monkeypatch.setattr(gpu_probe.shutil, "which", _which("nvidia-smi rocm-smi"))


def test_probed_sm_reaches_vllm_grid_and_sglang_rule(probing: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, {"--query-gpu=memory.total,compute_cap": (0, NVIDIA_B200)})
    plan = resolve_args(["--model-arch", "DeepseekV3ForCausalLM"])
    assert plan.facts["gpu_sm"] == 100 and plan.fact_sources["gpu_sm"] == "nvidia-smi"
    assert plan.facts["gpu_count"] == 1
    # SGLang 0.5.23 picks trtllm_mla for DeepSeek-V3 on SM100: prefill graphs off.
    assert plan.backend("prefill") == "disabled"
    vllm = resolve_args(["--dialect", "vllm", "--max-num-batched-tokens", "8192"])
    assert max(vllm.capture_sizes("decode")) == 1024  # the Blackwell ceiling
    assert plan.key_facts["gpu_memory_gib"] == {"value": 179.06, "source": "nvidia-smi"}


def test_given_gpu_facts_are_not_probed_over(probing: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, {"--query-gpu=memory.total,compute_cap": (0, NVIDIA_B200)})
    plan = resolve_args(["--gpu-sm", "90", "--gpu-memory-gib", "80", "--gpu-count", "2"])
    assert (plan.facts["gpu_sm"], plan.facts["gpu_memory_gib"], plan.facts["gpu_count"]) == (
        90, 80.0, 2)
    assert plan.fact_sources["gpu_sm"] == "--gpu-sm"


def test_aiter_probes_rocm_smi(probing: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, {"--showmeminfo vram --json": (0, ROCM_MI300X_X8)})
    plan = resolve_args(["--attention-backend", "aiter"])
    assert plan.key_facts["device"] == {"value": "hip",
                                        "source": "inferred from --attention-backend aiter"}
    assert plan.key_facts["gpu_memory_gib"] == {"value": 191.98, "source": "rocm-smi"}
    assert plan.key_facts["gpu_count"] == {"value": 8, "source": "rocm-smi"}
    assert plan.facts["derived"]["gpu_memory_source"] == "rocm-smi"


@pytest.mark.parametrize(("argv", "platform"), [
    (["--attention-backend", "aiter"], "hip"),
    (["--attention-backend", "wave"], "hip"),
    (["--decode-attention-backend", "aiter"], "hip"),
    (["--attention-backend", "ascend"], "npu"),
    (["--attention-backend", "intel_xpu"], "xpu"),
    (["--attention-backend", "intel_amx"], "cuda"),
    (["--attention-backend", "aiter", "--device", "hip"], "hip"),
    (["--attention-backend", "fa3"], "cuda"),
    (["--device", "hpu"], "hpu"),
    (["--device", "musa"], "musa"),
])
def test_platform(argv: list[str], platform: str) -> None:
    plan = resolve_args(argv)
    assert plan.facts["device"] == platform
    assert plan.notes == []


def test_aiter_alone_resolves_as_rocm() -> None:
    """The issue's line: aiter resolved as CUDA (prefill breakable to 16384)."""
    aiter = resolve_args(["--attention-backend", "aiter", "--gpu-memory-gib", "192"]).to_dict()
    hip = resolve_args(["--attention-backend", "aiter", "--gpu-memory-gib", "192",
                        "--device", "hip"]).to_dict()
    assert aiter["config"] == hip["config"]
    assert aiter["config"]["prefill"]["backend"] == "disabled"


@pytest.mark.parametrize(("argv", "device", "note"), [
    (["--attention-backend", "aiter", "--device", "npu"], "npu",
     "--attention-backend aiter runs only on ROCm (hip): SGLang 0.5.23 resolves the line on npu "
     "(--device) and then fails to build that backend at start-up"),
    (["--attention-backend", "aiter", "--device", "cuda"], "cuda",
     "on a ROCm machine say --device hip (torch calls ROCm GPUs cuda)"),
    (["--attention-backend", "intel_xpu", "--device", "cuda"], "cuda",
     "--attention-backend intel_xpu runs only on Intel XPU (xpu)"),
])
def test_an_explicit_device_stands_with_a_note(argv: list[str], device: str, note: str) -> None:
    """SGLang's resolution takes the line on the machine's device; building the backend fails
    at start-up."""
    plan = resolve_args(argv)
    assert plan.facts["device"] == device
    (only,) = plan.notes
    assert note in only


def test_backends_of_two_platforms_without_device_are_one_error() -> None:
    with pytest.raises(InputError) as err:
        resolve_args(["--prefill-attention-backend", "aiter", "--decode-attention-backend",
                      "ascend"])
    assert ("--prefill-attention-backend aiter runs only on ROCm (hip) but "
            "--decode-attention-backend ascend only on Ascend NPU (npu)") in str(err.value)


def test_unknown_device_has_did_you_mean() -> None:
    with pytest.raises(InputError, match="did you mean 'hpu'"):
        resolve_args(["--device", "hpuu"])
