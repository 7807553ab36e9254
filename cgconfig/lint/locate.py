"""Where on a launch a flag is: the file line of the word that spells it (``Launch.arg_lines``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def _norm(word: str) -> str:
    """A flag spelling with ``_`` read as ``-`` (vLLM and click accept both)."""
    head, _, _ = word.partition("=")
    return head.replace("_", "-") if head.startswith("-") else head


def flag_name(text: str) -> str | None:
    """The flag an input label starts with (``--cuda-graph-config FILE`` → ``--cuda-graph-config``;
    ``-cc.cudagraph_mode (…)`` → ``-cc``), or ``None`` when it names no flag."""
    first = text.strip().split(" ", 1)[0] if text.strip() else ""
    if not first.startswith("-") or first in ("-", "--"):
        return None
    first = first.partition("=")[0]
    if first.startswith("-cc."):
        return "-cc"
    if first.startswith("--compilation-config."):
        return "--compilation-config"
    return first


def find_word(argv: Sequence[str], flag: str) -> int | None:
    """Index of the last word of ``argv`` that spells ``flag`` (itself, ``flag=VALUE``, the
    ``_`` spelling, or a prefix of it as argparse abbreviates); the last, as argparse keeps it."""
    want = _norm(flag)
    found: int | None = None
    prefix: int | None = None
    for index, word in enumerate(argv):
        if not word.startswith("-"):
            continue
        name = _norm(word)
        if name == want or name.startswith(want + "."):
            found = index
        elif len(name) > 3 and name.startswith("--") and want.startswith(name):
            prefix = index
    return found if found is not None else prefix


def line_of(argv: Sequence[str], arg_lines: Sequence[int], flags: Iterable[str | None],
            default: int) -> tuple[int, str]:
    """The file line and spelling of the first of ``flags`` found on the line, else
    ``default`` and ``""``."""
    for flag in flags:
        if not flag:
            continue
        index = find_word(argv, flag)
        if index is not None and index < len(arg_lines):
            return arg_lines[index], flag
    return default, ""


def words_with(argv: Sequence[str], name: str) -> list[int]:
    """Indexes of the words that use variable ``name`` (``$NAME``, ``${NAME}``, ``$(NAME)``)."""
    spellings = (f"${{{name}}}", f"$({name})", f"${name}")
    out = []
    for index, word in enumerate(argv):
        for spelling in spellings:
            at = word.find(spelling)
            if at < 0:
                continue
            end = at + len(spelling)
            # $NAME must not be the start of a longer name ($NAMEX)
            if spelling == f"${name}" and end < len(word) and (word[end].isalnum()
                                                              or word[end] == "_"):
                continue
            out.append(index)
            break
    return out


def owning_flag(argv: Sequence[str], index: int) -> str | None:
    """The flag a word belongs to: itself when it is one, else the nearest flag before it."""
    for at in range(index, -1, -1):
        word = argv[at]
        if word.startswith("-") and len(word) > 1 and not word[1:2].isdigit():
            return word.partition("=")[0]
    return None
