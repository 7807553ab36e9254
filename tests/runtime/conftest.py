"""Shared fixtures for the runtime tests: the example model, loaded from its file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llama_decoder.py"


def load_example() -> ModuleType:
    """Import examples/llama_decoder.py as module ``llama_decoder`` (once per session)."""
    cached = sys.modules.get("llama_decoder")
    if cached is not None:
        return cached
    spec = importlib.util.spec_from_file_location("llama_decoder", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before executing: its dataclasses look their module up by name.
    sys.modules["llama_decoder"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def llama() -> ModuleType:
    """The example module (needs torch; callers skip first when it is absent)."""
    pytest.importorskip("torch")
    return load_example()
