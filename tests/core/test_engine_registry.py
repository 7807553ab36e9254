"""Every list of engines is derived from ``cgconfig/line/registry.py``: no core module writes
two engine names side by side in a tuple, list, set or dict (an engine's own package, the
registry and the keys' per-engine declarations in ``fields/config.py`` may)."""

from __future__ import annotations

import ast
from pathlib import Path

from cgconfig.line import registry

ROOT = Path(__file__).resolve().parents[2]
#: Where engine names may stand together: the registry and the engines' own packages; the
#: keys' declarations name each engine's spelling of a key; the help text of the command line
#: (the application) has a section per engine.
ALLOWED = ("cgconfig/line/registry.py", "cgconfig/engines/", "cgconfig/fields/config.py",
           "cli/help.py")


def _lists_of_engines(path: Path) -> list[str]:
    names = set(registry.names())
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        items: list[ast.expr | None] = []
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
        if len(named) >= 2:
            found.append(f"{path.name}:{getattr(node, 'lineno', 0)} {sorted(named)}")
    return found


def test_no_core_module_lists_the_engines() -> None:
    offenders = [hit for folder in ("cgconfig", "rules", "cli", "runtime")
                 for path in sorted((ROOT / folder).rglob("*.py"))
                 if not str(path.relative_to(ROOT)).startswith(ALLOWED)
                 for hit in _lists_of_engines(path)]  # file:line names
    assert offenders == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('ENGINES = ("sglang", "vllm")\nONE = {"vllm": 1}\n')
    assert [hit.split(" ", 1)[1] for hit in _lists_of_engines(probe)] == ["['sglang', 'vllm']"]


def test_one_host_and_every_engine_ships_a_table() -> None:
    assert [row.name for row in registry.ROWS if row.host] == [registry.host()]
    for name in registry.names():
        assert registry.table_files(name), name


def test_releases_are_the_tables_each_engine_ships() -> None:
    from cgconfig.line.versions import SUPPORTED

    for name in registry.names():
        assert set(SUPPORTED[name]) == set(registry.table_files(name))
    from cgconfig.line.versions import version_key

    for name in registry.names():  # oldest first, in PEP 440's order
        keys = [version_key(v) for v in SUPPORTED[name]]
        if None not in keys:
            assert keys == sorted(keys), name  # type: ignore[type-var]
