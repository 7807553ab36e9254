"""cgconfig: decide which CUDA graphs an LLM server captures, and say why.

The public API is loaded lazily (PEP 562), so ``import cgconfig`` stays cheap for launch
scripts and the CLI's light commands.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

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
