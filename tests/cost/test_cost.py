"""The start-up cost: prediction ranges and named unknowns, the plan's cost section, the fit
check, explain, tune without a log, verify's comparison and calibrate's local file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cgconfig.api import resolve_args
from cgconfig.cost import coefficients as co
from cgconfig.cost.predict import PhaseInputs, predict
from cgconfig.errors import InputError
from cgconfig.plan_schema import PlanDocument

ROOT = Path(__file__).resolve().parents[2]
HF = {"HF_HOME": str(ROOT / "tests/data/hf_cache"), "CGCONFIG_NO_GPU_PROBE": "1"}
LLAMA8 = ["python3", "-m", "sglang.launch_server", "--model-path",
          "meta-llama/Llama-3.1-8B-Instruct"]


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for k, v in HF.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv(co.LOCAL_ENV, str(tmp_path / "cost.json"))  # no user file leaks in


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "cgconfig.cli", *args], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "100", **(env or {})},
                          cwd=ROOT)


def test_unknown_hidden_size_widens_the_memory_range() -> None:
    coeffs = co.builtin()
    sizes = tuple(range(8, 257, 8))
    known = predict(PhaseInputs("sglang", "decode", "full", sizes, 32, 4096.0, 1, 128256),
                    coeffs)
    unknown = predict(PhaseInputs("sglang", "decode", "full", sizes, None, None), coeffs)
    assert known and unknown and known.memory_gib and unknown.memory_gib
    assert known.memory_gib[0] < known.memory_gib[1] < known.memory_gib[2]
    assert unknown.memory_gib[0] < known.memory_gib[0]
    assert unknown.memory_gib[2] > known.memory_gib[2]
    assert unknown.unknown == ["hidden", "vocab", "layers"] and not known.unknown
    assert predict(PhaseInputs("sglang", "decode", "full", (), 32, 4096.0), coeffs) is None


def test_a_class_without_boots_borrows_the_runtime_and_says_so() -> None:
    coeffs = co.builtin()
    assert coeffs.lookup("sglang/prefill/breakable") is None
    pred = predict(PhaseInputs("sglang", "prefill", "breakable", (256, 512), 32, 4096.0), coeffs)
    assert pred is not None and pred.klass == "runtime/prefill/breakable"
    assert any("cgconfig.runtime's measured class" in h for h in pred.how)


def test_plan_carries_cost_per_phase_and_validates() -> None:
    plan = resolve_args([*LLAMA8[3:], "--tp-size", "2", "--gpu-memory-gib", "80"])
    cost = plan.cost
    for phase in ("decode", "prefill"):
        entry = cost["phases"][phase]
        assert entry["graphs"] == len(plan.capture_sizes(phase))
        assert entry["engine_reservation"]["source"].startswith("SGLang 0.5.23 arg_groups/")
        assert set(entry["predicted"]["graph_memory_gib"]) == {"low", "expected", "high"}
    # SGLang 0.5.23: decode max_bs × 2 MiB and 8 MiB per prefill size.
    assert cost["phases"]["decode"]["engine_reservation"]["gib"] == pytest.approx(
        plan.config["decode"]["max_bs"] * 2 / 1024)
    assert cost["phases"]["prefill"]["engine_reservation"]["gib"] == pytest.approx(
        len(plan.capture_sizes("prefill")) * 8 / 1024)
    assert cost["model"]["layers"] == 32 and cost["model"]["sources"]["layers"].endswith(":9")
    assert cost["deployment"]["tp"] == 2 and cost["fit"]["status"] == "fits"
    PlanDocument.model_validate(json.loads(plan.to_json()))


def test_a_plan_that_does_not_fit_names_what_to_cut() -> None:
    plan = resolve_args([*LLAMA8[3:], "--gpu-memory-gib", "16"])
    fit = plan.cost["fit"]
    assert fit["status"] == "does-not-fit" and "static pool" in fit["why"]
    assert any(c.startswith("decode:") and "--cuda-graph-max-bs-decode" in c for c in fit["cut"])
    assert resolve_args(LLAMA8[3:]).cost["fit"]["status"] == "unknown"  # no GPU memory
    out = cli("resolve", *LLAMA8, "--gpu-memory-gib", "16", env=HF)
    assert out.returncode == 0 and "DOES NOT FIT" in out.stdout and "cut decode:" in out.stdout


def test_vllm_and_trtllm_plans_name_their_engines_reservation() -> None:
    vllm = resolve_args(["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]).cost
    res = vllm["phases"]["decode"]["engine_reservation"]
    assert res["gib"] is None and "profile_cudagraph_memory" in res["source"]
    assert res["floor_gib"] == pytest.approx((vllm["phases"]["decode"]["graphs"] - 1) / 1024,
                                             abs=1e-4)
    assert any("torch.compile" in t for t in vllm["not_predicted"])
    trt = resolve_args(["trtllm-serve", "meta-llama/Llama-3.1-8B-Instruct"]).cost
    assert trt["phases"]["decode"]["engine_reservation"]["gib"] == 0.0
    assert trt["phases"]["decode"]["predicted"]["class"] == "trtllm/decode/full"


def test_explain_shows_how_the_cost_was_computed() -> None:
    out = cli("explain", "cost.decode", "cost.fit", *LLAMA8, "--gpu-memory-gib", "80", env=HF)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "cost.decode: 36 graphs" in text and "how: memory =" in text
    assert "engine reservation: 0.5 GiB" in text and "cost.fit = fits" in text


def test_tune_without_a_log_uses_the_prediction(tmp_path: Path) -> None:
    hist = ROOT / "benchmarks/workloads/poisson.json"
    small = cli("tune", "--histogram", str(hist), "--max-graph-memory", "0.2", *LLAMA8,
                "-o", "json", env=HF)
    large = cli("tune", "--histogram", str(hist), "--max-graph-memory", "0.6", *LLAMA8,
                "-o", "json", env=HF)
    assert small.returncode == 0 and large.returncode == 0, small.stderr
    a = json.loads(small.stdout)["tune"]["memory_budget"]
    b = json.loads(large.stdout)["tune"]["memory_budget"]
    assert "cgconfig's prediction" in a["estimate"] and 1 <= a["graphs"] < b["graphs"]
    tiny = cli("tune", "--histogram", str(hist), "--max-graph-memory", "0.001", *LLAMA8, env=HF)
    assert tiny.returncode == 2 and "above the budget" in tiny.stderr


def test_verify_reports_the_predictions_error() -> None:
    # tests/cost/sglang_11830_capture.log: the capture lines of sgl-project/sglang#11830
    # (52 decode graphs, 5.92 s, 1.44 GB); the thread does not name the model. The excerpt
    # names no release (verify alone would say "cannot judge"), so the release is given.
    judged = ("--engine-version", "sglang==0.5.23")
    out = cli("verify", "tests/cost/sglang_11830_capture.log", *LLAMA8, *judged,
              "--cuda-graph-max-bs-decode", "512", "-o", "json", env=HF)
    rows = json.loads(out.stdout)["cost"]
    mem = next(r for r in rows if r["what"] == "decode memory")
    assert mem["measured"] == 1.44 and mem["error_pct"] == pytest.approx(
        100 * (mem["predicted"] - 1.44) / 1.44, abs=0.1)
    text = cli("verify", "tests/cost/sglang_11830_capture.log", *LLAMA8, *judged,
               "--cuda-graph-max-bs-decode", "512", env=HF).stdout
    assert "cgconfig's start-up prediction against the log:" in text


def _report(path: Path, **extra: Any) -> Path:
    doc = {"decode": {"backend": "full", "runtime_backend": "full",
                      "sizes": [1, 2, 4, 8, 16, 32, 64], "capture_seconds": 1.2,
                      "graphs": 7, "graph_memory_gib": 0.05}, **extra}
    path.write_text(json.dumps(doc))
    return path


def test_calibrate_writes_a_local_file_that_plans_then_use_and_name(tmp_path: Path) -> None:
    local = tmp_path / "cost.json"
    report = _report(tmp_path / "report.json")
    env = {**HF, co.LOCAL_ENV: str(local)}
    out = cli("calibrate", str(report), "--layers", "32", "--hidden", "4096", "--engine",
              "sglang", env=env)
    assert out.returncode == 0, out.stderr
    doc = json.loads(local.read_text())
    assert len(doc["samples"]) == 1 and "sglang/decode/full" in doc["classes"]
    shown = json.loads(cli("resolve", *LLAMA8, "-o", "json", env=env).stdout)["cost"]
    assert shown["phases"]["decode"]["predicted"]["coefficients"] == str(local)
    assert str(local) in shown["coefficients"]
    again = cli("calibrate", str(report), "--layers", "32", "--hidden", "4096", "--engine",
                "sglang", env=env)
    assert again.returncode == 0 and len(json.loads(local.read_text())["samples"]) == 2


@pytest.mark.parametrize("doc,needle", [
    ({"decode": {"runtime_backend": "full", "sizes": [1, 2], "capture_seconds": 1}},
     "layers and hidden size"),
    ({"phases": {"decode": {"runtime_backend": "eager", "sizes": [1]}}, "layers": 2,
      "hidden": 8}, "no phase that captured"),
    ([1, 2], "must be a JSON object"),
])
def test_calibrate_refuses_bad_reports_in_one_line(tmp_path: Path, doc: Any, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    out = cli("calibrate", str(path), env={co.LOCAL_ENV: str(tmp_path / "c.json")})
    assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_broken_local_file_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({"schema_version": 1, "classes": {"x": {"memory_spread": -1}}}))
    with pytest.raises(InputError, match="memory_spread"):
        co.load({co.LOCAL_ENV: str(bad)})
