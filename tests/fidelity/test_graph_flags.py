"""SGLang 0.5.23 flags that change the graph config (issue #9), each checked against the oracle's
answer (``cd /work/oracle_run/oracle && vendor/venv/bin/python sglang_oracle.py ARGS``)."""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

PDMUX_OK = ["--enable-pdmux", "--chunked-prefill-size", "-1", "--disable-overlap-schedule"]


def test_pdmux_with_its_companions_runs_without_prefill_graphs() -> None:
    # sglang_oracle.py --enable-pdmux --chunked-prefill-size -1 --disable-overlap-schedule
    # → no error; decode {full, 256}; prefill {breakable, max_bs -1}: no prefill sizes.
    plan = resolve_args([*PDMUX_OK, "--gpu-memory-gib", "80", "--device", "cuda"]).to_dict()
    assert plan["config"]["decode"]["backend"] == "full"
    assert plan["config"]["decode"]["max_bs"] == 256
    assert plan["config"]["prefill"]["max_bs"] == -1
    assert not plan["config"]["prefill"]["bs"]


@pytest.mark.parametrize(("extra", "oracle_error"), [
    # sglang_oracle.py --enable-pdmux → AssertionError: PD-Multiplexing is not compatible
    # with chunked prefill.
    (["--enable-pdmux"], "chunked prefill"),
    # sglang_oracle.py --enable-pdmux --chunked-prefill-size -1 → ... not compatible with
    # overlap schedule.
    (["--enable-pdmux", "--chunked-prefill-size", "-1"], "overlap schedule"),
    # sglang_oracle.py <PDMUX_OK> --pp-size 2 → ... only supported with pipeline parallelism
    # disabled (pp_size=1).
    ([*PDMUX_OK, "--pp-size", "2"], "pp_size"),
    # sglang_oracle.py <PDMUX_OK> --disaggregation-mode decode → ... not compatible with
    # disaggregation mode.
    ([*PDMUX_OK, "--disaggregation-mode", "decode"], "disaggregation-mode"),
])
def test_pdmux_without_its_companions_is_refused(extra: list[str], oracle_error: str) -> None:
    with pytest.raises(CgConfigError, match="refuses --enable-pdmux") as caught:
        resolve_args([*extra, "--gpu-memory-gib", "80"])
    assert oracle_error in str(caught.value)


def test_disable_overlap_schedule_alone_keeps_the_default_graphs() -> None:
    # sglang_oracle.py --disable-overlap-schedule → decode {full, 256}, prefill {breakable, 8192}.
    plan = resolve_args(["--disable-overlap-schedule", "--gpu-memory-gib", "80",
                         "--device", "cuda"]).to_dict()
    assert (plan["config"]["decode"]["max_bs"], plan["config"]["prefill"]["max_bs"]) == (256, 8192)
    assert plan["config"]["prefill"]["backend"] == "breakable"


@pytest.mark.parametrize("device", ["cpu", "hpu", "musa"])
def test_dflash_is_refused_off_cuda_npu_xpu(device: str) -> None:
    # sglang_oracle.py --device DEVICE --speculative-algorithm DFLASH
    #   --speculative-draft-model-path @llama → ValueError: DFLASH speculative decoding is not
    # supported by CudaSRTPlatform on device 'DEVICE'. (xpu: accepted.)
    with pytest.raises(CgConfigError, match=f"DFLASH speculative decoding on device {device}"):
        resolve_args(["--device", device, "--speculative-algorithm", "DFLASH",
                      "--gpu-memory-gib", "80"])


@pytest.mark.parametrize("extra", [[], ["--cuda-graph-backend-decode", "full"]])
def test_msprobe_runs_both_phases_eagerly(extra: list[str]) -> None:
    # sglang_oracle.py --msprobe-dump-config /x.json [--cuda-graph-backend-decode full]
    # → decode {disabled, 256}, prefill {disabled, 8192} (serving_hook._handle_other_validations).
    plan = resolve_args(["--msprobe-dump-config", "/x.json", *extra, "--gpu-memory-gib", "80",
                         "--device", "cuda"]).to_dict()
    assert plan["config"]["decode"]["backend"] == "disabled"
    assert plan["config"]["prefill"]["backend"] == "disabled"
    assert (plan["config"]["decode"]["max_bs"], plan["config"]["prefill"]["max_bs"]) == (256, 8192)


def test_attn_dp_size_is_dp_attention() -> None:
    # sglang_oracle.py --tp-size 2 --attn-dp-size 2 --gpu-memory-gib 141 → prefill max_bs 4096,
    # chunked_prefill_size 4096 (8192 divided over 2 attention-DP groups).
    plan = resolve_args(["--tp-size", "2", "--attn-dp-size", "2", "--gpu-memory-gib", "141",
                         "--device", "cuda"]).to_dict()
    assert plan["config"]["prefill"]["max_bs"] == 4096
    assert plan["facts"]["dp_size"] == 2 and plan["facts"]["enable_dp_attention"]


def test_attn_dp_size_with_dp_replicas_is_refused() -> None:
    # sglang_oracle.py --tp-size 2 --attn-dp-size 2 --dp-size 2 → ValueError: --dp-size 2 with
    # --attn-dp-size 2: data-parallel replicas combined with attention data parallelism are
    # not supported.
    with pytest.raises(CgConfigError, match="refuses --dp-size 2 with --attn-dp-size 2"):
        resolve_args(["--tp-size", "2", "--attn-dp-size", "2", "--dp-size", "2"])


@pytest.mark.parametrize(("extra", "decode"), [([], "disabled"),
                                               (["--cuda-graph-backend-decode", "full"], "full"),
                                               (["--dp-size", "2"], "disabled")])
def test_dwdp_is_the_legacy_graph_switch_with_dp_attention(extra: list[str], decode: str) -> None:
    # sglang_oracle.py --gpu-memory-gib 141 --tp-size 2 --dwdp-size 2 [EXTRA] → decode
    # {DECODE, 256}, prefill {disabled, 8192}, locked [decode.backend, prefill.backend]
    # (parallel_hook.handle_dwdp sets disable_cuda_graph before the graph config is parsed).
    plan = resolve_args(["--tp-size", "2", "--dwdp-size", "2", *extra, "--gpu-memory-gib", "141",
                         "--device", "cuda"]).to_dict()
    assert (plan["config"]["decode"]["backend"], plan["config"]["decode"]["max_bs"]) == (decode, 256)
    assert (plan["config"]["prefill"]["backend"], plan["config"]["prefill"]["max_bs"]) \
        == ("disabled", 8192)
    assert plan["locked"][:2] == ["decode.backend", "prefill.backend"]


@pytest.mark.parametrize("extra", [[], ["--tp-size", "2", "--disaggregation-mode", "decode"]])
def test_dwdp_outside_its_layout_is_refused(extra: list[str]) -> None:
    # sglang_oracle.py --dwdp-size 2 → AssertionError: dwdp_size (2) must equal tp_size (1);
    # ... --tp-size 2 --disaggregation-mode decode → DWDP requires --disaggregation-mode null
    # or prefill.
    with pytest.raises(CgConfigError, match="refuses --dwdp-size 2"):
        resolve_args(["--dwdp-size", "2", *extra])
