"""The vLLM 0.10.2 development corpus (``vllm_cases_0.10.2.jsonl``) is what its recorder wrote:
lines of ``vllm_engine_generate_0_10`` for seed 3710, in 0.10.2's own flags, answered by 0.10.2's
engine path (``oracle_ext/vllm_0_10.patch``), none an oracle failure. 0.10.2 is not a supported
release yet, so cgconfig does not replay it (``compare_vllm_versions.py`` walks the supported
ones)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from record_vllm_versions import ENV_0_10, SMS  # noqa: E402
from vllm_engine_generate_0_10 import generate  # noqa: E402

CORPUS = HERE / "vllm_cases_0.10.2.jsonl"
SEED = 3710


def _rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def _key(case: dict) -> str:
    return json.dumps([case["argv"], case["env"], case["sm"], case["gpu"], case["model"]],
                      sort_keys=True)


def test_corpus_lines_come_from_the_generator_in_order() -> None:
    rows = _rows()
    assert len(rows) == 200
    assert [r["id"] for r in rows] == list(range(200))
    # record_vllm_versions.cases_for: the first fitting cases of generate(800, seed + batch)
    pool = [_key(c) for batch in range(2) for c in generate(800, SEED + batch)]
    positions = [pool.index(_key(r)) for r in rows]
    assert positions == sorted(positions)


def test_corpus_is_0_10_2_in_its_own_flags() -> None:
    for row in _rows():
        assert row["vllm_version"] == "0.10.2"
        assert row["platform"] == "cuda" and row["sm"] in SMS
        assert set(row["env"]) <= ENV_0_10
        words = row["argv"][3:]
        # 0.10.2's parser has none of these spellings
        for newer in ("--attention-backend", "--all2all-backend", "--cudagraph-capture-sizes",
                      "--max-cudagraph-capture-size", "--performance-mode",
                      "--optimization-level"):
            assert newer not in words
        assert not any(w.startswith("-cc") for w in words)


def test_answers_are_the_engines_not_the_harness() -> None:
    rows = _rows()
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
