"""The page sizes the SGLang attention backends force, per release, and the start-up refusal
of decode sizes 0 or below under the MoE all-to-all's attention-TP gather.

Each case was asked of the oracle (the release's unmodified code, hardware stubbed;
``tests/fidelity/oracle_ext/sglang/README.md``) with ``--gpu-memory-gib 24 --model-arch llama``
(SM 90, or SM 100 for TensorRT-LLM MHA) and the flags below; a refusal here is SGLang's
``check_server_args`` assertion ``chunked_prefill_size must be divisible by page_size`` (page
size 128 against 2500 or 8256 tokens). Found by the third held-out batches of 0.5.11 and
0.5.12 (``sglang_heldout3_<release>.jsonl``, cases 193 and 220 of 0.5.11; docs/fidelity.md); the bounds
were asked of 0.5.10, 0.5.17, 0.5.19 and 0.5.20 the same way.
"""

from __future__ import annotations

import pytest

from cgconfig.api import resolve_args
from cgconfig.engines.release_change import holds_in
from cgconfig.engines.sglang.releases import (
    INTEL_XPU_PAGE_ATTENTION_ONLY,
    INTEL_XPU_PAGE_DECODE_ONLY,
    TRTLLM_MHA_PAGE_128,
)
from cgconfig.errors import CgConfigError

_CHUNK = ["--chunked-prefill-size", "2500"]


def _outcome(version: str, args: list[str], memory: str = "24") -> str:
    try:
        resolve_args(["--engine-version", version, "--gpu-memory-gib", memory, *args])
    except CgConfigError as refused:
        assert "with page_size 128" in str(refused), refused
        return "refused"
    return "planned"


@pytest.mark.parametrize(("version", "args", "outcome"), [
    # 0.5.11 and 0.5.12 read the decode backend only (held-out batch 3 of 0.5.11, case 220)
    ("0.5.11", ["--prefill-attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.12", ["--prefill-attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.11", ["--pp-size", "2", "--prefill-attention-backend", "intel_xpu", *_CHUNK],
     "planned"),
    ("0.5.11", ["--decode-attention-backend", "intel_xpu", *_CHUNK], "refused"),
    ("0.5.12", ["--decode-attention-backend", "intel_xpu", *_CHUNK], "refused"),
    # 0.5.10 reads --attention-backend only
    ("0.5.10", ["--decode-attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.10", ["--prefill-attention-backend", "intel_xpu", *_CHUNK], "planned"),
    # on an XPU without XMX --attention-backend intel_xpu has become triton before the page
    # check, in every release; an explicit decode backend has not
    ("0.5.10", ["--device", "xpu", "--attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.11", ["--device", "xpu", "--attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.12", ["--device", "xpu", "--attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.11", ["--device", "xpu", "--decode-attention-backend", "intel_xpu", *_CHUNK],
     "refused"),
    ("0.5.12", ["--device", "xpu", "--prefill-attention-backend", "intel_xpu", *_CHUNK],
     "planned"),
    # the bounds: 0.5.19 still reads the decode backend only, 0.5.20 both phases
    ("0.5.19", ["--prefill-attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.20", ["--prefill-attention-backend", "intel_xpu", *_CHUNK], "refused"),
    ("0.5.17", ["--device", "xpu", "--attention-backend", "intel_xpu", *_CHUNK], "planned"),
    ("0.5.20", ["--device", "xpu", "--attention-backend", "intel_xpu", *_CHUNK], "planned"),
])
def test_the_intel_xpu_page_size_follows_each_releases_backend(
        version: str, args: list[str], outcome: str) -> None:
    assert _outcome(version, ["--gpu-sm", "90", *args]) == outcome


@pytest.mark.parametrize(("version", "outcome"), [
    ("0.5.10", "planned"), ("0.5.11", "planned"), ("0.5.12", "planned"), ("0.5.17", "refused"),
    ("0.5.19", "refused")])
def test_trtllm_mha_turns_page_size_128_into_64_before_0_5_17(version: str, outcome: str) -> None:
    # page 64 divides 8256 tokens; 128 does not
    args = ["--gpu-sm", "100", "--attention-backend", "trtllm_mha", "--page-size", "128",
            "--chunked-prefill-size", "8256"]
    assert _outcome(version, args, memory="80") == outcome


def test_the_page_rows_split_the_releases_where_their_code_changes() -> None:
    assert [holds_in(INTEL_XPU_PAGE_ATTENTION_ONLY, v) for v in ("0.5.10", "0.5.11")] == \
        [True, False]
    assert [holds_in(INTEL_XPU_PAGE_DECODE_ONLY, v) for v in
            ("0.5.10", "0.5.11", "0.5.19", "0.5.20")] == [False, True, True, False]
    assert [holds_in(TRTLLM_MHA_PAGE_128, v) for v in ("0.5.16", "0.5.17")] == [False, True]


@pytest.mark.parametrize("version", ["0.5.11", "0.5.12"])
def test_decode_sizes_below_one_under_deepep_stop_at_start_up(version: str) -> None:
    # DeepEP with TP 8 aligns the capture list to 8, which drops -4; the list is then empty,
    # and get_batch_sizes_to_capture asserts it is not (the oracle: AssertionError at start-up;
    # held-out batch 3 of 0.5.11, case 193)
    with pytest.raises(CgConfigError, match="stops at start-up"):
        resolve_args(["--engine-version", version, "--gpu-memory-gib", "256", "--gpu-sm", "90",
                      "--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--tp-size", "8",
                      "--moe-a2a-backend", "deepep", "--cuda-graph-max-bs", "-4"])
