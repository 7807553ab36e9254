"""Issue #10's minimal reproductions, one test each, asserting the engine's own answer.

Each expected value is the oracle's answer (the unmodified resolution code of SGLang 0.5.23 or
vLLM 0.33.0, see tests/fidelity/record.py), produced by the command in the comment, run from the
oracle folder: ``vendor/venv/bin/python sglang_oracle.py --model-arch M --gpu-memory-gib G
--sm S --platform P ARGS`` (``M G S P`` are the case's ``model``, ``gpu``, ``sm``, ``platform``)
or ``vendor/venv/bin/python vllm_oracle.py ARGS``. Size lists are written as
``(count, first, last)``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError


def sglang_case(argv: list[str], *, model: str = "llama", gpu: float = 80, sm: int = 90,
                platform: str = "cuda") -> dict[str, Any]:
    """A case in the corpus's shape (``compare.sglang_argv`` adds the machine and model)."""
    return {"argv": argv, "model": model, "gpu_memory_gib": gpu, "sm": sm,
            "platform": platform}


def plan_of(case: dict[str, Any]) -> dict[str, Any]:
    return resolve_args(compare.sglang_argv(case)).to_dict()


def summary(sizes: list[int] | None) -> Any:
    """``(count, first, last)`` for a list longer than six, else the list itself."""
    if sizes is None or len(sizes) <= 6:
        return sizes
    return (len(sizes), sizes[0], sizes[-1])


def phase(plan: dict[str, Any], name: str) -> dict[str, Any]:
    got = plan["config"][name]
    return {"backend": got["backend"], "max_bs": got["max_bs"], "bs": summary(got["bs"])}


def locked_config_keys(plan: dict[str, Any]) -> list[str]:
    return sorted(k for k in plan["locked"] if k.startswith(("decode.", "prefill.")))


DECODE_256 = {"backend": "full", "max_bs": 256, "bs": (36, 1, 256)}
PREFILL_8192 = {"backend": "breakable", "max_bs": 8192, "bs": (58, 4, 8192)}


# ------------------------------------------------------------------------------------ SGLang

def test_sglang_01_cpu_decode_not_captured() -> None:
    # sglang_oracle.py --model-arch llama --gpu-memory-gib 80 --sm 90 --platform cpu --device cpu
    # → decode {full, 32, (24, 1, 32)}, prefill disabled: the config keeps decode full; the
    # runtime creates no CPU decode runner without torch.compile, so nothing is captured.
    plan = plan_of(sglang_case(["--device", "cpu"], platform="cpu"))
    assert phase(plan, "decode") == {"backend": "full", "max_bs": 32, "bs": (24, 1, 32)}
    assert plan["config"]["prefill"]["backend"] == "disabled"
    assert plan["capture"]["decode"]["sizes"] == []
    assert any(d["rule"] == "platform.cpu-decode-needs-torch-compile" for d in plan["decisions"])


@pytest.mark.parametrize("device", ["xpu", "cpu"])
def test_sglang_02_breakable_prefill_on_xpu_and_cpu(device: str) -> None:
    # sglang_oracle.py ... --platform xpu --device xpu --cuda-graph-backend-prefill breakable
    # (and --platform cpu --device cpu ...) → prefill {breakable, 8192, (58, 4, 8192)}, locked
    # prefill.backend: SGLang has no device check on breakable prefill.
    plan = plan_of(sglang_case(["--device", device, "--cuda-graph-backend-prefill", "breakable"],
                               platform=device))
    assert phase(plan, "prefill") == PREFILL_8192
    assert locked_config_keys(plan) == ["prefill.backend"]


@pytest.mark.parametrize(("gpu", "max_bs", "bs"), [(80, 8192, (58, 4, 8192)),
                                                   (59.5, 4096, (50, 4, 4096))])
def test_sglang_03_mla_prefill_max_bs(gpu: float, max_bs: int, bs: tuple[int, ...]) -> None:
    # sglang_oracle.py --model-arch deepseek_v3 --gpu-memory-gib 80 (59.5) → prefill max_bs
    # min(8192, chunked_prefill_size): 8192 (4096).
    plan = plan_of(sglang_case([], model="deepseek_v3", gpu=gpu))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": max_bs, "bs": bs}


