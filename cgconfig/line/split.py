"""Split a command line once into each owner's tokens, and name its dialect.

Owners are the input dialects (``sglang``, which is cgconfig's own flag set, ``vllm``,
``trtllm``) and the host, the program running cgconfig (the CLI's ``--output``...). A dialect's
flags are known from its :class:`DialectFlags` table (flag → arity); a token no table claims
belongs to ``sglang``, whose own parser reads it. Only the chosen dialect's tokens are carved
out: a vLLM flag on an SGLang line stays with SGLang, which reports it as unknown.

``--dialect NAME`` is read here and nowhere else. Which words are options is
:func:`cgconfig.line.tokens.is_option`'s answer for the line's parser (argparse, vLLM's
``FlexibleArgumentParser``, click), the one reading every parser of the line shares; ``--``
ends the options (every later word goes to SGLang's parser, which reads them as positionals).
Each claimed flag is kept with its values as an :class:`Arg`, which the owner's reader (and
``--emit``, after the plan) takes as given instead of walking the tokens again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import short
from cgconfig.line import registry
from cgconfig.line.tokens import END_OF_OPTIONS, ParserKind, is_option, takes_any_value

if TYPE_CHECKING:
    from cgconfig.line.entry import EntryPoint
    from cgconfig.line.versions import EngineVersion

#: How many values a flag takes: 0 (a switch), 1, or ``"+"`` (every following non-flag token).
Arity = int | str


class DialectFlags(NamedTuple):
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


class Arg(NamedTuple):
    """One run of a split line: a flag as its owner's parser takes it (the spelling before any
    ``=``, the inline ``=value``, the values that followed) or, with ``name`` empty, one
    positional; and where its first token is."""

    name: str
    inline: str | None
    values: tuple[str, ...]
    at: int
    """Index of the flag's token among its owner's tokens."""
    position: int
    """Index of the flag's token in the command line."""

    @property
    def given(self) -> list[str]:
        """Its values: the inline one, or those that followed."""
        return [self.inline] if self.inline is not None else list(self.values)

    @property
    def end(self) -> int:
        """Index after its last token among its owner's tokens."""
        return self.at + 1 + len(self.values)


@dataclass
class Part:
    """The tokens one owner got, each with its index in the original command line; a claimed
    owner's tokens also as :class:`Arg` runs (flag and values), in order."""

    tokens: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    args: list[Arg] = field(default_factory=list)
    """The tokens as runs: a claimed owner's by its table's arity, here; the SGLang part's by
    SGLang's parser's arity (``engines/sglang/argv.sglang_args``, once per split, in
    ``command_line.split_command_line``)."""

    def add(self, tokens: list[str], start: int) -> None:
        """Append consecutive tokens that began at ``start`` in the command line."""
        self.tokens += tokens
        self.positions += range(start, start + len(tokens))

    def add_arg(self, tokens: list[str], start: int) -> None:
        """Append one claimed flag and its values, beginning at ``start``."""
        name, eq, inline = tokens[0].partition("=")
        self.args.append(Arg(name, inline if eq else None, tuple(tokens[1:]), len(self.tokens),
                             start))
        self.add(tokens, start)


@dataclass
class ArgvSplit:
    """A command line split by owner, and the dialect it is written in."""

    dialect: str
    dialect_named: bool
    """Whether ``--dialect`` named it (rather than its flags)."""
    parts: dict[str, Part]
    entry: EntryPoint | None = None
    """The engine entry point the line starts the server with (``vllm serve``...), if any."""
    model: str | None = None
    """The model positional of ``vllm serve MODEL`` / ``trtllm-serve MODEL``."""
    wrapper: list[str] = field(default_factory=list)
    """Words before the entry point that are neither ``VAR=value`` nor cgconfig's (a
    ``docker run ...`` wrapper): not read."""
    line: list[str] = field(default_factory=list)
    """The command line's words as written."""
    origins: list[int | None] = field(default_factory=list)
    """For each of :attr:`words`, the index in :attr:`line` of the word it was read from
    (None for a word the entry point wrote: ``sglang serve MODEL``'s ``--model-path``)."""
    engine_start: int = 0
    """Index in :attr:`words` where the entry point's engine arguments begin (0 without one)."""
    words: list[str] = field(default_factory=list)
    """The words split, which the parts' positions index (on an entry-point line: cgconfig's
    words before it, then the engine's arguments as its parser reads them)."""
    engine_version: EngineVersion | None = None
    """The release the line is answered for, chosen from its raw words before any release's
    table read them (``command_line.split_command_line``)."""


