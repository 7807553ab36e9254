"""What a new user meets: help and output that fit the width, and say what matters.

Help of every command and every prose line of the plan table follow ``COLUMNS`` (a value that
is not a positive ASCII number counts as unset), with a hanging indent and nothing trailing;
unknown model facts read as unknown; hints and errors name only the line's engine's flags.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cgconfig.cli.width import columns_env, wrap
from tests.bounds import HANG_S

ROOT = Path(__file__).resolve().parents[2]

HELPS = [[], ["resolve"], ["explain"], ["tune"], ["diff"], ["histogram"], ["version"],
         ["schema"], ["completion"], ["rules"], ["rules", "list"], ["rules", "show"],
         ["rules", "validate"]]


def cli(args: list[str], tmp: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")
            and not k.startswith(("SGLANG_", "VLLM_", "HF_"))}
    base.update(CGCONFIG_NO_GPU_PROBE="1", HF_HOME=str(tmp or ROOT / "no-such-hf-cache"))
    return subprocess.run([sys.executable, "-m", "cgconfig.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env={**base, **env}, timeout=HANG_S, check=False)


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", HELPS, ids=lambda c: " ".join(c) or "cgconfig")
def test_help_of_every_command_fits_the_width(command: list[str], columns: int) -> None:
    done = cli([*command, "--help"], COLUMNS=str(columns))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and "Usage: cgconfig" in done.stdout
    assert max(map(len, lines)) <= columns
    assert all(line == line.rstrip() for line in lines)


@pytest.mark.parametrize("value", ["²", "0", "00", "abc", "-3", " ", "99999999"])
@pytest.mark.parametrize("command", [["resolve", "--help"], ["--help"], ["rules", "list"],
                                     ["resolve", "--tp-size", "2"], ["explain", "--all"]],
                         ids=" ".join)
def test_columns_that_is_no_width_counts_as_unset(command: list[str], value: str) -> None:
    done = cli(command, COLUMNS=value, LINES=value)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stdout.splitlines()) > 3


def test_columns_env_reads_only_positive_ascii_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in (("80", 80), (" 120 ", 120), ("0", None), ("00", None), ("²", None),
                            ("٣", None), ("-1", None), ("", None), ("1e3", None)):
        monkeypatch.setenv("COLUMNS", value)
        assert columns_env() == expected, value


def test_wrap_hangs_under_the_text_and_folds_paths_at_slashes() -> None:
    text = "      why: " + "word " * 30 + "tests/data/hf_cache/hub/models--x/snapshots/abc/config.json"
    lines = wrap(text, 60, 11)
    assert all(len(line) <= 60 and line == line.rstrip() for line in lines)
    assert all(line.startswith(" " * 11) and line[11] != " " for line in lines[1:])
    assert " ".join(line.strip() for line in lines).replace("/ ", "/") == text.strip()
    assert wrap(text, None) == [text]


def test_help_groups_flags_by_engine_and_accepts_every_engines_line() -> None:
    from cgconfig.engines.trtllm.flags import DIALECT_FLAGS as TRTLLM_FLAGS
    from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS
    from cgconfig.line.table import load_table
    from cgconfig.line.versions import SUPPORTED

    out = cli(["resolve", "--help"], COLUMNS="200").stdout
    titles = [line for line in out.splitlines() if line.endswith(":") or "flags" in line[:30]]
    for group in ("cgconfig's own flags", "SGLang flags", "vLLM flags", "trtllm-serve flags"):
        assert any(t.startswith(group) for t in titles), group
    assert "vllm serve MODEL" in out and "trtllm-serve MODEL" in out
    assert "sglang.launch_server" in out
    vllm_part = out.split("vLLM flags", 1)[1].split("trtllm-serve flags", 1)[0]
    assert all(s in vllm_part for s in VLLM_FLAGS.flags)
    for release in SUPPORTED["vllm"]:  # older releases' own flags too (--cuda-graph-sizes, -O)
        modelled = [o for f in load_table("vllm", release).flags if f.modelled for o in f.options]
        assert all(o in vllm_part for o in modelled), release
    older_only = vllm_part.split("--cuda-graph-sizes", 1)[1].split("\n  -", 1)[0]
    assert "vLLM 0.10.2 to 0.12.0" in older_only  # --cuda-graph-sizes: 0.10.2 to 0.12.0
    trt_part = out.split("trtllm-serve flags", 1)[1]
    assert all(s in trt_part for s in TRTLLM_FLAGS.flags)


@pytest.mark.parametrize("columns", [80, 120])
def test_every_prose_line_of_the_plan_wraps_with_a_hanging_indent(columns: int) -> None:
    done = cli(["resolve", "--attention-backend", "torch_native", "--cuda-graph-backend-decode",
                "full", "--gpu-memory-gib", "80", "--model-path", "deepseek-ai/DeepSeek-V3",
                "--port", "30000"], COLUMNS=str(columns))
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= columns
    assert all(line == line.rstrip() for line in lines)
    why = next(i for i, line in enumerate(lines) if line.startswith("      why: "))
    assert lines[why + 1].startswith(" " * 11) and lines[why + 1][11] != " "
    starts = ("cgconfig plan", "SGLang 0.5.23 engine:", "Locked by your inputs:", "Decisions:",
              "Warnings:", "Ignored (no effect on CUDA graphs):", *"┏┃┡│└")
    assert all(line.startswith((" ", *starts)) for line in lines)  # continuations hang


def test_unknown_model_facts_read_unknown_with_one_hint(tmp_path: Path) -> None:
    done = cli(["resolve", "--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend",
                "trtllm_mla"], tmp_path)
    assert "MLA unknown" in done.stdout and "MLA no (default)" not in done.stdout
    hints = [line for line in done.stdout.splitlines() if "--model-arch" in line]
    assert len(hints) == 1 and "explain" in hints[0]
    assert "rules that read it could apply" not in done.stderr
    explained = cli(["explain", "--model-path", "deepseek-ai/DeepSeek-V3", "--attention-backend",
                     "trtllm_mla"], tmp_path)
    assert "attention.deepseek-v3-trtllm-mla-prefill" in explained.stderr
    data = cli(["resolve", "--model-path", "deepseek-ai/DeepSeek-V3", "-o", "json"], tmp_path)
    assert "rules that read it could apply" in data.stdout  # the plan's notes keep it


def test_explain_shows_no_declared_null_default() -> None:
    out = cli(["explain", "decode.max_bs", "--gpu-memory-gib", "80"]).stdout
    assert "null" not in out and "overridden by default (derived)" not in out
    assert "default (derived)" in out


@pytest.mark.parametrize(("line", "foreign"), [
    (["vllm", "serve", "M", "--enforce_eager", "true"], "--cuda-graph-config"),
    (["--enforce-eager", "true"], "--cuda-graph-config"),
    (["trtllm-serve", "M", "extra"], "--cuda-graph-config"),
    (["python", "-m", "sglang.launch_server", "--model-path", "m", "extra"], "--compilation-config"),
])
def test_an_error_names_only_the_lines_engines_flags(line: list[str], foreign: str) -> None:
    done = cli(["resolve", *line])
    assert done.returncode == 2
    assert done.stderr.startswith("cgconfig: error: ") and done.stderr.count("\n") == 1
    assert foreign not in done.stderr


def test_advice_that_cannot_apply_says_why_in_one_line() -> None:
    done = cli(["resolve", "--attention-backend", "fa3", "--speculative-algorithm", "EAGLE",
                "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                "--apply-advice", "attention.spec-decode-needs-uniform-batch", "-o", "json"])
    import json

    warnings = json.loads(done.stdout)["warnings"]
    said = [w for w in warnings if "attention.spec-decode-needs-uniform-batch" in w]
    assert said == ["advice attention.spec-decode-needs-uniform-batch (--apply-advice) changes "
                    "nothing: it does not apply here (the attention backend (fa3) supports "
                    "ALWAYS, not below UNIFORM_BATCH)"]
    applied = cli(["resolve", "--attention-backend", "flashinfer", "--cuda-graph-backend-prefill",
                   "full", "--apply-advice", "attention.full-prefill-needs-always", "-o", "json"])
    assert "changes nothing" not in applied.stdout
    assert json.loads(applied.stdout)["config"]["prefill"]["backend"] == "breakable"
