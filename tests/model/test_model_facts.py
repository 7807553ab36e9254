"""One home per model fact: the config.json is read once (``--json-model-override-args``
merged) into facts that every consumer reads, and flags supply them when there is no file.

Each case is one of issue #18's examples, checked against SGLang 0.5.23 itself: the expected
values are the oracle's answers (``cd oracle && vendor/venv/bin/python sglang_oracle.py
ARGS``; ``--model-arch deepseek_v3``/``qwen3_vl`` are the fidelity corpus's config.json
templates in ``tests/fidelity/models/``, ``--model-config JSON`` merged over them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cgconfig import resolve_args

MODELS = Path(__file__).resolve().parents[1] / "fidelity" / "models"
#: Kimi-K2 is DeepSeek-V3's architecture with 64 attention and 64 KV heads.
KIMI_K2_HEADS = {"num_attention_heads": 64, "num_key_value_heads": 64}
#: A larger vision encoder than Qwen3-VL-8B's (48 layers × 2048).
BIG_VISION = {"vision_config": {"num_hidden_layers": 48, "hidden_size": 2048}}
ROCM_TP8 = ["--device", "hip", "--tp-size", "8", "--gpu-memory-gib", "192"]


def _model(tmp_path: Path, template: str, name: str, extra: dict[str, Any] | None = None) -> str:
    """A local model folder holding the template's config.json with ``extra`` merged
    one level deep (as the oracle's ``--model-config`` does)."""
    config = json.loads((MODELS / f"{template}.json").read_text())
    for key, value in (extra or {}).items():
        config[key] = {**config[key], **value} if isinstance(value, dict) and isinstance(
            config.get(key), dict) else value
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


def _engine(plan: Any, key: str) -> Any:
    return plan.engine[key]["value"]


def test_kimi_k2_on_rocm_has_one_attention_backend(tmp_path: Path) -> None:
    """Kimi-K2 on ``--device hip --tp-size 8``: 64 KV heads are 8 per rank, which aiter does
    not take, so SGLang picks triton, and the refusals' view of the backend is the same.
    Oracle: ``--platform hip --model-arch deepseek_v3 --model-config
    '{"num_key_value_heads": 64, "num_attention_heads": 64}' --tp-size 8 --gpu-memory-gib 192``
    → attention_backend triton, mem_fraction_static 0.862."""
    plan = resolve_args(["--model-path", _model(tmp_path, "deepseek_v3", "kimi-k2", KIMI_K2_HEADS),
                         *ROCM_TP8])
    assert plan.facts["model_kv_heads"] == 64
    assert _engine(plan, "attention_backend") == "triton"
    assert plan.facts["derived"]["sglang_attention_backend"] == "triton"
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.862)


HF_HOME = Path(__file__).resolve().parents[1] / "data" / "hf_cache"


def test_kimi_k2_instruct_from_the_cache_on_rocm(monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's line, with the real ``moonshotai/Kimi-K2-Instruct`` config.json. Oracle:
    ``--platform hip --model-arch deepseek_v3 --model-config "$(that config.json, auto_map
    left out)" --tp-size 8 --gpu-memory-gib 192`` → triton, 0.862, decode max_bs 512."""
    monkeypatch.setenv("HF_HOME", str(HF_HOME))
    plan = resolve_args(["--model-path", "moonshotai/Kimi-K2-Instruct", *ROCM_TP8])
    assert plan.facts["model_kv_heads"] == 64
    assert plan.fact_sources["model_kv_heads"].endswith("config.json:13")
    assert _engine(plan, "attention_backend") == "triton"
    assert plan.facts["derived"]["sglang_attention_backend"] == "triton"
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.862)
    assert plan.config["decode"]["max_bs"] == 512


