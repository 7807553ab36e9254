"""The SGLang request-pool corpus (``sglang_request_pool.jsonl``) replayed against cgconfig.

Each case is a DP-attention (or plain TP / DP) line answered by one release's own code: its
request-pool function sizes the worker's ``req_to_token_pool`` (0.5.8 ``init_memory_pool``,
0.5.10-0.5.15 ``ModelRunnerKVCacheMixin._resolve_max_num_reqs``, 0.5.16+
``KVCacheConfigurator.resolve_max_num_reqs``) and its ``get_batch_sizes_to_capture`` filters
the decode sizes with it (``answer.runtime``; recorded by ``record_request_pool.py`` with the
oracle extension ``oracle_ext/sglang/request-pool.patch``). cgconfig's captured decode list
(``plan.capture["decode"]["sizes"]``) must equal the release's ``capture_bs``, and a start-up
refusal (the filter's assertion on an empty or zero list) must be a cgconfig refusal too.
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from cgconfig.api import resolve_args
from cgconfig.errors import CgConfigError

sys.path.insert(0, str(Path(__file__).parent))
import compare

CORPUS = Path(__file__).parent / "sglang_request_pool.jsonl"
#: The second grid, recorded after the fix (record_request_pool.py --heldout).
HELDOUT = Path(__file__).parent / "sglang_request_pool_heldout.jsonl"
RELEASES = ("0.5.8", "0.5.10", "0.5.11", "0.5.12", "0.5.17", "0.5.19", "0.5.23")

#: The differences left (docs/fidelity.md, the request-pool row): case id -> why.
ESTIMATE_CAP = ("0.5.10 to 0.5.15 cap a given --max-running-requests share at the KV-cache "
                "estimate (_resolve_max_num_reqs: min(share, estimated), estimated = "
                "int(token_capacity / context_len * 512) clamped to [2048, 4096]); the KV "
                "capacity is not known before start-up, so cgconfig keeps the share (only a "
                "share above 2048 with a decode max_bs above 2048 can differ)")
KNOWN = {57: ESTIMATE_CAP, 88: ESTIMATE_CAP, 119: ESTIMATE_CAP}
HELDOUT_KNOWN: dict[int, str] = {}


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@lru_cache(maxsize=1)
def cases() -> list[dict[str, Any]]:
    return _load(CORPUS)


@lru_cache(maxsize=1)
def heldout() -> list[dict[str, Any]]:
    return _load(HELDOUT)


def engine_answer(case: dict[str, Any]) -> tuple[str, Any]:
    """("refused", error) or ("captures", capture_bs) as the release answered."""
    ans = case["answer"]
    if ans["error"]:
        return "refused", ans["error"]
    rt = ans["runtime"]
    assert not rt.get("pool_harness_error"), rt  # the harness's failure, never recorded
    if rt.get("error"):
        assert rt["error"].startswith("AssertionError"), rt  # the filter's start-up check
        return "refused", rt["error"]
    return "captures", rt["capture_bs"]


def cgconfig_answer(case: dict[str, Any]) -> tuple[str, Any]:
    try:
        plan = resolve_args(compare.sglang_argv(case)).to_dict()
    except CgConfigError as exc:
        return "refused", str(exc)
    return "captures", plan["capture"]["decode"]["sizes"]


@pytest.mark.parametrize("corpus", [cases, heldout], ids=["dev", "heldout"])
def test_corpus_covers_the_releases_and_the_pool_functions(corpus: Any) -> None:
    seen = {c["engine_version"] for c in corpus()}
    assert seen == set(RELEASES)
    sources = {c["answer"]["runtime"]["req_pool_from"] for c in corpus()
               if c["answer"]["runtime"] and "req_pool_from" in c["answer"]["runtime"]}
    assert sources == {"ModelRunnerKVCacheMixin.init_memory_pool",
                       "ModelRunnerKVCacheMixin._resolve_max_num_reqs",
                       "KVCacheConfigurator.resolve_max_num_reqs"}
    # the grid exercises a share below the whole value (DP attention from 0.5.10)
    assert any(c["answer"]["runtime"]["req_pool"] < 64 for c in corpus()
               if c["answer"]["runtime"] and "req_pool" in c["answer"]["runtime"])


def _param(case: dict[str, Any], known: dict[int, str], tag: str) -> Any:
    marks = [pytest.mark.xfail(reason=known[case["id"]], strict=True)] \
        if case["id"] in known else []
    return pytest.param(case, marks=marks, id=f"{tag}-{case['engine_version']}-{case['id']}")


def test_known_differences_are_the_estimate_cap_lines() -> None:
    for i in KNOWN:
        case = cases()[i]
        assert case["engine_version"] in ("0.5.10", "0.5.11", "0.5.12")
        assert case["answer"]["runtime"]["req_pool"] < int(
            case["argv"][case["argv"].index("--max-running-requests") + 1])


@pytest.mark.parametrize("case", [_param(c, KNOWN, "dev") for c in cases()]
                         + [_param(c, HELDOUT_KNOWN, "heldout") for c in heldout()])
def test_captured_decode_list_is_the_releases(case: dict[str, Any]) -> None:
    want, got = engine_answer(case), cgconfig_answer(case)
    if want[0] == "refused":
        assert got[0] == "refused", (case["argv"], want, got)
    else:
        assert got == want, (case["argv"], case["answer"]["runtime"])
