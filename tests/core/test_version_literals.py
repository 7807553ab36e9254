"""An engine version is a value: code names a supported release only through the versions table.

Every string literal in the code (``cgconfig/``, ``rules/``, ``cli/``, ``runtime/``) that is not
a docstring is scanned for the releases of ``line.versions.SUPPORTED``. A release may be
written only in ``cgconfig/line/versions.py`` (the one place that names them), in the flag
tables beside it (JSON, not scanned), and as a bare release number in a module-level table
constant (``CHANGES``, ``OLDER_LEVELS``: the first or last release a behaviour holds in). A
message, rule reason, citation or example that embeds a release in its text takes it from the
table (``release_label``, ``newest``, ``oldest``), so a new release cannot leave it stale.
Docstrings and comments keep their citations (``SGLang 0.5.23 memory_hook.py:...``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from cgconfig.line.versions import SUPPORTED

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("cgconfig", "rules", "cli", "runtime")
REGISTRY = Path("cgconfig/line/versions.py")
_RELEASE = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(v) for vs in SUPPORTED.values() for v in vs)
    + r")(?![\w]|\.\d)")
_TABLE_NAME = re.compile(r"_?[A-Z][A-Z0-9_]*")


def _docstrings(tree: ast.AST) -> set[int]:
    """Ids of the string constants that stand alone as a statement: docstrings, and the
    attribute docstrings under a field or constant."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def _table_values(tree: ast.Module) -> set[int]:
    """Ids of the string constants inside a module-level assignment to an upper-case name."""
    found: set[int] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        if all(isinstance(t, ast.Name) and _TABLE_NAME.fullmatch(t.id) for t in targets):
            found |= {id(node) for node in ast.walk(value)}
    return found


def release_literals(source: str, where: str) -> list[str]:
    """``where:line: 'text'`` for each string literal of ``source`` that names a supported
    release where it may not."""
    tree = ast.parse(source)
    skipped = _docstrings(tree)
    tables = _table_values(tree)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) \
                or id(node) in skipped:
            continue
        found = _RELEASE.search(node.value)
        if found is None:
            continue
        if id(node) in tables and node.value.strip() == found.group(1):
            continue  # a release number as a table's value: when a behaviour begins or ends
        out.append(f"{where}:{node.lineno}: {node.value[:90]!r}")
    return out


def _files() -> list[Path]:
    files = sorted(path for root in SCANNED for path in (ROOT / root).rglob("*.py"))
    return [f for f in files if f.relative_to(ROOT) != REGISTRY]


def test_code_names_releases_only_through_the_versions_table() -> None:
    files = _files()
    assert len(files) > 100, "the scan found too few modules: were the folders moved?"
    found = [line for path in files
             for line in release_literals(path.read_text(), str(path.relative_to(ROOT)))]
    assert not found, ("a supported engine release written into a string literal; take it "
                       "from cgconfig.line.versions (release_label, newest, oldest):\n"
                       + "\n".join(found))


def test_every_supported_release_is_looked_for() -> None:
    for engine, versions in SUPPORTED.items():
        for version in versions:
            assert release_literals(f"x = f'{engine} {version} refuses {{flag}}'\n", "t.py"), \
                version


def test_the_scan_tells_messages_from_docstrings_comments_and_tables() -> None:
    source = '''
"""Ported from SGLang 0.5.23 memory_hook.py."""
#: SGLang 0.5.23 memory_hook.py: a comment.
CHANGES = {"mla": ("0.5.23", "memory_hook.py")}
LIMIT = 2048
"""An attribute docstring citing vLLM 0.33.0."""


def f(version):
    """SGLang 0.5.23's check."""
    if version == "0.5.23":
        return "SGLang " "0.5.23 refuses it"
    return f"(vLLM 0.33.0 PassConfig) {version}"


HINT = "write sglang==0.5.20"
'''
    found = release_literals(source, "planted.py")
    assert sorted(int(line.split(":")[1]) for line in found) == [11, 12, 13, 16], found
    assert release_literals("x = 'SGLang 0.5.230 or 10.5.23'\n", "t.py") == []
