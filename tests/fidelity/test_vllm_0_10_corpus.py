"""The vLLM 0.10 development corpora (``vllm_cases_0.10.2.jsonl``, ``vllm_cases_0.10.1.jsonl``)
are what their recorder wrote: lines of ``vllm_engine_generate_0_10`` for the release and seed
(0.10.2: 3710, 0.10.1: 3701), in the release's own flags, answered by that release's engine path
(``oracle_ext/vllm_0_10.patch``), none an oracle failure. Neither release is supported yet, so
cgconfig does not replay them (``compare_vllm_versions.py`` walks the supported ones)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from record_vllm_versions import (  # noqa: E402
    ENV_0_10,
    SMS,
    SMS_0_10_1,
    corpus_path,
    fits,
    known_options,
)
from vllm_engine_generate_0_10 import generate  # noqa: E402

#: release -> (seed, compute capabilities of its machines)
CORPORA = {"0.10.2": (3710, SMS), "0.10.1": (3701, SMS_0_10_1)}
#: 0.10.1's flag table (kept outside engines/vllm/tables: a table there makes a release supported)
TABLE_0_10_1 = HERE / "oracle_ext" / "vllm-0.10.1.table.json"


def _rows(version: str) -> list[dict]:
    text = corpus_path(version).read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _key(case: dict) -> str:
    return json.dumps([case["argv"], case["env"], case["sm"], case["gpu"], case["model"]],
                      sort_keys=True)


@pytest.mark.parametrize("version", sorted(CORPORA))
def test_corpus_lines_come_from_the_generator_in_order(version: str) -> None:
    seed, _ = CORPORA[version]
    rows = _rows(version)
    assert len(rows) == 200
    assert [r["id"] for r in rows] == list(range(200))
    # record_vllm_versions.cases_for: the first fitting cases of generate(800, seed + batch)
    pool = [_key(c) for batch in range(2) for c in generate(800, seed + batch, 0, version)]
    # each row is a later pool case than the row before (a line drawn twice, such as a bare
    # `vllm serve @qwen3_moe`, is two rows of the corpus)
    at = -1
    for row in rows:
        at = pool.index(_key(row), at + 1)  # ValueError: not from the generator, or out of order


@pytest.mark.parametrize("version", sorted(CORPORA))
def test_corpus_is_the_release_in_its_own_flags(version: str) -> None:
    _, sms = CORPORA[version]
    options = known_options(version, TABLE_0_10_1) if version == "0.10.1" else None
    for row in _rows(version):
        assert row["vllm_version"] == version
        assert row["platform"] == "cuda" and row["sm"] in sms
        assert set(row["env"]) <= ENV_0_10
        words = row["argv"][3:]
        # 0.10's parser has none of these spellings
        for newer in ("--attention-backend", "--all2all-backend", "--cudagraph-capture-sizes",
                      "--max-cudagraph-capture-size", "--performance-mode",
                      "--optimization-level"):
            assert newer not in words
        assert not any(w.startswith("-cc") for w in words)
        if options is not None:  # every flag is one of 0.10.1's own parser (no -dcp, ...)
            assert fits(row, options, ENV_0_10, sms)
            assert "-dcp" not in words and "--decode-context-parallel-size" not in words


@pytest.mark.parametrize("version", sorted(CORPORA))
def test_answers_are_the_engines_not_the_harness(version: str) -> None:
    rows = _rows(version)
    assert all(r["answer"]["error_stage"] != "oracle" for r in rows)
    for row in rows:
        answer = row["answer"]
        if answer["error"]:
            continue
        if answer["model_runner"] == "v0":
            # the V0 engine: no V1 mode or keys; its decode graphs are recorded apart
            assert answer["cudagraph_mode"] == "NONE" and not answer["capture"]
            assert answer["v0_decode_graphs"] == (
                [] if answer["enforce_eager"] else sorted(answer["cudagraph_capture_sizes"]))
        else:
            assert answer["model_runner"] == "v1"
            assert answer["v0_decode_graphs"] is None


def _dp(row: dict) -> int:
    argv = row["argv"]
    return int(argv[argv.index("--data-parallel-size") + 1]) if "--data-parallel-size" in argv else 1


def test_0_10_1_corpus_reaches_what_0_10_1_decides_differently() -> None:
    """The lines 0.10.1 answers otherwise than 0.10.2 (VLLM_0_10.md, "vLLM 0.10.1") are in the
    corpus, answered as 0.10.1's code decides."""
    rows = [r for r in _rows("0.10.1") if not r["answer"]["error"]]
    # compute capability below 8.0: V0 (EngineArgs._is_v1_supported_oracle)
    old = [r for r in rows if r["sm"] < 80]
    assert old and all(r["answer"]["model_runner"] == "v0" for r in old)
    # a hybrid attention + Mamba model: V0 ("Mamba")
    hybrid = [r for r in rows if r["model"] == "jamba"]
    assert hybrid and all(r["answer"]["model_runner"] == "v0" for r in hybrid)
    # a VLLM_ATTENTION_BACKEND 0.10.1's V1 list lacks: V0
    missing = [r for r in rows if r["env"].get("VLLM_ATTENTION_BACKEND")
               in ("FLASH_ATTN_MLA", "FLASHINFER_MLA", "FLASHMLA_VLLM_V1")]
    assert missing and all(r["answer"]["model_runner"] == "v0" for r in missing)
    # DeepEP high-throughput with DP > 1 on V1: no graphs, and enforce_eager where the mode
    # was not NONE already (platforms/cuda.py CudaPlatform.check_and_update_config)
    deepep = [r for r in rows if r["answer"]["model_runner"] == "v1" and _dp(r) > 1
              and r["env"].get("VLLM_ALL2ALL_BACKEND") == "deepep_high_throughput"]
    assert deepep and all(r["answer"]["cudagraph_mode"] == "NONE" for r in deepep)
    assert any(r["answer"]["enforce_eager"] and "--enforce-eager" not in r["argv"]
               for r in deepep)


