"""`cgconfig migrate LINE --to ENGINE==VERSION`: removed and renamed flags written in the target
release's spelling, what cannot be kept one line each, the plan before and after, the line
alone on stdout, exit 2 with one line on bad input. Flags are real ones from the tables."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.line import versions
from cgconfig.line.table import load_table

SGLANG = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--gpu-memory-gib", "80"]
OLDEST, NEWEST = versions.oldest("sglang"), versions.newest("sglang")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["migrate", *argv])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_a_removed_alias_is_written_as_its_replacement(capsys: pytest.CaptureFixture[str]) -> None:
    # --cuda-graph-max-bs: SGLang 0.5.19's, gone from 0.5.20 (cgconfig's flag table: an alias)
    assert load_table("sglang", "0.5.19").lookup("--cuda-graph-max-bs") is not None
    assert load_table("sglang", NEWEST).lookup("--cuda-graph-max-bs") is None
    rc, out, err = run([*SGLANG, "--engine-version", "0.5.19", "--cuda-graph-max-bs", "160",
                        "--disable-piecewise-cuda-graph", "--to", f"sglang=={NEWEST}"], capsys)
    assert rc == 0
    assert shlex.split(out) == [*SGLANG, "--engine-version", f"sglang=={NEWEST}",
                                "--cuda-graph-max-bs-decode", "160",
                                "--cuda-graph-backend-prefill", "disabled"]
    assert out.count("\n") == 1  # only the line: $(cgconfig migrate ...) is it
    assert "--cuda-graph-max-bs 160 → --cuda-graph-max-bs-decode 160" in err
    assert "+++ b:" in err  # the plan after, as diff shows it


def test_what_cannot_be_kept_is_one_line_each_with_why(capsys: pytest.CaptureFixture[str]) -> None:
    flag = "--keep-mm-feature-on-device"  # in 0.5.19-0.5.20, removed in 0.5.21
    rc, out, err = run([*SGLANG, "--engine-version", "0.5.20", flag, "--to", NEWEST], capsys)
    assert rc == 0 and flag not in out
    (line,) = [row for row in err.splitlines() if row.strip().startswith("cannot keep:")]
    assert flag in line and "removed in SGLang 0.5.21" in line


def test_migrating_down_drops_what_the_older_release_lacks(
        capsys: pytest.CaptureFixture[str]) -> None:
    flag = "--enable-response-store"  # new in SGLang 0.5.20
    assert load_table("sglang", OLDEST).lookup(flag) is None
    rc, out, err = run([*SGLANG, flag, "--to", f"sglang=={OLDEST}"], capsys)
    assert rc == 0 and flag not in out
    first = next(v for v in versions.SUPPORTED["sglang"] if load_table("sglang", v).lookup(flag))
    assert first == "0.5.20" and "new in SGLang 0.5.20" in err


def test_the_source_release_comes_from_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    # no release named: the line's flags say vLLM <= 0.27.1 (--calculate-kv-scales)
    rc, out, _ = run(["vllm", "serve", "m", "--calculate-kv-scales", "--max-num-seqs", "64",
                      "-o", "json", "--to", "vllm==" + versions.newest("vllm")], capsys)
    assert rc == 0
    body = json.loads(out)
    assert body["from"]["source"] == "the line's flags" and body["from"]["version"] == "0.27.1"
    assert body["argv"] == ["vllm", "serve", "m", "--max-num-seqs", "64"]
    assert body["dropped"][0]["before"] == ["--calculate-kv-scales"]
    assert "removed in vLLM 0.28.0" in body["dropped"][0]["why"]
    assert "diff" in body and body["refused"] is None


def test_an_image_tag_moves_to_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    line = ["docker", "run", "--gpus", "all", f"lmsysorg/sglang:v{OLDEST}-cu129", *SGLANG]
    rc, out, _ = run([*line, "--to", NEWEST], capsys)
    assert rc == 0 and f"lmsysorg/sglang:v{NEWEST}-cu129" in shlex.split(out)


def test_an_abbreviation_the_target_reads_otherwise_is_written_in_full(
        capsys: pytest.CaptureFixture[str]) -> None:
    # --page: the unique prefix of --page-size in SGLang 0.5.19, ambiguous in 0.5.23
    assert load_table("sglang", "0.5.19").prefix_matches("--page") == ["--page-size"]
    assert len(load_table("sglang", NEWEST).prefix_matches("--page")) > 1
    rc, out, err = run([*SGLANG, "--engine-version", "0.5.19", "--page", "16", "--tp-si", "2",
                        "--to", NEWEST], capsys)
    assert rc == 0 and shlex.split(out)[-4:] == ["--page-size", "16", "--tp-si", "2"]
    assert "--page is short for --page-size" in err and "--tp-si" not in err.split("---")[0]


def test_a_quoted_line_is_one_argument(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run([shlex.join(SGLANG), "--to", NEWEST], capsys)
    assert rc == 0 and shlex.split(out) == SGLANG


@pytest.mark.parametrize(("argv", "said"), [
    ([*SGLANG], "needs --to ENGINE==VERSION"),
    ([*SGLANG, "--to", "sglang==0.4.0"], "is not supported"),
    ([*SGLANG, "--to", "vllm==" + versions.newest("vllm")], "names no SGLang release"),
    ([*SGLANG, "--to"], "needs a release"),
    (["--to", NEWEST], "needs a launch line"),
    ([*SGLANG, "--no-such-flag", "--to", NEWEST], "the line as written is refused"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], said: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2 and out == "" and said in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_from_a_file_migrates_each_launch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "run.sh"
    script.write_text(f"pip install sglang=={OLDEST}\n{shlex.join(SGLANG[:5])} "
                      "--cuda-graph-max-bs 64\n")
    rc, out, err = run(["--from", str(script), "--to", NEWEST], capsys)
    assert rc == 0 and "--cuda-graph-max-bs-decode 64" in out
    assert f"SGLang {OLDEST} (pip pin" in err


def test_help_names_the_forms(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["--help"], capsys)
    assert rc == 0 and "--to ENGINE==VERSION" in out and "--from FILE" in out


def test_a_flag_as_each_release_spells_it() -> None:
    from cgconfig.migrate import spelled_for

    assert spelled_for("sglang", "--cuda-graph-max-bs-decode", "0.5.8") == "--cuda-graph-max-bs"
    assert spelled_for("sglang", "--cuda-graph-max-bs-decode", "0.5.23") == \
        "--cuda-graph-max-bs-decode"
    assert spelled_for("sglang", "--cuda-graph-max-bs-decode", None) == \
        "--cuda-graph-max-bs-decode"
