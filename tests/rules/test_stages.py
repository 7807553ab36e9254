"""Rules run in stages: each rule names the upstream hook it encodes, checked at load, and runs
there, in the engine's order; nothing runs twice and no order is read from ``source:`` text."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from cgconfig.api import resolve_args
from cgconfig.engines.sglang import pipeline
from cgconfig.engines.sglang.stages import SGLANG_MEMORY_HOOK, SGLANG_STAGES
from cgconfig.errors import InputError
from cgconfig.resolve.stages import RESOLVED, engine_stages, stages_of
from cgconfig.rules import cache
from cgconfig.rules.cache import shipped_pack_files
from cgconfig.rules.loader import load_pack_file
from cgconfig.rules.loading import load_rules_for_resolve
from cgconfig.rules.ruleset import RuleSet

PACK = """\
pack: user
title: A user pack
{engine}rules:
  - id: user.lora-no-prefill
    title: LoRA prefills eagerly
    kind: policy
{stage}    when: {{eq: {{path: facts.enable_lora, value: true}}}}
    then:
      - set: {{key: prefill.backend, value: disabled}}
    reason: "LoRA"
    source: "test"
    examples:
      - {{args: [--enable-lora], fires: true}}
      - {{args: [], fires: false}}
"""


def _pack(tmp_path: Path, *, engine: str | None = None, stage: str | None = None) -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(textwrap.dedent(PACK.format(
        engine=f"engine: {engine}\n" if engine else "",
        stage=f"    stage: {stage}\n" if stage else "")), encoding="utf-8")
    return path


def test_every_shipped_rule_names_a_stage_of_its_engine() -> None:
    for path in shipped_pack_files():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for rule in data["rules"]:
            assert "stage" in rule, f"{path.name}: {rule['id']} names no stage"
            assert rule["stage"] in engine_stages()[data["engine"]], rule["id"]


def test_an_unknown_stage_is_one_line_with_a_did_you_mean(tmp_path: Path) -> None:
    path = _pack(tmp_path, engine="sglang", stage="memory_hook.handle_gpu_memory_setting")
    with pytest.raises(InputError) as info:
        load_pack_file(path)
    text = str(info.value)
    assert "unknown stage 'memory_hook.handle_gpu_memory_setting' for engine sglang" in text
    assert "pack.yaml:8:" in text
    assert "did you mean 'memory_hook.handle_gpu_memory_settings'" in text
    assert "\n" not in text


def test_a_core_pack_may_name_only_the_stage_every_engine_has(tmp_path: Path) -> None:
    assert stages_of("core") == (RESOLVED,)
    with pytest.raises(InputError, match="unknown stage 'runtime' for engine core"):
        load_pack_file(_pack(tmp_path, stage="runtime"))
    assert load_pack_file(_pack(tmp_path)).rules[0].stage == RESOLVED
    assert load_pack_file(_pack(tmp_path, engine="sglang", stage="runtime")).rules[0].stage \
        == "runtime"


def test_a_vllm_pack_cannot_name_an_sglang_hook(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="for engine vllm"):
        load_pack_file(_pack(tmp_path, engine="vllm", stage=SGLANG_MEMORY_HOOK))


def test_the_cache_key_covers_the_stage_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cache.cache_key()
    monkeypatch.setattr(cache, "stage_key", lambda: "sglang:other")
    assert cache.cache_key() != before


def test_a_cached_rule_with_a_stage_its_engine_lacks_is_not_used() -> None:
    rule = {"id": "x", "title": "t", "kind": "policy", "reason": "r", "source": "s",
            "when": {"eq": {"path": "facts.tp_size", "value": 1}},
            "then": [{"set": {"key": "prefill.backend", "value": "disabled"}}]}
    pack = {"pack": "p", "title": "t", "engine": "vllm", "rules": [rule]}
    assert cache._valid_pack(pack)
    assert not cache._valid_pack({**pack, "rules": [{**rule, "stage": SGLANG_MEMORY_HOOK}]})
    assert cache._valid_pack({**pack, "engine": "sglang",
                              "rules": [{**rule, "stage": SGLANG_MEMORY_HOOK}]})


def _without_sources(rules: RuleSet) -> RuleSet:
    blank = [r._replace(source="") for r in rules.compiled()]
    return dataclasses.replace(rules, rules=blank, _compiled=None, _per_engine={})


def _plan_minus_sources(plan: Any) -> str:
    data = plan.to_dict() if hasattr(plan, "to_dict") else plan.model_dump()
    for decision in data["decisions"]:
        decision.pop("source", None)
    return json.dumps(data, sort_keys=True, default=str)


@pytest.mark.parametrize("argv", [
    ["--gpu-memory-gib", "80"],
    ["--moe-a2a-backend", "deepep", "--tp-size", "8", "--gpu-memory-gib", "80"],
    ["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-sm", "100", "--tp-size", "8",
     "--gpu-memory-gib", "180"],
    ["--enable-dp-attention", "--dp-size", "4", "--tp-size", "4", "--gpu-memory-gib", "80"],
    ["--disaggregation-mode", "decode", "--enable-two-batch-overlap", "--moe-a2a-backend",
     "deepep", "--deepep-mode", "normal", "--gpu-memory-gib", "40"],
])
def test_a_rules_source_text_does_not_change_the_plan(argv: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing a citation never changes a plan: stages come from ``stage:``, not ``source:``."""
    shipped = load_rules_for_resolve()
    with_sources = _plan_minus_sources(resolve_args(argv))
    monkeypatch.setattr("cgconfig.rules.loading._SHIPPED", [_without_sources(shipped)])
    assert _plan_minus_sources(resolve_args(argv)) == with_sources