def test_deepseek_v3_on_rocm_takes_aiter(tmp_path: Path) -> None:
    """128 KV heads, 16 per rank: aiter. Oracle: ``--platform hip --model-arch deepseek_v3
    --tp-size 8 --gpu-memory-gib 192`` → aiter, 0.7327."""
    plan = resolve_args(["--model-path", _model(tmp_path, "deepseek_v3", "deepseek-v3"),
                         *ROCM_TP8])
    assert _engine(plan, "attention_backend") == "aiter"
    assert plan.facts["derived"]["sglang_attention_backend"] == "aiter"
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.7327)


def test_json_model_override_args_reaches_every_consumer(tmp_path: Path) -> None:
    """``--json-model-override-args`` is merged before any fact is read: the engine block no
    longer reads the file a second time without it. Oracle: ``--platform hip --model-arch
    deepseek_v3 --json-model-override-args '{"num_key_value_heads": 64,
    "num_attention_heads": 64}' --tp-size 8 --gpu-memory-gib 192`` → triton, 0.862."""
    plan = resolve_args(["--model-path", _model(tmp_path, "deepseek_v3", "deepseek-v3"),
                         "--json-model-override-args", json.dumps(KIMI_K2_HEADS), *ROCM_TP8])
    assert plan.facts["model_kv_heads"] == 64
    assert plan.fact_sources["model_kv_heads"] == "--json-model-override-args"
    assert _engine(plan, "attention_backend") == "triton"
    assert plan.facts["derived"]["sglang_attention_backend"] == "triton"
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.862)


def test_flags_supply_the_kv_heads_without_a_config() -> None:
    """No config.json: ``--model-kv-heads`` gives the fact the file would (the oracle's
    Kimi-K2 answer above); without it the count is unknown and both views say triton."""
    facts = ["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", *ROCM_TP8]
    plan = resolve_args([*facts, "--model-kv-heads", "64"])
    assert _engine(plan, "attention_backend") == "triton"
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.862)
    aiter = resolve_args([*facts, "--model-kv-heads", "128"])
    assert _engine(aiter, "attention_backend") == "aiter"
    assert aiter.facts["derived"]["sglang_attention_backend"] == "aiter"
    unknown = resolve_args(facts)
    assert _engine(unknown, "attention_backend") == "triton"
    assert unknown.facts["derived"]["sglang_attention_backend"] == "triton"


#: Oracle: ``--model-arch qwen3_vl --gpu-memory-gib 80`` → 0.7731040624999999; with
#: ``--json-model-override-args`` or ``--model-config`` of :data:`BIG_VISION` → 0.63536.
QWEN3_VL_FRACTION, BIG_VISION_FRACTION = 0.7731040624999999, 0.63536


def test_the_vision_encoder_size_comes_from_the_merged_config(tmp_path: Path) -> None:
    folder = _model(tmp_path, "qwen3_vl", "qwen3-vl-8b")
    plain = resolve_args(["--model-path", folder, "--gpu-memory-gib", "80"])
    assert _engine(plain, "mem_fraction_static") == pytest.approx(QWEN3_VL_FRACTION)
    override = resolve_args(["--model-path", folder, "--gpu-memory-gib", "80",
                             "--json-model-override-args", json.dumps(BIG_VISION)])
    assert override.facts["vision_num_layers"] == 48
    assert _engine(override, "mem_fraction_static") == pytest.approx(BIG_VISION_FRACTION)
    in_file = resolve_args(["--model-path", _model(tmp_path, "qwen3_vl", "big", BIG_VISION),
                            "--gpu-memory-gib", "80"])
    assert _engine(in_file, "mem_fraction_static") == pytest.approx(BIG_VISION_FRACTION)


def test_flags_supply_the_vision_encoder_size_without_a_config() -> None:
    plan = resolve_args(["--model-arch", "Qwen3VLForConditionalGeneration", "--is-multimodal",
                         "--gpu-memory-gib", "80", "--vision-num-layers", "48",
                         "--vision-hidden-size", "2048"])
    assert _engine(plan, "mem_fraction_static") == pytest.approx(BIG_VISION_FRACTION)


