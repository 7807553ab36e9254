"""vLLM releases below 0.15.1 (issue #37): the behaviours only they have, each a row of
``cgconfig/engines/vllm/releases.py`` read in the release's own wheel (0.13.0's and 0.14.1's
``config/vllm.py``, ``engine/arg_utils.py``, ``config/speculative.py``) and absent from 0.15.1's.
The corpus tests of ``test_vllm_versions_fidelity.py`` cover each release's whole engine path."""

from __future__ import annotations

import json

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError


def _line(release: str, *argv: str, arch: str = "LlamaForCausalLM") -> list[str]:
    return ["--engine-version", f"vllm=={release}", "--model-arch", arch, "--gpu-memory-gib",
            "80", "vllm", "serve", "m", *argv]


def test_explicit_async_scheduling_with_pipeline_parallelism_refused_in_0_14() -> None:
    """0.14.1 ``VllmConfig.__post_init__`` refuses ``--async-scheduling`` with PP > 1; left to
    vLLM it is turned off; 0.15.1 drops the check."""
    for release in ("0.13.0", "0.14.1"):
        with pytest.raises(CgConfigError, match="not yet compatible with pipeline_parallel_si"):
            resolve_args(_line(release, "--async-scheduling", "--pipeline-parallel-size", "2"))
    resolve_args(_line("0.14.1", "--pipeline-parallel-size", "2"))
    resolve_args(_line("0.14.1", "--async-scheduling"))
    resolve_args(_line("0.15.1", "--async-scheduling", "--pipeline-parallel-size", "2"))


def test_draft_model_speculation_refused_in_0_14() -> None:
    """0.14.1 ``EngineArgs._check_feature_supported`` refuses ``method: draft_model``."""
    spec = json.dumps({"method": "draft_model", "model": "org/draft-1b",
                       "num_speculative_tokens": 2})
    for release in ("0.13.0", "0.14.1"):
        with pytest.raises(CgConfigError, match="draft model is not supported"):
            resolve_args(_line(release, "--speculative-config", spec))
    resolve_args(_line("0.15.1", "--speculative-config", spec))


def test_mtp_on_glm_4_7_flash_has_no_draft_in_0_14() -> None:
    """0.14.1's ``SpeculativeConfig.hf_config_override`` has no ``glm4_moe_lite_mtp`` (0.15.1
    adds it), so an MTP method on GLM-4.7-Flash resolves to a draft model and is refused;
    DeepSeek-V3's MTP draft is mapped in both."""
    spec = json.dumps({"method": "mtp", "num_speculative_tokens": 1})
    with pytest.raises(CgConfigError, match="draft model is not supported"):
        resolve_args(_line("0.14.1", "--speculative-config", spec, arch="Glm4MoeLiteForCausalLM"))
    resolve_args(_line("0.15.1", "--speculative-config", spec, arch="Glm4MoeLiteForCausalLM"))
    resolve_args(_line("0.14.1", "--speculative-config", spec, arch="DeepseekV3ForCausalLM"))


def test_bfloat16_kv_cache_has_no_backend_in_0_14() -> None:
    """0.14.1's parser takes ``--kv-cache-dtype bfloat16`` but none of its CUDA backends lists it
    (the selector: "No valid attention backend found", as the oracle answered); 0.15.1 adds it."""
    for release in ("0.13.0", "0.14.1"):
        with pytest.raises(CgConfigError, match="No valid attention backend"):
            resolve_args(_line(release, "--kv-cache-dtype", "bfloat16"))
    resolve_args(_line("0.15.1", "--kv-cache-dtype", "bfloat16"))


def test_mtp_drafts_implement_pipeline_parallelism_in_0_13() -> None:
    """0.13.0's DeepSeekMTP (``deepseek_mtp.py``), Glm4MoeMTP, ErnieMTP and Qwen3NextMTP
    implement ``SupportsPP``, so PP 2 with DeepSeek-V3's MTP draft runs (the oracle answered 39
    such held-out lines); 0.14.1 drops ``SupportsPP`` and refuses it (``MTP_DRAFTS_SUPPORT_PP``)."""
    spec = json.dumps({"method": "mtp", "num_speculative_tokens": 1})
    argv = ("--pipeline-parallel-size", "2", "--speculative-config", spec)
    resolve_args(_line("0.13.0", *argv, arch="DeepseekV3ForCausalLM"))
    with pytest.raises(CgConfigError, match="SupportsPP"):
        resolve_args(_line("0.14.1", *argv, arch="DeepseekV3ForCausalLM"))


def test_blackwell_mla_default_is_cutlass_before_0_15() -> None:
    """0.13.0's and 0.14.1's ``platforms/cuda.py _get_backend_priorities`` put CUTLASS_MLA
    (UNIFORM_SINGLE_TOKEN_DECODE) first on SM 10.x, so FULL_DECODE_ONLY with six-token n-gram
    drafts falls back to PIECEWISE (a 0.13.0 held-out line, SM 100); 0.15.1 puts FlashInfer MLA
    first (``BLACKWELL_MLA_CUTLASS_FIRST``)."""
    spec = json.dumps({"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 4})
    for release, cutlass in (("0.13.0", True), ("0.14.1", True), ("0.15.1", False)):
        plan = resolve_args(["--engine-version", f"vllm=={release}", "--model-arch",
                             "DeepseekV3ForCausalLM", "--gpu-memory-gib", "180", "--gpu-sm",
                             "100", "vllm", "serve", "m", "--speculative-config", spec,
                             "-cc.cudagraph_mode=FULL_DECODE_ONLY"]).to_dict()
        text = json.dumps(plan)
        assert ("CUTLASS_MLA" in text) == cutlass, release
        assert plan["capture"]["decode"]["backend"] == ("breakable" if cutlass else "full")