def test_sglang_04_llama2_prefill_cap() -> None:
    # sglang_oracle.py --model-arch llama-2 --gpu-memory-gib 80 → prefill {breakable, 4096,
    # (50, 4, 4096)} ("llama-2" in the model path).
    plan = plan_of(sglang_case([], model="llama-2"))
    assert "llama-2" in plan["facts"]["model_path"]
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 4096, "bs": (50, 4, 4096)}


def test_sglang_05_muse_glimmer_prefill_max_bs_locked() -> None:
    # sglang_oracle.py --model-arch MuseGlimmerForCausalLM --gpu-memory-gib 80 → prefill
    # {breakable, 512, (30, 4, 512)}, locked [prefill.max_bs]: set as a flag before parsing.
    plan = plan_of(sglang_case([], model="MuseGlimmerForCausalLM"))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 512, "bs": (30, 4, 512)}
    assert locked_config_keys(plan) == ["prefill.max_bs"]


def test_sglang_06_memory_saver_keeps_graphs() -> None:
    # sglang_oracle.py ... --enable-memory-saver → decode {full, 256}, prefill {breakable, 8192}.
    plan = plan_of(sglang_case(["--enable-memory-saver"]))
    assert (phase(plan, "decode"), phase(plan, "prefill")) == (DECODE_256, PREFILL_8192)


def test_sglang_07_prefill_bs_keeps_default_max_bs() -> None:
    # sglang_oracle.py ... --cuda-graph-bs-prefill 964 → prefill {breakable, 8192, [964]}.
    plan = plan_of(sglang_case(["--cuda-graph-bs-prefill", "964"]))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 8192, "bs": [964]}


def test_sglang_08_max_total_tokens_caps_prefill() -> None:
    # sglang_oracle.py ... --max-total-tokens 1000 → prefill {breakable, 1000, (37, 4, 960)}.
    plan = plan_of(sglang_case(["--max-total-tokens", "1000"]))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 1000, "bs": (37, 4, 960)}


@pytest.mark.parametrize("flags", [["--prefill-attention-backend", "torch_native"],
                                   ["--decode-attention-backend", "flex_attention"]])
def test_sglang_09_split_attention_backend_keeps_graphs(flags: list[str]) -> None:
    # sglang_oracle.py ... --prefill-attention-backend torch_native (and
    # --decode-attention-backend flex_attention) → decode {full, 256}, prefill {breakable, 8192}:
    # SGLang disables graphs for --attention-backend only.
    plan = plan_of(sglang_case(flags))
    assert (phase(plan, "decode"), phase(plan, "prefill")) == (DECODE_256, PREFILL_8192)


def test_sglang_10_intel_amx_on_cuda_decode_full() -> None:
    # sglang_oracle.py ... --attention-backend intel_amx → decode {full, 256}.
    plan = plan_of(sglang_case(["--attention-backend", "intel_amx"]))
    assert phase(plan, "decode") == DECODE_256


def test_sglang_11_dflash_on_rocm_decode_full() -> None:
    # sglang_oracle.py --platform hip --model-arch llama --gpu-memory-gib 80
    #   --speculative-algorithm DFLASH --speculative-draft-model-path @llama
    #   --attention-backend ascend → decode {full, 256, 51 sizes} (vLLM's rule B4 does not apply
    # to SGLang), prefill disabled.
    plan = plan_of(sglang_case(["--speculative-algorithm", "DFLASH",
                                "--speculative-draft-model-path", "@llama",
                                "--attention-backend", "ascend"], platform="hip"))
    assert phase(plan, "decode") == {"backend": "full", "max_bs": 256, "bs": (51, 1, 256)}
    assert plan["config"]["prefill"]["backend"] == "disabled"


@pytest.mark.xfail(strict=True, reason="SGLang 0.5.23 refuses DFLASH for the device string 'hip' "
                   "(speculative_hook._handle_dflash accepts cuda*, npu, xpu), but on a ROCm machine "
                   "SGLang's device is 'cuda' and DFLASH runs (test_sglang_11_dflash_on_rocm_decode_full). "
                   "cgconfig's --device hip means the ROCm machine, so it cannot tell a literal "
                   "--device hip from that machine; rule refuse.dflash-device covers cpu/hpu/musa")
