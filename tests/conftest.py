"""Shared test set-up: never probe a real GPU, never touch the user's cache directory."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def _cgconfig_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("cgconfig-cache"))


@pytest.fixture(autouse=True)
def _cgconfig_env(monkeypatch: pytest.MonkeyPatch, _cgconfig_cache_dir: str) -> None:
    """Every test: no nvidia-smi probe (unknown memory tier) and a private rule-pack cache."""
    monkeypatch.setenv("CGCONFIG_NO_GPU_PROBE", "1")
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", _cgconfig_cache_dir)
