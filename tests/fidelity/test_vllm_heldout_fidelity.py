"""Per-release agreement on fresh lines (#31 item 6): held-out batches per supported vLLM
release, answered by that release's own whole engine path (``record_vllm_heldout.py``: batch 1,
``vllm_heldout_<release>.jsonl``, seed 8100; batch 2, ``vllm_heldout2_<release>.jsonl``, seed
8300, with pipeline-parallel drafts; batch 3, ``vllm_heldout3_<release>.jsonl``, seed 8500,
recorded after the draft pipeline-size fix that batch 2 found; each recorded after cgconfig's
code was written), replayed through cgconfig as that release.

Every difference must be listed, with its reason, in ``known_vllm_engine_differences.json``
under the corpus's file name; a listed difference that now agrees fails too (a ratchet).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import compare_vllm_engine as cve

from cgconfig.line.versions import SUPPORTED, version_key

HERE = Path(__file__).parent
CORPORA = sorted(HERE.glob("vllm_heldout_*.jsonl"))
#: Batch 2 (seed 8300): every release 0.20.1 ... 0.33.0.
CORPORA2 = sorted(HERE.glob("vllm_heldout2_*.jsonl"))
#: Batch 3 (seed 8500): every release 0.20.1 ... 0.33.0.
CORPORA3 = sorted(HERE.glob("vllm_heldout3_*.jsonl"))
SEEDS = {"vllm_heldout": 8100, "vllm_heldout2": 8300, "vllm_heldout3": 8500}
#: Batch 2 of a release added after the batch was drawn for 0.20.1 ... 0.33.0, recorded after its
#: code with a seed of its own (``record_vllm_heldout.py --batch 2 --seed S``).
OWN_SEEDS = {("vllm_heldout2", "0.13.0"): 1313, ("vllm_heldout2", "0.12.0"): 1312,
             # 0.11.2: batch 2 recorded after its rows, batch 3 after the TRITON_MLA FP8 row
             ("vllm_heldout2", "0.11.2"): 1311, ("vllm_heldout3", "0.11.2"): 1411,
             # Batch 3 of 0.13.0 and 0.14.1: recorded after 0.13.0's rows (its batch 2 found
             # them; 0.14.1 shares the Blackwell MLA order), on batch 3's own seed.
             ("vllm_heldout3", "0.13.0"): 8500, ("vllm_heldout3", "0.14.1"): 8500}


#: A release whose held-out batch comes from its own generator (vLLM 0.10.2's spellings:
#: ``vllm_engine_generate_0_10``, ``record_vllm_versions.py --out``), recorded after its code.
OWN_GENERATOR = {"0.10.2": (HERE / "vllm_cases_0.10.2_heldout.jsonl", 1310)}


@pytest.mark.parametrize("release", sorted(OWN_GENERATOR))
def test_own_generator_heldout_batch_agrees(release: str) -> None:
    """vLLM 0.10.2's held-out batch (seed 1310, 200 lines, recorded after the code): the lines
    are the recorder's draw for that seed, and every one agrees (differences would be listed
    in ``known_vllm_engine_differences.json``)."""
    from record_vllm_versions import cases_for

    path, seed = OWN_GENERATOR[release]
    cases = cve.load(path)
    assert len(cases) >= 150 and {c["vllm_version"] for c in cases} == {release}
    drawn = {c["id"]: (c["argv"], c["env"]) for c in cases_for(release, len(cases), seed)}
    assert all(drawn[c["id"]] == (c["argv"], c["env"]) for c in cases)
    found = cve.mismatches(path)
    assert found == cve.known(path), found
    assert len(cases) - len(found) >= 0.995 * len(cases)


def test_every_supported_release_has_a_heldout_batch() -> None:
    """From 0.20.2 a batch of its own (seed 8100); the releases below keep their held-out
    lines in ``vllm_cases_<release>.jsonl``: ids 160 on (seed 3737, appended after their rows
    were written, 100 a release), which ``test_vllm_versions_fidelity.py`` replays."""
    recorded = {p.stem.rsplit("_", 1)[1] for p in CORPORA}
    assert recorded == {v for v in SUPPORTED["vllm"] if (version_key(v) or ()) >= (0, 20, 2)}
    second = {p.stem.rsplit("_", 1)[1] for p in CORPORA2}
    for release in set(SUPPORTED["vllm"]) - recorded - second - set(OWN_GENERATOR):
        lines = (HERE / f"vllm_cases_{release}.jsonl").read_text().splitlines()
        assert sum(json.loads(line)["id"] >= 160 for line in lines) >= 100, release


@pytest.mark.parametrize(("stem", "corpora"), [("vllm_heldout2", CORPORA2),
                                               ("vllm_heldout3", CORPORA3)],
                         ids=["batch2", "batch3"])
def test_every_supported_release_from_0_20_1_has_batches_2_and_3(stem: str,
                                                                  corpora: list[Path]) -> None:
    """From 0.20.1 every release; an older release whose batch was recorded after its code, with
    a seed of its own (``OWN_SEEDS``), too."""
    recorded = {p.stem.rsplit("_", 1)[1] for p in corpora}
    own = {release for batch, release in OWN_SEEDS if batch == stem}
    assert recorded == {v for v in SUPPORTED["vllm"] if (version_key(v) or ()) >= (0, 20, 1)} | own


@pytest.mark.parametrize("path", CORPORA + CORPORA2 + CORPORA3, ids=lambda p: p.stem)
def test_heldout_batch_agrees_with_its_release(path: Path) -> None:
    stem, release = path.stem.rsplit("_", 1)
    cases = cve.load(path)
    assert len(cases) >= 150
    seed = OWN_SEEDS.get((stem, release), SEEDS[stem])
    assert all(c["vllm_version"] == release and c["seed"] == seed for c in cases)
    found = cve.mismatches(path)
    listed = cve.known(path)
    new = {cid: why for cid, why in found.items() if cid not in listed}
    fixed = sorted(cid for cid in listed if cid not in found)
    assert not new, (f"{len(new)} cases differ from vLLM {release} (first: "
                     f"{sorted(new.items())[:10]}); inspect with: python "
                     f"tests/fidelity/compare_vllm_engine.py --corpus {path.name} --ids ID")
    assert not fixed, f"listed differences now agree: {fixed}"
    unexplained = sorted(cid for cid, why in cve.known_reasons(path).items() if not why.strip())
    assert not unexplained, f"listed differences without a reason: {unexplained}"
    moved = {cid: (listed[cid], why) for cid, why in found.items()
             if cid in listed and listed[cid] != why}
    assert not moved, f"listed differences changed category: {moved}"
    assert len(cases) - len(found) >= 0.995 * len(cases), f"{len(found)}/{len(cases)} differ"


def test_heldout_batches_reach_what_they_claim() -> None:
    """What the generator must draw, in every release's batch: max_num_seqs below and above
    the ceiling, GPU memory unknown, speculative configs, the V2-runner variable both ways,
    DP/EP, attention backends, refusals."""
    for path in CORPORA + CORPORA2 + CORPORA3:
        cases = cve.load(path)
        words = {w.split("=")[0] for c in cases for w in c["argv"]}
        assert {"--max-num-seqs", "--speculative-config", "--data-parallel-size",
                "--enable-expert-parallel", "--attention-backend", "--all2all-backend"} <= words
        assert any(c["gpu_memory_gib"] is None for c in cases)
        assert {c["env"].get("VLLM_USE_V2_MODEL_RUNNER") for c in cases} >= {"0", "1", None}
        seqs = {c["answer"]["max_num_seqs"] for c in cases if not c["answer"]["error"]}
        assert min(seqs) <= 8 and max(seqs) >= 1024
        assert any(c["answer"]["error"] for c in cases)
        assert len({c["sm"] for c in cases}) >= 3


def test_second_batches_reach_pipeline_parallel_drafts() -> None:
    """Batch 2's aim: PP > 1 with an MTP draft on each MTP model, and with EAGLE / n-gram."""
    for path in CORPORA2:
        cases = cve.load(path)
        pp = [c for c in cases if (c["answer"].get("pp") or 1) > 1
              or "--pipeline-parallel-size" in c["argv"]]
        assert len(pp) >= 0.3 * len(cases), path.name
        text = [" ".join(c["argv"]) for c in pp]
        for model in ("@deepseek_v3", "@qwen3_next", "@glm4_5"):
            assert any(model in t and "mtp" in t for t in text), (path.name, model)
        assert any("eagle" in t for t in text) and any("ngram" in t for t in text), path.name
