"""SGLang's graph reserve, checked against SGLang's own code for every supported release.

``reserve_cases.jsonl`` is recorded by ``record_reserve.py`` (the oracle: SGLang's unmodified
``ServerArgs`` resolution per release, GPU facts stubbed) on 40 and 50 GiB GPUs, where SGLang's
``mem_fraction_static = round((memory - reserved) / memory, 3)`` has no 10 GiB floor: the
reserve cgconfig reports must lie in the interval that rounding leaves, and lines that move
only the graph reserve must move SGLang's fraction the same way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "fidelity"))
import compare  # noqa: E402

from cgconfig.api import resolve_args  # noqa: E402

CASES = [json.loads(x) for x in (HERE / "reserve_cases.jsonl").read_text().splitlines()]
RESOLVED = [c for c in CASES if c["answer"]["error"] is None
            and c["answer"]["mem_fraction_static"] is not None]


def _reserve(case: dict[str, Any]) -> dict[str, Any]:
    cost = resolve_args(compare.sglang_argv(case)).cost
    return cost["engine_reserve"] | {"phases": {p: e.get("engine_reservation", {}).get("gib")
                                                for p, e in cost["phases"].items()}}


def test_corpus_covers_every_release_and_both_models() -> None:
    assert len(RESOLVED) >= 300
    assert {c["engine_version"] for c in RESOLVED} == {"0.5.19", "0.5.20", "0.5.21", "0.5.22",
                                                       "0.5.23"}
    assert {c["model"] for c in RESOLVED} == {"llama", "deepseek_v3"}


@pytest.mark.parametrize("case", RESOLVED, ids=[str(c["id"]) for c in RESOLVED])
def test_reserve_within_sglang_rounding(case: dict[str, Any]) -> None:
    memory = case["gpu_memory_gib"] * 1024
    fraction = case["answer"]["mem_fraction_static"]
    got = _reserve(case)
    reserved = got["reserved_gib"] * 1024
    assert memory * (1 - fraction - 0.0005) - 1 <= reserved <= memory * (1 - fraction + 0.0005) + 1
    assert got["graph_gib"] == pytest.approx(sum(v or 0 for v in got["phases"].values()),
                                             abs=2e-4)


def test_graph_reserve_moves_sglang_fraction() -> None:
    # Decode max_bs 8 against 512 (llama, 40 GiB, 0.5.23): 1,008 MiB more reserve; SGLang's
    # fraction drops by the same 1,008 / 40,960 (to rounding), so the reserve is not hidden.
    def pick(line: list[str]) -> dict[str, Any]:
        return next(c for c in RESOLVED if c["argv"] == line and c["model"] == "llama"
                    and c["gpu_memory_gib"] == 40 and c["engine_version"] == "0.5.23")

    small, large = pick(["--cuda-graph-max-bs-decode", "8"]), pick(
        ["--cuda-graph-max-bs-decode", "512"])
    moved = (small["answer"]["mem_fraction_static"] - large["answer"]["mem_fraction_static"])
    graph = (_reserve(large)["graph_gib"] - _reserve(small)["graph_gib"]) * 1024
    assert graph == pytest.approx(504 * 2, abs=1)
    assert moved == pytest.approx(graph / 40960, abs=0.0011)
