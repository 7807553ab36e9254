"""The engine-specific cost code is each engine's plug-in part ``cost``, and vLLM's phases
share one predicted graph pool (issue #34)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from cgconfig.api import resolve_args
from cgconfig.cost import coefficients as co
from cgconfig.cost.budget import graphs_for_predicted_budget
from cgconfig.cost.compare import prediction_errors
from cgconfig.cost.engine_part import EngineCost
from cgconfig.cost.plan_cost import engine_cost, phase_prediction
from cgconfig.cost.predict import PhaseInputs, predict
from cgconfig.line import registry
from cgconfig.line.plugins import PACKAGES

ROOT = Path(__file__).resolve().parents[2]
VLLM = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HOME", str(ROOT / "tests/data/hf_cache"))
    monkeypatch.setenv("CGCONFIG_NO_GPU_PROBE", "1")
    monkeypatch.setenv(co.LOCAL_ENV, str(tmp_path / "cost.json"))


@pytest.mark.parametrize("engine", sorted(PACKAGES))
def test_every_engine_answers_the_cost_core(engine: str) -> None:
    part = engine_cost(engine)
    assert isinstance(part, EngineCost) and "decode" in part.cuts
    assert set(part.log_groups.values()) <= {"decode", "prefill"}
    assert 0 < part.budget_fraction <= 1


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module that are not docstrings (of a module, class,
    function or attribute: a string standing as a statement), and what it imports."""
    tree = ast.parse(path.read_text())
    docs = {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out.append(node.value)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names]
            out.extend(f"import {n}" for n in names)
    return out


def test_the_cost_core_names_no_engine() -> None:
    """No engine name in the core's code (docstrings may say which engine does what)."""
    names = re.compile(r"\b(" + "|".join(map(re.escape, registry.names())) + r")\b", re.I)
    for path in sorted((ROOT / "cgconfig/cost").glob("*.py")):
        for text in _code_strings(path):
            assert "cgconfig.engines" not in text, (path.name, text)
            assert not names.search(text), (path.name, text)


def test_vllm_phases_share_one_predicted_pool() -> None:
    plan = resolve_args([*VLLM, "--gpu-memory-gib", "80"])
    cost = plan.cost
    decode, prefill = cost["phases"]["decode"], cost["phases"]["prefill"]
    assert decode["pool"] == prefill["pool"] == "graph_pool"
    assert "predicted" not in decode and "predicted" not in prefill
    pool = cost["pools"]["graph_pool"]
    assert pool["phases"] == ["decode", "prefill"]
    assert pool["graphs"] == decode["graphs"] + prefill["graphs"]
    sizes = (*plan.capture_sizes("decode"), *plan.capture_sizes("prefill"))
    expected = predict(PhaseInputs("vllm", "prefill", "breakable", sizes, 32, 4096.0, 1, 128256),
                       co.load())
    assert expected is not None and expected.memory_gib is not None
    assert pool["predicted"]["class"] == "vllm/prefill/breakable"
    # Each graph counted once: the total is the pool's one prediction, not a sum per phase.
    assert cost["total"]["graph_memory_gib"]["expected"] == pytest.approx(
        expected.memory_gib[1], abs=1e-3)
    assert phase_prediction(cost, "decode") == pool["predicted"]
    # vLLM still shows its estimator per mode.
    assert decode["engine_reservation"]["floor_gib"] == pytest.approx(
        (decode["graphs"] - 1) / 1024, abs=1e-4)


def test_sglang_phases_keep_their_own_predictions() -> None:
    cost = resolve_args(["--model-path", "meta-llama/Llama-3.1-8B-Instruct"]).cost
    assert cost["pools"] == {}
    assert all("predicted" in e and "pool" not in e for e in cost["phases"].values())
    total = sum(e["predicted"]["graph_memory_gib"]["expected"] for e in cost["phases"].values())
    assert cost["total"]["graph_memory_gib"]["expected"] == pytest.approx(total, abs=2e-3)
    assert cost["engine_reserve"]["source"].startswith("SGLang ")


def test_verify_compares_the_pool_total_not_each_mode() -> None:
    cost = resolve_args(VLLM).cost
    capture = SimpleNamespace(memory_gib=0.3, seconds=1.0)
    record = SimpleNamespace(captures={"decode FULL": capture, "mixed PIECEWISE": capture},
                             total_memory_gib=0.6, total_seconds=3.0)
    rows = prediction_errors(cost, record)
    assert [r["what"] for r in rows] == ["total memory", "total seconds"]
    pool = cost["pools"]["graph_pool"]["predicted"]
    assert rows[0]["predicted"] == pool["graph_memory_gib"]["expected"]


def test_tune_budget_takes_the_pools_other_graphs_off() -> None:
    plan = resolve_args(VLLM)
    prefill = plan.cost["phases"]["prefill"]["graphs"]
    graphs, how = graphs_for_predicted_budget(3.0, plan)
    assert f"with {prefill} other graphs" in how
    more, _ = graphs_for_predicted_budget(6.0, plan)
    assert 1 <= graphs < more
    pool = plan.cost["pools"]["graph_pool"]
    sizes = [pool["max_size"]] * (graphs + prefill)
    fits = predict(PhaseInputs("vllm", "prefill", "breakable", tuple(sizes), 32, 4096.0, 1,
                               128256), co.load())
    assert fits is not None and fits.memory_gib is not None and fits.memory_gib[1] <= 3.0


def test_table_and_explain_show_the_pool_once() -> None:
    from cgconfig.cli.cost_render import cost_lines, explain_lines

    plan = resolve_args(VLLM)
    lines = cost_lines(plan)
    pool = plan.cost["pools"]["graph_pool"]
    assert sum("graph_pool (decode + prefill)" in line for line in lines) == 1
    assert any(line.strip().startswith("decode:") and "in the shared pool graph_pool" in line
               for line in lines)
    explained = explain_lines(plan, "cost.decode")
    assert any(f"{pool['graphs']} graphs" in line and "predicted once" in line
               for line in explained)
    assert any(line.strip().startswith("class vllm/prefill/breakable") for line in explained)