def _take(argv: list[str], i: int, inline: str | None, arity: Arity,
          parser: ParserKind) -> int:
    """Index after the flag at ``i`` and its values (click takes the next words whatever
    they are; argparse only words that are no option)."""
    if arity == 0 or inline is not None:
        return i + 1
    j = i + 1
    limit = len(argv) if arity == "+" else min(j + int(arity), len(argv))
    if takes_any_value(parser) and arity != "+":
        return limit
    while j < limit and not is_option(argv[j], parser):
        j += 1
    return j


_Claims = tuple[dict[str, tuple[str, Arity]], tuple[tuple[str, str], ...], tuple[str, ...]]
#: Keyed by the tables' ids, the value holding the tables themselves: a table in the cache
#: stays alive, so its id is never another table's. (Keyed by the id of the tuple holding
#: them, a fresh tuple could take a freed one's id and get another line's claims.)
_CLAIMS: dict[tuple[int, ...], tuple[tuple[DialectFlags | None, ...], _Claims]] = {}
_CLAIMS_LIMIT = 64


def _claims(dialects: tuple[DialectFlags, ...], host: DialectFlags | None) -> _Claims:
    """Spelling → (owner, arity), (prefix, owner) pairs and every prefix; the host, then the
    first dialect, wins a spelling. Built once per set of tables (they are cached objects)."""
    tables_key = (host, *dialects)
    key = tuple(map(id, tables_key))
    cached = _CLAIMS.get(key)
    if cached is None:
        tables = ((host,) if host else ()) + dialects
        exact = {n: (t.owner, a) for t in reversed(tables) for n, a in t.flags.items()}
        prefixed = tuple((p, t.owner) for t in tables for p in t.prefixes)
        if len(_CLAIMS) >= _CLAIMS_LIMIT:  # tables built per call (an API caller's): bounded
            _CLAIMS.clear()
        cached = _CLAIMS[key] = tables_key, (exact, prefixed, tuple(p for p, _ in prefixed))
    return cached[1]


