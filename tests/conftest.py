"""Shared test set-up: never probe a real GPU, never touch the user's cache directory."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def _cgconfig_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("cgconfig-cache"))


@pytest.fixture(scope="session")
def _empty_hf_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("hf-home"))


@pytest.fixture(autouse=True)
def _cgconfig_env(monkeypatch: pytest.MonkeyPatch, _cgconfig_cache_dir: str,
                  _empty_hf_home: str) -> None:
    """Every test: no nvidia-smi/rocm-smi probe (unknown memory tier), a private rule-pack
    cache, and an empty Hugging Face cache (a developer's downloaded models change nothing)."""
    monkeypatch.setenv("CGCONFIG_NO_GPU_PROBE", "1")
    monkeypatch.setenv("CGCONFIG_CACHE_DIR", _cgconfig_cache_dir)
    monkeypatch.setenv("HF_HOME", _empty_hf_home)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
