"""Issue #35, hostile input round three, as subprocesses under the harness's limits (CPU time and
address space; the wall clock only as a hang net): each cause ends in one stderr line and exit
2, or in the answer the engine itself gives."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.bounds import HANG_S
from tests.hostile.harness import CGCONFIG, assert_one_line_exit_2, base_env, run_cli, run_many


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    return base_env(cache)


def _write(path: Path, text: str | bytes) -> str:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


SGLANG_LINE = ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
DECODE = "[2026-03-02 10:14:38 TP0] Decode batch, #running-req: {}, #token: 9, cuda graph: True\n"


def test_bad_inputs_are_one_line_exit_2(tmp_path: Path, env: dict[str, str]) -> None:
    d = tmp_path
    hist = _write(d / "h.json", json.dumps({"schema_version": 1, "phases": {"decode": {"8": 4}}}))
    log = _write(d / "s.log", DECODE.format(8))
    table = ("| Unpadded Tokens | Padded Tokens | Num Paddings | Runtime Mode | Count |\n"
             "|---|---|---|---|---|\n")
    plan = run_cli(["resolve", "-o", "json", *SGLANG_LINE], cwd=d, env=env).stdout
    negative = json.loads(plan)
    negative["capture"]["decode"]["sizes"] = [-4, 8]
    jobs: dict[str, list[str]] = {
        **{f"max-graph-memory-{v}": ["tune", "--histogram", hist, "--max-graph-memory", v,
                                     "--memory-log", log, *SGLANG_LINE]
           for v in ("\uff18", "\u0668", "1_0", "nan", "0")},
        **{f"max-waste-{v}": ["tune", "--histogram", hist, "--max-waste", v, *SGLANG_LINE]
           for v in ("\uff15", "\u0665", "1_0", "101")},
        "max-graphs-fullwidth": ["tune", "--histogram", hist, "--max-graphs", "\uff18",
                                 *SGLANG_LINE],
        "decode-log-interval-arabic": ["histogram", "--sglang-log", log,
                                       "--decode-log-interval", "\u0664\u0660"],
        "vllm-step-above-bound": ["histogram", "--vllm-log", _write(
            d / "big.log", table + "| 2000000 | 2000000 | 0 | FULL | 5 |\n")],
        "vllm-all-size-0": ["histogram", "--vllm-log", _write(
            d / "zero.log", table + "| 0 | 0 | 0 | NONE | 5 |\n")],
        "sglang-all-size-0": ["histogram", "--sglang-log", _write(d / "z.log", DECODE.format(0))],
        "diff-negative-sizes": ["diff", _write(d / "n.json", json.dumps(negative)),
                                _write(d / "n2.json", json.dumps(negative))],
        "deployment-lone-surrogate": ["resolve", "--deployment",
                                      _write(d / "s.json", '{"model_path": "\\ud800"}'),
                                      *SGLANG_LINE[:3]],
        "deployment-surrogate-key": ["resolve", "--deployment",
                                     _write(d / "k.json", '{"\\udfff": 1}'), *SGLANG_LINE],
        "yaml-hex-tp-size": ["resolve", "--deployment", _write(d / "x.yaml", "tp_size: 0x8\n"),
                             *SGLANG_LINE],
    }
    results = run_many({name: (args, env) for name, args in jobs.items()}, d)
    for name, result in results.items():
        assert_one_line_exit_2(result, name)
    assert "written in hex" in results["yaml-hex-tp-size"].stderr
    assert "not a cgconfig plan" in results["diff-negative-sizes"].stderr


def test_stdin_and_a_path_read_a_cr_only_log_alike(tmp_path: Path, env: dict[str, str]) -> None:
    data = (DECODE.format(18) + DECODE.format(3)).replace("\n", "\r").encode()
    path = _write(tmp_path / "cr.log", data)
    by_path = run_cli(["histogram", "--sglang-log", path], cwd=tmp_path, env=env)
    by_stdin = run_cli(["histogram", "--sglang-log", "-"], cwd=tmp_path, env=env, stdin=data)
    assert by_path.returncode == by_stdin.returncode == 0, by_stdin.stderr
    assert json.loads(by_path.stdout)["phases"] == json.loads(by_stdin.stdout)["phases"] == {
        "decode": {"3": 40, "18": 40}}


def test_histogram_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path,
                                                          env: dict[str, str]) -> None:
    log = _write(tmp_path / "s.log", DECODE.format(8))
    out = tmp_path / "h.json"
    for mode in (0o600, 0o640):
        out.write_text("{}")
        out.chmod(mode)
        done = run_cli(["histogram", "--sglang-log", log, "-o", str(out)], cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(out.stat().st_mode) == mode
        assert json.loads(out.read_text())["phases"] == {"decode": {"8": 40}}


def test_malformed_sglang_step_sizes_are_skipped_with_one_note(tmp_path: Path,
                                                               env: dict[str, str]) -> None:
    log = _write(tmp_path / "s.log", "".join(DECODE.format(v) for v in (
        "1_0", "1e309", "12.5", "\u0663", "7")))
    done = run_cli(["histogram", "--sglang-log", log], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["phases"] == {"decode": {"7": 40}}
    assert done.stderr_lines == [f"cgconfig: note: {log}: skipped 4 step lines whose "
                                 "#running-req or #new-token is not a whole number of ASCII "
                                 "digits"]


def test_a_leading_space_reads_as_sglangs_argparse_reads_it(tmp_path: Path,
                                                            env: dict[str, str]) -> None:
    """SGLang 0.5.23's argparse (``type=int, nargs='+'``) reads ``' 1' 2 4`` as [1, 2, 4]:
    ``int(' 1')`` is 1 (recorded from the oracle, ``sglang_oracle.py --cuda-graph-bs-decode
    ' 1' 2 4`` → decode bs [1, 2, 4]); cgconfig reads the same, never [1]."""
    done = run_cli(["resolve", "-o", "json", *SGLANG_LINE, "--cuda-graph-bs-decode", " 1", "2",
                    "4"], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["config"]["decode"]["bs"] == [1, 2, 4]


#: Every control character argv can hold, C1 controls, bidi overrides, separators, quotes.
AWKWARD = ("".join(chr(c) for c in [*range(1, 32), 127, *range(0x80, 0xA0)])
           + "\u202e\u2028\u2029\u2066 \u00e9\u4e2d '\"$`\\ \r")


@pytest.mark.parametrize("shell", ["sh", "bash", "dash"])
def test_emit_env_round_trips_every_control_character(tmp_path: Path, env: dict[str, str],
                                                      shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"no {shell}")
    argv = [*SGLANG_LINE[:3], "--model-path", "a\rb" + AWKWARD, "--served-model-name", AWKWARD]
    done = subprocess.run([*CGCONFIG, "resolve", *argv, "--emit", "env"], cwd=tmp_path,
                          env=env, capture_output=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    assert b"\r" not in done.stdout and b"\x1b" not in done.stdout  # nothing raw on a terminal
    (tmp_path / "env.sh").write_bytes(done.stdout)
    script = ('. ./env.sh; eval "set -- $CGCONFIG_SERVER_ARGS"; '
              'for a; do printf "%s\\0" "$a"; done')
    words = subprocess.run([shell, "-c", script], cwd=tmp_path, capture_output=True,
                           timeout=HANG_S, check=True).stdout.split(b"\0")[:-1]
    assert [os.fsdecode(w) for w in words] == argv[3:]