def split_argv(argv: list[str], dialects: tuple[DialectFlags, ...],
               host: DialectFlags | None = None, *, dialect: str | None = None,
               also_kept: tuple[str, ...] = (), parser: ParserKind = "argparse",
               release: str | None = None,
               unclaimed: Callable[[str, DialectFlags | None, str, str | None], None] | None = None
               ) -> ArgvSplit:
    """Walk ``argv`` once: each token goes to the owner whose table claims its flag.

    ``dialect`` is the one an entry point chose (``--dialect`` may only repeat it);
    ``also_kept`` are owners besides the dialect and the host whose tokens stay theirs
    (an engine table's flags that the dialect's source does not read); ``parser`` is whose
    rules say which words are options (the entry point's engine; argparse without one);
    ``release`` the release of the line's engine whose table knows its flags (the newest
    SGLang one when the line's release is not yet chosen: a line without an entry point);
    ``unclaimed`` is called with each ``--`` flag no table claims, the host, the line's engine
    and release (the sources refuse there an abbreviation of cgconfig's own flags)."""
    segments: list[tuple[str, int, int]] = []
    named: str | None = None
    seen: list[str] = []
    host_owner = host.owner if host is not None else None
    exact, prefixed, prefixes = _claims(dialects, host)
    i = 0
    while i < len(argv):
        token = argv[i]
        if not is_option(token, parser):
            i += 1
            continue
        if token == END_OF_OPTIONS:
            break  # the rest are positionals: SGLang's parser reads them from here on
        name, eq, inline_text = token.partition("=")
        inline = inline_text if eq else None
        if name == "--dialect":
            if inline is None and i + 1 >= len(argv):
                raise InputError("--dialect expects a value", where="--dialect",
                                 allowed=registry.names())
            named = inline if inline is not None else argv[i + 1]
            if not named.strip():
                raise InputError("--dialect expects a value, got an empty one",
                                 where="--dialect", allowed=registry.names())
            if named not in registry.names():  # refused here: no table stands in for it
                raise InputError(f"unknown dialect {short(named)!r}", where="--dialect",
                                 allowed=registry.names(),
                                 suggestion=did_you_mean(named, registry.names()))
            end = i + (1 if inline is not None else 2)
            segments.append(("", i, end))
            i = end
            continue
        claim = exact.get(name)
        if claim is None and name.startswith(prefixes):
            claim = next((o, 1) for p, o in prefixed if name.startswith(p))
        if claim is None and host is not None and _attached_short(name, host):
            claim = (host.owner, 0)  # -ojson: the host's -o with its value attached
        if claim is None:
            if unclaimed is not None and name.startswith("--"):
                unclaimed(name, host, dialect or named or registry.host(), release)
            i += 1
            continue
        end = _take(argv, i, inline, claim[1], parser)
        if claim[0] not in seen and claim[0] != host_owner:
            seen.append(claim[0])
        segments.append((claim[0], i, end))
        i = end
    if dialect is not None and named is not None and named != dialect:
        raise InputError(f"--dialect {named} contradicts the line's entry point ({dialect})",
                         where="--dialect", hint="drop --dialect: the entry point names it")
    chosen = dialect or named or (seen[0] if seen else registry.host())
    return ArgvSplit(dialect=chosen, dialect_named=named is not None or dialect is not None,
                     parts=_parts(argv, segments, (chosen, host_owner, *also_kept)),
                     words=list(argv))


def claimed_args(tokens: list[str], positions: list[int], table: DialectFlags,
                 parser: ParserKind = "argparse") -> list[Arg]:
    """The :class:`Arg` runs of tokens one table claimed, as :func:`split_argv` takes them
    (for a caller holding only a part's tokens); a token the table does not claim is a run of
    its own, for the reader to refuse."""
    part = Part()
    i = 0
    while i < len(tokens):
        name, eq, inline = tokens[i].partition("=")
        arity = table.arity(name)
        end = i + 1 if arity is None else _take(tokens, i, inline if eq else None, arity, parser)
        part.add_arg(tokens[i:end], positions[i])
        i = end
    return part.args


def _attached_short(name: str, host: DialectFlags) -> bool:
    """Whether ``name`` is one of the host's short options with its value attached
    (``-ojson`` is ``-o json``, as argparse reads it)."""
    return (len(name) > 2 and name[1] != "-" and host.flags.get(name[:2]) == 1)


def _parts(argv: list[str], claimed: list[tuple[str, int, int]],
           kept: tuple[str | None, ...]) -> dict[str, Part]:
    """Tokens per owner: claimed runs go to their owner when it is kept (the chosen dialect,
    the host), to nobody when the owner is ``""`` (``--dialect``), else back to SGLang."""
    parts: dict[str, Part] = {}
    done = 0
    for owner, start, end in claimed:
        if start > done:
            parts.setdefault(registry.host(), Part()).add(argv[done:start], done)
        if owner:
            keep = owner if owner in kept else registry.host()
            part = parts.setdefault(keep, Part())
            if keep == registry.host():
                part.add(argv[start:end], start)
            else:
                part.add_arg(argv[start:end], start)
        done = end
    if done < len(argv):
        parts.setdefault(registry.host(), Part()).add(argv[done:], done)
    return parts
