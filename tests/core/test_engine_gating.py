"""A line runs only its own engine's steps and rules: a vLLM or TensorRT-LLM plan runs no SGLang
sizing step, no SGLang capture filter, no SGLang engine block and no rule of an SGLang pack.

Proved by instrumenting the pipeline (every SGLang-only step records that it ran; the rule set
the rules step applies is checked pack by pack) over every line in
``tests/data/launch_lines/`` and over a generated set of `vllm serve` and `trtllm-serve` lines.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from cgconfig.api import request_from_argv, resolve_request
from cgconfig.engines.sglang import pipeline
from cgconfig.errors import CgConfigError
from cgconfig.line import tokenize
from cgconfig.rules import ruleset
from cgconfig.rules.loading import load_rules_for_resolve

DATA = Path(__file__).resolve().parent.parent / "data"
LINES = [json.loads(line) for line in (DATA / "launch_lines" / "lines.jsonl").read_text()
         .splitlines() if line.strip()]
#: The SGLang-only functions SGLang's pipeline calls (the flags SGLang sets and its platform
#: defaults, its derived facts, the DeepEP alignment, the memory-hook sizing and its view, the
#: capture filter, the engine block).
SGLANG_STEPS = ("engine_flag_leaves", "platform_defaults", "derive_facts",
                "align_deepep_prefill", "fill_decode_sizes", "fill_prefill_sizes",
                "memory_view", "capture", "engine_block")

VLLM_FLAGS: tuple[tuple[str, ...], ...] = (
    (), ("-O0",), ("-O1",), ("-O3",), ("--enforce-eager",), ("--pipeline-parallel-size", "2"),
    ("-tp", "8"), ("--max-num-seqs", "8"), ("--max-num-batched-tokens", "4096"),
    ("-cc.cudagraph_mode=FULL_DECODE_ONLY",), ("--data-parallel-size", "2",
                                               "--enable-expert-parallel"),
    ("--all2all-backend", "deepep_low_latency"), ("--attention-backend", "FLASHINFER"),
    ("--speculative-config", '{"method":"ngram","num_speculative_tokens":3,'
                             '"prompt_lookup_max":4}'),
    ("--cudagraph-capture-sizes", "1", "2", "4"), ("--performance-mode", "interactivity"),
)
VLLM_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-VL-8B-Instruct",
               "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-2-7b-hf")
#: cgconfig fact flags that SGLang's steps and rules react to: none may reach a vLLM plan.
FACT_FLAGS: tuple[tuple[str, ...], ...] = (
    (), ("--gpu-sm", "100"), ("--device", "hip"), ("--gpu-memory-gib", "80"),
    ("--max-running-requests", "4"), ("--is-multimodal",), ("--use-mla",),
)
TRTLLM_OPTIONS = (
    "", "cuda_graph_config:\n  enable_padding: true\n",
    "cuda_graph_config:\n  max_batch_size: 64\n",
    "cuda_graph_config: null\n",
    "torch_compile_config:\n  enable_piecewise_cuda_graph: true\n",
    "cuda_graph_config:\n  batch_sizes: [1, 2, 8]\ntorch_compile_config:\n"
    "  enable_piecewise_cuda_graph: true\n  capture_num_tokens: [64, 128]\n",
)


def generated_vllm_lines() -> list[list[str]]:
    rng = random.Random(19)
    lines = []
    for model, facts in itertools.product(VLLM_MODELS, FACT_FLAGS):
        for flags in rng.sample(VLLM_FLAGS, 4):
            lines.append([*facts, "vllm", "serve", model, *flags])
    return lines


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Records each SGLang-only step that runs and the engines of the rules applied."""
    seen: dict[str, Any] = {"steps": [], "rule_engines": set()}
    for name in SGLANG_STEPS:
        real = getattr(pipeline, name)

        def wrapped(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            seen["steps"].append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(pipeline, name, wrapped)
    real_apply = ruleset.apply_stage

    def apply(draft: Any, rule_set: Any, stage: str, **kwargs: Any) -> Any:
        seen["rule_engines"].update(rule_set.engine_of(r.id) for r in rule_set.rules)
        return real_apply(draft, rule_set, stage, **kwargs)

    monkeypatch.setattr(ruleset, "apply_stage", apply)
    return seen


def _check(argv: list[str], engine: str, seen: dict[str, Any]) -> None:
    try:
        request = request_from_argv(argv, environ={})
        assert request.dialect == engine
        plan = resolve_request(request)
    except CgConfigError:
        plan = None  # a refusal: the steps that ran before it are still recorded
    if engine == "sglang":
        return
    assert seen["steps"] == [], f"{' '.join(argv)} ran SGLang steps {seen['steps']}"
    assert seen["rule_engines"] <= {engine, "core"}, seen["rule_engines"]
    if plan is not None:
        rules = load_rules_for_resolve()
        for decision in plan.decisions:
            if decision.kind != "resolver":
                assert rules.engine_of(decision.rule) in (engine, "core") \
                    if decision.rule in rules.pack_of else decision.rule.startswith(
                        (f"{engine}.",)), decision.rule
            else:
                # the engine's own runner steps (vLLM's FULL decode window) are its own
                assert decision.rule == "sizes.max-bs-from-bs" or decision.rule.startswith(
                    f"{engine}."), decision.rule


@pytest.mark.parametrize("entry", LINES, ids=[e["id"] for e in LINES])
def test_launch_line_runs_only_its_engines_steps(entry: dict[str, Any], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  spy: dict[str, Any]) -> None:
    monkeypatch.setenv("HF_HOME", str(DATA / "hf_cache"))
    options = tmp_path / "extra_llm_api_options.yaml"
    options.write_text("cuda_graph_config:\n  enable_padding: true\n")
    argv = [str(options) if w.startswith("${") else w for w in tokenize(entry["line"])]
    _check(argv, entry["engine"], spy)


@pytest.mark.parametrize("argv", generated_vllm_lines(), ids=lambda a: " ".join(a)[:80])
def test_generated_vllm_line_runs_no_sglang_step(argv: list[str], spy: dict[str, Any]) -> None:
    _check(argv, "vllm", spy)


@pytest.mark.parametrize(("options", "facts"), list(itertools.product(TRTLLM_OPTIONS,
                                                                      FACT_FLAGS)))
def test_generated_trtllm_line_runs_no_sglang_step(options: str, facts: tuple[str, ...],
                                                   tmp_path: Path, spy: dict[str, Any]) -> None:
    path = tmp_path / "options.yaml"
    path.write_text(options)
    _check([*facts, "trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct",
            "--extra_llm_api_options", str(path)], "trtllm", spy)


def test_sglang_lines_still_run_sglang_steps(spy: dict[str, Any]) -> None:
    # The spy itself works: an SGLang line runs every SGLang step and SGLang rules.
    resolve_request(request_from_argv(["--pp-size", "2"], environ={}))
    assert set(spy["steps"]) >= {"fill_decode_sizes", "fill_prefill_sizes", "capture",
                                 "engine_block"}
    assert "sglang" in spy["rule_engines"]


def test_every_shipped_pack_declares_its_engine() -> None:
    from cgconfig.rules.cache import shipped_pack_files
    from cgconfig.rules.loader import load_pack_file

    for path in shipped_pack_files():
        pack = load_pack_file(path)
        assert "engine" in pack.model_fields_set, f"{path.name} declares no engine:"


def test_trtllm_plan_has_no_sglang_prefill_grid(tmp_path: Path) -> None:
    # Issue #18: a trtllm-serve plan showed SGLang's 58-size prefill grid as configured sizes.
    options = tmp_path / "options.yaml"
    options.write_text("")
    plan = resolve_request(request_from_argv(
        ["trtllm-serve", "m", "--extra_llm_api_options", str(options)], environ={})).to_dict()
    assert plan["config"]["prefill"]["backend"] == "disabled"
    assert not plan["config"]["prefill"]["bs"]
    assert plan["capture"]["prefill"]["sizes"] == []


def test_vllm_plan_has_no_llama2_prefill_cap(tmp_path: Path) -> None:
    # Issue #18: SGLang's llama-2 path cap (prefill max_bs 4096 for a "llama-2" model path)
    # appeared in vLLM plans.
    model = tmp_path / "llama-2-7b"
    model.mkdir()
    model.joinpath("config.json").write_text(
        (DATA.parent / "fidelity" / "models" / "engine-llama-2.json").read_text())
    plan = resolve_request(request_from_argv(
        ["--gpu-memory-gib", "80", "vllm", "serve", str(model)], environ={})).to_dict()
    assert {d["rule"] for d in plan["decisions"]} == {"vllm.sizes"}
    assert plan["config"]["prefill"]["max_bs"] == 512
