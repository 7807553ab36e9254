"""Hostile deployment files: each bounded before its cost grows, exit 2 with one line."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest

from cgconfig.cli.main import main
from cgconfig.errors import InputError
from cgconfig.files.launch import find_launches

BOMB = "a: &a ['x','x','x','x','x','x','x','x','x']\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
    f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
    f"*{chr(97 + i)}]\n" for i in range(8)) + "services: {s: {command: [*i]}}\n"


def _run(tmp_path: Path, name: str, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / name
    path.write_text(text)
    assert main(["resolve", "--from", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cgconfig: error: ")
    return err


@pytest.mark.parametrize("name, text, message", [
    ("bomb.yaml", BOMB, "YAML aliases count each time"),
    ("many.sh", "a;" * 100_000 + "\n", "more than 10000 statements"),
    ("docs.yaml", "kind: Service\n---\n" * 10_000, "more than 1000 YAML documents"),
    ("quote.sh", "vllm serve 'M --tp 2\n", "unbalanced single quote"),
    ("job.yaml", "kind: Job\nspec: {template: {spec: {containers: [{command: python3}]}}}\n",
     "command must be a list of strings"),
    ("none.yaml", "kind: Service\nmetadata: {name: x}\n", "no engine launch found"),
    ("deep.sh", "x $((" + "(" * 70 + "1" + ")" * 70 + "))\n", "nested too deeply"),
])
def test_hostile_files_are_one_line_and_exit_2(tmp_path: Path, name: str, text: str,
                                               message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert message in _run(tmp_path, name, text, capsys)


def test_statement_bound_is_reached_before_the_work_grows() -> None:
    """The 10^5-statement script stops at the bound: its cost is that of 10^4 statements,
    not ten times it (CPU time, not wall-clock)."""
    def once(text: str) -> float:
        gc.collect()  # a long suite's garbage is not this call's work
        gc.disable()
        try:
            start = time.process_time()
            with pytest.raises(InputError):
                find_launches("x.sh", text)
            return time.process_time() - start
        finally:
            gc.enable()

    def cost(text: str) -> float:
        return min(once(text) for _ in range(3))

    small, large = cost("a;" * 10_001 + "'"), cost("a;" * 100_000 + "'")
    assert large < 3 * small + 0.05


def test_a_quoted_megabyte_word_is_read_in_linear_time() -> None:
    words = 'vllm serve M --served-model-name "' + 'x' * 1_000_000 + '"\n'
    start = time.process_time()
    (launch,) = find_launches("x.sh", words)
    assert len(launch.argv[-1]) == 1_000_000
    assert time.process_time() - start < 1
