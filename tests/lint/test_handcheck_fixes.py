"""Fixes from issue #33's hand-check of real repositories, one test each."""

from __future__ import annotations

from tests.lint.conftest import Run, findings, ids


def test_vllm_default_capture_grid_above_default_max_num_seqs_is_not_the_files(check: Run) -> None:
    """InferenceX's sbatch scripts and README run ``vllm serve M`` with neither capture sizes nor
    ``--max-num-seqs``: vLLM's own grid (to 512) above its own bound (256) is no file's choice,
    so no CG013; sizes the line writes above its bound still are."""
    plain = "vllm serve Qwen/Qwen3-30B-A3B-FP8 --tensor-parallel-size 1\n"
    written = ("vllm serve Qwen/Qwen3-30B-A3B-FP8 --max-num-seqs 64 "
               "--cudagraph-capture-sizes 1 2 4 8 16 32 64 128 256\n")
    _, out, _ = check("-o", "json", "--engine-version", "vllm==0.33.0", ".",
                      files={"plain.sh": plain, "written.sh": written})
    assert ids(out) == [("CG013", 1)] and findings(out)[0]["file"] == "written.sh"


def test_a_vllm_recipe_of_srt_slurm_is_reported_unread(check: Run) -> None:
    """srt-slurm's reader takes ``backend.sglang_config`` only; a ``vllm_config`` recipe used to
    pass with no launch and no word (349 of srt-slurm's recipes)."""
    recipe = ("name: r\nbackend:\n  type: vllm\n  vllm_config:\n    decode:\n"
              "      max-num-seqs: 512\n")
    code, out, _ = check("-o", "json", "r.yaml", files={"r.yaml": recipe})
    assert code == 0 and ids(out) == [("CG010", 4)]
    assert "reads only srt-slurm's sglang_config" in findings(out)[0]["message"]


def test_a_files_max_num_tokens_under_the_default_max_batch_size_is_the_files_bound(
        check: Run) -> None:
    """TensorRT-LLM's reference config for concurrency 2048 sets ``max_num_tokens: 2112`` and no
    ``max_batch_size``: min(2048 default, 2112 / 2 tokens per MTP step) = 1056 is the file's
    bound, above its graphs up to 512 (CG001 used to skip it as the engine's default)."""
    base = ("cuda_graph_config:\n  enable_padding: true\n  max_batch_size: 512\n"
            "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 1\n")
    _, out, _ = check("-o", "json", ".", files={
        "tokens.yaml": base + "max_num_tokens: 2112\n",  # binds: 1056 < 2048
        "plain.yaml": base + "max_num_tokens: 8192\n"})  # 4096 > 2048: the default binds
    (found,) = findings(out)
    assert (found["file"], found["id"]) == ("tokens.yaml", "CG001")
    assert "batches of 513..1056 requests run eagerly" in found["message"]


def test_an_srtctl_recipe_of_variants_is_reported_unread(check: Run) -> None:
    """InferenceX's ``glm5.2-agentx.yaml`` keeps its recipe under ``base:`` with
    ``zip_override_*`` variants; it used to pass as a file with no launch."""
    recipe = ("base:\n  backend:\n    type: sglang\n    sglang_config:\n      decode:\n"
              "        max-running-requests: 16\n"
              "zip_override_lowlat:\n  backend:\n    sglang_config:\n      decode:\n"
              "        max-running-requests: [8, 16]\n")
    code, out, _ = check("-o", "json", "r.yaml", files={"r.yaml": recipe})
    assert code == 0 and ids(out) == [("CG010", 1)]
    assert "an srtctl recipe of variants" in findings(out)[0]["message"]
