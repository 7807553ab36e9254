"""Rule sources and code comments cite the engines' own files and functions with a version,
never documents users do not have (research notes, the product spec)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from cgconfig.line.versions import SUPPORTED
from cgconfig.rules.loader import load_rule_set

ROOT = Path(__file__).resolve().parents[2]
#: An upstream citation: engine and version, then a file path, then (usually) a function.
#: The versions are the supported ones (cgconfig/line/versions.py).
_SGLANG = "|".join(re.escape(v) for v in SUPPORTED["sglang"])
_VLLM = "|".join(re.escape(v) for v in SUPPORTED["vllm"])
#: ``{engine.label}``: the release the line is answered for, rendered when the rule fires.
UPSTREAM = re.compile(rf"(SGLang ({_SGLANG}|main[^,]*,?)|vLLM ({_VLLM})|TensorRT-LLM|"
                      r"\{engine\.label\}) .*?[\w/]+\.py")
#: Citations of documents that are not in the repository.
OUTSIDE = re.compile(r"research|SPEC\b|SPEC's|§|(?<![\w-])R\d{1,2}[a-z]?\b|\(A\d{1,2}\)")


@pytest.mark.parametrize("rule", load_rule_set().rules, ids=lambda r: r.id)
def test_every_shipped_rule_cites_upstream_code(rule) -> None:
    assert UPSTREAM.search(rule.source or ""), rule.source
    assert not OUTSIDE.search(rule.source or ""), rule.source


def test_every_capability_cites_upstream_code() -> None:
    from cgconfig.rules.cache import capability_files

    assert capability_files()
    for path in capability_files().values():
        data = yaml.safe_load(path.read_text())
        for name, entry in data["backends"].items():
            assert UPSTREAM.search(entry["source"]), name
            assert not OUTSIDE.search(entry["source"]), name


def _shipped_text_files() -> list[Path]:
    files: list[Path] = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder, patterns in (("cgconfig", ("*.py", "*.yaml")), ("cli", ("*.py",)), ("rules", ("*.py",)),
                             ("runtime", ("*.py",)), ("examples", ("*.py", "*.sh", "*.yaml")),
                             ("docs", ("*.md",)), ("tests", ("*.py",)), ("benchmarks", ("*.py",))):
        for pattern in patterns:
            files += sorted((ROOT / folder).rglob(pattern))
    return [f for f in files if f.name != Path(__file__).name]


def test_no_file_cites_documents_outside_the_repository() -> None:
    offenders = []
    for path in _shipped_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            # docs/rules.md numbers its own sections ("see §5"); a site's own runbook is fine.
            if path.name == "rules.md" and re.search(r"\(see §\d\)|\(§\d\)", line):
                continue
            if "ops runbook" in line:
                continue
            if OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