def test_each_stage_runs_once_in_sglangs_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline asks the rule set for each SGLang stage once, in order, and takes the
    memory-hook view once, right after that stage."""
    seen: list[str] = []
    real_apply, real_view = RuleSet.apply_stage, pipeline.memory_view

    def apply_stage(self: RuleSet, draft: Any, stage: str, **kwargs: Any) -> list[str]:
        seen.append(stage)
        return real_apply(self, draft, stage, **kwargs)

    def view(draft: Any) -> Any:
        seen.append("<memory view>")
        return real_view(draft)

    monkeypatch.setattr(RuleSet, "apply_stage", apply_stage)
    monkeypatch.setattr(pipeline, "memory_view", view)
    resolve_args(["--gpu-memory-gib", "80", "--tp-size", "2"])
    at = SGLANG_STAGES.index(SGLANG_MEMORY_HOOK) + 1
    assert seen == [*SGLANG_STAGES[:at], "<memory view>", *SGLANG_STAGES[at:]]


#: ``cd oracle && vendor/venv/bin/python sglang_oracle.py --model-arch deepseek_v3 --tp-size 8
#: --sm 100 --gpu-memory-gib 180 [--cuda-graph-backend-prefill disabled]``: trail
#: ``_parse_cuda_graph_config, _handle_gpu_memory_settings,
#: _disable_prefill_cuda_graph_for_deepseek_trtllm_mla`` and mem_fraction_static 0.844; with
#: prefill disabled from the start, 0.853.
DSV3_SM100 = ["--model-arch", "DeepseekV3ForCausalLM", "--use-mla", "--gpu-sm", "100",
              "--tp-size", "8", "--gpu-memory-gib", "180"]


def test_the_memory_view_is_taken_before_later_stages_change_the_config() -> None:
    """SGLang disables DeepSeek-V3's prefill graphs on trtllm_mla after its memory hook, so
    the memory heuristic still counts them: the view is the draft as that stage left it."""
    plan = resolve_args(DSV3_SM100)
    assert plan.config["prefill"]["backend"] == "disabled"
    assert plan.engine["mem_fraction_static"]["value"] == pytest.approx(0.844)
    off = resolve_args([*DSV3_SM100, "--cuda-graph-backend-prefill", "disabled"])
    assert off.engine["mem_fraction_static"]["value"] == pytest.approx(0.853)
