"""SGLang 0.5.23's resolved attention backend and page size (``cgconfig/engines/sglang/attention``)
against the backend the engine itself resolved on every recorded corpus case."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare

from cgconfig.api import resolve_args
from cgconfig.engines.sglang.attention import resolved_page_size
from cgconfig.errors import CgConfigError
from cgconfig.facts import Facts
from cgconfig.fields.table import fact_fields, spec

#: What the oracle's machine lacks and a real one has: a CPU without AMX falls back from
#: intel_amx to torch_native, an XPU stub without XMX from intel_xpu to triton
#: (``overrides.py:_attention_backend_platform_fallbacks``).
HARDWARE_FALLBACKS = {("intel_amx", "torch_native"), ("intel_xpu", "triton")}
#: Cases whose backend comes from a model override cgconfig does not port (Qwen3-VL copies the
#: prefill backend to decode).
NOT_PORTED = {1454}


def _recorded_backends() -> list[tuple[int, str, str]]:
    out = []
    for case in compare.load("sglang"):
        want = (case["answer"].get("extra") or {}).get("attention_backend")
        if want is None or case["answer"].get("error_stage") == "argparse":
            continue
        try:
            plan = resolve_args(compare.sglang_argv(case)).to_dict()
        except CgConfigError:
            continue
        out.append((case["id"], plan["facts"]["derived"]["sglang_attention_backend"], want))
    return out


def test_resolved_attention_backend_matches_the_engine_on_the_corpus() -> None:
    rows = _recorded_backends()
    assert len(rows) > 2000
    wrong = [(cid, got, want) for cid, got, want in rows
             if got != want and (got, want) not in HARDWARE_FALLBACKS and cid not in NOT_PORTED]
    assert not wrong, wrong[:10]


def _facts(**given: object) -> Facts:
    return Facts({name: given.get(name, spec(f"facts.{name}").default) for name in fact_fields()})


@pytest.mark.parametrize(("given", "backend", "page"), [
    ({}, "fa3", 1),
    ({"page_size": 16}, "fa3", 16),
    ({}, "flashmla", 64),
    ({"page_size": 32}, "trtllm_mla", 32),
    ({"page_size": 8}, "trtllm_mha", 64),
    # XMX taken as absent: --attention-backend intel_xpu is triton before the page check
    # (measured on 0.5.10-0.5.12, 0.5.17, 0.5.19, 0.5.20, 0.5.23); an explicit decode backend is not
    ({"device": "xpu"}, "intel_xpu", 1),
    ({"device": "xpu", "decode_attention_backend": "intel_xpu"}, "intel_xpu", 128),
    ({"device": "cuda"}, "intel_xpu", 128),
    ({"device": "xpu", "page_size": 64}, "intel_xpu", 64),
    ({"gpu_sm": 100}, "fa4", 128),
    ({"gpu_sm": 100, "use_mla": True}, "fa4", 1),
])
def test_resolved_page_size(given: dict[str, object], backend: str, page: int) -> None:
    assert resolved_page_size(_facts(**given), backend, "0.5.23") == page


def test_fa4_page_size_before_0_5_15_reads_the_prefill_flag_only() -> None:
    # sglang 0.5.14 ServerArgs._handle_attention_backend_compatibility: page 128 only when
    # --prefill-attention-backend fa4 is given.
    facts = _facts(gpu_sm=100)
    assert resolved_page_size(facts, "fa4", "0.5.14") == 1
    assert resolved_page_size(_facts(gpu_sm=100, prefill_attention_backend="fa4"), "fa4",
                              "0.5.14") == 128
