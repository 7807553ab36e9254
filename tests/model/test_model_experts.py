"""The model's expert count is read once, with the other model facts, from its config.json
(vLLM's ``ModelConfig.is_moe`` keys); vLLM's runner choice reads that fact, not the file."""

from __future__ import annotations

from cgconfig import model_archs


def test_the_first_positive_expert_count_is_the_fact() -> None:
    assert model_archs.shape({"num_local_experts": 8})["model_num_experts"] == (
        "num_local_experts", 8)
    assert model_archs.shape({"architectures": ["X"], "text_config": {"n_routed_experts": 64}})[
        "model_num_experts"] == ("text_config.n_routed_experts", 64)


def test_a_dense_config_gives_no_expert_count() -> None:
    for config in ({"num_attention_heads": 32}, {"num_experts": 0}, {"num_experts": True}):
        assert "model_num_experts" not in model_archs.shape(config)


def test_only_the_model_config_source_reads_config_json() -> None:
    """One home for the file: no module but the model-config source opens it."""
    from pathlib import Path

    root = Path(model_archs.__file__).resolve().parent
    readers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if "read_config(" in p.read_text() and p.name != "model_config.py")
    assert readers == []
