"""``--model-arch`` is a name an engine's model registry knows (#35 M13): a ``model_type``
(``deepseek_v3``) or an invented name is refused in one line with the architecture meant, not
answered as a standard-attention model ("MLA no", trtllm_mha where the real name gives
trtllm_mla)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cgconfig import model_archs
from cgconfig.api import resolve_args
from cgconfig.errors import InputError
from cgconfig.model_arch_names import known_architectures, suggest

TABLE = Path(__file__).resolve().parents[2] / "cgconfig" / "model-archs.json"


@pytest.mark.parametrize(("typed", "meant"), [
    ("deepseek_v3", "DeepseekV3ForCausalLM"), ("qwen2", "Qwen2ForCausalLM"),
    ("llama", "LlamaForCausalLM"), ("deepseekv3forcausallm", "DeepseekV3ForCausalLM"),
    ("LlamaForCausalLm", "LlamaForCausalLM"),
])
def test_a_slip_is_refused_with_the_architecture_meant(typed: str, meant: str) -> None:
    assert suggest(typed) == meant
    with pytest.raises(InputError) as caught:
        resolve_args(["--model-path", "m", "--model-arch", typed, "--tp", "8", "--gpu-sm", "100"])
    message = str(caught.value)
    assert message.startswith("--model-arch: unknown architecture") and f"'{meant}'" in message
    assert "\n" not in message and caught.value.exit_code == 2


def test_an_invented_name_is_refused() -> None:
    with pytest.raises(InputError, match="unknown architecture 'Foo123ForCausalLM'"):
        resolve_args(["--model-path", "m", "--model-arch", "Foo123ForCausalLM"])


def test_the_real_name_is_read() -> None:
    plan = resolve_args(["--model-path", "m", "--model-arch", "DeepseekV3ForCausalLM"])
    assert plan.facts["use_mla"] is True


def test_the_table_holds_both_engines_registries_and_cgconfigs_own_lists() -> None:
    data = json.loads(TABLE.read_text())
    assert {"LlamaForCausalLM", "DeepseekV3ForCausalLM", "Qwen3MoeForCausalLM",
            "GptOssForCausalLM"} <= set(data["architectures"])
    assert known_architectures() >= model_archs.MLA_ARCHS
    assert set(data["model_types"].values()) <= known_architectures()
    assert "sglang" in data["sources"] and "vllm" in data["sources"]


def test_a_config_files_architecture_is_not_checked(tmp_path: Path) -> None:
    """The file is what the engine reads: a new architecture there is read as it is."""
    (tmp_path / "config.json").write_text('{"architectures": ["BrandNewForCausalLM"]}')
    plan = resolve_args(["--model-path", str(tmp_path)])
    assert plan.facts["model_arch"] == "BrandNewForCausalLM"
