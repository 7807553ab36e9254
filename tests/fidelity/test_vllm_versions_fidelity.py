"""cgconfig's plans for whole `vllm serve` lines against each supported vLLM release's own
engine path.

Each release of ``line.versions.SUPPORTED["vllm"]`` has a corpus
(``vllm_cases_<version>.jsonl``, recorded by ``record_vllm_versions.py`` from that
release's unmodified wheel). cgconfig answers every line for that release; the listed
differences (``known_vllm_version_differences.json``, each explained in docs/fidelity.md) are a
ratchet: a new difference fails, and so does a listed one that now agrees.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_vllm_versions as cvv

from cgconfig.line.versions import SUPPORTED, choose


@pytest.mark.parametrize("version", SUPPORTED["vllm"])
def test_release_corpus_matches_recorded_answers(version: str) -> None:
    found = cvv.mismatches(version)
    listed = cvv.known().get(version, {})
    new = {cid: why for cid, why in found.items() if cid not in listed}
    fixed = sorted(cid for cid in listed if cid not in found)
    assert not new, (f"vLLM {version}: {len(new)} cases now differ (first: "
                     f"{sorted(new.items())[:10]}); inspect with: python "
                     f"tests/fidelity/compare_vllm_versions.py {version} --ids ID")
    assert not fixed, (f"vLLM {version}: listed differences now agree {fixed[:10]}: run "
                       "python tests/fidelity/compare_vllm_versions.py --update-known")
    moved = {cid: (listed[cid], why) for cid, why in found.items()
             if cid in listed and listed[cid] != why}
    assert not moved, f"vLLM {version}: listed differences changed category: {moved}"


@pytest.mark.parametrize("version", SUPPORTED["vllm"])
def test_release_corpus_size_agreement_and_provenance(version: str) -> None:
    cases = cvv.load(version)
    assert len(cases) >= 150
    assert {c["vllm_version"] for c in cases} == {version}
    plans_ok, plans, refusals_ok, refusals = cvv.agreement(version)
    assert plans_ok >= 0.995 * plans and refusals_ok >= 0.995 * refusals
    assert refusals >= 5  # the corpus does hold lines the release refuses
    words = {w.split("=")[0] for c in cases for w in c["argv"]}
    from cgconfig.line.table import load_table

    table = load_table("vllm", version)
    for flag in ("--max-num-seqs", "--max-num-batched-tokens", "--compilation-config",
                 "--speculative-config", "--attention-backend"):
        # 0.12.0's parser has no --attention-backend (it reads VLLM_ATTENTION_BACKEND)
        assert flag in words or table.lookup(flag) is None, flag
    assert {c["sm"] for c in cases} == {80, 89, 90, 100}


def test_releases_differ_where_vllm_changed() -> None:
    """The corpora themselves show what moved between releases (so a test that compares a
    release with itself cannot pass here): the default grid of a Blackwell server with
    ``--max-num-seqs 1024`` is 51 sizes before 0.28 and 83 from 0.31, as the issue's logs say."""
    from cgconfig.api import request_from_argv, resolve_request

    line = ["--gpu-sm", "100", "--gpu-memory-gib", "180", "vllm", "serve", "org/dense-8b",
            "--max-num-seqs", "1024", "--max-num-batched-tokens", "8192"]
    counts = {}
    for version in ("0.20.2", "0.27.1", "0.28.0", "0.33.0"):
        plan = resolve_request(request_from_argv(
            line, environ={}, engine_version=choose("vllm", version, "test")))
        counts[version] = len(plan.to_dict()["capture"]["decode"]["sizes"])
    assert counts["0.20.2"] == counts["0.27.1"] == 51
    assert counts["0.33.0"] == 83 and counts["0.28.0"] > 51


def test_releases_outside_the_range_are_refused_in_one_line() -> None:
    """vLLM releases older than the oldest supported (0.10.2) and anything past the newest
    series are refused with one line naming the supported range; a release between two
    supported ones is answered by the nearer older one, with a note."""
    from cgconfig.line.versions import supported_range

    for requested in ("0.10.1", "0.10.0", "0.9.2", "0.34.0"):
        with pytest.raises(ValueError) as refused:
            choose("vllm", requested, "--engine-version")
        message = str(refused.value)
        assert "\n" not in message and supported_range("vllm") in message
        assert "--engine-version vllm==X" in message
        assert supported_range("vllm") == "vLLM 0.10.2 to 0.33.0"
    assert choose("vllm", "0.20.0", "pip pin").version == "0.19.1"  # the nearest older
    assert choose("vllm", "0.15.0", "pip pin").version == "0.14.1"
    assert choose("vllm", "0.14.0", "pip pin").version == "0.13.0"
    assert choose("vllm", "0.12.1", "pip pin").version == "0.12.0"
    assert choose("vllm", "0.11.3", "pip pin").version == "0.11.2"
    assert choose("vllm", "0.10.2", "pip pin").version == "0.10.2"
    for gap in ("0.11.0", "0.11.1", "0.11.1rc2"):  # not answered by 0.10.2 (registry gaps)
        with pytest.raises(ValueError, match="removed the V0 engine") as refused:
            choose("vllm", gap, "pip pin")
        assert "\n" not in str(refused.value) and "vLLM 0.10.2 to 0.33.0" in str(refused.value)
    between = choose("vllm", "0.27.0", "--engine-version")
    assert between.version == "0.26.0" and between.note is not None
    assert choose("vllm", "0.33.1", "docker tag").version == "0.33.0"


