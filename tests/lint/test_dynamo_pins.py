"""The engine release a Dynamo recipe pins (issue #33's false positive: srt-slurm recipes naming
Dynamo 0.9.1, a release aiconfigurator's matrix lacks, were checked at the newest release)."""

from __future__ import annotations

from cgconfig.files.release import dynamo_engine_release
from tests.lint.conftest import Run, findings

RECIPE = """\
name: r
dynamo:
  version: {release}
backend:
  type: sglang
  decode_environment: {{}}
resources:
  gpu_type: b200
  gpus_per_node: 8
  decode_nodes: 1
  decode_workers: 1
backend_config:
  sglang_config:
    decode:
      tensor-parallel-size: 8
      cuda-graph-max-bs: 64
"""


def test_dynamo_0_9_1_ships_the_engines_its_release_artifacts_list() -> None:
    """ai-dynamo/dynamo docs/reference/release-artifacts.md: sglang-runtime:0.9.1 ships SGLang
    v0.5.8, vllm-runtime:0.9.1 vLLM v0.14.1, tensorrtllm-runtime:0.9.1 TRT-LLM v1.3.0rc3."""
    assert dynamo_engine_release("0.9.1", "sglang")[0] == "0.5.8"
    assert dynamo_engine_release("v0.9.1", "vllm")[0] == "0.14.1"
    assert dynamo_engine_release("0.9.1", "trtllm")[0] == "1.3.0rc3"


def test_a_release_the_matrix_lacks_is_named_in_the_refusal_at_the_newest(check: Run) -> None:
    """A Dynamo release nobody listed leaves the engine's release unknown: the finding at the
    newest release says why it was checked there instead of implying the file pins nothing."""
    _, out, _ = check("-o", "json", "--ignore", "CG008", "r.yaml",
                      files={"r.yaml": RECIPE.format(release="0.9.7")})
    (found,) = [f for f in findings(out) if f["id"] == "CG012"]
    assert "Dynamo 0.9.7 is not in aiconfigurator's release matrix" in found["message"]
    assert "the SGLang release is unknown" in found["message"]
