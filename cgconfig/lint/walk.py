"""Which files ``cgconfig check`` reads: the paths given (files, folders, globs, ``-`` for
standard input), folders walked without following symbolic links, ``.gitignore`` files
honoured (git's own rules, by ``pathspec``), and the walk bounded in files and depth."""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cgconfig.errors import InputError
from cgconfig.limits import short

#: Names of files a folder walk reads (an explicitly named file is always read).
SUFFIXES = (".sh", ".bash", ".zsh", ".yaml", ".yml", ".md", ".markdown", ".rst", ".slurm",
            ".sbatch", ".job")
#: Folders a walk never enters.
SKIPPED_DIRS = frozenset((".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                          ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"))
#: At most this many files in one run, and folders this deep: a bigger tree is narrowed first.
MAX_FILES = 20_000
MAX_DEPTH = 32
#: Bytes read to see whether a file without a known suffix starts with a shell's ``#!``.
SHEBANG_BYTES = 64
#: Paths walked in one run (files and folders seen), whatever they hold.
MAX_ENTRIES = 200_000


@dataclass
class Walk:
    """The files to read, in order, and what was left out."""

    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """``PATH (why)`` for each path named or met that is not read (a symbolic link)."""
    entries: int = 0
    named: set[str] = field(default_factory=set)
    """The files named on the command line (or matched by a glob), not found by a walk."""


def _shell_shebang(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) |
                     getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        head = os.read(fd, SHEBANG_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    first = head.split(b"\n", 1)[0]
    return first.startswith(b"#!") and any(s in first for s in (b"sh", b"bash", b"zsh"))


def wanted(path: str) -> bool:
    """Whether a folder walk reads ``path``: a known suffix, or a shell ``#!`` line."""
    name = os.path.basename(path).lower()
    if name.endswith(SUFFIXES):
        return True
    return "." not in name and _shell_shebang(path)


def _ignore_spec(folder: str) -> Any:
    """The folder's own ``.gitignore`` as a pathspec matcher, or ``None``."""
    path = os.path.join(folder, ".gitignore")
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    from cgconfig.docio import read_text_file

    try:
        text = read_text_file(path, ".gitignore")
    except InputError:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def _ignored(chain: list[tuple[Any, str]], path: str, is_dir: bool) -> bool:
    """Whether the ``.gitignore`` files of the folders above ``path`` ignore it: each matches
    paths relative to its own folder, and the deepest one that decides wins, as in git."""
    verdict = False
    for spec, base in chain:
        rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
        result = spec.check_file(rel)
        if result.include is not None:
            verdict = bool(result.include)
    return verdict


def _add(walk: Walk, path: str) -> None:
    if len(walk.files) >= MAX_FILES:
        raise InputError(f"more than {MAX_FILES} files to check", where="cgconfig check",
                         hint="name fewer paths, or add exclude patterns")
    walk.files.append(os.path.normpath(path))


def _walk_dir(walk: Walk, top: str, exclude: Any, gitignore: bool) -> None:
    # (folder, depth, the .gitignore matchers of it and the folders above, with their folder)
    stack: list[tuple[str, int, list[tuple[Any, str]]]] = [(top, 0, [])]
    while stack:
        folder, depth, above = stack.pop()
        spec = _ignore_spec(folder) if gitignore else None
        chain = [*above, (spec, folder)] if spec is not None else above
        try:
            with os.scandir(folder) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as exc:
            walk.skipped.append(f"{folder} ({exc.strerror or 'unreadable'})")
            continue
        subdirs = []
        for entry in entries:
            walk.entries += 1
            if walk.entries > MAX_ENTRIES:
                raise InputError(f"more than {MAX_ENTRIES} paths under {short(top, 200)}",
                                 where="cgconfig check", hint="name a smaller folder")
            path = os.path.join(folder, entry.name)
            if entry.is_symlink():
                continue  # never followed, never read
            is_dir = entry.is_dir(follow_symlinks=False)
            if (is_dir and entry.name in SKIPPED_DIRS) or _ignored(chain, path, is_dir):
                continue
            if exclude is not None and exclude.match_file(_relative(path) + ("/" if is_dir
                                                                              else "")):
                continue
            if is_dir:
                if depth + 1 > MAX_DEPTH:
                    raise InputError(f"folders nested deeper than {MAX_DEPTH} under "
                                     f"{short(top, 200)}", where="cgconfig check")
                subdirs.append((path, depth + 1, chain))
            elif entry.is_file(follow_symlinks=False) and wanted(path):
                _add(walk, path)
        stack.extend(reversed(subdirs))  # depth-first, in name order


def _relative(path: str) -> str:
    rel = os.path.relpath(path)
    return rel.replace(os.sep, "/")


def exclude_spec(patterns: Iterable[str]) -> Any:
    """``--exclude`` / ``exclude =`` patterns (gitignore syntax, from the working folder)."""
    patterns = list(patterns)
    if not patterns:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def collect(paths: Iterable[str], *, exclude: Iterable[str] = (), gitignore: bool = True) -> Walk:
    """The files of ``paths`` in order (``-`` stands for standard input), each once."""
    walk = Walk()
    spec = exclude_spec(exclude)
    seen: set[str] = set()
    for given in paths:
        if given == "-":
            if "-" not in seen:
                _add(walk, "-")
                seen.add("-")
            continue
        if "\0" in given:
            raise InputError("a path cannot contain a NUL byte", where="cgconfig check")
        matches = [given]
        if not os.path.lexists(given) and glob.has_magic(given):
            matches = sorted(glob.glob(given, recursive=True))
            if not matches:
                raise InputError(f"no file matches {short(given, 200)}", where="cgconfig check")
        for path in matches:
            before = len(walk.files)
            _one(walk, path, spec, gitignore)
            fresh = [f for f in walk.files[before:] if f not in seen]
            seen.update(fresh)
            walk.files[before:] = fresh
    return walk


def _one(walk: Walk, path: str, spec: Any, gitignore: bool) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise InputError(f"no such file or folder: {short(path, 200)}",
                         where="cgconfig check") from None
    except OSError as exc:
        raise InputError(f"cannot read {short(path, 200)}: {exc.strerror or exc}",
                         where="cgconfig check") from None
    if stat.S_ISLNK(info.st_mode):
        walk.skipped.append(f"{path} (a symbolic link: not followed)")
    elif stat.S_ISDIR(info.st_mode):
        _walk_dir(walk, path, spec, gitignore)
    elif stat.S_ISREG(info.st_mode):
        _add(walk, path)
        walk.named.add(os.path.normpath(path))
    else:
        walk.skipped.append(f"{path} (not a regular file)")