def test_sglang_11_dflash_with_device_hip_refused() -> None:
    # sglang_oracle.py --platform hip --device hip --speculative-algorithm DFLASH
    #   --speculative-draft-model-path @llama --attention-backend ascend
    # → ValueError: DFLASH speculative decoding is not supported by RocmSRTPlatform on device
    # 'hip'.
    with pytest.raises(CgConfigError, match="DFLASH"):
        plan_of(sglang_case(["--device", "hip", "--speculative-algorithm", "DFLASH",
                             "--speculative-draft-model-path", "@llama",
                             "--attention-backend", "ascend"], platform="hip"))


def test_sglang_12_full_prefill_on_flashinfer() -> None:
    # sglang_oracle.py ... --attention-backend flashinfer --cuda-graph-backend-prefill full →
    # prefill {full, 8192} (with an "experimental" warning), locked [prefill.backend].
    plan = plan_of(sglang_case(["--attention-backend", "flashinfer",
                                "--cuda-graph-backend-prefill", "full"]))
    assert phase(plan, "prefill") == {**PREFILL_8192, "backend": "full"}
    assert locked_config_keys(plan) == ["prefill.backend"]


def test_sglang_13_unified_memory_keeps_breakable_prefill() -> None:
    # sglang_oracle.py ... --enable-unified-memory → prefill {breakable, 8192}.
    plan = plan_of(sglang_case(["--enable-unified-memory"]))
    assert phase(plan, "prefill") == PREFILL_8192


def test_sglang_14_chunked_prefill_off_gives_empty_prefill_list() -> None:
    # sglang_oracle.py ... --chunked-prefill-size -1 --cuda-graph-max-bs-prefill 2 →
    # prefill {breakable, 2, []}, locked [prefill.max_bs].
    plan = plan_of(sglang_case(["--chunked-prefill-size", "-1", "--cuda-graph-max-bs-prefill", "2"]))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 2, "bs": []}
    assert plan["capture"]["prefill"]["sizes"] == []


def test_sglang_15_deepep_prefill_uses_2048_fallback() -> None:
    # sglang_oracle.py --model-arch qwen3_moe --gpu-memory-gib 256 --moe-a2a-backend deepep
    #   --tp-size 8 → prefill {breakable, 2048, (38, 8, 2048)}: DeepEP's multiple-of-8 pass runs
    # before the memory defaults.
    plan = plan_of(sglang_case(["--moe-a2a-backend", "deepep", "--tp-size", "8"],
                               model="qwen3_moe", gpu=256))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 2048, "bs": (38, 8, 2048)}


def test_sglang_16_rocm_context_parallel_full_prefill() -> None:
    # sglang_oracle.py --platform hip --device hip --attn-cp-size 4 --tp-size 8
    #   --cuda-graph-config '{"prefill":{"backend":"full"}}' → prefill {full, 8192}.
    plan = plan_of(sglang_case(["--device", "hip", "--attn-cp-size", "4", "--tp-size", "8",
                                "--cuda-graph-config", '{"prefill":{"backend":"full"}}'],
                               platform="hip"))
    assert phase(plan, "prefill") == {**PREFILL_8192, "backend": "full"}


def test_sglang_17_qwen3_vl_decode_max_bs_to_running_limit() -> None:
    # sglang_oracle.py --model-arch qwen3_vl --gpu-memory-gib 80 --max-running-requests 300 →
    # decode {full, 300, (39, 1, 300)}.
    plan = plan_of(sglang_case(["--max-running-requests", "300"], model="qwen3_vl"))
    assert phase(plan, "decode") == {"backend": "full", "max_bs": 300, "bs": (39, 1, 300)}


@pytest.mark.parametrize(("model", "flags"), [
    ("deepseek_v3", ["--attn-cp-size", "2", "--tp-size", "2", "--enable-prefill-cp",
                     "--cp-strategy", "zigzag"]),
    ("llama", ["--attn-cp-size", "2", "--tp-size", "2"])])
