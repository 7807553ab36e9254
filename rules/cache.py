"""The JSON cache of the shipped rule packs: where it lives and how it is read.

The start-up path reads the shipped packs from this cache (no YAML, no pydantic) while it is
current; :mod:`cgconfig.rules.loader` validates the packs and writes it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

PACK_DIR = Path(__file__).resolve().parent / "packs"
CAPABILITIES_FILE = PACK_DIR / "capabilities.yaml"


def shipped_pack_files() -> list[Path]:
    """The shipped packs in application order (their file names start with a number)."""
    return sorted(p for p in PACK_DIR.glob("*.yaml") if p.name != CAPABILITIES_FILE.name)


def cache_path() -> Path | None:
    """Where the JSON form of the shipped packs is cached, keyed on the files' stat."""
    if os.environ.get("CGCONFIG_NO_CACHE"):
        return None
    base = os.environ.get("CGCONFIG_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgconfig")
    digest = hashlib.sha256()
    files = shipped_pack_files() + ([CAPABILITIES_FILE] if CAPABILITIES_FILE.exists() else [])
    for f in files:
        try:
            st = f.stat()
        except OSError:
            return None
        digest.update(f"{f}:{st.st_mtime_ns}:{st.st_size};".encode())
    return Path(base) / f"packs-{digest.hexdigest()[:20]}.json"


def read_cache() -> dict[str, Any] | None:
    """The cached JSON of the shipped packs, or ``None`` when absent or unreadable."""
    path = cache_path()
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "packs" in data else None
