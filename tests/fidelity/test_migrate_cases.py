"""`cgconfig migrate`'s recorded batches, replayed without the oracle: each line parsed on its
source release (SGLang: that release's own parser; vLLM: its flag table), and the target
release's own parser accepted what migrate wrote for it (``record_migrate.py`` recorded both
verdicts). Migrate must still write exactly that line, and every recorded verdict is an
acceptance: 100 % of each batch (batches 2 and 3 were recorded after migrate's code, from
releases the batches before did not reach: batch 3 SGLang 0.5.13/0.5.14 and vLLM 0.14.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig.line.versions import SUPPORTED, EngineVersion
from cgconfig.migrate import migrate

HERE = Path(__file__).resolve().parent
CASES = [json.loads(row) for name in ("migrate_cases.jsonl", "migrate_cases_2.jsonl",
                                      "migrate_cases_3.jsonl")
         for row in (HERE / name).read_text().splitlines()]
PREFIX = {"sglang": ["python3", "-m", "sglang.launch_server", "--model-path", "m"],
          "vllm": ["vllm", "serve", "m"]}


def test_the_batch_covers_both_engines_and_both_directions() -> None:
    pairs = {(c["engine"], c["source"], c["target"]) for c in CASES}
    assert {e for e, _, _ in pairs} == {"sglang", "vllm"}
    assert any(SUPPORTED[e].index(s) > SUPPORTED[e].index(t) for e, s, t in pairs)
    assert sum(c["migrated"] != c["argv"] for c in CASES) >= len(CASES) // 2


def test_the_target_release_accepted_every_migrated_line() -> None:
    refused = [(c["source"], c["argv"], c["target_error"]) for c in CASES
               if not c["target_accepts"]]
    assert not refused


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['engine']}-{c['source']}-"
                                                      f"{c['target']}-{' '.join(c['argv'])[:40]}")
def test_migrate_writes_the_line_the_target_accepted(case: dict[str, object]) -> None:
    engine, source, target = str(case["engine"]), str(case["source"]), str(case["target"])
    prefix = PREFIX[engine]
    argv = [*prefix, *case["argv"]]  # type: ignore[misc]
    got = migrate(argv, f"{engine}=={target}",
                  engine_version=EngineVersion(engine, source, "--engine-version"))
    assert got.argv[len(prefix):] == case["migrated"]