def test_sglang_18_prefill_context_parallel(model: str, flags: list[str]) -> None:
    # sglang_oracle.py --model-arch deepseek_v3 --gpu-memory-gib 80 --attn-cp-size 2 --tp-size 2
    #   --enable-prefill-cp --cp-strategy zigzag → prefill disabled (MLA prefill CP);
    # sglang_oracle.py --model-arch llama ... --attn-cp-size 2 --tp-size 2 → prefill disabled
    # (attention CP without prefill CP: breakable prefill unsupported).
    plan = plan_of(sglang_case(flags, model=model))
    assert plan["config"]["prefill"]["backend"] == "disabled"
    assert phase(plan, "decode") == DECODE_256


def test_sglang_19_muse_glimmer_dp_attention_settles() -> None:
    # sglang_oracle.py --model-arch MuseGlimmerForCausalLM --gpu-memory-gib 80
    #   --chunked-prefill-size 256 --enable-dp-attention --dp-size 2 --tp-size 2
    # → prefill {breakable, 512, (30, 4, 512)}, locked [prefill.max_bs] (no cycle).
    plan = plan_of(sglang_case(["--chunked-prefill-size", "256", "--enable-dp-attention",
                                "--dp-size", "2", "--tp-size", "2"],
                               model="MuseGlimmerForCausalLM"))
    assert phase(plan, "prefill") == {"backend": "breakable", "max_bs": 512, "bs": (30, 4, 512)}
    assert locked_config_keys(plan) == ["prefill.max_bs"]


