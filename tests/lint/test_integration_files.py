"""The repository's integration files, run as their hosts run them: the pre-commit hook's
entry on the staged files of a scratch git repository, and the GitHub Action's check step as
its runner would (bash, the step's environment, ``$GITHUB_OUTPUT``).

pre-commit itself is not run: it would build the hook's environment by installing this
repository from a package index. The test instead calls the hook's ``entry`` with the staged
files its ``types_or`` selects, as pre-commit passes them (``entry`` + ``args`` + file names).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).parents[2]
SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
BIN = Path(sys.executable).parent
#: identify's tags for the file names the hook's ``types_or`` selects.
TAG_OF_SUFFIX = {".sh": "shell", ".bash": "shell", ".yaml": "yaml", ".yml": "yaml",
                 ".md": "markdown", ".rst": "rst"}
#: The repository's configuration pins SGLang, so a refused flag is an error (CG002).
PIN = 'engine-versions = {sglang = "0.5.23"}\n'
BAD = "python3 -m sglang.launch_server --model-path m --cuda-graph-max-bs 64\n"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("CGCONFIG_ENGINE_VERSION", None)
    return env


def _scratch_repo(path: Path, files: dict[str, str]) -> list[str]:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    subprocess.run([git, "init", "-q", str(path)], check=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    subprocess.run([git, "-C", str(path), "add", "-A"], check=True)
    staged = subprocess.run([git, "-C", str(path), "diff", "--cached", "--name-only"],
                            check=True, capture_output=True, text=True).stdout.split()
    return sorted(staged)


def test_pre_commit_hook_runs_on_staged_launch_files(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "cgconfig-check" and hook["language"] == "python"
    staged = _scratch_repo(tmp_path, {"serve.sh": BAD, "notes.py": BAD, ".cgconfig.toml": PIN,
                                      "docs/run.md": "```bash\n" + BAD + "```\n",
                                      "ok.yaml": "a: 1\n"})
    selected = [f for f in staged if TAG_OF_SUFFIX.get(Path(f).suffix) in hook["types_or"]]
    assert selected == ["docs/run.md", "ok.yaml", "serve.sh"]
    command = [*shlex.split(hook["entry"]), *hook.get("args", []), *selected]
    done = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr  # pre-commit fails the commit on exit 1
    assert "serve.sh" in done.stdout and "docs/run.md" in done.stdout
    assert "2 findings (2 errors) in 3 files" in done.stdout
    (tmp_path / "serve.sh").write_text(BAD.replace("max-bs 64", "max-bs-decode 64"))
    (tmp_path / "docs/run.md").write_text("no launch\n")
    done = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout


def _check_step() -> dict[str, object]:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    step: dict[str, object] = next(s for s in steps if s.get("id") == "check")
    return {"step": step, "inputs": action["inputs"]}


def _run_step(tmp_path: Path, fail_on: str) -> tuple[subprocess.CompletedProcess[str], str]:
    found = _check_step()
    step, inputs = found["step"], found["inputs"]
    assert isinstance(step, dict) and isinstance(inputs, dict)
    output = tmp_path / "github_output"
    output.write_text("")
    env = _env()
    env.update({"CGCONFIG_PATHS": inputs["paths"]["default"], "CGCONFIG_FAIL_ON": fail_on,
                "CGCONFIG_ARGS": inputs["args"]["default"],
                "CGCONFIG_SARIF": inputs["sarif-file"]["default"],
                "GITHUB_OUTPUT": str(output)})
    done = subprocess.run(["bash", "-e", "-c", str(step["run"])], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    return done, output.read_text()


def test_action_check_step_writes_annotations_and_valid_sarif(tmp_path: Path) -> None:
    _scratch_repo(tmp_path, {".cgconfig.toml": PIN, "bench/run.sh": BAD,
                             "serve.sh": "vllm serve m --max-num-seqs 1024\n"})
    done, outputs = _run_step(tmp_path, "error")
    assert done.returncode == 0, done.stderr  # the step records the code; a later step fails
    assert "exit-code=1" in outputs
    assert "::error file=bench/run.sh,line=1,title=CG002 refused-flag::" in done.stdout
    assert "::warning file=serve.sh,line=1,title=CG001 eager-requests::" in done.stdout
    sarif = json.loads((tmp_path / "cgconfig.sarif").read_text())
    jsonschema.validate(sarif, json.loads(SCHEMA.read_text()))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["CG002", "CG001"]
    done, outputs = _run_step(tmp_path, "never")
    assert "exit-code=0" in outputs


def test_action_stops_on_bad_input(tmp_path: Path) -> None:
    _scratch_repo(tmp_path, {"run.sh": BAD})
    found = _check_step()
    step = found["step"]
    assert isinstance(step, dict)
    env = _env()
    env.update({"CGCONFIG_PATHS": "nothere", "CGCONFIG_FAIL_ON": "error", "CGCONFIG_ARGS": "",
                "CGCONFIG_SARIF": "out.sarif", "GITHUB_OUTPUT": str(tmp_path / "o")})
    done = subprocess.run(["bash", "-e", "-c", str(step["run"])], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "no such file or folder: nothere" in done.stderr