def test_release_facts_are_data_with_sources() -> None:
    """Each behaviour that moved names the release it starts in (inside the supported range)
    and the vLLM file it is read from; the model-runner table names supported releases; the
    runner a dense line gets moves where the releases' code says."""
    from cgconfig.engines.release_change import holds_in, value_at
    from cgconfig.engines.vllm import releases
    from cgconfig.line.versions import version_key

    for behaviour, rows in releases.BEHAVIOURS.items():
        for row in rows:
            for bound in {row.since, row.until} - {None}:
                assert version_key(bound) is not None, (behaviour, row)
            assert row.what and row.cites.split(":")[0].endswith(".py"), (behaviour, row)
        for version in SUPPORTED["vllm"]:
            value_at(rows, version)  # no two rows of one behaviour hold at a release
    assert holds_in(releases.BLACKWELL_CEILING, "0.28.0") and \
        not holds_in(releases.BLACKWELL_CEILING, "0.27.1")
    dense = dict(model_arch="LlamaForCausalLM", moe=False, hybrid=False, spec_method=None,
                 stock_torch_compile=False)
    runners = {v: releases.uses_v2_runner(v, **dense) for v in SUPPORTED["vllm"]}
    assert [v for v, v2 in runners.items() if not v2] == \
        [v for v in SUPPORTED["vllm"] if (version_key(v) or ()) < (0, 23)]
    assert not runners["0.15.1"] and not runners["0.16.0"] and not runners["0.22.1"] and runners["0.23.0"]
    ngram = dict(dense, spec_method="ngram")
    assert [v for v in SUPPORTED["vllm"] if releases.uses_v2_runner(v, **ngram)] == \
        ["0.32.0", "0.33.0"]


def test_triton_fp8_cache_below_ada_is_refused_from_0_24() -> None:
    """The Triton backend's FP8-cache check below SM 8.9 (``triton_attn.py``
    ``TritonAttentionImpl.__init__``) is in 0.24.0's wheel and not in 0.23.0's, 0.15.1's or
    0.14.1's: a 0.14.1 held-out line (GPT-OSS, ``--kv-cache-dtype fp8`` on an A100) ran on those
    releases."""
    from cgconfig.engines.vllm.attention import AttentionRefusal
    from cgconfig.engines.vllm.attention import choose as choose_backend

    for release in ("0.14.1", "0.15.1", "0.23.0"):
        got = choose_backend("TRITON_ATTN", rocm=False, sm=80, mla=False, model_arch=None,
                             release=release, fp8_kv_cache=True)
        assert got.backend == "TRITON_ATTN"
    for release in ("0.24.0", "0.33.0"):
        with pytest.raises(AttentionRefusal, match="FP8 KV cache"):
            choose_backend("TRITON_ATTN", rocm=False, sm=80, mla=False, model_arch=None,
                           release=release, fp8_kv_cache=True)


#: Pipeline parallelism with an MTP draft, as each release's own engine path answered it
#: (vLLM 0.15.1 and 0.33.0 run whole in the oracle; 0.29.0 and 0.30.0 read from their
#: ``config/speculative.py:create_draft_parallel_config``): before 0.30.0 the draft copies the
#: target's pipeline size and an MTP draft without ``SupportsPP`` is refused.
PP_MTP_CASES = [
    ("Glm4MoeForCausalLM", "2", "mtp", {"0.14.1": True, "0.15.1": True, "0.29.0": True,
                                        "0.30.0": False, "0.33.0": False}),
    ("DeepseekV32ForCausalLM", "2", "deepseek_mtp", {"0.14.1": True, "0.15.1": True,
                                                     "0.33.0": False}),
    ("Qwen3NextForCausalLM", "4", "qwen3_next_mtp", {"0.14.1": True, "0.15.1": True,
                                                     "0.33.0": False}),
    ("Glm4MoeLiteForCausalLM", "2", "mtp", {"0.15.1": False, "0.29.0": False}),
    ("DeepseekV3ForCausalLM", "1", "mtp", {"0.15.1": False}),
    ("DeepseekV3ForCausalLM", "2", "ngram", {"0.15.1": False, "0.33.0": False}),
]


@pytest.mark.parametrize(("arch", "pp", "method", "refused"), PP_MTP_CASES)
def test_pipeline_parallel_mtp_draft_refused_before_0_30(arch: str, pp: str, method: str,
                                                         refused: dict[str, bool]) -> None:
    from cgconfig.api import resolve_args
    from cgconfig.errors import CgConfigError

    spec = {"method": method, "num_speculative_tokens": 1}
    if method == "ngram":
        spec.update(num_speculative_tokens=3, prompt_lookup_max=3)
    for release, want in refused.items():
        line = ["--engine-version", f"vllm=={release}", "--model-arch", arch,
                "--gpu-memory-gib", "80", "vllm", "serve", "m",
                "--pipeline-parallel-size", pp, "--speculative-config", json.dumps(spec)]
        if want:
            with pytest.raises(CgConfigError, match="Pipeline parallelism is not supported"):
                resolve_args(line)
        else:
            resolve_args(line)
