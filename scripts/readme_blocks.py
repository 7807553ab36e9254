"""Run every ``console`` block of README.md and compare (or re-record) its output.

    python scripts/readme_blocks.py            # check: exit 1 and a diff when a block is stale
    python scripts/readme_blocks.py --write    # re-record every block's output from the program
    python scripts/readme_blocks.py --walk 80,120   # every block at these widths: lines too wide

A block is ``$ command`` lines (a trailing `` \\`` continues one on the next line), each
followed by what it prints, stdout and stderr together as a terminal shows them. The blocks of
one fence run in order in one ``bash``, from a scratch folder that links the repository's
files (so ``> plan.json`` writes nowhere in the checkout), with the environment the README
states: :data:`STATED` plus whatever the command line itself sets (``HF_HOME=...``).
``cgconfig`` is the one installed next to the Python running this script.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The environment every block runs in; README.md says so in words ("Paste your launch line").
STATED = {"COLUMNS": "100", "CGCONFIG_NO_GPU_PROBE": "1"}
#: Marks the end of one command's output in a block's combined output.
_MARK = "\x1ecgconfig-readme-step\x1e"
_FENCE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
#: Commands whose output is machine text (JSON, YAML, shell words): not wrapped to a width.
_MACHINE = re.compile(r"(-o|--output)[ =]?(json|yaml)|-o(json|yaml)|--emit|\bschema\b|"
                      r"\bcompletion\b|\becho\b")


@dataclass
class Step:
    """One ``$ command`` and the output the README shows for it."""

    command: str
    """The command as written after ``$ `` (continuation lines included)."""
    output: str


@dataclass
class Block:
    """One ``console`` fence: where its body is in the README, and its steps."""

    start: int
    end: int
    line: int
    steps: list[Step]


def parse(text: str) -> list[Block]:
    """Every ``console`` block of ``text``."""
    blocks = []
    for fence in _FENCE.finditer(text):
        steps: list[Step] = []
        lines = fence.group(1).splitlines(keepends=True)
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.startswith("$ "):
                if not steps:
                    raise ValueError(f"README.md:{text[:fence.start()].count(chr(10)) + 1}: "
                                     "a console block must start with `$ command`")
                steps[-1].output += line
                i += 1
                continue
            command = line[2:]
            while command.rstrip("\n").endswith("\\") and i + 1 < len(lines):
                i += 1
                command += lines[i]
            steps.append(Step(command.rstrip("\n"), ""))
            i += 1
        blocks.append(Block(fence.start(1), fence.end(1), text[:fence.start()].count("\n") + 1,
                            steps))
    return blocks


def _scratch(folder: Path) -> None:
    """Link the repository's top-level entries into ``folder``."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git",) and not entry.name.startswith(".venv"):
            (folder / entry.name).symlink_to(entry)


def environment(scratch: Path, columns: str) -> dict[str, str]:
    """The stated environment: this machine's, less engine variables and the user's Hugging
    Face cache, plus :data:`STATED`, with this Python's ``cgconfig`` first on ``PATH``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SGLANG_", "VLLM_", "CGCONFIG_", "HF_", "TRTLLM_"))
           and k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    env.update(STATED, COLUMNS=columns, PYTHONUNBUFFERED="1",
               HF_HOME=str(scratch / "no_hf_cache"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    return env


def run(block: Block, columns: str = STATED["COLUMNS"]) -> list[str]:
    """The real output of each of ``block``'s commands."""
    with tempfile.TemporaryDirectory(prefix="readme-") as tmp:
        scratch = Path(tmp)
        _scratch(scratch)
        script = "".join(f"{step.command}\n__rc=$?; printf '\\n{_MARK}\\n'; (exit $__rc)\n"
                         for step in block.steps)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=scratch,
                              env=environment(scratch, columns), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
        text = done.stdout
        for prefix in (f"{scratch.resolve()}/", f"{scratch}/", f"{ROOT}/"):
            text = text.replace(prefix, "")
    parts = text.split(f"\n{_MARK}\n")[:len(block.steps)]
    return [part if not part or part.endswith("\n") else part + "\n" for part in parts]


def body(block: Block, outputs: list[str]) -> str:
    """A block's body with ``outputs`` as its commands' output."""
    return "".join(f"$ {step.command}\n{out}" for step, out in zip(block.steps, outputs,
                                                                     strict=True))


def check(text: str) -> list[str]:
    """A unified diff per stale block (empty when every block is current)."""
    problems = []
    for block in parse(text):
        shown = body(block, [s.output for s in block.steps])
        real = body(block, run(block))
        if shown != real:
            problems.append("".join(difflib.unified_diff(
                shown.splitlines(keepends=True), real.splitlines(keepends=True),
                f"README.md:{block.line} (shown)", "real output")))
    return problems


def write(text: str) -> str:
    """``text`` with every block's output re-recorded."""
    out, last = [], 0
    for block in parse(text):
        out += [text[last:block.start], body(block, run(block))]
        last = block.end
    return "".join(out) + text[last:]


def walk(text: str, widths: list[int]) -> tuple[list[str], int]:
    """Per width: how many output lines the blocks print, and every line wider than it
    (machine output such as ``-o json`` or ``--emit`` is not laid out to a width).
    Returns the report and the number of lines over the width."""
    report, total = [], 0
    for columns in widths:
        lines = machine = longest = errors = trailing = 0
        wide: list[str] = []
        for block in parse(text):
            for step, out in zip(block.steps, run(block, str(columns)), strict=True):
                if _MACHINE.search(step.command):
                    machine += out.count("\n")
                    continue
                for line in out.splitlines():
                    if line.startswith("cgconfig: error: "):
                        errors += 1  # one line by contract, whatever the width
                        continue
                    lines += 1
                    trailing += line != line.rstrip()
                    longest = max(longest, len(line))
                    if len(line) > columns:
                        wide.append(f"  README.md:{block.line} `{step.command[:50]}`: "
                                    f"{len(line)} columns: {line[:60]}…")
        report.append(f"COLUMNS={columns}: {lines} lines of table and prose output, longest "
                      f"{longest}, {len(wide)} over the width, {trailing} with trailing spaces; "
                      "not laid out to a width: "
                      f"{machine} lines of machine output (JSON, YAML, --emit, echo) and "
                      f"{errors} error lines (one line each by contract)")
        report += wide
        total += len(wide) + trailing
    return report, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="re-record every block's output")
    parser.add_argument("--walk", metavar="W,W", help="run every block at these widths")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    if args.write:
        README.write_text(write(text), encoding="utf-8")
        print(f"README.md: {len(parse(text))} console blocks re-recorded")
        return 0
    if args.walk:
        report, over = walk(text, [int(w) for w in args.walk.split(",")])
        print("\n".join(report))
        return 1 if over else 0
    problems = check(text)
    for problem in problems:
        sys.stdout.write(problem)
    blocks = parse(text)
    print(f"README.md: {len(blocks)} console blocks, {sum(len(b.steps) for b in blocks)} "
          f"commands, {len(problems)} stale")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