#: The V0 lines the V0 engine's attention-backend selection refuses at start-up, by release:
#: id -> the name it refuses (VLLM_0_10.md, "V0 attention-backend selection"). Not a _Backend
#: member: attention/selector.py _cached_get_attn_backend; a member the V0 branch does not
#: take: platforms/cuda.py CudaPlatform.get_attn_backend_cls(..., use_v1=False, ...).
V0_SELECTION_REFUSED = {
    "0.10.1": {"not a member": {48, 51, 102, 105, 109, 149},
               "V0 branch": {34, 41, 46, 50, 75, 76, 82, 104, 138}},
    "0.10.2": {"not a member": {12, 35, 89, 179}, "V0 branch": {170}},
}


@pytest.mark.parametrize("version", sorted(CORPORA))
def test_v0_backend_selection_refusals(version: str) -> None:
    rows = {r["id"]: r for r in _rows(version)}
    for how, ids in V0_SELECTION_REFUSED[version].items():
        for i in ids:
            answer, name = rows[i]["answer"], rows[i]["env"]["VLLM_ATTENTION_BACKEND"]
            assert answer["error_stage"] == "attention" and answer["model_runner"] is None
            if how == "not a member":
                assert answer["error"].startswith(f"ValueError: Invalid attention backend: '{name}'.")
            else:
                assert answer["error"] == ("ValueError: Invalid attention backend for cuda, "
                                           "with use_v1: False use_mla: False")
    # no line left on V0 names a backend the V0 selection refuses (non-MLA models)
    refused_v0 = {"TRITON_ATTN", "FLASH_ATTN_MLA", "FLASHINFER_MLA", "TREE_ATTN", "FLEX_ATTENTION",
                  "TRITON_ATTN_VLLM_V1", "FLASH_ATTN_VLLM_V1", "XFORMERS_VLLM_V1"}
    for row in rows.values():
        if row["answer"]["model_runner"] == "v0" and not row["answer"]["use_mla"]:
            assert row["env"].get("VLLM_ATTENTION_BACKEND") not in refused_v0
