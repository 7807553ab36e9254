"""Each SGLang release's own flag errors (its table, argparse prefix rules), its behaviour
changes (engines/sglang/releases.py), and `cgconfig diff --a-version/--b-version`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.api import resolve_args
from cgconfig.cli.main import main
from cgconfig.engines.release_change import value_at
from cgconfig.engines.sglang.releases import BEHAVIOURS
from cgconfig.errors import CgConfigError
from cgconfig.line import versions
from cgconfig.line.table import load_table

LINE = ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
#: The supported releases from 0.5.20 on (the ones that dropped 0.5.19's old aliases).
_FROM_0_5_20 = [v for v in versions.SUPPORTED["sglang"]
                if (versions.version_key(v) or ()) >= (0, 5, 20)]


def refusal(argv: list[str]) -> str:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(argv)
    text = str(raised.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize(("alias", "value", "replacement"), [
    ("--cuda-graph-max-bs", ["8"], "--cuda-graph-max-bs-decode"),
    ("--disable-piecewise-cuda-graph", [], "--cuda-graph-backend-prefill disabled"),
    ("--piecewise-cuda-graph-max-tokens", ["512"], "--cuda-graph-max-bs-prefill"),
])
def test_aliases_removed_in_0_5_20_are_refused_from_then_on(alias: str, value: list[str],
                                                            replacement: str) -> None:
    for version in _FROM_0_5_20:
        text = refusal([*LINE, "--engine-version", version, alias, *value])
        assert "was removed in SGLang 0.5.20" in text and f"use {replacement}" in text
    # 0.5.19 still reads them, with its deprecation note.
    plan = resolve_args([*LINE, "--engine-version", "0.5.19", alias, *value])
    assert any(alias in note for note in plan.deprecations)


def test_ambiguous_prefix_is_the_releases_own_error() -> None:
    # `--cuda-graph-max-bs` is a prefix of -decode and -prefill: SGLang 0.5.23's argparse
    # refuses it as ambiguous (a line naming no release is answered for the releases that
    # parse it: line/release_from_flags.py); `--pp` matches --pp-size and others in every release.
    newest = versions.newest("sglang")
    assert "ambiguous option: --cuda-graph-max-bs could match --cuda-graph-max-bs-decode, " \
           "--cuda-graph-max-bs-prefill" in refusal([*LINE, "--engine-version", newest,
                                                     "--cuda-graph-max-bs", "8"])
    for version in versions.SUPPORTED["sglang"]:
        text = refusal([*LINE, "--engine-version", version, "--pp", "2"])
        assert "ambiguous option: --pp could match" in text and "use --pp-size" in text


def test_a_unique_prefix_is_accepted_as_argparse_does() -> None:
    table = load_table("sglang")
    assert table.prefix_matches("--tp-si") == ["--tp-size"]
    assert resolve_args([*LINE, "--tp-si", "2"]).facts["tp_size"] == 2


def test_a_flag_added_later_is_refused_by_the_older_release() -> None:
    text = refusal([*LINE, "--engine-version", "0.5.20", "--cuda-graph-prefill-max-context",
                    "4096"])
    assert "is new in SGLang 0.5.21" in text and "SGLang 0.5.20 (--engine-version)" in text
    resolve_args([*LINE, "--engine-version", "0.5.21", "--cuda-graph-prefill-max-context",
                  "4096"])


def test_cgconfig_own_flags_are_not_the_releases() -> None:
    plan = resolve_args(["--engine-version", "0.5.19", "--gpu-memory-gib", "80", "--strict",
                         "--gpu-sm", "90"])
    assert plan.engine_version["version"] == "0.5.19"


def test_every_release_change_is_a_supported_release() -> None:
    """Each row begins or ends at a supported release, or at a release inside the supported
    range whose wheel placed the boundary (SGLang 0.5.9's 576 prefill size was one until 0.5.9's
    table was shipped), and no two rows
    of one behaviour hold at one release (``value_at`` raises)."""
    releases = versions.SUPPORTED["sglang"]
    low, high = versions.version_key(releases[0]), versions.version_key(releases[-1])
    for name, rows in BEHAVIOURS.items():
        for row in rows:
            for bound in {row.since, row.until} - {None} - set(releases):
                key = versions.version_key(bound)
                assert key is not None and low is not None and high is not None
                assert low < key < high, (name, row)
            assert row.what and row.cites.startswith("python/sglang/"), (name, row)
        for release in releases:
            value_at(rows, release)


@pytest.mark.parametrize(("version", "decode", "prefill"), [
    ("0.5.19", 24, 2048), ("0.5.20", 48, 4096), ("0.5.23", 48, 4096)])
def test_the_20_35_gib_tier_changed_in_0_5_20(version: str, decode: int, prefill: int) -> None:
    plan = resolve_args(["--engine-version", version, "--gpu-memory-gib", "24"])
    assert (plan.config["decode"]["max_bs"], plan.config["prefill"]["max_bs"]) == \
        (decode, prefill)


@pytest.mark.parametrize(("version", "decode"), [("0.5.21", 256), ("0.5.22", 48)])
def test_the_running_requests_clamp_begins_in_0_5_22(version: str, decode: int) -> None:
    plan = resolve_args(["--engine-version", version, "--gpu-memory-gib", "80",
                         "--max-running-requests", "48"])
    assert plan.config["decode"]["max_bs"] == decode


@pytest.mark.parametrize(("version", "prefill"), [("0.5.22", 2048), ("0.5.23", 8192)])
def test_mla_prefill_default_changed_in_0_5_23(version: str, prefill: int) -> None:
    plan = resolve_args(["--engine-version", version, "--gpu-memory-gib", "180", "--use-mla",
                         "--model-arch", "DeepseekV3ForCausalLM", "--tp-size", "8"])
    assert plan.config["prefill"]["max_bs"] == prefill


def test_diff_of_one_line_across_two_releases(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["diff", "--a-version", "sglang==0.5.19", "--b-version", "sglang==0.5.23",
               "-o", "json", "--gpu-memory-gib", "24"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and not out["equal"]
    assert out["a"].startswith("cgconfig resolve --engine-version sglang==0.5.19 ")
    rc = main(["diff", "--a-version", "0.5.22", "--b-version", "0.5.23", "-o", "json",
               "--gpu-memory-gib", "80"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["equal"]
    assert main(["diff", "--a-version", "0.5.20"]) == 2


def test_the_newest_release_fast_path_skips_only_what_it_would_accept() -> None:
    # check_sglang_spellings skips reading the table when every flag is one of cgconfig's
    # primary spellings at the newest release; the full check accepts each of them too.
    from cgconfig.engines.sglang import version_flags as check
    from cgconfig.fields.flags import ALL_FLAGS
    from cgconfig.line.versions import EngineVersion

    newest = versions.newest("sglang")
    full = EngineVersion("sglang", newest, "test")
    for flag in ALL_FLAGS:
        if flag.replacement is None and flag.name.startswith("--"):
            assert check._all_canonical([flag.name])
            table = load_table("sglang", newest)
            owned = check._sglang_owned(flag.name, table)
            assert owned is None or table.lookup(flag.name) is not None \
                or len(table.prefix_matches(flag.name)) == 1, flag.name
    check.check_sglang_spellings(["--tp-size", "2"], full)


def test_a_reason_names_the_release_the_line_is_answered_for() -> None:
    # {engine.label} in a rule's reason is the chosen release, from the registry.
    for version in _FROM_0_5_20:
        text = refusal(["--engine-version", version, "--attention-backend", "cutlass_mla"])
        assert text.startswith(f"SGLang {version}'s argument parser rejects")


@pytest.mark.parametrize(("version", "role", "decode", "prefill"), [
    ("0.5.15", "prefill", "disabled", "disabled"), ("0.5.15", "decode", "full", "breakable"),
    ("0.5.16", "prefill", "disabled", "breakable"), ("0.5.16", "decode", "full", "disabled")])
def test_pd_roles_before_0_5_16_are_the_legacy_disable_switch(
        version: str, role: str, decode: str, prefill: str) -> None:
    """SGLang 0.5.15's PD prefill instance sets ``disable_cuda_graph`` (both phases off) and its
    decode instance keeps prefill; 0.5.16's ``_apply_cuda_graph_disaggregation_roles``
    switches off the phase the role never runs."""
    plan = resolve_args(["--engine-version", version, "--gpu-memory-gib", "80",
                         "--disaggregation-mode", role])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


def test_an_explicit_prefill_backend_wins_over_0_5_15s_pd_prefill_switch() -> None:
    plan = resolve_args(["--engine-version", "0.5.15", "--gpu-memory-gib", "80",
                         "--disaggregation-mode", "prefill", "--cuda-graph-backend-prefill",
                         "breakable"])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        ("disabled", "breakable")


@pytest.mark.parametrize(("args", "prefill"), [
    ([], "tc_piecewise"), (["--enable-dp-attention", "--dp-size", "2", "--tp-size", "2"], "disabled"),
    (["--cuda-graph-backend-prefill", "breakable"], "breakable")])
def test_0_5_14_defaults_prefill_to_tc_piecewise_with_its_cascade(args: list[str],
                                                                 prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.14", "--gpu-memory-gib", "80", *args])
    assert plan.config["prefill"]["backend"] == prefill


_DP = ["--enable-dp-attention", "--dp-size", "2", "--tp-size", "2"]


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.13's own code (docs/fidelity.md, "SGLang 0.5.13")
    ([], "full", "tc_piecewise"),
    (["--disable-cuda-graph"], "disabled", "tc_piecewise"),
    (["--enable-breakable-cuda-graph"], "full", "breakable"),
    (["--enable-breakable-cuda-graph", *_DP], "full", "disabled"),
    (["--enforce-piecewise-cuda-graph", "--enable-breakable-cuda-graph", *_DP], "full", "breakable"),
    (["--enable-breakable-cuda-graph", "--disable-piecewise-cuda-graph"], "full", "disabled"),
    (["--disable-piecewise-cuda-graph", "--enable-breakable-cuda-graph"], "full", "disabled"),
    (["--enforce-piecewise-cuda-graph", "--disable-piecewise-cuda-graph"], "full", "tc_piecewise"),
    (["--attention-backend", "torch_native"], "disabled", "tc_piecewise"),
    (["--enable-piecewise-cuda-graph"], "full", "tc_piecewise")])
def test_0_5_13_reads_its_own_graph_switches(args: list[str], decode: str, prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.13", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


def test_a_line_with_enable_piecewise_cuda_graph_is_answered_for_0_5_13() -> None:
    plan = resolve_args(["--gpu-memory-gib", "80", "--enable-piecewise-cuda-graph"])
    assert plan.engine_version["version"] == "0.5.13"


_PD = ["--disaggregation-mode", "prefill"]
_QWEN3_MOE = ["--model-arch", "Qwen3MoeForCausalLM"]


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.12's own code (docs/fidelity.md, "SGLang 0.5.12")
    (_PD, "full", "disabled"),
    ([*_PD, "--disable-piecewise-cuda-graph"], "disabled", "disabled"),
    ([*_PD, "--disable-piecewise-cuda-graph", "--enforce-piecewise-cuda-graph"], "disabled",
     "tc_piecewise"),
    ([*_PD, "--enforce-piecewise-cuda-graph"], "full", "tc_piecewise"),
    ([*_PD, "--enable-breakable-cuda-graph"], "full", "disabled"),
    (["--moe-runner-backend", "flashinfer_trtllm"], "full", "disabled"),
    (["--moe-runner-backend", "flashinfer_trtllm", "--enforce-piecewise-cuda-graph"], "full",
     "tc_piecewise"),
    ([*_QWEN3_MOE, "--gpu-sm", "100"], "full", "disabled"),
    ([*_QWEN3_MOE, "--gpu-sm", "90"], "full", "tc_piecewise"),
    ([*_QWEN3_MOE, "--moe-a2a-backend", "flashinfer", "--tp-size", "2", "--moe-runner-backend",
      "flashinfer_cutlass"], "full", "disabled")])
def test_0_5_12_pd_prefill_and_moe_runner_switches(args: list[str], decode: str,
                                                   prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.12", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


def test_0_5_12_keeps_the_prefill_max_bs_over_an_explicit_context_length() -> None:
    # measured: 0.5.12's _handle_gpu_memory_settings has no context-length clamp (0.5.13-0.5.16 do)
    plan = resolve_args(["--engine-version", "0.5.12", "--gpu-memory-gib", "80",
                         "--context-length", "2048"])
    assert plan.config["prefill"]["max_bs"] == 8192
    clamped = resolve_args(["--engine-version", "0.5.13", "--gpu-memory-gib", "80",
                            "--context-length", "2048"])
    assert clamped.config["prefill"]["max_bs"] == 2048


@pytest.mark.parametrize(("args", "said"), [
    # measured: SGLang 0.5.12's argparse has no dsa attention backend; its _handle_a2a_moe
    # asserts the flashinfer_cutlass runner for the FlashInfer all-to-all
    (["--attention-backend", "dsa"], "SGLang 0.5.12's argument parser rejects"),
    ([*_QWEN3_MOE, "--moe-a2a-backend", "flashinfer", "--tp-size", "2"],
     "only supported with flashinfer_cutlass"),
    # measured: its _handle_speculative_decoding keeps the paged tree draft to flashinfer, fa3
    (["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "m",
      "--speculative-num-steps", "3", "--speculative-eagle-topk", "2", "--page-size", "16",
      "--attention-backend", "triton"], "only supported on flashinfer and fa3")])
def test_0_5_12_refuses_what_its_parser_and_checks_refuse(args: list[str], said: str) -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "0.5.12", "--gpu-memory-gib", "80", *args])
    assert said in str(raised.value)


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.11's own code (docs/fidelity.md, "SGLang 0.5.11")
    ([*_QWEN3_MOE, "--gpu-sm", "100"], "full", "disabled"),
    (["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-sm", "100"], "full",
     "tc_piecewise"),
    (["--disable-cuda-graph-padding", "--enable-torch-compile"], "full", "disabled"),
    (_PD, "full", "disabled")])
def test_0_5_11_moe_runner_padding_and_pd_prefill(args: list[str], decode: str,
                                                  prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.11", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


@pytest.mark.parametrize("args", [
    # measured: SGLang 0.5.11's argparse has neither choice
    ["--moe-a2a-backend", "megamoe"], ["--attention-backend", "tokenspeed_mla"]])
def test_0_5_11_refuses_what_its_parser_refuses(args: list[str]) -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "0.5.11", "--gpu-memory-gib", "80", *args])
    assert "SGLang 0.5.11's argument parser rejects" in str(raised.value)


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.10's own code (docs/fidelity.md, "SGLang 0.5.10")
    (["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-sm", "100"], "full",
     "disabled"),
    (["--speculative-algorithm", "NGRAM"], "full", "disabled"),
    (["--speculative-algorithm", "NGRAM", "--enforce-piecewise-cuda-graph"], "full",
     "tc_piecewise"),
    (_PD, "disabled", "disabled"),
    ([*_PD, "--enforce-piecewise-cuda-graph"], "full", "tc_piecewise"),
    (["--disable-cuda-graph"], "disabled", "tc_piecewise"),
    (["--disable-cuda-graph-padding", "--enable-torch-compile"], "full", "disabled"),
    # no intel_xpu MLA-prefill refusal yet (0.5.11 adds it)
    (["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--device", "xpu",
      "--attention-backend", "intel_xpu"], "full", "disabled")])
def test_0_5_10_speculative_deepseek_and_pd_prefill(args: list[str], decode: str,
                                                    prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


@pytest.mark.parametrize("args", [
    # measured: SGLang 0.5.10's argparse has neither choice
    ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "d"],
    ["--moe-runner-backend", "aiter"]])
def test_0_5_10_refuses_what_its_parser_refuses(args: list[str]) -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80", *args])
    assert "SGLang 0.5.10's argument parser rejects" in str(raised.value)


def test_0_5_10_has_no_per_phase_decode_flag() -> None:
    # measured: 0.5.10's argparse: unrecognized arguments: --cuda-graph-max-bs-decode 64
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "0.5.10", "--cuda-graph-max-bs-decode", "64"])
    assert "refuses it" in str(raised.value)


@pytest.mark.parametrize(("args", "said"), [
    # measured: the held-out batch's cases 18 and 38 (docs/fidelity.md, "SGLang 0.5.10")
    (["--enable-deterministic-inference", "--attention-backend", "ascend"],
     "it accepts fa3, flashinfer, triton"),
    (["--speculative-algorithm", "NGRAM", "--device", "cpu"], "it supports CUDA devices only")])
def test_0_5_10_refuses_what_its_checks_refuse(args: list[str], said: str) -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80", *args])
    assert said in str(raised.value)


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.8's own code (docs/fidelity.md, "SGLang 0.5.8")
    ([], "full", "disabled"),
    (["--enable-piecewise-cuda-graph"], "full", "tc_piecewise"),
    (["--enable-piecewise-cuda-graph", "--enable-torch-compile"], "full", "disabled"),
    (["--enable-piecewise-cuda-graph", "--moe-a2a-backend", "deepep"], "full", "disabled"),
    (["--enable-piecewise-cuda-graph", "--enable-dp-attention", "--dp-size", "2", "--tp-size",
      "2"], "full", "tc_piecewise"),
    (_PD, "disabled", "disabled"),
    ([*_PD, "--enable-piecewise-cuda-graph"], "full", "tc_piecewise")])
def test_0_5_8_prefill_graph_is_opt_in(args: list[str], decode: str, prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.8", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


def test_0_5_8_sizes() -> None:
    # measured: 0.5.8 does not append an off-grid max_bs, its prefill grid has no 576, and
    # --max-total-tokens does not cap its prefill max_bs
    plan = resolve_args(["--engine-version", "0.5.8", "--gpu-memory-gib", "80",
                         "--cuda-graph-max-bs", "300", "--enable-piecewise-cuda-graph",
                         "--max-total-tokens", "1000"])
    assert plan.config["decode"]["bs"][-2:] == [272, 288]
    assert plan.config["prefill"]["max_bs"] == 8192
    assert 576 not in plan.config["prefill"]["bs"] and 640 in plan.config["prefill"]["bs"]
    newer = resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80",
                          "--cuda-graph-max-bs", "300", "--max-total-tokens", "1000"])
    assert newer.config["decode"]["bs"][-1] == 300 and newer.config["prefill"]["max_bs"] == 1000


def test_0_5_9_sizes_and_prefill() -> None:
    # measured with the oracle on SGLang 0.5.9's own code (docs/fidelity.md, "SGLang 0.5.9"):
    # its prefill grid has 576 (0.5.8's has not), it appends no off-grid decode max_bs and
    # --max-total-tokens does not cap its prefill max_bs (as 0.5.8); the prefill graph is opt-in
    plan = resolve_args(["--engine-version", "0.5.9", "--gpu-memory-gib", "80",
                         "--cuda-graph-max-bs", "300", "--enable-piecewise-cuda-graph",
                         "--max-total-tokens", "1000"])
    assert plan.engine_version["version"] == "0.5.9"
    assert plan.config["decode"]["bs"][-2:] == [272, 288]
    assert plan.config["prefill"]["backend"] == "tc_piecewise"
    assert plan.config["prefill"]["max_bs"] == 8192 and 576 in plan.config["prefill"]["bs"]
    default = resolve_args(["--engine-version", "0.5.9", "--gpu-memory-gib", "80"])
    assert default.config["prefill"]["backend"] == "disabled"


@pytest.mark.parametrize(("args", "decode", "prefill"), [
    # measured with the oracle on SGLang 0.5.9's own code
    (_PD, "disabled", "disabled"),
    ([*_PD, "--enable-piecewise-cuda-graph"], "full", "tc_piecewise"),
    (["--enable-piecewise-cuda-graph", "--enable-torch-compile"], "full", "disabled"),
    (["--tp-size", "2", "--attn-cp-size", "2"], "full", "disabled"),
    # 0.5.9's _handle_mamba_radix_cache turns the radix cache off here; 0.5.10 refuses it
    (["--model-arch", "Qwen3NextForCausalLM", "--speculative-algorithm", "NGRAM"], "full",
     "disabled")])
def test_0_5_9_plans(args: list[str], decode: str, prefill: str) -> None:
    plan = resolve_args(["--engine-version", "0.5.9", "--gpu-memory-gib", "80", *args])
    assert (plan.config["decode"]["backend"], plan.config["prefill"]["backend"]) == \
        (decode, prefill)


@pytest.mark.parametrize(("version", "args", "said"), [
    # measured: 0.5.9's AssertionError "PP is not supported with context parallelism";
    # its argparse lacks nixl; 0.5.10 refuses speculative decoding beside the mamba radix cache
    ("0.5.9", ["--tp-size", "2", "--attn-cp-size", "2", "--pp-size", "2"],
     "PP is not supported with context parallelism"),
    ("0.5.9", ["--moe-a2a-backend", "nixl"], "argument parser rejects"),
    ("0.5.10", ["--model-arch", "Qwen3NextForCausalLM", "--speculative-algorithm", "NGRAM"],
     "refuses speculative decoding")])
def test_0_5_9_and_0_5_10_refusals(version: str, args: list[str], said: str) -> None:
    with pytest.raises(CgConfigError) as raised:
        resolve_args(["--engine-version", version, "--gpu-memory-gib", "80", *args])
    assert said in str(raised.value)


def test_0_5_10_plans_pp_with_attn_cp() -> None:
    # measured: 0.5.10's _handle_context_parallelism no longer asserts PP 1 for attention CP
    plan = resolve_args(["--engine-version", "0.5.10", "--gpu-memory-gib", "80",
                         "--tp-size", "2", "--attn-cp-size", "2", "--pp-size", "2"])
    assert plan.config["decode"]["backend"] == "full"


_MAMBA_SPECULATIVE = {
    # measured with the oracle on each release's own code (speculative decoding NGRAM, the
    # mamba no_buffer strategy, the radix cache on): True = refused by _handle_mamba_radix_cache
    "NemotronHForCausalLM": {"0.5.9": False, "0.5.10": True, "0.5.11": True, "0.5.12": True,
                             "0.5.13": True},
    "BailingMoeV2_5ForCausalLM": {"0.5.9": False, "0.5.10": False, "0.5.11": False,
                                  "0.5.12": False, "0.5.13": True},
    "MiniCPMV4_6ForConditionalGeneration": {"0.5.10": False, "0.5.11": False, "0.5.12": True,
                                            "0.5.13": True},
    "InternS2PreviewForConditionalGeneration": {"0.5.10": False, "0.5.11": False,
                                                "0.5.12": True, "0.5.13": True},
    "Qwen3NextForCausalLM": {"0.5.8": False, "0.5.9": False, "0.5.10": True, "0.5.11": True,
                             "0.5.12": True, "0.5.13": True},
    "Lfm2ForCausalLM": {"0.5.9": False, "0.5.10": True, "0.5.11": True, "0.5.12": True,
                        "0.5.13": True},
}


@pytest.mark.parametrize(("arch", "version", "refused"), [
    (arch, version, refused) for arch, by in _MAMBA_SPECULATIVE.items()
    for version, refused in by.items()])
def test_mamba_speculative_radix_cache_by_release(arch: str, version: str, refused: bool) -> None:
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--model-arch", arch,
            "--speculative-algorithm", "NGRAM"]
    if not refused:
        assert resolve_args(args).config["decode"]["backend"] == "full"
        return
    with pytest.raises(CgConfigError) as raised:
        resolve_args(args)
    assert "refuses speculative decoding" in str(raised.value)


#: --moe-dp-size (facts.moe_dp_size) measured with the oracle on each release's own code
#: (``--gpu-memory-gib 80 --sm 90``, the Llama-3-8B template, and the flags below); True =
#: refused by ServerArgs._handle_context_parallelism (0.5.19 on parallel_hook), False = planned.
_MOE_DP_LINES = {
    "pp": ["--tp-size", "4", "--moe-dp-size", "2", "--pp-size", "2"],
    "indivisible": ["--tp-size", "4", "--moe-dp-size", "3"],
    "alone": ["--tp-size", "4", "--moe-dp-size", "2"],
    "with-attn-cp": ["--tp-size", "4", "--moe-dp-size", "2", "--attn-cp-size", "2"],
    "with-attn-cp-pp": ["--tp-size", "4", "--moe-dp-size", "2", "--attn-cp-size", "2",
                        "--pp-size", "2"],
    "alias-pp": ["--tp-size", "4", "--moe-data-parallel-size", "2", "--pp-size", "2"],
}
_MOE_DP_REFUSED = {
    # 0.5.9 and 0.5.10 have no attn_cp_size != moe_dp_size check ("alone" plans)
    **{v: {"pp": True, "indivisible": True, "alone": False, "with-attn-cp": False,
           "with-attn-cp-pp": True, "alias-pp": True} for v in ("0.5.9", "0.5.10")},
    **{v: {"pp": True, "indivisible": True, "alone": True, "with-attn-cp": False,
           "with-attn-cp-pp": True, "alias-pp": True}
       for v in ("0.5.11", "0.5.13", "0.5.17", "0.5.19", "0.5.23")},
}


@pytest.mark.parametrize(("version", "line", "refused"), [
    (version, line, refused) for version, by in _MOE_DP_REFUSED.items()
    for line, refused in by.items()])
def test_moe_dp_size_checks_by_release(version: str, line: str, refused: bool) -> None:
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
            *_MOE_DP_LINES[line]]
    if not refused:
        assert resolve_args(args).config["decode"]["backend"] == "full"
        return
    # (0.5.9 asserts PP 1 for attention CP first: rule refuse.pp-with-attn-cp-0.5.9)
    with pytest.raises(CgConfigError, match=r"refuses (--moe-dp-size|pp_size=2 with attn_cp)"):
        resolve_args(args)


def test_moe_dp_size_is_new_in_0_5_9() -> None:
    with pytest.raises(CgConfigError, match=r"new in SGLang 0\.5\.9"):
        resolve_args(["--engine-version", "0.5.8", "--tp-size", "4", "--moe-dp-size", "2"])


#: Qwen3.5-MoE-VL on ROCm (the oracle's qwen3_5_moe_vl template, ``--platform hip``), measured on
#: each release: 0.5.14 and 0.5.15 resolve the Mamba radix cache to extra_buffer while overlap
#: scheduling is on or pages exceed one token, and ``_validate_mamba_extra_buffer`` refuses ROCm
#: ('extra_buffer needs CUDA/MUSA/NPU (FLA).'); 0.5.13 (auto is no_buffer) and 0.5.16 (ROCm
#: allowed) plan every line. Found by 0.5.14's held-out batch 4 (rule
#: ``refuse.mamba-extra-buffer-hip-before-0.5.16``).
_HIP_MAMBA_LINES = {"default": [], "no-overlap": ["--disable-overlap-schedule"],
                    "no-overlap-paged": ["--disable-overlap-schedule", "--page-size", "16"]}
_HIP_MAMBA_REFUSED = {
    "0.5.13": {"default": False, "no-overlap": False, "no-overlap-paged": False},
    "0.5.14": {"default": True, "no-overlap": False, "no-overlap-paged": True},
    "0.5.15": {"default": True, "no-overlap": False, "no-overlap-paged": True},
    "0.5.16": {"default": False, "no-overlap": False, "no-overlap-paged": False},
}


@pytest.mark.parametrize(("version", "line", "refused"), [
    (version, line, refused) for version, by in _HIP_MAMBA_REFUSED.items()
    for line, refused in by.items()])
def test_mamba_extra_buffer_on_rocm_by_release(version: str, line: str, refused: bool) -> None:
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
            "--device", "hip", "--model-arch", "Qwen3_5MoeForConditionalGeneration",
            "--is-multimodal", *_HIP_MAMBA_LINES[line]]
    if not refused:
        resolve_args(args)
        return
    with pytest.raises(CgConfigError, match="extra_buffer strategy, which needs CUDA, MUSA or NPU"):
        resolve_args(args)


#: GraniteMoeHybridForCausalLM with NGRAM speculative decoding, measured on each release (the
#: oracle's llama-shaped template with that architecture; "mamba": its config.json's
#: ``layer_types`` alternating mamba and attention over the 32 layers): its
#: ``_handle_model_specific_adjustments`` branch calls ``_handle_mamba_radix_cache`` only when a
#: layer is mamba; 0.5.10-0.5.13 then refuse speculative decoding beside the no_buffer radix
#: cache, 0.5.9 turns the radix cache off, 0.5.14 and 0.5.15 resolve extra_buffer (planned on
#: CUDA). Without a mamba layer every release plans it.
_GRANITE_SPECULATIVE = {"0.5.9": False, "0.5.10": True, "0.5.11": True, "0.5.12": True,
                        "0.5.13": True, "0.5.14": False, "0.5.15": False}


@pytest.mark.parametrize(("version", "refused"), sorted(_GRANITE_SPECULATIVE.items()))
@pytest.mark.parametrize("mamba", [True, False])
def test_granite_hybrid_speculative_by_release(version: str, refused: bool, mamba: bool) -> None:
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
            "--model-arch", "GraniteMoeHybridForCausalLM", "--speculative-algorithm", "NGRAM",
            *(["--model-mamba-layers"] if mamba else [])]
    if not (refused and mamba):
        assert resolve_args(args).config["decode"]["backend"] == "full"
        return
    with pytest.raises(CgConfigError, match="refuses speculative decoding for GraniteMoeHybrid"):
        resolve_args(args)


def test_granite_mamba_layers_read_from_config_json(tmp_path: Path) -> None:
    config = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
              "layer_types": ["mamba", "attention"] * 16, "num_hidden_layers": 32}
    (tmp_path / "config.json").write_text(json.dumps(config))
    args = ["--engine-version", "0.5.12", "--gpu-memory-gib", "80", "--gpu-sm", "90",
            "--model-path", str(tmp_path), "--speculative-algorithm", "NGRAM"]
    with pytest.raises(CgConfigError, match="refuses speculative decoding for GraniteMoeHybrid"):
        resolve_args(args)
    config["layer_types"] = ["attention"] * 32
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert resolve_args(args).config["decode"]["backend"] == "full"


#: SGLang 0.5.8 and 0.5.9 under DP attention (TP 8): each worker's request pool is the whole
#: --max-running-requests, its running-request limit the share (ModelRunner.initialize), which
#: TpModelWorker.__init__ asserts above 0 after the graphs (measured with the oracle extension
#: worker-stage.patch; decode graph on or off).
@pytest.mark.parametrize("version", ["0.5.8", "0.5.9"])
@pytest.mark.parametrize(("extra", "refused"), [
    (["--dp-size", "8", "--enable-dp-attention", "--max-running-requests", "4",
      "--cuda-graph-max-bs", "64"], True),
    (["--dp-size", "8", "--enable-dp-attention", "--max-running-requests", "4",
      "--disable-cuda-graph"], True),
    (["--dp-size", "4", "--enable-dp-attention", "--max-running-requests", "3",
      "--cuda-graph-max-bs", "48"], True),
    (["--dp-size", "8", "--enable-dp-attention", "--max-running-requests", "8",
      "--cuda-graph-max-bs", "64"], False),
    (["--dp-size", "8", "--max-running-requests", "4", "--cuda-graph-max-bs", "64"], False)])
def test_0_5_8_and_0_5_9_worker_share_of_zero(version: str, extra: list[str],
                                              refused: bool) -> None:
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
            "--tp-size", "8", *extra]
    if not refused:
        resolve_args(args)
        return
    with pytest.raises(CgConfigError, match="the worker asserts max_running_requests > 0"):
        resolve_args(args)


@pytest.mark.parametrize(("version", "refused"), [("0.5.14", True), ("0.5.15", True),
                                                  ("0.5.16", False)])
@pytest.mark.parametrize("mamba", [True, False])
def test_granite_hybrid_extra_buffer_on_rocm(version: str, refused: bool, mamba: bool) -> None:
    # measured: GraniteMoeHybrid with mamba layers on ROCm (no speculative decoding); without
    # a mamba layer its branch never reaches the Mamba radix cache
    args = ["--engine-version", version, "--gpu-memory-gib", "80", "--gpu-sm", "90",
            "--device", "hip", "--model-arch", "GraniteMoeHybridForCausalLM",
            *(["--model-mamba-layers"] if mamba else [])]
    if not (refused and mamba):
        resolve_args(args)
        return
    with pytest.raises(CgConfigError, match="extra_buffer strategy, which needs CUDA, MUSA or NPU"):
        resolve_args(args)
