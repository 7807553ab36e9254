"""The JSON cache of the shipped rule packs: start-up reads it instead of YAML and pydantic.

Nothing in the cache is trusted that the cache itself could change:

* the directory must belong to the user and not be group- or world-writable (``/tmp`` or a
  directory someone else can write is not used: the run goes uncached, with one warning);
* every file is opened relative to that directory's descriptor with ``O_NOFOLLOW`` (and
  ``O_NONBLOCK``), must be a regular file owned by the user, and is read up to a size cap, so a
  planted symlink, FIFO or ``/dev/zero`` cannot redirect a write or hang a read;
* the file name and the content carry a key made of the packs' **content** hash, the
  cgconfig version and the engines' stage lists (an edit that keeps size and mtime still
  changes it; a rule's ``stage:`` stays checked against the stages the code has);
* the content is checked against the shape the engine reads; anything else is rebuilt, never
  used, never fatal;
* writes go to an ``O_EXCL`` temporary file that is removed on failure and renamed into
  place; older cache files and stale temporaries are pruned.

``CGCONFIG_NO_CACHE=1`` turns the cache off; ``CGCONFIG_CACHE_DIR`` (else
``$XDG_CACHE_HOME/cgconfig``, else ``~/.cache/cgconfig``) moves it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Any

from cgconfig import limits
from cgconfig.constants import CAPABILITY_LEVELS
from cgconfig.errors import InputError
from cgconfig.line import plugins
from cgconfig.line.registry import names as engine_names
from cgconfig.resolve.stages import RESOLVED, stage_key, stages_of
from cgconfig.version import __version__

#: Cache files kept in the directory (the newest); older ones are removed on each write.
KEEP_FILES = 3
#: A temporary file older than this (seconds) was left by a crashed writer and is removed.
STALE_TMP_SECONDS = 600
#: Largest cache file read (the shipped packs' JSON is ~60 KB).
MAX_CACHE_BYTES = 4 * 1024 * 1024

_KINDS = ("policy", "constraint")
_LEVELS = CAPABILITY_LEVELS
_COMPARE = ("eq", "ne", "gt", "ge", "lt", "le")
_warned: list[str] = []
#: The names :func:`write_cache` creates (cache files and their temporaries): all prune touches.
_OURS = re.compile(r"\.?packs-[0-9A-Za-z.+_-]{1,40}-[0-9a-f]{32}\.json(?:\.[0-9]+\.[0-9a-f]{16}\.tmp)?")


def shipped_pack_files() -> list[Path]:
    """The shipped packs in application order (their file names start with a number), from
    each registered engine's ``rules/`` folder (``cgconfig/engines/sglang/rules/``;
    :func:`cgconfig.line.plugins.pack_files`), each pack declaring that engine (the loader
    checks it)."""
    files = [f for engine in engine_names() for f in plugins.pack_files(engine)]
    return sorted(files, key=lambda p: (p.name, p.parent.parent.name))


def capability_files() -> dict[str, Path]:
    """Engine → its attention-backend capability table (``rules/capabilities.yaml`` of its
    package), for the engines that ship one."""
    found = {engine: plugins.capability_file(engine) for engine in engine_names()}
    return {engine: path for engine, path in found.items() if path is not None}


def pack_engine(path: Path) -> str:
    """The engine whose ``rules/`` folder holds a shipped pack."""
    for engine in engine_names():
        if path.parent == plugins.rules_folder(engine):
            return engine
    raise ValueError(f"{path} is in no registered engine's rules folder")


def cache_key() -> str | None:
    """sha256 of the cgconfig version, the engines' stage lists (a rule's ``stage:`` is checked
    against them when a pack loads) and every engine's shipped packs and capability table,
    each file's engine, name and bytes."""
    digest = hashlib.sha256(f"cgconfig {__version__}\0{stage_key()}\0".encode())
    files = [(pack_engine(f), f) for f in shipped_pack_files()]
    files += sorted(capability_files().items())
    for engine, f in files:
        try:
            data = f.read_bytes()
        except OSError:
            return None
        digest.update(f"{engine}/{f.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def cache_dir_path() -> Path | None:
    """The configured cache directory, or ``None`` when the cache is off."""
    if os.environ.get("CGCONFIG_NO_CACHE"):
        return None
    base = os.environ.get("CGCONFIG_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgconfig")
    return Path(base)


def cache_path(key: str | None = None) -> Path | None:
    """Where the JSON form of the shipped packs is cached, keyed on content and version
    (``key``: :func:`cache_key`'s, when the caller has it already)."""
    base = cache_dir_path()
    key = key or cache_key()
    if base is None or key is None:
        return None
    return base / f"packs-{__version__}-{key[:32]}.json"


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.append(message)
        sys.stderr.write(f"cgconfig: warning: {message}\n")


def _open_dir(create: bool) -> int | None:
    """A descriptor of the cache directory if it is safe to use, else ``None``."""
    base = cache_dir_path()
    if base is None:
        return None
    foreign = foreign_symlink(base)
    if foreign is not None:
        _warn_once(f"rule-pack cache directory {shown(base)} goes through {shown(foreign)}, a "
                   "symlink another user owns; running without the cache (set "
                   "CGCONFIG_CACHE_DIR to a private directory)")
        return None
    if create:
        try:
            base.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return None
    try:
        fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISDIR(info.st_mode):
        problem = "is not a directory"
    elif hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        problem = f"belongs to another user (uid {info.st_uid})"
    elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = "is writable by other users"
    if problem:
        os.close(fd)
        _warn_once(f"rule-pack cache directory {shown(base)} {problem}; running without the cache "
                   "(set CGCONFIG_CACHE_DIR to a private directory)")
        return None
    return fd


def shown(path: Path) -> str:
    """A path for a warning: one line, terminal controls escaped."""
    from cgconfig.terminal import safe_text

    return safe_text(limits.short(str(path), 200))


def foreign_symlink(path: Path) -> Path | None:
    """The first component of ``path`` that is a symlink owned by someone other than the user
    or root (following it would let that user choose where the cache goes), else ``None``."""
    if not hasattr(os, "geteuid"):
        return None
    trusted = (os.geteuid(), 0)
    current = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.parts[1 if path.is_absolute() else 0:]:
        current = current / part
        try:
            info = os.lstat(current)
        except OSError:
            return None  # the rest does not exist yet: mkdir creates it, owned by the user
        if stat.S_ISLNK(info.st_mode) and info.st_uid not in trusted:
            return current
    return None


def read_cache() -> dict[str, Any] | None:
    """The cached JSON of the shipped packs, or ``None`` when absent, unsafe or invalid."""
    key = cache_key()  # it reads every shipped pack: once a start-up
    path = cache_path(key)
    if path is None or key is None:
        return None
    fd = _open_dir(create=False)
    if fd is None:
        return None
    try:
        raw = _read_file(path.name, fd)
    finally:
        os.close(fd)
    if raw is None:
        return None
    try:
        # Plain json: the file is the user's own (checked above) and read on every start-up;
        # a corrupt or absurdly nested one is simply rebuilt.
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return data if is_valid_cache(data, key) else None


def _read_file(name: str, dir_fd: int) -> str | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
            return None
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return None
        return os.read(fd, MAX_CACHE_BYTES + 1).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def write_cache(payload: dict[str, Any]) -> None:
    """Store ``{"packs": [...], "capabilities": {engine: table}}`` under the current key; never raises."""
    key = cache_key()
    path = cache_path(key)
    if path is None or key is None:
        return
    fd = _open_dir(create=True)
    if fd is None:
        return
    from cgconfig.safe_write import write_text  # only a cache miss writes (start-up time)

    text = json.dumps({"version": __version__, "key": key, **payload})
    try:
        write_text(path.name, text, where="rule-pack cache", mode=0o600, dir_fd=fd,
                   replace_special=True)
        prune(fd)
    except (InputError, OSError):
        return
    finally:
        os.close(fd)


def _unlink(name: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def prune(dir_fd: int) -> None:
    """Keep the newest :data:`KEEP_FILES` cache files; drop stale temporaries."""
    now = time.time()
    files: list[tuple[float, str]] = []
    for name in os.listdir(dir_fd):
        if not _OURS.fullmatch(name):
            continue  # only names this module writes: never a user's packs-report.json
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            continue
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            continue
        if name.endswith(".tmp"):
            if now - info.st_mtime > STALE_TMP_SECONDS:
                _unlink(name, dir_fd)
        elif name.endswith(".json"):
            files.append((info.st_mtime, name))
    for _, name in sorted(files, reverse=True)[KEEP_FILES:]:
        _unlink(name, dir_fd)


# ------------------------------------------------------------------------------ validation

def is_valid_cache(data: Any, key: str) -> bool:
    """Whether ``data`` is a cache for ``key`` with exactly the shape the engine reads."""
    if not isinstance(data, dict) or data.get("key") != key:
        return False
    if data.get("version") != __version__:
        return False
    packs, caps = data.get("packs"), data.get("capabilities", ...)
    if not isinstance(packs, list) or caps is ...:
        return False
    if (caps is not None and not isinstance(caps, dict)) or (caps and not all(
            engine in engine_names() and _valid_capabilities(table) for engine, table in caps.items())):
        return False
    return all(_valid_pack(p) for p in packs)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _valid_capabilities(caps: Any) -> bool:
    if not isinstance(caps, dict) or not isinstance(caps.get("backends"), dict):
        return False
    return all(_is_str(n) and isinstance(e, dict) and e.get("level") in _LEVELS
               for n, e in caps["backends"].items())


def _valid_pack(pack: Any) -> bool:
    if not isinstance(pack, dict) or not _is_str(pack.get("pack")):
        return False
    rules = pack.get("rules")
    if pack.get("engine", "core") not in (*engine_names(), "core"):
        return False
    stages = stages_of(pack.get("engine", "core"))
    return (_is_str(pack.get("title")) and isinstance(rules, list)
            and all(_valid_rule(r, stages) for r in rules))


def _valid_rule(rule: Any, stages: tuple[str, ...]) -> bool:
    if not isinstance(rule, dict) or rule.get("stage", RESOLVED) not in stages:
        return False
    texts = ("id", "title", "reason", "source")
    if not all(_is_str(rule.get(t)) for t in texts) or rule.get("kind") not in _KINDS:
        return False
    if rule.get("hint") is not None and not _is_str(rule["hint"]):
        return False
    then = rule.get("then")
    return (_valid_condition(rule.get("when"), 0) and isinstance(then, list) and bool(then)
            and all(_valid_action(a) for a in then))


def _valid_condition(cond: Any, depth: int) -> bool:
    if depth > 64 or not isinstance(cond, dict) or len(cond) != 1:
        return False
    (op, body), = cond.items()
    if op in ("all", "any"):
        return (isinstance(body, list) and bool(body)
                and all(_valid_condition(c, depth + 1) for c in body))
    if op == "not":
        return _valid_condition(body, depth + 1)
    if not isinstance(body, dict):
        return False
    if op == "capability":
        given = [n for n in ("lt", "ge", "eq") if body.get(n) is not None]
        return len(given) == 1 and body[given[0]] in _LEVELS and body.get(
            "backends", "in_use") in ("in_use", "decode", "prefill")
    if not _is_str(body.get("path")):
        return False
    if op in ("in", "not_in"):
        return isinstance(body.get("values"), list)
    if op in ("is_set", "contains"):
        return True
    if op in _COMPARE:
        return body.get("ref") is None or _is_str(body["ref"])
    return False


def _valid_action(action: Any) -> bool:
    if not isinstance(action, dict) or len(action) != 1:
        return False
    (verb, body), = action.items()
    if verb in ("refuse", "warn"):
        return body is True
    if not isinstance(body, dict):
        return False
    if verb == "set":
        return _is_str(body.get("key")) and "value" in body
    if verb == "clamp":
        bound, ref = body.get("max"), body.get("max_ref")
        return _is_str(body.get("key")) and ((isinstance(bound, int) and ref is None)
                                            or (bound is None and _is_str(ref)))
    if verb == "align":
        multiple = body.get("multiple")
        return body.get("phase") in ("decode", "prefill") and isinstance(multiple, int) \
            and not isinstance(multiple, bool) and multiple > 1
    return False
