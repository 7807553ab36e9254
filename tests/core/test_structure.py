"""The code's shape: no import cycles (lazy imports included), no private names imported from
another module, no module over 400 lines. Built from the source text, not from imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Source folders and the package each installs as (pyproject's ``package-dir``).
PACKAGES = {"cgconfig": "cgconfig", "rules": "cgconfig.rules", "cli": "cgconfig.cli",
            "runtime": "cgconfig.runtime"}
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _imports(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import executed at run time."""
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
                for _ in range(node.level - 1):
                    package = package.rsplit(".", 1)[0]
                base = f"{package}.{node.module}"
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in MODULES:
                    found.append((submodule, []))
                else:
                    found.append((base, [alias.name]))
    return [(m, names) for m, names in found if m in MODULES]


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target, _ in GRAPH[node]:
            if target == node:
                continue
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for module in sorted(GRAPH):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_graph_sees_every_package() -> None:
    assert {"cgconfig.api", "cgconfig.rules.apply", "cgconfig.cli.main",
            "cgconfig.runtime.runner", "cgconfig.sources.split"} <= set(GRAPH)
    assert ("cgconfig.fields.constants", ["BACKENDS"]) in GRAPH[
        "cgconfig.runtime.plan_view"]


def test_no_import_cycles_lazy_imports_included() -> None:
    cycle = _cycle()
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_imports_another_modules_private_names() -> None:
    offenders = [f"{module} imports {target}.{n}" for module, edges in GRAPH.items()
                 for target, names in edges for n in names
                 if n.startswith("_") and not n.startswith("__") and target != module]
    offenders += [f"{module} imports private module {target}"
                  for module, edges in GRAPH.items() for target, _ in edges
                  if any(p.startswith("_") and not p.startswith("__")
                         for p in target.split("."))]
    assert offenders == []


def test_no_module_over_400_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in MODULES.values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}
