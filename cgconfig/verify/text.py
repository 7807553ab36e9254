"""Reading a server log safely: streamed lines, capped length, linear scanning, safe display.

Every reader of :mod:`cgconfig.verify` (and ``cgconfig histogram``) goes through here:

* :func:`open_log` streams a regular file or ``-`` (stdin) line by line through the one line
  reader :func:`read_lines`: LF, CR and CRLF end a line alike (tqdm progress bars, a CR-only
  log), each line is cut at :data:`MAX_LINE` characters (the rest of an overlong line is
  skipped, never held), undecodable bytes are replaced;
* the scanners below use ``str.find`` and fixed character tests only: no regular expression, so
  no input can make them backtrack, and each line is scanned in time linear in its length;
* :func:`number` reads ASCII digits only (``'٨'`` is not a number here), at most
  :data:`MAX_DIGITS` of them (never Python's 4,300-digit ``int`` limit);
* :func:`shown` makes any log text safe for a terminal: escape sequences and control characters
  become ``\\xNN`` text, and the result is cut to a length.

Standard library only.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from collections.abc import Iterator
from typing import IO

from cgconfig.errors import InputError

MAX_LINE = 64 * 1024
"""Characters kept per log line; every field the readers need sits well inside it."""
MAX_DIGITS = 12
"""Longest run of digits read as a number (a trillion, far above any batch, token or GiB count)."""
MAX_LIST = 65_536
"""Most numbers read from one printed list (``bs=[...]``); the rest of the list is not read."""
_DIGITS = frozenset("0123456789")


def open_log(path: str, where: str) -> Iterator[str]:
    """The lines of ``path`` (``-`` for stdin), streamed and capped; errors are
    :class:`InputError` naming ``where``. A file and stdin go through the same reader
    (:func:`read_lines`), so ``verify - < log`` reads what ``verify log`` reads."""
    if path == "-":
        stream = sys.stdin
        if stream is None:
            raise InputError("standard input is closed", where=where)
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a text stream someone put in its place (tests, embedding)
            return _text_lines(stream, where)
        return read_lines(binary, where)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InputError("not a regular file", where=where,
                             hint="pass a saved log file, or - to read standard input")
        # O_NONBLOCK: a FIFO swapped in after the stat still cannot block the open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        handle = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            handle.close()
            raise InputError("not a regular file", where=where)
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", where=where) from None
    return _closing(handle, where)


def _closing(handle: IO[bytes], where: str) -> Iterator[str]:
    with handle:
        yield from read_lines(handle, where)


_CHUNK = 64 * 1024


def read_lines(stream: IO[bytes], where: str) -> Iterator[str]:
    """The one line reader: lines of a binary stream ended by LF, CR or CRLF alike (a CR-only
    log, tqdm's ``\\r`` bars), without their ends; each line cut at :data:`MAX_LINE`
    characters (the rest is skipped a chunk at a time, never held), undecodable bytes
    replaced. Memory stays within a few chunks whatever the input."""
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    line: list[str] = []
    size = 0
    skipping = False
    cr_pending = False  # the last chunk ended in CR: a LF opening the next one belongs to it
    try:
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            text = decode(chunk)
            if cr_pending and text:  # a LF right after a CR that ended the last chunk
                text, cr_pending = text.removeprefix("\n"), False
            if text:
                cr_pending = text.endswith("\r")
            start, end = 0, len(text)
            lf = cr = -1  # the next LF and CR found so far; each is searched for once per
            while start < end:  # position, so a chunk is scanned in linear time
                if lf < start:
                    lf = _find(text, "\n", start)
                if cr < start:
                    cr = _find(text, "\r", start)
                stop = min(lf, cr)
                if stop == end:
                    if not skipping:
                        line.append(text[start:])
                        size += end - start
                        if size >= MAX_LINE:
                            yield "".join(line)[:MAX_LINE]
                            line, size, skipping = [], 0, True
                    break
                if not skipping:
                    line.append(text[start:stop])
                    yield "".join(line)[:MAX_LINE]
                line, size, skipping = [], 0, False
                start = stop + 2 if stop == cr and lf == stop + 1 else stop + 1
        tail = decode(b"", final=True)
        if not skipping and (line or tail):
            yield ("".join(line) + tail)[:MAX_LINE]
    except OSError as exc:
        raise InputError(f"cannot read the log ({exc.strerror or exc})", where=where) from None


def _find(text: str, char: str, start: int) -> int:
    """Index of ``char`` at or after ``start``, or ``len(text)`` when there is none."""
    found = text.find(char, start)
    return len(text) if found < 0 else found


def _text_lines(stream: IO[str], where: str) -> Iterator[str]:
    """A text stream read through the same reader, as UTF-8 bytes."""
    class _Bytes:
        def read(self, size: int) -> bytes:
            return stream.read(size).encode("utf-8", "surrogateescape")

    return read_lines(_Bytes(), where)  # type: ignore[arg-type]


def number(text: str, start: int = 0) -> tuple[int | None, int]:
    """The ASCII decimal integer at ``text[start:]`` and the index after it; ``None`` when there
    are no digits there or more than :data:`MAX_DIGITS` of them."""
    end = start
    limit = len(text)
    while end < limit and text[end] in _DIGITS:
        end += 1
    if end == start or end - start > MAX_DIGITS:
        while end < limit and text[end] in _DIGITS:  # skip the whole run either way
            end += 1
        return None, end
    return int(text[start:end]), end


def decimal(text: str, start: int = 0) -> tuple[float | None, int]:
    """An ASCII decimal such as ``12.34`` (or ``-0.5``) at ``text[start:]``; ``None`` when absent."""
    sign = 1.0
    if text.startswith("-", start):
        sign, start = -1.0, start + 1
    whole, end = number(text, start)
    if whole is None:
        return None, end
    if text.startswith(".", end):
        frac, after = number(text, end + 1)
        if frac is not None:
            return sign * float(text[start:after]), after
    return sign * float(whole), end


def after(text: str, marker: str, start: int = 0) -> int:
    """The index just after the first ``marker`` at or after ``start``, or -1."""
    found = text.find(marker, start)
    return -1 if found < 0 else found + len(marker)


def _value_start(text: str, marker: str, start: int) -> int:
    """Where the value after ``marker`` begins (spaces skipped), or -1 without ``marker``."""
    at = after(text, marker, start)
    if at < 0:
        return -1
    while at < len(text) and text[at] == " ":
        at += 1
    return at


def int_after(text: str, marker: str, start: int = 0) -> int | None:
    """The integer right after ``marker`` (spaces skipped), or ``None``."""
    at = _value_start(text, marker, start)
    if at < 0:
        return None
    return number(text, at)[0]


TOO_LONG = -1
"""What :func:`size_after` returns for a run of digits longer than :data:`MAX_DIGITS`."""
MALFORMED = -2
"""What :func:`size_after` returns for a value that is not a whole ASCII integer (``1_0``,
``12.5``, ``1e309``, ``٣``): never read by its digit prefix."""
_VALUE_ENDS = frozenset(" ,;)]}\t")


def size_after(text: str, marker: str, start: int = 0) -> int | None:
    """The whole value right after ``marker`` (spaces skipped, up to a comma, space or
    bracket) read by the one numeric parser (:func:`cgconfig.fields.values.read_int`, ASCII
    digits only): the integer, :data:`TOO_LONG` for more than :data:`MAX_DIGITS` digits,
    :data:`MALFORMED` for anything else, ``None`` without ``marker``."""
    from cgconfig.fields.values import read_int

    at = _value_start(text, marker, start)
    if at < 0:
        return None
    end = at
    while end < len(text) and end - at <= MAX_DIGITS + 1 and text[end] not in _VALUE_ENDS:
        end += 1
    token = text[at:end]
    if end < len(text) and text[end] not in _VALUE_ENDS:
        return TOO_LONG if all(c in _DIGITS for c in token) else MALFORMED
    if len(token) > MAX_DIGITS and all(c in _DIGITS for c in token):
        return TOO_LONG
    try:
        return read_int(token, marker, minimum=0)
    except InputError:
        return MALFORMED


def float_after(text: str, marker: str, start: int = 0) -> float | None:
    """The decimal right after ``marker`` (spaces skipped), or ``None``."""
    at = _value_start(text, marker, start)
    if at < 0:
        return None
    return decimal(text, at)[0]


def int_list(text: str, start: int) -> list[int] | None:
    """The list ``[1, 2, 4]`` whose ``[`` is at or after ``start`` (spaces skipped), or ``None``
    when it is not a list of plain ASCII integers. ``[]`` is an empty list."""
    at = start
    while at < len(text) and text[at] == " ":
        at += 1
    if not text.startswith("[", at):
        return None
    close = text.find("]", at)
    if close < 0:
        return None
    body = text[at + 1:close]
    out: list[int] = []
    for part in body.split(","):
        item = part.strip()
        if not item and not out and not body.strip():
            return []
        value, end = number(item)
        if value is None or end != len(item):
            return None
        out.append(value)
        if len(out) >= MAX_LIST:
            break
    return out


def word_after(text: str, marker: str, stops: str = " ,)]") -> str | None:
    """The word right after ``marker`` (up to a space, comma or bracket), at most 64 characters."""
    at = after(text, marker)
    if at < 0:
        return None
    end = at
    while end < len(text) and end - at < 64 and text[end] not in stops:
        end += 1
    return text[at:end] or None


def progress(text: str) -> tuple[int, int] | None:
    """``N/M`` of a tqdm bar (``... 100%|####| 35/35 [00:02<00:00]``), from its last ``|``."""
    bar = text.rfind("|")
    if bar < 0:
        return None
    rest = text[bar + 1:].lstrip()
    done, end = number(rest)
    if done is None or not rest.startswith("/", end):
        return None
    total, _ = number(rest, end + 1)
    return None if total is None else (done, total)


def shown(text: str, limit: int = 160) -> str:
    """``text`` safe for a terminal: every control character (ESC included, so no escape
    sequence reaches the terminal raw) and every non-printable character as ``\\xNN`` /
    ``\\uNNNN``, cut to ``limit`` characters."""
    out: list[str] = []
    size = 0
    for char in text[: 4 * limit]:
        piece = char if char.isprintable() or char == " " else _escape(char)
        out.append(piece)
        size += len(piece)
        if size >= limit:
            break
    joined = "".join(out)
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def strip_escapes(line: str) -> str:
    """``line`` without ANSI colour codes (``ESC [ ... letter``), which vLLM prints around its
    process prefix; scanned once, left to right."""
    if "\x1b" not in line:
        return line
    out: list[str] = []
    i, size = 0, len(line)
    while i < size:
        j = line.find("\x1b", i)
        if j < 0:
            out.append(line[i:])
            break
        out.append(line[i:j])
        k = j + 1
        if k < size and line[k] == "[":
            k += 1
            while k < size and line[k] in "0123456789;?":
                k += 1
            if k < size and "@" <= line[k] <= "~":
                k += 1
        i = k
    return "".join(out)
