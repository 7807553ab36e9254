"""Split a command line once into each owner's tokens, and name its dialect.

Owners are the input dialects (``sglang``, which is cgconfig's own flag set, ``vllm``,
``trtllm``) and the host, the program running cgconfig (the CLI's ``--output``...). A dialect's
flags are known from its :class:`DialectFlags` table (flag → arity); a token no table claims
belongs to ``sglang``, whose own parser reads it. Only the chosen dialect's tokens are carved
out: a vLLM flag on an SGLang line stays with SGLang, which reports it as unknown.

``--dialect NAME`` is read here and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cgconfig.errors import InputError
from cgconfig.fields.constants import DIALECTS

#: How many values a flag takes: 0 (a switch), 1, or ``"+"`` (every following non-flag token).
Arity = int | str


@dataclass(frozen=True)
class DialectFlags:
    """One owner's flag table: exact spellings and spelling prefixes (``-cc.``), with arity.

    The per-engine flag tables (every upstream flag, as data) plug in here: a dialect's table
    grows, the splitter does not change.
    """

    owner: str
    flags: dict[str, Arity]
    prefixes: tuple[str, ...] = ()
    """Spelling prefixes that take one value (``-cc.mode=3``)."""

    def arity(self, name: str) -> Arity | None:
        """The arity of a flag spelling, or ``None`` when this table does not claim it."""
        if name in self.flags:
            return self.flags[name]
        if name.startswith(self.prefixes) and self.prefixes:
            return 1
        return None


@dataclass
class Part:
    """The tokens one owner got, each with its index in the original command line."""

    tokens: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)

    def add(self, tokens: list[str], start: int) -> None:
        """Append consecutive tokens that began at ``start`` in the command line."""
        self.tokens += tokens
        self.positions += range(start, start + len(tokens))


@dataclass
class ArgvSplit:
    """A command line split by owner, and the dialect it is written in."""

    dialect: str
    dialect_named: bool
    """Whether ``--dialect`` named it (rather than its flags)."""
    parts: dict[str, Part]


_NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d+)?")


def _is_flag(token: str) -> bool:
    return token[:1] == "-" and _NEGATIVE_NUMBER.fullmatch(token) is None


def _take(argv: list[str], i: int, name: str, inline: str | None, arity: Arity) -> int:
    """Index after the flag at ``i`` and its values."""
    if arity == 0 or inline is not None:
        return i + 1
    j = i + 1
    limit = len(argv) if arity == "+" else min(j + int(arity), len(argv))
    while j < limit and not _is_flag(argv[j]):
        j += 1
    return j


def split_argv(argv: list[str], dialects: tuple[DialectFlags, ...],
               host: DialectFlags | None = None) -> ArgvSplit:
    """Walk ``argv`` once: each token goes to the owner whose table claims its flag."""
    segments: list[tuple[str, int, list[str]]] = []
    named: str | None = None
    seen: list[str] = []
    tables = ((host,) if host else ()) + dialects
    exact = {name: (t.owner, arity) for t in reversed(tables) for name, arity in t.flags.items()}
    prefixed = [(p, t.owner) for t in tables for p in t.prefixes]
    i = 0
    while i < len(argv):
        token = argv[i]
        if not _is_flag(token):
            segments.append(("sglang", i, [token]))
            i += 1
            continue
        name, eq, inline_text = token.partition("=")
        inline = inline_text if eq else None
        if name == "--dialect":
            if inline is None and i + 1 >= len(argv):
                raise InputError("--dialect expects a value", where="--dialect",
                                 allowed=DIALECTS)
            named = inline if inline is not None else argv[i + 1]
            i += 1 if inline is not None else 2
            continue
        owner, end = "sglang", i + 1
        claim = exact.get(name) or next(((o, 1) for p, o in prefixed if name.startswith(p)), None)
        if claim is not None:
            owner, end = claim[0], _take(argv, i, name, inline, claim[1])
            if owner not in seen and (host is None or owner != host.owner):
                seen.append(owner)
        segments.append((owner, i, argv[i:end]))
        i = end
    dialect = named if named is not None else (seen[0] if seen else "sglang")
    parts: dict[str, Part] = {}
    for owner, start, tokens in segments:
        keep = owner if owner in (dialect, "sglang") or (host and owner == host.owner) \
            else "sglang"
        parts.setdefault(keep, Part()).add(tokens, start)
    return ArgvSplit(dialect=dialect, dialect_named=named is not None, parts=parts)