#: Oracle: ``--model-arch deepseek_v3 --model-config
#: '{"architectures": ["Glm5NextForConditionalGeneration"]}' --moe-a2a-backend deepep
#: --gpu-memory-gib 80 --tp-size 8`` (multimodal, on the breakable allowlist): prefill stays
#: breakable, its sizes aligned to multiples of 8 by _apply_deepep_adjustments.
GLM5_DEEPEP_PREFILL = [8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
                       240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 832,
                       896, 960, 1024, 1280, 1536, 1792, 2048]


def test_glm5_next_multimodal_deepep_prefill_is_aligned() -> None:
    """#18: the sizing's own 2-architecture copy of the multimodal allowlist kept GLM-5 Next's
    prefill breakable with unaligned DeepEP sizes; the alignment now reads the backend the
    ``breakable.*`` rules (13 architectures) left. ``model.glm5-next-prefill-max-bs`` encodes
    SGLang main, not 0.5.23, so it is switched off to compare with 0.5.23."""
    plan = resolve_args(["--model-arch", "Glm5NextForConditionalGeneration", "--is-multimodal",
                         "--moe-a2a-backend", "deepep", "--gpu-memory-gib", "80", "--tp-size",
                         "8", "--disable-rule", "model.glm5-next-prefill-max-bs"])
    assert plan.config["prefill"]["backend"] == "breakable"
    assert plan.config["prefill"]["max_bs"] == 2048
    assert plan.config["prefill"]["bs"] == GLM5_DEEPEP_PREFILL
    assert any(d.rule == "sizes.deepep-prefill-align" for d in plan.decisions)


def test_an_unlisted_multimodal_model_is_not_aligned() -> None:
    """Qwen3-VL is off the allowlist: prefill is disabled before the alignment stage, so its
    sizes stay as the memory hook generates them (oracle: ``--model-arch qwen3_vl
    --moe-a2a-backend deepep --tp-size 2 --gpu-memory-gib 80``: prefill disabled, max_bs 8192,
    sizes from 4 in steps of 4, trail without _apply_deepep_adjustments)."""
    plan = resolve_args(["--model-arch", "Qwen3VLForConditionalGeneration", "--is-multimodal",
                         "--moe-a2a-backend", "deepep", "--gpu-memory-gib", "80",
                         "--tp-size", "2"])
    assert plan.config["prefill"]["backend"] == "disabled"
    assert plan.config["prefill"]["max_bs"] == 8192
    assert plan.config["prefill"]["bs"][:6] == [4, 8, 12, 16, 20, 24]
    assert not any(d.rule == "sizes.deepep-prefill-align" for d in plan.decisions)


def test_a_multimodal_model_without_a_vision_config_keeps_its_fraction(tmp_path: Path) -> None:
    """SGLang lowers the fraction only when the config has a ``vision_config``
    (``adjust_mem_fraction_for_vlm``). Oracle: ``--model-arch
    Qwen2AudioForConditionalGeneration --gpu-memory-gib 80`` (a Llama-shaped config, no
    vision_config; multimodal) → 0.836, where the vision reduction would give 0.7942."""
    audio = _model(tmp_path, "llama", "qwen2-audio",
                   {"architectures": ["Qwen2AudioForConditionalGeneration"]})
    plan = resolve_args(["--model-path", audio, "--gpu-memory-gib", "80"])
    assert plan.facts["is_multimodal"] is True
    assert plan.facts["no_vision_config"] is True
    assert _engine(plan, "mem_fraction_static") == pytest.approx(0.836)
    given = resolve_args(["--model-arch", "Qwen2AudioForConditionalGeneration", "--is-multimodal",
                          "--gpu-memory-gib", "80", "--no-vision-config"])
    assert _engine(given, "mem_fraction_static") == pytest.approx(0.836)
