"""The one escaper for text that reaches a terminal.

Text cgconfig prints often comes from its input: a ``config.json`` architecture, a deployment's
``model_arch``, a rule pack's reason and hint, a plan file's warnings, a file name. Any of it may
hold terminal controls (``ESC [2J`` clears the screen, OSC 52 writes the clipboard, a C1
``CSI``), Unicode bidirectional overrides that make a line read differently from what it says,
line separators that split one line into two, or lone surrogates (from a JSON ``\\ud800``
escape) that cannot be encoded at all. Every such character is shown as a visible escape
(``\\x1b``, ``\\u202e``, ``\\ud800``) instead; everything else, accented letters and CJK
included, is printed as it is.

Every sink applies it: error and warning lines (``cli/errors.py``), the plan table and every
other rich output (``cli/render.py``), JSON output (:func:`json_text`).

Standard library only.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

#: C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates,
#: and lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_UNSAFE_KEEP_LINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f"
                                "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: What :class:`SafeStream` escapes on stdout and stderr (line breaks are kept): a writer whose
#: output must round-trip (``--emit env``) writes these characters another way.
TERMINAL_UNSAFE = _UNSAFE_KEEP_LINES
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def safe_text(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every terminal control, bidi override and lone surrogate escaped."""
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(text: str) -> str:
    """JSON text made safe for a terminal: the same characters written as ``\\uXXXX``
    escapes, which JSON reads back as the same string (inside a string they are all legal).

    Only characters inside strings can be unsafe (``json.dumps`` writes structure in ASCII).
    """
    return _UNSAFE_KEEP_LINES.sub(_json_escape, text) if _UNSAFE_KEEP_LINES.search(text) \
        else text


def safe_data(value: object) -> object:
    """``value`` with :func:`safe_text` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_data(k): safe_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_data(v) for v in value]
    return value


class SafeStream:
    """A text stream that escapes (:func:`safe_text`, line breaks kept) everything written to
    it; the CLI puts one over stdout and stderr for each command. ``unsafe`` is the stream
    below, for the two writers that add their own colour codes to text they escaped first
    (rich, through :func:`cgconfig.cli.render.console`, and ``diff``'s colours)."""

    def __init__(self, stream: Any) -> None:
        self.unsafe = stream

    def write(self, text: str) -> int:
        self.unsafe.write(safe_text(text, keep_newlines=True))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unsafe, name)


def unsafe(stream: Any) -> Any:
    """The stream below a :class:`SafeStream` (the stream itself otherwise)."""
    return stream.unsafe if isinstance(stream, SafeStream) else stream


@contextlib.contextmanager
def guarded_streams() -> Iterator[None]:
    """Escape everything written to ``sys.stdout`` and ``sys.stderr`` inside the block."""
    saved = sys.stdout, sys.stderr
    sys.stdout = SafeStream(unsafe(saved[0]))
    sys.stderr = SafeStream(unsafe(saved[1]))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
