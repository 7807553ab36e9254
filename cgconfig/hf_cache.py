"""Find a model's ``config.json`` on this machine: a local folder, or the Hugging Face cache.

Never the network: a model id that is not in the local cache stays unread, and the plan says
where it looked. The cache is where ``huggingface_hub`` puts it: ``$HF_HUB_CACHE``, else
``$HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub`` (``~/.cache/huggingface/hub``); a
model ``ORG/NAME`` lives in ``models--ORG--NAME/snapshots/<commit>/``, and ``refs/main`` names
the commit a plain download resolved to.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

#: A Hugging Face repository id ``ORG/NAME`` (no ``..``, no leading or trailing separator).
_REPO_ID = re.compile(r"[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?/[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?")
_COMMIT = re.compile(r"[0-9a-f]{7,64}")


class ConfigLookup(NamedTuple):
    """Where a model's ``config.json`` is (``path``), or where it was looked for."""

    path: Path | None
    looked: str
    """Why nothing was found (what was searched), for the plan's note."""


def hub_cache(env: Mapping[str, str]) -> Path:
    """The Hugging Face hub cache folder that ``env`` selects."""
    explicit = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return Path(os.path.expanduser(explicit))  # never raises for ~nosuchuser
    home = env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or "~/.cache",
                                              "huggingface")
    return Path(os.path.expanduser(home)) / "hub"


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _small_text(path: Path, limit: int = 128) -> str:
    """The first ``limit`` bytes of a regular file as text; ``""`` for anything else (a FIFO
    or device cannot block or flood the lookup)."""
    if not _is_file(path):
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            return handle.read(limit).decode("ascii", errors="replace")
    except (OSError, ValueError):
        return ""


def _snapshot(repo: Path) -> Path | None:
    """The snapshot ``refs/main`` names, else the newest one holding a ``config.json``."""
    commit = _small_text(repo / "refs" / "main").strip()
    if _COMMIT.fullmatch(commit) and _is_file(repo / "snapshots" / commit / "config.json"):
        return repo / "snapshots" / commit / "config.json"
    try:
        snapshots = sorted(p for p in (repo / "snapshots").iterdir()
                           if _is_file(p / "config.json"))
    except (OSError, ValueError):
        return None
    if not snapshots:
        return None
    return max(snapshots, key=lambda p: (p.stat().st_mtime, p.name)) / "config.json"


def find_config(model_path: str, env: Mapping[str, str] | None = None) -> ConfigLookup:
    """The ``config.json`` of ``model_path``: ``<folder>/config.json`` for a local folder, else
    the cached snapshot of a repository id; ``path`` is ``None`` when neither has one."""
    env = os.environ if env is None else env
    if "\0" in model_path:
        return ConfigLookup(None, "a path with a NUL byte is not read")
    local = Path(os.path.expanduser(model_path))
    if _is_dir(local):
        found = local / "config.json"
        return ConfigLookup(found if _is_file(found) else None,
                            f"the folder {model_path} has no config.json")
    if not _REPO_ID.fullmatch(model_path) or ".." in model_path:
        return ConfigLookup(None, f"{model_path} is neither a local folder nor a Hugging Face "
                                  "model id")
    cache = hub_cache(env)
    org, name = model_path.split("/")
    repo = cache / f"models--{org}--{name}"
    return ConfigLookup(_snapshot(repo) if _is_dir(repo) else None,
                        f"no config.json for it in the Hugging Face cache {cache}")
