"""``cgconfig diff``: launch lines, plan files and stdin; sizes as ranges; decisions and
warnings; colours only on a terminal; -o json; exit 0 equal, 1 different, 2 bad input."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.cli.plan_diff import diff_plans, size_ranges
from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]
BASE = "--tp-size 8 --gpu-memory-gib 141"
needs_cli = pytest.mark.skipif(shutil.which("cgconfig") is None, reason="cgconfig not on PATH")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def plan_file(tmp_path: Path, name: str, argv: list[str], capsys: pytest.CaptureFixture[str],
              fmt: str = "json") -> Path:
    rc, out, _ = run(["resolve", *argv, "-o", fmt], capsys)
    assert rc == 0
    path = tmp_path / f"{name}.{fmt}"
    path.write_text(out, encoding="utf-8")
    return path


@pytest.mark.parametrize("values,expected", [
    ([], []),
    ([7], ["7"]),
    ([1, 2], ["1", "2"]),
    ([5, 6, 7], ["5..7"]),
    ([1, 2, 4, 8, 12, 16], ["1", "2", "4..16 step 4"]),
    ([392, 400, 408, 416, 1024], ["392..416 step 8", "1024"]),
    ([4, 8, 12, 48, 64, 80, 96], ["4..12 step 4", "48..96 step 16"]),
])
def test_size_ranges(values: list[int], expected: list[str]) -> None:
    assert size_ranges(values) == expected


def test_equal_plans_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["diff", "--a", BASE, "--b", "--tp 8 --gpu-memory-gib 141"], capsys)
    assert (rc, err) == (0, "")
    assert out.splitlines()[-1] == "plans are equal"


def test_dp_attention_diff(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["diff", "--a", BASE, "--b", f"{BASE} --enable-dp-attention --dp-size 8"],
                     capsys)
    assert rc == 1
    assert "  prefill.max_bs  8192 → 1024" in out
    assert "    - 1280..4096 step 256, 4608..8192 step 512" in out
    assert "  + feature.dp-attention-prefill-clamp (policy, applied): prefill.max_bs 8192 → 1024" in out
    assert "  enable_dp_attention                     false → true" in out
    assert out.splitlines()[-1] == "1 value, 2 size lists (+0 -40), 1 decision, 0 warnings differ"
    assert "\x1b[" not in out  # not a terminal


def test_the_readme_example_is_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(f'$ cgconfig diff --a "{BASE}" --b "{BASE} --enable-dp-attention '
                         '--dp-size 8"\n', 1)[1].split("$ echo $?", 1)[0]
    _, out, _ = run(["diff", "--a", BASE, "--b", f"{BASE} --enable-dp-attention --dp-size 8"],
                    capsys)
    assert out == block


def test_file_against_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    cuda = plan_file(tmp_path, "cuda", BASE.split(), capsys)
    _, hip_json, _ = run(["resolve", *BASE.split(), "--device", "hip", "-o", "json"], capsys)
    monkeypatch.setattr(sys, "stdin", io.StringIO(hip_json))
    rc, out, _ = run(["diff", str(cuda), "-"], capsys)
    assert rc == 1
    assert out.splitlines()[:2] == [f"--- a: {cuda}", "+++ b: stdin"]
    assert "  prefill.backend          breakable → disabled" in out
    assert "capture.prefill.sizes  58 → 0 sizes  +0 -58" in out


def test_yaml_plan_files_and_json_output(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    a = plan_file(tmp_path, "a", [*BASE.split(), "--max-running-requests", "48"], capsys, "yaml")
    b = plan_file(tmp_path, "b", [*BASE.split(), "--max-running-requests", "64"], capsys)
    rc, out, _ = run(["diff", str(a), str(b), "-o", "json"], capsys)
    result = json.loads(out)
    assert rc == 1 and result["equal"] is False
    assert {"key": "decode.max_bs", "a": 48, "b": 64} in result["config"]
    sizes = {s["key"]: s for s in result["sizes"]}
    assert sizes["capture.decode.sizes"]["added"] == [56, 64]
    assert sizes["capture.decode.sizes"]["added_ranges"] == ["56", "64"]
    assert sizes["capture.decode.sizes"]["removed"] == []
    changed = result["decisions"]["changed"]
    assert [c["rule"] for c in changed] == ["sizes.decode-max-bs-default"]


def test_warnings_and_removed_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["diff", "-o", "json", "--a",
                      f"{BASE} --attention-backend torch_native --cuda-graph-backend-decode full",
                      "--b", f"{BASE} --cuda-graph-backend-decode full"], capsys)
    result = json.loads(out)
    assert rc == 1
    assert [d["rule"] for d in result["decisions"]["removed"]] == ["attention.torch-native-eager"]
    assert result["warnings"]["removed"] and not result["warnings"]["added"]


def test_diff_plans_is_symmetric_in_what_it_finds(capsys: pytest.CaptureFixture[str]) -> None:
    from cgconfig import resolve_args

    a = resolve_args([*BASE.split()]).to_dict()
    b = resolve_args([*BASE.split(), "--disaggregation-mode", "prefill"]).to_dict()
    forward, backward = diff_plans(a, b), diff_plans(b, a)
    assert forward["decisions"]["added"] == backward["decisions"]["removed"]
    assert [(s["key"], s["added"]) for s in forward["sizes"]] == [
        (s["key"], s["removed"]) for s in backward["sizes"]]
    assert diff_plans(a, a)["equal"] is True


@pytest.mark.parametrize("argv,message", [
    (["diff", "--a", BASE], "diff: diff needs exactly two plans, got 1"),
    (["diff", "a.json", "b.json", "c.json"], "diff: diff needs exactly two plans, got 3"),
    (["diff", "-", "-"], "diff: only one side can read stdin"),
    (["diff", "/no/such.json", "--b", BASE], "diff: file not found: /no/such.json"),
    (["diff", "--a", "--tp-sze 8", "--b", BASE], "--a: command line: unknown flag --tp-sze; "
                                                 "did you mean '--tp-size'?"),
    (["diff", "--a", BASE, "--b", "--tp-size 'unclosed"], "--b: cannot split the launch line"),
    (["diff", "--x", "a", "b"], "diff: unknown option '--x'"),
    (["diff", "--a", BASE, "--b", BASE, "-o", "xml"], "-o: unknown output format 'xml'"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2 and out == ""
    assert err.startswith(f"cgconfig: error: {message}") and err.count("\n") == 1


def test_a_file_that_is_not_a_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "config": {}}', encoding="utf-8")
    rc, out, err = run(["diff", str(bad), "--b", BASE, "-o", "json"], capsys)
    assert rc == 2
    assert "not a cgconfig plan (at /capture: Field required)" in err
    assert json.loads(out)["error"]["where"] == str(bad)
    error = tmp_path / "error.json"
    error.write_text('{"error": {"code": "input", "message": "x"}}', encoding="utf-8")
    rc, _, err = run(["diff", str(error), "--b", BASE], capsys)
    assert rc == 2 and "this is an error report, not a plan" in err


@needs_cli
@pytest.mark.parametrize("env,coloured", [({"FORCE_COLOR": "1"}, True),
                                          ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
                                          ({}, False)])
def test_colours_like_git_diff_stat(env: dict[str, str], coloured: bool) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    out = subprocess.run(["cgconfig", "diff", "--a", BASE, "--b", f"{BASE} --device hip"],
                         capture_output=True, text=True, env={**clean, **env}, timeout=HANG_S)
    assert out.returncode == 1
    assert ("\x1b[31m-58\x1b[0m" in out.stdout) is coloured
    assert ("\x1b[" in out.stdout) is coloured
