"""Issue #23, hostile input round two: each cause as a subprocess under the harness's limits.

Every bad input ends in one stderr line and exit 2 (never a traceback, a hang or a misread);
inputs that are fine end in exit 0 with nothing raw from the input on the terminal.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.bounds import HANG_S
from tests.hostile.harness import Result, assert_one_line_exit_2, base_env, run_cli, run_many

ESC = "\x1b"


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    return base_env(cache)


def _write(path: Path, text: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def _model(tmp_path: Path, name: str, config: str) -> str:
    _write(tmp_path / name / "config.json", config)
    return str(tmp_path / name)


def _pack(n_rules: int, examples: int = 2) -> str:
    rows = []
    for i in range(n_rules):
        ex = "".join("      - {args: [--tp-size, '2'], fires: true}\n" if k == 0 else
                     "      - {args: [], fires: false}\n" for k in range(examples))
        rows.append(f"  - id: h.r{i}\n    title: t\n    kind: constraint\n"
                    f"    when: {{ge: {{path: facts.tp_size, value: 2}}}}\n"
                    f"    then: [{{clamp: {{key: decode.max_bs, max: {100 + i}}}}}]\n"
                    f"    reason: r\n    source: s\n    examples:\n{ex}")
    return "pack: hostile\ntitle: t\nrules:\n" + "".join(rows)


def test_bad_inputs_are_one_line_exit_2(tmp_path: Path, env: dict[str, str]) -> None:
    d = tmp_path
    hist = _write(d / "h.json", json.dumps({"schema_version": 1, "phases": {"decode": {"8": 4}}}))
    log = _write(d / "s.log", "[2026-01-01 00:00:00] Decode batch. #running-req: 8, #token: 9\n")
    fifo = d / "fifo"
    os.mkfifo(fifo)
    jobs: dict[str, list[str]] = {
        "histogram-o-char-device": ["histogram", "--sglang-log", log, "-o", "/dev/null"],
        "histogram-o-fifo": ["histogram", "--sglang-log", log, "-o", str(fifo)],
        "histogram-o-dir": ["histogram", "--sglang-log", log, "-o", str(d)],
        "histogram-o-empty": ["histogram", "--sglang-log", log, "-o", ""],
        "gpu-memory-0": ["resolve", "--gpu-memory-gib", "0"],
        "gpu-memory-1e-400": ["resolve", "--gpu-memory-gib", "1e-400"],
        "yaml-empty-int-tag": ["resolve", "--deployment", _write(d / "t.yaml", "tp_size: !!int\n")],
        "yaml-empty-bool-tag": ["resolve", "--cuda-graph-config",
                                _write(d / "b.yaml", "decode: {enable_padding: !!bool}\n")],
        "yaml-empty-timestamp": ["resolve", "--deployment",
                                 _write(d / "ts.yaml", "tp_size: !!timestamp\n")],
        "yaml-1.1-octal": ["resolve", "--deployment", _write(d / "o.yaml", "tp_size: 010\n")],
        "yaml-1.1-underscore": ["resolve", "--deployment", _write(d / "u.yaml", "tp_size: 1_0\n")],
        "yaml-1.1-sexagesimal": ["resolve", "--deployment", _write(d / "s.yaml", "tp_size: 1:00\n")],
        "yaml-1.1-float-underscore": ["resolve", "--deployment",
                                      _write(d / "g.yaml", "gpu_memory_gib: 8_0\n")],
        "config-context-overflow": ["resolve", "--model-path", _model(
            d, "m1", '{"architectures": ["LlamaForCausalLM"], "max_position_embeddings": 1e300,'
                     ' "rope_scaling": {"factor": 1e10, "rope_type": "yarn"}}')],
        "stdin-dev-zero": ["diff", hist, "-"],
        "explain-engine-on-vllm": ["explain", "engine.mem_fraction_static", "vllm", "serve", "m"],
        "explain-engine-on-trtllm": ["explain", "engine.attention_backend", "trtllm-serve", "m"],
        "chec-prefix": ["resolve", "--chec"],
        "stri-prefix": ["resolve", "--stri"],
        "sho-prefix": ["resolve", "--sho"],
        "disable-r-prefix": ["resolve", "--disable-r"],
        "two-deployments": ["resolve", "--deployment", _write(d / "d1.yaml", "tp_size: 2\n"),
                            "--deployment", _write(d / "d2.yaml", "pp_size: 2\n")],
        "dialect-empty": ["resolve", "--dialect="],
        "python-100000": ["resolve", *["python"] * 100_000],
        "entry-search-20000": ["resolve", *["-/python"] * 20_000, "python"],
        "entry-search-python-X": ["resolve", *["python3", "-X"] * 10_000],
        "tune-on-vllm-line": ["tune", "--histogram", hist, "vllm", "serve", "m"],
        "validate-300-clamps": ["rules", "validate", _write(d / "p300.yaml", _pack(300))],
        "validate-17-examples": ["rules", "validate", _write(d / "p17.yaml", _pack(1, 17))],
    }
    envs = {name: env for name in jobs}
    zero = subprocess.run(["head", "-c", str(3 << 20), "/dev/zero"], capture_output=True,
                          check=True).stdout
    results = run_many({n: (a, envs[n]) for n, a in jobs.items() if n != "stdin-dev-zero"}, d)
    results["stdin-dev-zero"] = run_cli(jobs["stdin-dev-zero"], cwd=d, env=env, stdin=zero)
    for name, result in results.items():
        assert_one_line_exit_2(result, name)
    for name in ("chec-prefix", "stri-prefix", "sho-prefix"):
        assert "cgconfig has" in results[name].stderr and "SGLang" in results[name].stderr
    assert "null exists and is not a regular file" in results["histogram-o-char-device"].stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not [p for p in d.iterdir() if p.name.endswith(".tmp")]  # nothing left behind


def test_stdin_closed_or_not_utf8(tmp_path: Path, env: dict[str, str]) -> None:
    plan = run_cli(["resolve", "-o", "json"], cwd=tmp_path, env=env)
    side = _write(tmp_path / "a.json", plan.stdout)
    assert_one_line_exit_2(run_cli(["diff", side, "-"], cwd=tmp_path, env=env,
                                   stdin=b"\xff"), "stdin 0xff")
    code = ("import os, sys; os.close(0); sys.stdin = None\n"
            "from cgconfig.cli.main import console_main; console_main()\n")
    done = subprocess.run([*base_cmd(), "-c", code, "diff", side, "-"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 2 and done.stderr.strip() == \
        "cgconfig: error: stdin: standard input is closed", done.stderr


def base_cmd() -> list[str]:
    import sys

    return [sys.executable]


def test_diff_refuses_sizes_that_are_not_integers(tmp_path: Path, env: dict[str, str]) -> None:
    plan = json.loads(run_cli(["resolve", "-o", "json"], cwd=tmp_path, env=env).stdout)
    jobs = {}
    for name, sizes in (("strings", ["1", "2"]), ("bools", [True, False])):
        plan["capture"]["decode"]["sizes"] = sizes
        jobs[name] = (["diff", _write(tmp_path / f"{name}.json", json.dumps(plan)),
                       _write(tmp_path / f"{name}.json", json.dumps(plan))], env)
    for name, result in run_many(jobs, tmp_path).items():
        assert_one_line_exit_2(result, name)


def _clean(result: Result, name: str) -> None:
    assert not result.timed_out and "Traceback" not in result.stderr, (name, result.stderr)
    assert result.returncode == 0, (name, result.stderr[-500:])
    assert ESC not in result.stdout.decode("utf-8", "replace") and ESC not in result.stderr, name


def test_terminal_controls_from_inputs_are_escaped(tmp_path: Path, env: dict[str, str]) -> None:
    d = tmp_path
    arch = _model(d, "m", json.dumps({"architectures": ["\x1b[2JEvil\u202e"]}))
    lone = _model(d, "lone", '{"architectures": ["\\ud800"], "hidden_size": 8}')
    pack = _write(d / "p.yaml", (
        'pack: evil\ntitle: "pack \\e[2J"\nrules:\n  - id: evil.r\n    title: "t \\e[31m"\n'
        "    kind: policy\n    when: {eq: {path: facts.tp_size, value: 1}}\n"
        '    then: [{warn: true}]\n    reason: "reason \\e]52;c;SGVsbG8=\\a"\n'
        '    hint: "hint \\x9b31m"\n    source: s\n    examples:\n'
        "      - {args: [], fires: true}\n      - {args: [--tp-size, '2'], fires: false}\n"))
    dep = _write(d / "dep.json", json.dumps({"model_arch": "\x1b[2Jarch"}))
    jobs = {
        "config-arch": ["resolve", "--model-path", arch],
        "config-arch-json": ["resolve", "--model-path", arch, "-o", "json"],
        "lone-surrogate": ["resolve", "--model-path", lone],
        "lone-surrogate-json": ["resolve", "--model-path", lone, "-o", "json"],
        "override-surrogate": ["resolve", "--json-model-override-args",
                               '{"architectures": ["\\ud800"]}'],
        "deployment-arch": ["resolve", "--deployment", dep],
        "pack-warning": ["resolve", "--rules", pack],
        "rules-list": ["rules", "list", "--rules", pack],
        "explain-all": ["explain", "--all", "--model-path", arch],
    }
    results = run_many({n: (a, env) for n, a in jobs.items()}, d)
    for name, result in results.items():
        if name == "deployment-arch":  # a typed architecture no engine knows is refused (#35)
            assert_one_line_exit_2(result, name)
            assert ESC not in result.stderr, name
            continue
        _clean(result, name)
    assert "\\x1b[2JEvil\\u202e" in results["config-arch"].stdout.decode()
    json.loads(results["lone-surrogate-json"].stdout)  # still JSON, the surrogate as \ud800
    refusal = _write(d / "r.yaml", (d / "p.yaml").read_text().replace("{warn: true}",
                                                                      "{refuse: true}"))
    refused = run_cli(["resolve", "--rules", refusal], cwd=d, env=env)
    assert_one_line_exit_2(refused, "refusal")
    assert ESC not in refused.stderr and "\x9b" not in refused.stderr


def test_diff_warnings_from_a_plan_file_are_escaped(tmp_path: Path, env: dict[str, str]) -> None:
    plan = json.loads(run_cli(["resolve", "-o", "json"], cwd=tmp_path, env=env).stdout)
    a = _write(tmp_path / "a.json", json.dumps(plan))
    plan["warnings"] = ["\x1b[2Jwiped"]
    b = _write(tmp_path / "b.json", json.dumps(plan))
    result = run_cli(["diff", a, b], cwd=tmp_path, env={**env, "FORCE_COLOR": "1",
                                                         "NO_COLOR": ""})
    assert result.returncode == 1, result.stderr
    assert "\x1b[2J" not in result.stdout.decode() and "\\x1b[2Jwiped" in result.stdout.decode()


def test_lines_that_now_resolve(tmp_path: Path, env: dict[str, str]) -> None:
    jobs = {
        "python-X-dev": ["resolve", "python3", "-X", "dev", "-m", "sglang.launch_server"],
        "python-W-ignore": ["resolve", "python3", "-W", "ignore", "-m", "sglang.launch_server"],
        "resolve-ojson": ["resolve", "-ojson"],
        "explain-capture-sizes": ["explain", "capture.decode.sizes"],
        "nosuchuser-model": ["resolve", "--model-path", "~nosuchuser/m"],
    }
    results = run_many({n: (a, env) for n, a in jobs.items()}, tmp_path)
    results["nosuchuser-hf-home"] = run_cli(["resolve", "--model-path", "org/m"], cwd=tmp_path,
                                            env={**env, "HF_HOME": "~nosuchuser/hf"})
    for name, result in results.items():
        assert not result.timed_out and "Traceback" not in result.stderr, (name, result.stderr)
        assert result.returncode == 0, (name, result.stderr)
    json.loads(results["resolve-ojson"].stdout)
    assert b"capture.decode.sizes" in results["explain-capture-sizes"].stdout


def test_a_cache_dir_warning_is_one_line(tmp_path: Path) -> None:
    shared = tmp_path / "two\nlines"
    shared.mkdir()
    shared.chmod(0o777)
    env = {**base_env(shared), "CGCONFIG_NO_CACHE": ""}
    result = run_cli(["resolve", "-o", "json"], cwd=tmp_path, env=env)
    assert result.returncode == 0
    assert len(result.stderr_lines) == 1 and "two\\nlines" in result.stderr
