"""Every ``console`` block of README.md prints what it shows, and the set-up commands are
the ones CI runs (``scripts/readme_blocks.py --write`` re-records the blocks)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_FOUND = importlib.util.spec_from_file_location("readme_blocks", ROOT / "scripts" / "readme_blocks.py")
assert _FOUND is not None and _FOUND.loader is not None
readme_blocks = importlib.util.module_from_spec(_FOUND)
sys.modules["readme_blocks"] = readme_blocks  # dataclasses look their module up
_FOUND.loader.exec_module(readme_blocks)

TEXT = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = readme_blocks.parse(TEXT)

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the blocks run in bash")


def test_the_readme_has_console_blocks_and_states_their_environment() -> None:
    assert len(BLOCKS) >= 20
    stated = " ".join(f"{k}={v}" for k, v in readme_blocks.STATED.items())
    visible = re.sub(r"<!--.*?-->", "", TEXT, flags=re.S)
    assert f"`{stated}`" in visible, "README.md must say in words what the blocks run with"
    for block in BLOCKS:
        for step in block.steps:
            if "deepseek-ai/DeepSeek-V3" in step.command and "unknown" not in step.output:
                assert "HF_HOME=tests/data/hf_cache" in step.command


def test_the_readme_leads_with_three_real_lines() -> None:
    lead = TEXT.split("<!-- lead:begin -->", 1)[1].split("<!-- lead:end -->", 1)[0]
    commands = [s.command for b in readme_blocks.parse(lead) for s in b.steps]
    assert len(commands) == 3
    assert "sglang.launch_server --model-path deepseek-ai/DeepSeek-V3" in commands[0]
    assert "--attention-backend aiter" in commands[1]
    assert " vllm serve " in commands[2]


@pytest.mark.parametrize("block", BLOCKS, ids=[f"README.md:{b.line}" for b in BLOCKS])
def test_a_console_block_prints_what_the_readme_shows(block: object) -> None:
    shown = readme_blocks.body(block, [s.output for s in block.steps])
    real = readme_blocks.body(block, readme_blocks.run(block))
    assert shown == real, "stale README block: run `python scripts/readme_blocks.py --write`"


def test_a_stale_block_is_caught() -> None:
    block = readme_blocks.parse("```console\n$ cgconfig version\ncgconfig 0.0.0-stale\n```\n")[0]
    assert readme_blocks.run(block) != [block.steps[0].output]


def _setup_lines() -> list[str]:
    section = TEXT.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", section, re.S)


def test_each_setup_command_makes_its_own_environment() -> None:
    lines = _setup_lines()
    assert len(lines) == 2
    folders = [re.match(r"python3 -m venv (\S+) && \. (\S+)/bin/activate &&", line) for line in lines]
    assert all(folders), lines
    assert [f.group(1) for f in folders if f] == [f.group(2) for f in folders if f]
    assert len({f.group(1) for f in folders if f}) == 2, "both lines would share one venv"
    ignored = (ROOT / ".gitignore").read_text().split()
    assert all(f"{f.group(1)}/" in ignored for f in folders if f)


def test_ci_runs_the_readme_test_command() -> None:
    """``.ci/run`` installs what the README's test line installs and runs its test command."""
    test_line = _setup_lines()[1]
    steps = [shlex.split(part.strip()) for part in test_line.split("&&")][2:]
    ci = [shlex.split(line) for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    for words in steps:
        expected = ["python", "-m", "pip", "install", "-q", *words[2:]] if words[0] == "pip" \
            else words
        assert expected in ci, f".ci/run does not run {' '.join(words)!r}"
    assert steps[-1] == ["python", "-m", "pytest"]
