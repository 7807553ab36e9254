"""cgconfig's plans for whole `vllm serve` lines against vLLM 0.33.0's own engine path.

The corpus (``vllm_engine_cases_0.33.0.jsonl``, recorded by ``record_vllm_engine.py``) holds random
lines answered by vLLM's unmodified ``EngineArgs.from_cli_args`` → ``create_engine_config()``
→ ``VllmConfig.__post_init__`` → the worker's ``resolve_cudagraph_mode_and_sizes``. The open
differences are listed in ``known_vllm_engine_differences.json``: a ratchet, like the SGLang
corpus (any new difference fails, and so does a listed one that now agrees).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_vllm_engine as cve

ABLATIONS = Path(__file__).parent / "vllm_engine_ablations.jsonl"


def test_whole_engine_corpus_matches_recorded_answers() -> None:
    found = cve.mismatches()
    listed = cve.known()
    new = {cid: why for cid, why in found.items() if cid not in listed}
    fixed = sorted(cid for cid in listed if cid not in found)
    assert not new, (f"{len(new)} cases now differ from vLLM (first: {sorted(new.items())[:10]});"
                     " inspect with: python tests/fidelity/compare_vllm_engine.py --ids ID")
    assert not fixed, (f"{len(fixed)} listed differences now agree {fixed[:10]}: run "
                       "python tests/fidelity/compare_vllm_engine.py --update-known")
    moved = {cid: (listed[cid], why) for cid, why in found.items()
             if cid in listed and listed[cid] != why}
    assert not moved, f"{len(moved)} listed differences changed category: {list(moved.items())[:5]}"


def test_capture_window_corpus_agrees_on_every_line() -> None:
    """The held-out batch recorded after the FULL decode window was written
    (``record_vllm_window.py``, seed 36): mode, configured sizes and both captured lists."""
    found = cve.mismatches(cve.WINDOW_CASES)
    assert not found, (f"{len(found)} window cases differ (first: {sorted(found.items())[:10]}); "
                       "inspect with: python tests/fidelity/compare_vllm_engine.py --corpus "
                       "vllm_window_cases_0.33.0.jsonl --ids ID")


@pytest.mark.parametrize("path", sorted(p for p in Path(__file__).parent.glob(
    "vllm_window_cases_*.jsonl") if p != cve.WINDOW_CASES), ids=lambda p: p.stem)
def test_capture_window_corpus_of_an_older_release_agrees(path: Path) -> None:
    """The same batch through an older release's own engine path (``record_vllm_window.py
    --version X`` with an oracle copy that runs that release), answered as that release."""
    cases = cve.load(path)
    assert len(cases) >= 300 and all(c["vllm_version"] == path.stem.rsplit("_", 1)[1] for c in cases)
    found = cve.mismatches(path)
    assert not found, f"{len(found)} cases differ (first: {sorted(found.items())[:10]})"


def test_capture_window_corpus_coverage() -> None:
    """What the batch must draw: max_num_seqs unset, below and above the ceiling, GPU memory
    unknown and every default tier, each speculative method with k = 1..7, the size flags."""
    cases = cve.load(cve.WINDOW_CASES)
    assert len(cases) >= 600
    answers = [c["answer"] for c in cases]
    seqs = {a["max_num_seqs"] for a in answers}
    assert min(seqs) <= 8 and {256, 1024} <= seqs and max(seqs) >= 2048
    assert any(c["gpu_memory_gib"] is None for c in cases)
    assert {c["gpu"] for c in cases} >= {"A100-80GB", "H100-80GB", "B200", "L40S"}
    methods = {(a["speculative_method"], a["num_speculative_tokens"]) for a in answers}
    for method in ("eagle", "eagle3", "mtp", "ngram"):
        assert {k for m, k in methods if m == method} == set(range(1, 8)), method
    words = {w.split("=")[0] for c in cases for w in c["argv"]}
    assert {"--cudagraph-capture-sizes", "--max-cudagraph-capture-size",
            "--speculative-config.method", "-cc.cudagraph_mode"} <= words
    assert {a["cudagraph_mode"] for a in answers} >= {"FULL_AND_PIECEWISE", "FULL_DECODE_ONLY",
                                                       "FULL", "PIECEWISE", "NONE"}
    # the window cuts the FULL decode list in most FULL-decode plans
    cut = [a for a in answers if (a["capture"] or {}).get("FULL", {}).get("uniform_decode")
           and a["capture"]["FULL"]["uniform_decode"] != a["cudagraph_capture_sizes"]]
    assert len(cut) >= 200


def test_whole_engine_corpus_size_and_coverage() -> None:
    cases = cve.load()
    assert len(cases) >= 3000
    words = {w.split("=")[0] for c in cases for w in c["argv"]}
    for flag in ("-O0", "-O1", "--optimization-level", "--enforce-eager", "--attention-backend",
                 "--all2all-backend", "--data-parallel-size", "--enable-expert-parallel",
                 "--pipeline-parallel-size", "--speculative-config", "--spec-method",
                 "--spec-tokens", "--max-num-seqs", "--max-num-batched-tokens",
                 "--performance-mode", "--cudagraph-capture-sizes",
                 "--max-cudagraph-capture-size", "--async-scheduling", "--compilation-config"):
        assert flag in words, flag
    assert {c["platform"] for c in cases} == {"cuda", "rocm"}
    assert len({c["sm"] for c in cases}) >= 5 and len({c["model"] for c in cases}) >= 6
    assert any(c["env"] for c in cases)


def test_no_flag_listed_as_ignored_changes_vllms_plan() -> None:
    """"Ignored (no effect on CUDA graphs)" tells the truth. Each ablation twin
    (``vllm_engine_ablations.jsonl``, ``record_vllm_engine.py --ablate``) is a recorded line
    without one flag, answered by vLLM's whole engine: where dropping the flag changes vLLM's
    answer, cgconfig must not list the flag as ignored on the original line."""
    from cgconfig.api import request_from_argv, resolve_request
    from cgconfig.errors import CgConfigError

    by_id = {c["id"]: c for c in cve.load()}
    twins = [json.loads(line) for line in ABLATIONS.read_text().splitlines() if line.strip()]
    changing = 0
    wrongly_ignored = []
    for twin in twins:
        original = by_id[twin["of"]]
        if cve.expected(original) == cve.expected(twin):
            continue
        changing += 1
        try:
            plan = resolve_request(request_from_argv(cve.cgconfig_argv(original), environ={}))
        except CgConfigError:
            continue
        if twin["removed"] in plan.ignored_args:
            wrongly_ignored.append((twin["of"], twin["removed"]))
    assert changing >= 50  # the twins do show flags that change the plan (--max-num-seqs...)
    assert not wrongly_ignored, f"listed as ignored but vLLM's plan changes: {wrongly_ignored}"


def test_emit_vllm_round_trips_through_the_whole_engine() -> None:
    """``--emit vllm`` on every fifth agreeing corpus line, handed to vLLM's whole engine
    (``emit_roundtrip_vllm_engine.py``): vLLM resolves cgconfig's plan from the emitted line,
    or the emitter's notes name what vLLM cannot express."""
    import emit_roundtrip_vllm_engine as rt

    by_id = {c["id"]: c for c in cve.load()}
    rows = rt.recorded()
    checked = {cid: rt.check_row(row, by_id[cid]) for cid, row in rows.items()}
    failed = {cid: why for cid, (why, _) in checked.items() if why}
    assert not failed, f"{len(failed)} round trips fail; first: {next(iter(failed.items()))}"
    assert len(rows) >= 600
    assert sum(exact for _, exact in checked.values()) >= 0.98 * len(rows)
