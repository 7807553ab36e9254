"""The code's shape: no import cycles between modules or between packages (lazy and
``TYPE_CHECKING`` imports included), no private names imported from another module, no module
over 400 lines. Built from the source text, not from imports."""

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


def _imports(name: str, path: Path, *, typing_too: bool = False) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import executed at run time, and with
    ``typing_too`` also those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if not typing_too and _type_checking_only(node, parents):
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
#: The same graph with the ``TYPE_CHECKING`` imports: a cycle there is a cycle in the design.
FULL_GRAPH = {name: _imports(name, path, typing_too=True) for name, path in MODULES.items()}


#: The engine plug-ins: every package folder under ``cgconfig/engines/`` (no list to keep).
ENGINE_PACKAGES = tuple(sorted(p.parent.name for p in (ROOT / "cgconfig" / "engines").glob("*/__init__.py")))


def _package(module: str) -> str:
    """A module's package-level node: its first-level subpackage (``cgconfig.sources``, and
    ``cgconfig.engines`` with every plug-in in it: the plug-ins together are one layer), or
    the module itself when it sits at the top (``cgconfig.plan``, the root ``cgconfig``)."""
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, list[tuple[str, list[str]]]]:
    edges: dict[str, set[str]] = {}
    for module, targets in FULL_GRAPH.items():
        for target, _ in targets:
            if _package(module) != _package(target):
                edges.setdefault(_package(module), set()).add(_package(target))
    nodes = {_package(m) for m in FULL_GRAPH}
    return {n: [(t, []) for t in sorted(edges.get(n, ()))] for n in nodes}


def _cycle(graph: dict[str, list[tuple[str, list[str]]]] | None = None) -> list[str] | None:
    graph = GRAPH if graph is None else graph
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target, _ in graph[node]:
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

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_graph_sees_every_package() -> None:
    assert {"cgconfig.api", "cgconfig.rules.apply", "cgconfig.cli.main",
            "cgconfig.runtime.runner", "cgconfig.line.split"} <= set(GRAPH)
    assert ("cgconfig.constants", ["BACKENDS"]) in GRAPH[
        "cgconfig.runtime.plan_view"]


def test_no_import_cycles_lazy_imports_included() -> None:
    cycle = _cycle()
    assert cycle is None, " -> ".join(cycle or [])


def test_no_import_cycles_type_checking_imports_included() -> None:
    cycle = _cycle(FULL_GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_no_import_cycles_between_packages() -> None:
    cycle = _cycle(_package_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_package_check_can_fail() -> None:
    graph = _package_graph()
    assert "cgconfig.sources" in graph and "cgconfig.resolve" in graph
    graph["cgconfig.resolve"] = [*graph["cgconfig.resolve"], ("cgconfig.sources", [])]
    graph["cgconfig.sources"] = [*graph["cgconfig.sources"], ("cgconfig.resolve", [])]
    assert _cycle(graph) is not None


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


#: The modules that may import an engine's package by name: the command line (the application,
#: which wires every engine) and the engine packages themselves. Everything else asks
#: ``cgconfig.line.plugins.part``.
MAY_IMPORT_ENGINES = ("cgconfig.cli",)


def _engine_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["cgconfig", "engines"] and len(parts) > 2 and parts[2] in ENGINE_PACKAGES:
        return parts[2]
    return None


def _core_imports_of_engines() -> list[str]:
    found = []
    for module, targets in FULL_GRAPH.items():
        if _engine_of(module) or module.startswith(MAY_IMPORT_ENGINES):
            continue
        found += [f"{module} -> {t}" for t, _ in targets if _engine_of(t)]
    return found


def test_the_core_imports_no_engine_package() -> None:
    """The shared core reaches an engine only through its plug-in parts, so an engine's
    modules load only for a line of that engine."""
    assert _core_imports_of_engines() == []


def test_no_engine_package_imports_another() -> None:
    crossing = [f"{m} -> {t}" for m, targets in FULL_GRAPH.items() if _engine_of(m)
                for t, _ in targets if _engine_of(t) and _engine_of(t) != _engine_of(m)]
    assert crossing == []


def test_the_engine_packages_are_the_registry_rows() -> None:
    from cgconfig.line.registry import ROWS

    assert tuple(sorted(row.name for row in ROWS)) == ENGINE_PACKAGES
    assert all(row.package == f"cgconfig.engines.{row.name}" for row in ROWS)


def test_the_engine_import_check_can_fail() -> None:
    assert _engine_of("cgconfig.engines.vllm.modes") == "vllm"
    assert _engine_of("cgconfig.line.table") is None
    assert any(t for t, _ in FULL_GRAPH["cgconfig.cli.launch_args"] if _engine_of(t))


#: The stdlib base the runtime may import (it runs inside an engine's process, beside torch).
RUNTIME_BASE = ("cgconfig.constants", "cgconfig.errors", "cgconfig.limits", "cgconfig.histogram_file",
                "cgconfig.safe_write")


def test_the_runtime_imports_only_the_base() -> None:
    reached = {t for m, targets in FULL_GRAPH.items() if m.startswith("cgconfig.runtime")
               for t, _ in targets if not t.startswith("cgconfig.runtime")}
    assert reached <= set(RUNTIME_BASE), sorted(reached - set(RUNTIME_BASE))
    for base in RUNTIME_BASE:  # and the base imports nothing else of cgconfig
        assert {t for t, _ in FULL_GRAPH[base]} <= set(RUNTIME_BASE), base
