"""`cgconfig tune` end to end: the tuned plan, constraints from rules, outputs, bad input."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from cgconfig import resolve_args
from cgconfig.cli.main import main
from cgconfig.tune import histogram
from cgconfig.tune.optimize import best_sizes, evaluate

ROOT = Path(__file__).resolve().parents[2]
POISSON = str(ROOT / "benchmarks" / "workloads" / "poisson.json")
H200 = ["--gpu-memory-gib", "141"]


def tune_json(capsys, *argv: str) -> dict:
    assert main(["tune", *argv, "-o", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_json_is_the_resolve_document_with_a_tune_key(capsys) -> None:
    doc = tune_json(capsys, "--histogram", POISSON, *H200)
    plan = resolve_args(H200)
    assert set(doc) == set(plan.to_dict()) | {"tune"}
    tune = doc["tune"]
    sizes = doc["capture"]["decode"]["sizes"]
    assert sizes == tune["tuned"]["sizes"] == doc["config"]["decode"]["bs"]
    assert tune["default"]["sizes"] == plan.capture_sizes("decode")
    assert tune["tuned"]["graphs"] == tune["default"]["graphs"] == tune["constraint"]["max_graphs"]
    assert tune["tuned"]["padding_waste"] < tune["default"]["padding_waste"]
    chain = doc["provenance"]["decode.bs"]
    assert chain[-1]["source"] == f"tune: {POISSON}" and chain[-1]["value"] == sizes
    assert "decode.bs" in doc["locked"]
    counts = histogram.load(POISSON).phase("decode")
    assert sizes == best_sizes(counts, list(range(1, 257)), len(sizes))


DEPLOYMENTS = [
    pytest.param([*H200, "--tp-size", "8", "--dp-size", "2", "--enable-dp-attention"], id="dp"),
    pytest.param([*H200, "--tp-size", "8", "--moe-a2a-backend", "deepep"], id="a2a"),
    # SGLang 0.5.23 refuses draft tokens without steps and topk (speculative_hook); without
    # --max-running-requests speculative decoding runs 48 requests, which caps the request pool.
    pytest.param([*H200, "--speculative-algorithm", "EAGLE", "--speculative-num-draft-tokens",
                  "4", "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
                  "--tp-size", "8", "--moe-a2a-backend", "deepep",
                  "--max-running-requests", "512"], id="spec"),
    pytest.param([*H200, "--max-running-requests", "100"], id="pool"),
    pytest.param([*H200, "--cuda-graph-max-bs-decode", "96"], id="locked-max"),
]


@pytest.mark.parametrize("argv", DEPLOYMENTS)
def test_constraints_hold_on_the_tuned_list(capsys, argv: list[str]) -> None:
    doc = tune_json(capsys, "--histogram", POISSON, "--max-graphs", "12", *argv)
    sizes = doc["capture"]["decode"]["sizes"]
    align = doc["capture"]["decode"]["alignment"]
    assert 0 < len(sizes) <= 12
    for size in sizes:
        assert (size * align["request_width"]) % align["multiple"] == 0
    if align["pool_size"]:
        assert max(sizes) <= -(-align["pool_size"] // align["multiple"]) * align["multiple"]
    if "--cuda-graph-max-bs-decode" in argv:
        assert max(sizes) <= 96
    # The same list, given by hand to the resolver, is captured unchanged: nothing was rounded.
    again = resolve_args([*argv, "--cuda-graph-bs-decode", *map(str, sizes)])
    assert again.capture_sizes("decode") == sizes
    # And it is optimal among the sizes the deployment allows.
    allowed = doc["tune"]["allowed_sizes"]
    assert allowed["count"] >= len(sizes)


def test_alignment_is_optimised_under_not_rounded(capsys, tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    histogram.write(path, histogram.Histogram(phases={"decode": {5: 100, 9: 100, 13: 100}}))
    argv = [*H200, "--tp-size", "8", "--moe-a2a-backend", "deepep"]  # multiple of 8
    doc = tune_json(capsys, "--histogram", str(path), "--max-graphs", "2", *argv)
    assert doc["capture"]["decode"]["alignment"]["multiple"] == 8
    # Rounding the unconstrained optimum [5, 9, 13] -> 2 graphs would not be chosen this way:
    # among multiples of 8 the best two graphs are 8 and 16.
    assert doc["capture"]["decode"]["sizes"] == [8, 16]


def test_max_waste_picks_the_fewest_graphs(capsys) -> None:
    doc = tune_json(capsys, "--histogram", POISSON, "--max-waste", "1", *H200)
    tune = doc["tune"]
    assert tune["tuned"]["padding_waste"] <= 0.01
    assert tune["tuned"]["graphs"] == tune["graphs_for_1pct_waste"]
    counts = histogram.load(POISSON).phase("decode")
    fewer = best_sizes(counts, list(range(1, 257)), tune["tuned"]["graphs"] - 1)
    assert evaluate(fewer, counts).waste > 0.01


def test_cost_model(capsys) -> None:
    cost = str(ROOT / "benchmarks" / "workloads" / "h200_step_cost.json")
    doc = tune_json(capsys, "--histogram", POISSON, "--cost", cost, "--max-graphs", "8", *H200)
    tune = doc["tune"]
    assert tune["objective"].startswith("step time")
    assert tune["tuned"]["expected_step_ms"] <= tune["default"]["expected_step_ms"]


def test_emit_sglang_round_trips(capsys) -> None:
    assert main(["tune", "--histogram", POISSON, *H200, "--max-graphs", "10",
                 "--emit", "sglang"]) == 0
    flags = shlex.split(capsys.readouterr().out)
    doc = tune_json(capsys, "--histogram", POISSON, *H200, "--max-graphs", "10")
    assert resolve_args([*H200, *flags]).capture_sizes("decode") == \
        doc["capture"]["decode"]["sizes"]
    assert main(["tune", "--histogram", POISSON, *H200, "--emit", "vllm"]) == 0
    assert "cudagraph_capture_sizes" in capsys.readouterr().out


def test_table_report_and_picture(capsys) -> None:
    assert main(["tune", "--histogram", POISSON, *H200, "--max-graphs", "12"]) == 0
    out = capsys.readouterr().out
    for text in ("default", "tuned", "padding waste", "steps run eagerly", "capture memory",
                 "┃", "12 graphs", "36 graphs", "≤ 1 % padding waste needs"):
        assert text in out


def test_resolve_show_sizes_draws_the_strip(capsys) -> None:
    assert main(["resolve", *H200, "--show", "sizes"]) == 0
    out = capsys.readouterr().out
    assert "decode sizes (requests):" in out and "36 graphs" in out
    assert "prefill sizes (tokens):" in out
    strip = out.split("decode sizes (requests):")[1].splitlines()[1]
    assert strip.startswith("decode") and "╳" not in strip  # no pool: nothing runs eagerly
    assert main(["resolve", *H200, "--max-running-requests", "1024", "--show", "sizes"]) == 0
    decode_strip = capsys.readouterr().out.split("decode sizes (requests):")[1].splitlines()[1]
    assert decode_strip.rstrip().endswith("╳ 36 graphs")  # 257..1024 run eagerly


BAD_ARGS = [
    (["--max-graphs", "0"], "--max-graphs"),
    (["--max-graphs", "x"], "--max-graphs"),
    (["--max-graphs", "99999999999"], "--max-graphs"),
    (["--max-waste", "-1"], "--max-waste"),
    (["--max-waste", "nan"], "--max-waste"),
    (["--max-graphs", "3", "--max-waste", "1"], "alternatives"),
    (["--max-graph", "3"], "did you mean '--max-graphs'"),
    (["--max-graphs"], "expects a value"),
    (["--cost", "/nonexistent.json"], "--cost"),
    (["--disable-decode-cuda-graph"], "nothing to tune"),
    (["--tp-size", "8", "--moe-a2a-backend", "deepep", "--max-waste", "0"], "--max-waste"),
    (["--cuda-graph-max-bs-decode", "4"], "larger than the largest size"),
    (["--bogus-flag"], "unknown flag --bogus-flag"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_ARGS, ids=[" ".join(a) for a, _ in BAD_ARGS])
def test_bad_arguments_exit_2(capsys, argv: list[str], message: str) -> None:
    assert main(["tune", "--histogram", POISSON, *H200, *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_missing_histogram_flag_and_help(capsys) -> None:
    assert main(["tune", *H200]) == 2
    assert "--histogram FILE is required" in capsys.readouterr().err
    assert main(["tune", "--help"]) == 0
    assert "--max-waste PCT" in capsys.readouterr().out


def test_bad_cost_files_exit_2(capsys, tmp_path: Path) -> None:
    cases = {
        "{}": "schema_version",
        '{"schema_version": 1, "graph": {"a": 1}, "eager": {"a": 1, "b": 0}}': "needs both",
        '{"schema_version": 1, "graph": {"a": 1, "b": -1}, "eager": {"a": 1, "b": 0}}': "range",
        '{"schema_version": 1, "graph": {"a": 1, "b": 1}, "eagre": {"a": 1, "b": 0}}':
            "did you mean",
        '{"schema_version": 1, "unit": "s", "graph": {"a": 1, "b": 1}, "eager": {"a": 1, "b": 0}}':
            "unit",
    }
    for text, message in cases.items():
        path = tmp_path / "cost.json"
        path.write_text(text)
        assert main(["tune", "--histogram", POISSON, *H200, "--cost", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
