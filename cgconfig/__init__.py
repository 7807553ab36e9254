"""cgconfig: decide which CUDA graphs an LLM server captures, and say why.

The public API is loaded lazily (PEP 562), so ``import cgconfig`` stays cheap for launch
scripts and the CLI's light commands.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from cgconfig.version import __version__

_EXPORTS = {
    "resolve_args": "cgconfig.api",
    "resolve_dict": "cgconfig.api",
    "resolve_namespace": "cgconfig.api",
    "add_arguments": "cgconfig.api",
    "CudaGraphConfig": "cgconfig.fields.config",
    "DecodeConfig": "cgconfig.fields.config",
    "PrefillConfig": "cgconfig.fields.config",
    "GraphOptions": "cgconfig.fields.config",
    "DeploymentFacts": "cgconfig.fields.deployment",
    "Plan": "cgconfig.plan",
    "Decision": "cgconfig.plan",
    "CgConfigError": "cgconfig.errors",
    "InputError": "cgconfig.errors",
    "StrictConflictError": "cgconfig.errors",
}

__all__ = [
    "CgConfigError",
    "CudaGraphConfig",
    "Decision",
    "DecodeConfig",
    "DeploymentFacts",
    "GraphOptions",
    "InputError",
    "Plan",
    "PrefillConfig",
    "StrictConflictError",
    "__version__",
    "add_arguments",
    "resolve_args",
    "resolve_dict",
    "resolve_namespace",
]
assert sorted(__all__) == sorted([*_EXPORTS, "__version__"])

def _map_source_tree() -> None:
    """Make ``cgconfig.rules``, ``cgconfig.cli`` and ``cgconfig.runtime`` importable when this
    package is the source folder of a checkout (Python finds ``./cgconfig`` first when run from
    the repository root, even after ``pip install .``, and the install maps those three
    subpackages from the sibling folders ``rules/``, ``cli/``, ``runtime/``). An installed
    package holds them inside itself, so nothing is added there."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    if os.path.isdir(os.path.join(here, "rules")) or not os.path.isfile(
            os.path.join(root, "pyproject.toml")):
        return
    from importlib.machinery import ModuleSpec, PathFinder

    class _SiblingFinder:
        """Finds exactly ``cgconfig.<name>`` in the sibling folder ``<name>/``."""

        @staticmethod
        def find_spec(fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
            package, _, name = fullname.partition(".")
            if package != __name__ or name not in _SOURCE_SUBPACKAGES:
                return None
            return PathFinder.find_spec(fullname, [root])

    sys.meta_path.append(_SiblingFinder())


#: Subpackages that live beside ``cgconfig/`` in the source tree (pyproject's ``package-dir``).
_SOURCE_SUBPACKAGES = ("rules", "cli", "runtime")
_map_source_tree()

if TYPE_CHECKING:
    from cgconfig.api import add_arguments, resolve_args, resolve_dict, resolve_namespace
    from cgconfig.errors import CgConfigError, InputError, StrictConflictError
    from cgconfig.fields.config import CudaGraphConfig, DecodeConfig, GraphOptions, PrefillConfig
    from cgconfig.fields.deployment import DeploymentFacts
    from cgconfig.plan import Decision, Plan


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cgconfig' has no attribute {name!r}")
    return getattr(import_module(module), name)