@pytest.mark.parametrize(("flags", "width"), [
    (["--speculative-algorithm", "NGRAM"], 12),
    (["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "@llama"], 8),
    (["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "@llama"], 16)])
def test_sglang_20_speculative_draft_width(flags: list[str], width: int) -> None:
    # sglang_oracle.py ... --speculative-algorithm NGRAM --req-pool-size 48 (and EAGLE, DFLASH
    # with --speculative-draft-model-path @llama) → runtime req_width 12 (8, 16), capture_bs
    # [1..8, 10, 12, …, 32, 40, 44, 48] (23 sizes) for a pool of 48 (the running limit SGLang
    # sets for speculative decoding).
    plan = plan_of(sglang_case([*flags, "--max-running-requests", "48"]))
    assert plan["capture"]["decode"]["alignment"]["request_width"] == width
    assert plan["capture"]["decode"]["sizes"] == [
        1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 40, 44, 48]
    assert plan["engine"]["speculative_num_draft_tokens"]["value"] == width


# -------------------------------------------------------------------------------------- vLLM

def vllm_case(**over: Any) -> dict[str, Any]:
    """A vLLM case in the corpus's shape (``compare.vllm_argv``), vLLM's defaults elsewhere."""
    case = {"cudagraph_mode": "FULL_AND_PIECEWISE", "compilation_mode": "VLLM_COMPILE",
            "splitting_ops_attention": "auto", "support": "ALWAYS", "max_num_seqs": 256,
            "max_num_batched_tokens": 8192, "num_spec_tokens": 0, "enforce_eager": False,
            "blackwell": False}
    return {**case, **over}


def vllm_answer(case: dict[str, Any]) -> dict[str, Any]:
    got = compare.vllm_outcome(case)
    return {"error": got["error"], "mode": got.get("mode"), "sizes": summary(got.get("sizes"))}


def test_vllm_v1_speculative_sizes_rounded_without_capability() -> None:
    # vllm_oracle.py --num-spec-tokens 5 --support ALWAYS → FULL_AND_PIECEWISE,
    # sizes multiples of 6: (48, 6, 498).
    got = vllm_answer(vllm_case(num_spec_tokens=5))
    assert got == {"error": None, "mode": "FULL_AND_PIECEWISE", "sizes": (48, 6, 498)}


def test_vllm_v2_sizes_above_batched_tokens_dropped() -> None:
    # vllm_oracle.py --capture-sizes 128 --max-num-seqs 16 --max-num-batched-tokens 16 →
    # FULL_AND_PIECEWISE, sizes [].
    got = vllm_answer(vllm_case(capture_sizes=[128], max_num_seqs=16, max_num_batched_tokens=16))
    assert got == {"error": None, "mode": "FULL_AND_PIECEWISE", "sizes": []}


def test_vllm_v3_no_splitting_outside_vllm_compile() -> None:
    # vllm_oracle.py --cudagraph-mode FULL --compilation-mode NONE --support UNIFORM_BATCH
    #   --splitting-ops-attention no → FULL_DECODE_ONLY (51 sizes, 1..512); with the ops left
    # unset (auto) the oracle returns FULL_AND_PIECEWISE, which vLLM's
    # _normalize_piecewise_cudagraph_mode makes FULL_DECODE_ONLY outside VLLM_COMPILE
    # (compare.vllm_expected).
    for ops in ("no", "auto"):
        case = vllm_case(cudagraph_mode="FULL", compilation_mode="NONE", support="UNIFORM_BATCH",
                         splitting_ops_attention=ops)
        assert vllm_answer(case) == {"error": None, "mode": "FULL_DECODE_ONLY",
                                     "sizes": (51, 1, 512)}


def test_vllm_v4_empty_splitting_ops_piecewise_is_none() -> None:
    # vllm_oracle.py --cudagraph-mode PIECEWISE --splitting-ops-attention no → NONE.
    got = vllm_answer(vllm_case(cudagraph_mode="PIECEWISE", splitting_ops_attention="no"))
    assert got["error"] is None and got["mode"] == "NONE"


def test_vllm_v5_blackwell_grid_to_1024() -> None:
    # vllm_oracle.py --blackwell --max-num-seqs 1024 --max-num-batched-tokens 16384 →
    # FULL_AND_PIECEWISE, sizes (83, 1, 1024).
    got = vllm_answer(vllm_case(blackwell=True, max_num_seqs=1024, max_num_batched_tokens=16384))
    assert got == {"error": None, "mode": "FULL_AND_PIECEWISE", "sizes": (83, 1, 1024)}


@pytest.mark.parametrize("over", [{"cudagraph_mode": "NONE"}, {"enforce_eager": True}])
def test_vllm_v6_graphs_off_skip_the_size_check(over: dict[str, Any]) -> None:
    # vllm_oracle.py --cudagraph-mode NONE --capture-sizes 128 --max-num-seqs 16
    #   --max-num-batched-tokens 16 → NONE, [] (no size check with graphs off; --enforce-eager
    # sets mode NONE first: compare.vllm_expected).
    case = vllm_case(capture_sizes=[128], max_num_seqs=16, max_num_batched_tokens=16, **over)
    assert vllm_answer(case) == {"error": None, "mode": "NONE", "sizes": []}


def test_vllm_v7_integer_cudagraph_mode() -> None:
    # In the oracle's venv: vllm.config.compilation.CompilationConfig(cudagraph_mode=2)
    # .cudagraph_mode → CUDAGraphMode.FULL (vLLM 0.33.0 takes the enum's integer value).
    plan = resolve_args(["-cc", json.dumps({"cudagraph_mode": 2}), "--cudagraph-support",
                         "ALWAYS"])
    assert (plan.backend("decode"), plan.backend("prefill")) == ("full", "full")


# ------------------------------------------------------------------- the "also" items

def test_max_running_requests_cut_is_a_decision_explain_shows(capsys) -> None:
    argv = ["--gpu-memory-gib", "80", "--cuda-graph-max-bs-decode", "256",
            "--max-running-requests", "100"]
    plan = resolve_args(argv)
    cap = next(d for d in plan.decisions if d.rule == "sizes.max-running-requests-cap")
    assert cap.source and cap.source.endswith("get_batch_sizes_to_capture")
    assert "--max-running-requests 100 caps the captured decode sizes" in cap.why
    assert cap.changes[0].after[-1] == 100 == plan.capture_sizes("decode")[-1]
    from cgconfig.cli.main import main

    assert main(["explain", *argv]) == 0
    out = capsys.readouterr().out
    assert "capture.decode.sizes = [1, 2, 4, 8, 12, 16, …, 100] (17)    " \
        "[changed by sizes.max-running-requests-cap]" in out
    assert main(["explain", "capture.decode.sizes", *argv]) == 0
    assert "sizes.max-running-requests-cap —" in capsys.readouterr().out


@pytest.mark.parametrize("flags", [
    [], ["--speculative-num-steps", "2", "--speculative-eagle-topk", "4"],
    ["--speculative-num-steps", "2", "--speculative-eagle-topk", "1"]])
def test_eagle_without_draft_tokens_never_verifies_1_tokens(flags: list[str]) -> None:
    # SGLang derives the width (speculative_hook: auto parameters, or steps + 1 with topk 1) and
    # leaves it unset for a topk > 1 tree; no message may speak of "1 tokens".
    # Split backends: SGLang refuses a paged topk > 1 tree on intel_xpu (page size 128) as the
    # only backend (rule refuse.eagle-topk-paged-tree), not as the decode backend alone.
    argv = ["--device", "cuda", "--prefill-attention-backend", "fa3",
            "--decode-attention-backend", "intel_xpu", "--speculative-algorithm", "EAGLE", *flags]
    text = resolve_args(argv).to_json()
    assert "1 tokens" not in text
    advice = [d for d in resolve_args(argv).decisions
              if d.rule == "attention.spec-decode-needs-uniform-batch"]
    width = resolve_args(argv).engine["speculative_num_draft_tokens"]["value"]
    assert bool(advice) == (width is not None and width > 1)


def _apply_remedy(argv: list[str], remedy: str) -> list[str]:
    """One "Remedies:" entry of a --strict refusal applied to the command line."""
    words = remedy.split()
    if words[0] == "drop":
        i = argv.index(words[1])
        return argv[:i] + argv[i + 2:]
    if words[0] == "set":
        key, value = words[1], words[3].strip("'")
        flag = {"decode.backend": "--cuda-graph-backend-decode",
                "prefill.backend": "--cuda-graph-backend-prefill"}[key]
        kept = list(argv)
        if flag in kept:
            i = kept.index(flag)
            kept = kept[:i] + kept[i + 2:]
        return [*kept, flag, value]
    assert words[:2] == ["pass", "--allow-override"], remedy
    return [*argv, "--allow-override", words[2]]


@pytest.mark.parametrize("backend", ["torch_native", "flex_attention"])
@pytest.mark.parametrize("locked", [["--cuda-graph-backend-decode", "full"],
                                    ["--cuda-graph-backend-decode", "breakable"],
                                    ["--cuda-graph-backend-prefill", "breakable"]])
def test_strict_remedies_for_eager_attention_do_not_exit_3(capsys, backend: str,
                                                           locked: list[str]) -> None:
    from cgconfig.cli.main import main

    argv = ["resolve", "--attention-backend", backend, *locked, "--strict"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    remedies = err.split("Remedies: ", 1)[1].strip().split("; or ")
    assert remedies and not any("breakable" in r for r in remedies)
    for remedy in remedies:
        fixed = _apply_remedy(argv, remedy)
        assert main(fixed) == 0, (remedy, fixed)
        capsys.readouterr()


def test_vllm_messages_never_say_backend_backend() -> None:
    from cgconfig.engines.vllm.modes import VLLM_BACKEND_SUPPORT

    seen = 0
    for backend in [None, *VLLM_BACKEND_SUPPORT]:
        for mode in ("FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "PIECEWISE"):
            for spec in ("0", "3"):
                argv = ["--dialect", "vllm", "-cc", json.dumps({"cudagraph_mode": mode}),
                        "--num-speculative-tokens", spec]
                argv += ["--vllm-attention-backend", backend] if backend else \
                    ["--cudagraph-support", "UNIFORM_SINGLE_TOKEN_DECODE"]
                try:
                    text = resolve_args(argv).to_json()
                except CgConfigError as exc:
                    text = str(exc)
                seen += "attention backend" in text or " backend (support" in text
                assert "backend backend" not in text.lower(), argv
    assert seen  # the sweep reached the messages that name a backend
