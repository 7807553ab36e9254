"""The one way cgconfig writes a file: a private temporary beside the target, then a rename.

Every file cgconfig writes (``histogram -o``, ``RunnerStats.write_histogram``, the rule-pack
cache) goes through :func:`write_text`:

* the temporary is created in the target's own directory, relative to a descriptor of that
  directory, with ``O_CREAT | O_EXCL | O_NOFOLLOW``: a name someone planted (a symlink to the
  victim's file, a FIFO) makes the create fail instead of redirecting the write, and its name
  carries 64 random bits, so it cannot be guessed in advance;
* a target that exists and is not a regular file (a character device such as ``/dev/null``, a
  FIFO, a socket, a directory, a symlink to any of them) is refused before anything is created;
* a file it replaces keeps its permission bits (``chmod 600 h.json`` stays 600); a new file
  gets ``mode & ~umask`` (``0o666`` by default), as ``open()`` would give it;
* the temporary is renamed over the target (a reader never sees half a file) and removed on
  every failure (a full disk, a rename refused) and on every signal that ends the process
  (SIGINT, SIGTERM, SIGHUP: while the temporary exists, those signals raise inside the write,
  the temporary is removed, and the signal is delivered again to the handler that was there
  before, so the process still ends with the signal's status).

Standard library only: the runtime uses it too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from cgconfig.errors import InputError
from cgconfig.limits import short

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_TMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
              | getattr(os, "O_CLOEXEC", 0))


def temporary_name(name: str) -> str:
    """The temporary a write of ``name`` uses: hidden, random, ending in ``.tmp``."""
    return f".{name[:120]}.{os.getpid()}.{secrets.token_hex(8)}.tmp"


def write_text(path: str | os.PathLike[str], text: str, *, where: str, mode: int = 0o666,
               dir_fd: int | None = None, replace_special: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; any failure is one :class:`InputError`.

    With ``dir_fd``, ``path`` is a plain name inside that (already checked) directory. ``mode``
    is the new file's permission bits before the umask. ``replace_special`` lets the rename
    replace a planted FIFO or device entry (never opened): only for a private directory the
    caller checked, such as the rule-pack cache.
    """
    target = os.fspath(path)
    if dir_fd is None:
        if not target or "\0" in target:
            raise InputError("expected a file name", where=where)
        folder, name = os.path.split(target)
        if not name or name in (".", ".."):
            raise InputError(f"{short(target, 200)} is a directory, not a file name",
                             where=where)
        try:
            fd = os.open(folder or ".", _DIR_FLAGS)
        except OSError as exc:
            raise _error(f"cannot open the directory {short(folder or '.', 200)}", exc,
                         where) from None
        try:
            _write_in(fd, name, text, where, mode, replace_special)
        finally:
            os.close(fd)
        return
    _write_in(dir_fd, target, text, where, mode, replace_special)


def _write_in(dir_fd: int, name: str, text: str, where: str, mode: int,
              replace_special: bool) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd,  # follows a symlink: its target must be regular
                       follow_symlinks=not replace_special)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _error(f"cannot write {short(name, 200)}", exc, where) from None
    if info is not None and not stat.S_ISREG(info.st_mode) and not (
            replace_special and not stat.S_ISDIR(info.st_mode)):
        raise InputError(f"{short(name, 200)} exists and is not a regular file "
                         f"({_kind(info.st_mode)}); cgconfig writes only regular files",
                         where=where)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("the text to write is not valid Unicode (a lone surrogate)",
                         where=where) from None
    # A replaced file keeps its permission bits (never set-id bits); the private cache
    # (``replace_special``) always uses the caller's ``mode``.
    keep = (stat.S_IMODE(info.st_mode) & 0o1777
            if info is not None and stat.S_ISREG(info.st_mode) and not replace_special
            else None)
    tmp = temporary_name(name)
    with _signals_interrupt() as delivered:
        try:
            _create_and_rename(dir_fd, tmp, name, data, mode, keep, where)
        except _Signalled as exc:
            delivered.append(exc.signum)
    if delivered:  # the previous handler returned: the write did not happen
        raise InputError(f"interrupted by {signal.Signals(delivered[0]).name}; "
                         f"{short(name, 200)} was not written", where=where)


def _create_and_rename(dir_fd: int, tmp: str, name: str, data: bytes, mode: int,
                       keep: int | None, where: str) -> None:
    try:
        out = os.open(tmp, _TMP_FLAGS, mode, dir_fd=dir_fd)
    except OSError as exc:
        raise _error(f"cannot create a file beside {short(name, 200)}", exc, where) from None
    except BaseException:  # a signal inside the open: the name may exist already
        _remove(tmp, dir_fd)
        raise
    try:
        try:
            if keep is not None:
                os.fchmod(out, keep)
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
            os.fsync(out)
        finally:
            os.close(out)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        _remove(tmp, dir_fd)
        if isinstance(exc, OSError):
            raise _error(f"cannot write {short(name, 200)}", exc, where) from None
        raise


def _remove(tmp: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp, dir_fd=dir_fd)


#: Signals that end a process by default and that a user sends to stop one: while a temporary
#: exists they raise :class:`_Signalled` instead, so it is removed first.
CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT")
                        if hasattr(signal, name))


class _Signalled(BaseException):
    """A cleanup signal arrived during a write (a BaseException: nothing may swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum: int, _frame: object) -> None:
    raise _Signalled(signum)


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[list[int]]:
    """While inside, :data:`CLEANUP_SIGNALS` raise :class:`_Signalled` (main thread only: a
    handler can be set nowhere else); on the way out the previous handlers come back and a
    signal that arrived is delivered to them again (a default SIGTERM then ends the process
    with status 143, a KeyboardInterrupt is raised for SIGINT, as without the write)."""
    delivered: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield delivered
        return
    previous: dict[int, Callable[[int, FrameType | None], Any] | int] = {}
    try:
        for signum in CLEANUP_SIGNALS:
            old = signal.getsignal(signum)
            if old in (signal.SIG_IGN, None):
                continue  # an ignored signal stays ignored (nohup), one set outside Python too
            previous[signum] = old
            signal.signal(signum, _raise_signalled)
        yield delivered
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in delivered:
            signal.raise_signal(signum)


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a plain file"


def _error(what: str, exc: OSError, where: str) -> InputError:
    reason = exc.strerror or errno.errorcode.get(exc.errno or 0, "") or short(str(exc), 80)
    return InputError(f"{what}: {reason}", where=where)
