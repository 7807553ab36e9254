"""The engine release a Dynamo recipe pins (issue #33's false positive: srt-slurm recipes naming
Dynamo 0.9.1, a release aiconfigurator's matrix lacks, were checked at the newest release)."""

from __future__ import annotations

from pathlib import Path

from cgconfig.files.release import dynamo_engine_release
from tests.lint.conftest import Run, findings

DATA = Path(__file__).parents[1] / "data" / "lint"

def test_dynamo_0_9_1_ships_the_engines_its_release_artifacts_list() -> None:
    """ai-dynamo/dynamo docs/reference/release-artifacts.md: sglang-runtime:0.9.1 ships SGLang
    v0.5.8, vllm-runtime:0.9.1 vLLM v0.14.1, tensorrtllm-runtime:0.9.1 TRT-LLM v1.3.0rc3."""
    assert dynamo_engine_release("0.9.1", "sglang")[0] == "0.5.8"
    assert dynamo_engine_release("v0.9.1", "vllm")[0] == "0.14.1"
    assert dynamo_engine_release("0.9.1", "trtllm")[0] == "1.3.0rc3"


def test_a_release_the_matrix_lacks_is_named_in_the_refusal_at_the_newest(check: Run) -> None:
    """A Dynamo release nobody listed leaves the engine's release unknown: the finding at the
    newest release says why it was checked there instead of implying the file pins nothing."""
    real = (DATA / "srt-slurm/recipes/b200-fp8/8k1k_stp_lowlat_2.yaml").read_text()
    assert "version: 0.9.1" in real
    _, out, _ = check("-o", "json", "r.yaml",
                      files={"r.yaml": real.replace("version: 0.9.1", "version: 0.9.7")})
    found = [f for f in findings(out) if f["id"] == "CG012"]
    assert found and all("Dynamo 0.9.7 is not in aiconfigurator's release matrix" in f["message"]
                         and "the SGLang release is unknown" in f["message"] for f in found)
