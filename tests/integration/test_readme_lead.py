"""The README's lead examples (real SGLang, AMD and ``vllm serve`` lines) print what it shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEAD = re.search(r"<!-- lead:begin.*?-->(.*?)<!-- lead:end -->",
                 (ROOT / "README.md").read_text(), re.S)
BLOCKS = re.findall(r"```console\n\$ (.*?)\n(.*?)```", LEAD.group(1) if LEAD else "", re.S)


def test_the_readme_leads_with_three_real_lines() -> None:
    commands = [command for command, _ in BLOCKS]
    assert len(commands) == 3
    assert "sglang.launch_server --model-path deepseek-ai/DeepSeek-V3" in commands[0]
    assert "--attention-backend aiter" in commands[1]
    assert " vllm serve " in commands[2]


@pytest.mark.parametrize(("command", "shown"), BLOCKS, ids=[f"lead-{i}" for i in range(len(BLOCKS))])
def test_a_lead_example_prints_what_the_readme_shows(command: str, shown: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "VLLM_"))}
    env.update(HF_HOME=str(ROOT / "tests" / "data" / "hf_cache"), COLUMNS="100",
               CGCONFIG_NO_GPU_PROBE="1")
    words = shlex.split(command)
    assert words[0] == "cgconfig"
    done = subprocess.run([sys.executable, "-m", "cgconfig.cli", *words[1:]], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0
    # The cache path is printed as given; the README shows it relative to the repository.
    assert done.stdout.replace(f"{ROOT}/", "") == shown
