"""The SGLang source's parser: cgconfig's own flags, or a whole SGLang launch line.

argparse cannot do what this needs: keep every occurrence with its position for provenance,
name the flag in every error with a did-you-mean, and accept a launch line whose other flags are
known to the SGLang release the line is answered for (its flag table,
``cgconfig.engines.load_table("sglang", release)``) or, under
``--ignore-unknown-args``, anything.

A flag is looked up in cgconfig's own table first (one dict lookup: the fast path). Only a flag
cgconfig does not model loads SGLang's table: an engine alias or unique abbreviation of a
modelled flag (``--model``, ``--speculative-algo``) reads as that flag; any other SGLang flag is
consumed with SGLang's arity, its values checked as SGLang's argparse would, and listed under
ignored args. A flag neither knows is an error with a did-you-mean from both tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.flags import (
    ARG,
    REMOVED_FLAGS,
    Flag,
    flag_index,
)
from cgconfig.fields.values import parse_float, parse_human_int, parse_int
from cgconfig.limits import check_size_value, quote, short
from cgconfig.line.split import Arg
from cgconfig.line.tokens import END_OF_OPTIONS, ENGINE_PARSERS, ParserKind, is_option
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.sources.contribution import Settings
from cgconfig.sources.own_flags import is_own_flag

if TYPE_CHECKING:
    from cgconfig.engines.sglang.engine_flags import EngineOption

#: Flags whose value SGLang upper-cases before use (sglang 0.5.23
#: srt/arg_groups/speculative_hook.py:handle_speculative_decoding), so ``eagle`` is ``EAGLE``.
CASE_INSENSITIVE_CHOICES = ("--speculative-algorithm",)

#: Removed flags that only choose the compiler of a ``tc_piecewise`` graph (gone with it in
#: SGLang 0.5.22): a release that still has them reads them, with no effect on the captured
#: sizes (``engines/sglang/tc_piecewise.py``).
TC_COMPILER_FLAGS = ("--cuda-graph-tc-compiler", "--piecewise-cuda-graph-compiler")


def _removed(name: str, token: str, engine: str, release: str) -> bool:
    """Whether ``name`` is a removed flag the line's release refuses too: a release whose table
    still has it reads it (the ``tc_piecewise`` compilers, :data:`TC_COMPILER_FLAGS`; SGLang
    0.5.13's ``--enable-piecewise-cuda-graph``, a ``DeprecatedAction`` that only warns)."""
    if name not in REMOVED_FLAGS or engine != "sglang":  # another engine's line lacks it
        return False
    from cgconfig.engines.sglang.engine_flags import engine_option

    return engine_option(token, engine, release) is None


#: Leading tokens of a launch line that name the program rather than configure it.
_LAUNCHER_MODULES = ("sglang.launch_server", "launch_server")



@dataclass
class ParsedArgs:
    """What one command line said, split by kind, every value with its origin."""

    leaves: list[Leaf] = field(default_factory=list)
    """Config and option values from flags (not from ``--cuda-graph-config``)."""
    config_docs: list[tuple[str, int]] = field(default_factory=list)
    """Raw ``--cuda-graph-config`` values with their argv positions."""
    facts: dict[str, tuple[Any, str]] = field(default_factory=dict)
    """Deployment facts from flags: field → (value, flag)."""
    settings: Settings = field(default_factory=Settings)
    """``--strict``, ``--rules``, ``--disable-rule``, ``--allow-override``."""
    deployment: str | None = None
    """The ``--deployment`` file, if one was named."""
    deprecations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)


def parse_choice(text: str, flag: Flag, where: str, release: str | None = None) -> str:
    """One of the flag's choices, case-sensitive as SGLang is; removed backends explained.
    A backend flag's choices are SGLang ``release``'s (``tc_piecewise`` up to 0.5.21)."""
    from cgconfig.constants import REMOVED_BACKENDS

    choices = flag.choices or ()
    if release is not None and "tc_piecewise" in choices:
        from cgconfig.engines.sglang.tc_piecewise import backends_of

        choices = backends_of(release) if text != "tc_piecewise" else choices
    if text in choices:
        return text
    if flag.name in CASE_INSENSITIVE_CHOICES and text.upper() in choices:
        return text.upper()
    if text in REMOVED_BACKENDS:
        raise InputError(REMOVED_BACKENDS[text], where=where, allowed=choices)
    raise InputError(f"invalid value {quote(text)}", where=where, allowed=choices,
                     suggestion=did_you_mean(text, choices))


#: The graph sizes SGLang's parser takes as any integer (``type=int``) and its resolution plans
#: as given (decode max_bs 0 plans bs ``[0]``; a prefill max_bs below 4 plans no size), in
#: 0.5.16 to 0.5.23 (the recorded corpora of each agree): cgconfig reads them as SGLang
#: does. Where the decode graph is on, its runner refuses a size below 1 at start-up
#: (``cuda_graph_runner.capture``); a prefill list with no size runs eagerly
#: (``model_runner_components/cuda_graph_setup.py``). A prefill ``bs`` list holding 0 is not
#: proven either way, so it stays refused here.
_ANY_INTEGER_SIZES = frozenset(("decode.max_bs", "decode.bs", "prefill.max_bs"))


def _takes_any_integer(flag: Flag) -> bool:
    return any(key in _ANY_INTEGER_SIZES for key, _ in flag.writes)


def _convert(flag: Flag, tokens: list[str], where: str, release: str | None = None) -> Any:
    kind = flag.value
    if kind in ("int", "int_list"):
        # chunked-prefill-size takes -1 (disabled) and the graph sizes of
        # _ANY_INTEGER_SIZES any integer, as SGLang's parser; every other int flag is positive.
        any_integer = flag.name == "--chunked-prefill-size" or _takes_any_integer(flag)
        if kind == "int_list":
            return [parse_int(t, where, allow_negative=any_integer) for t in tokens]
        return parse_int(tokens[0], where, allow_negative=any_integer)
    if kind == "human_int":
        return parse_human_int(tokens[0], where)
    if kind == "float":
        return parse_float(tokens[0], where)
    if kind == "choice":
        return parse_choice(tokens[0], flag, where, release)
    if kind == "str_list":
        return " ".join(tokens)
    return tokens[0]


def _split_launcher(argv: list[str]) -> tuple[list[str], list[str]]:
    """Drop one leading launcher (``python3 -m sglang.launch_server``, ``-m sglang.launch_server``,
    ``sglang serve``, ``launch_server``) from a line: at most one of each word, in that order, so
    ``python python`` is not a launcher (its words stay, and are reported as unexpected)."""
    start = 1 if argv[:1] and argv[0].rsplit("/", 1)[-1] in ("python", "python3") else 0
    word = argv[start:start + 2]
    if (word[:1] == ["-m"] and word[1:] and word[1] in _LAUNCHER_MODULES) or word == ["sglang", "serve"]:
        end = start + 2
    elif word[:1] and word[0] in _LAUNCHER_MODULES:
        end = start + 1
    else:
        end = 0  # a lone "python" launches nothing: its words stay
    return argv[:end], argv[end:]


def sglang_args(argv: list[str], engine: str, release: str,
                positions: list[int] | None = None) -> list[Arg]:
    """The SGLang part's tokens grouped once into runs: each flag with the values SGLang's
    parser gives it (cgconfig's arity for cgconfig's flags, the engine table's ``nargs`` for the
    engine's other flags, the next non-option token for a flag neither knows), each positional
    as a run of its own (``name`` empty), and ``--`` with every later token. A leading launcher
    (``python -m sglang.launch_server``) is no run. Which tokens are options follows the
    line's parser (``engine``'s, as the splitter read the line). Nothing is refused here: the
    reader refuses what it reads, in order. ``release`` is the release of ``engine`` the line
    is answered for: its table gives the engine's flags their arity."""
    where = positions if positions is not None else range(len(argv))
    parser = ENGINE_PARSERS.get(engine, "argparse")
    index = flag_index()
    args: list[Arg] = []
    i = len(_split_launcher(argv)[0])
    while i < len(argv):
        token = argv[i]
        if token == END_OF_OPTIONS:
            end = len(argv)
        elif not is_option(token, parser):
            args.append(Arg("", None, (token,), i, where[i]))
            i += 1
            continue
        else:
            end = _flag_end(argv, i, engine, release, parser, index)
        name, eq, inline = token.partition("=")
        args.append(Arg(name, inline if eq else None, tuple(argv[i + 1:end]), i, where[i]))
        i = end
    return args


def _flag_end(tokens: list[str], i: int, engine: str, release: str, parser: ParserKind,
              index: dict[str, Flag]) -> int:
    """Index after the flag at ``i`` and the values SGLang's parser gives it."""
    token = tokens[i]
    name, eq, _ = token.partition("=")
    flag = index.get(name)
    inline = eq or None
    if flag is None:
        if _removed(name, token, engine, release):
            return i + 1
        from cgconfig.engines.sglang.engine_flags import engine_end, engine_option, modelled_alias

        known = engine_option(token, engine, release)
        alias = None if known is None else modelled_alias(known[0], engine)
        if known is None:  # a flag neither knows: the next token is its value unless a flag
            takes = i + 1 < len(tokens) and not is_option(tokens[i + 1], parser) and not eq
            return i + 2 if takes else i + 1
        if alias is None:
            return engine_end(known, tokens, i, parser)
        flag, inline = alias, known[1]
    if not flag.takes_value or inline is not None:
        return i + 1
    j = i + 1
    while j < len(tokens) and not is_option(tokens[j], parser):
        j += 1
        if flag.value not in ("int_list", "str_list"):
            break
    return j


def parse_argv(argv: list[str], *, release: str, ignore_unknown: bool | None = None,
               engine: str = "sglang", args: list[Arg] | None = None) -> ParsedArgs:
    """Parse ``argv`` into leaves, facts and settings, recording each origin.

    ``engine`` is the engine whose flags the line may carry besides cgconfig's (SGLang unless
    an entry point named another), ``release`` the release of it the line is answered for
    (its table says which of the engine's flags exist); ``args`` are ``argv``'s runs as
    :func:`sglang_args` groups them (the splitter's, grouped once), grouped here when absent.

    ``ignore_unknown`` defaults to whether ``--ignore-unknown-args`` appears in ``argv``. A
    value's position is its index among this source's tokens after any launcher: it orders
    values of one layer. Which tokens are flags is :func:`~cgconfig.line.tokens.is_option`'s
    answer under the line's parser's rules; ``--`` and every token after it are positionals
    (SGLang has none, so its argparse refuses them).
    """
    if ignore_unknown is None:
        ignore_unknown = "--ignore-unknown-args" in argv
    if args is None:
        args = sglang_args(argv, engine, release)
    offset = len(_split_launcher(argv)[0])
    index = flag_index()
    out = ParsedArgs()
    for arg in args:
        name, inline, position = arg.name, arg.inline, arg.at - offset
        if name == END_OF_OPTIONS:  # kept: SGLang's argparse refuses a "--" no positional takes
            out.positionals += [name, *arg.values]
            continue
        if not name:
            out.positionals += arg.values
            continue
        flag = index.get(name)
        if flag is None:
            if _removed(name, argv[arg.at], engine, release):
                raise InputError(f"{short(name)} was removed", where=short(name),
                                 hint=REMOVED_FLAGS[name])
            from cgconfig.engines.sglang.engine_flags import engine_label, engine_option, modelled_alias

            known = engine_option(argv[arg.at], engine, release)
            alias = None if known is None else modelled_alias(known[0], engine)
            if known is None or alias is None:
                _unmodelled(arg, argv[arg.at], known, out, ignore_unknown, engine, release)
                continue
            flag, inline = alias, known[1]
            if not name.startswith(tuple(known[0].options)):  # an abbreviation, not an alias
                out.notes.append(f"{short(name)} read as {flag.name} ({engine_label(engine, release)} "
                                 f"takes a unique prefix of a flag)")
        elif engine != "sglang" and not is_own_flag(flag) and not (
                ignore_unknown and flag.kind == "fact"):
            # An SGLang spelling on another engine's line: refused as that engine's parser
            # refuses any flag it lacks (cgconfig's own flags are read on every line). Under
            # --ignore-unknown-args, and on a Dynamo worker's line, whose own --model-path and
            # --disaggregation-mode share SGLang's names and meaning, a fact is read as before;
            # a graph flag is skipped.
            if ignore_unknown:
                out.ignored.append(name)
                continue
            from cgconfig.engines.sglang.engine_flags import sglang_flag_error

            raise sglang_flag_error(name, flag, engine, release)
        if not flag.takes_value:
            if inline is not None:
                raise InputError(f"{name} is a switch and takes no value (got {quote(inline)})",
                                 where=name)
            values: list[str] = []
        elif inline is not None:
            values = inline.split() if flag.value == "int_list" else [inline]
        else:
            values = list(arg.values)
            if not values:
                what = ("expects one or more values" if flag.value in ("int_list", "str_list")
                        else "expects a value")
                allowed = flag.choices or (flag.metavar or None)
                raise InputError(f"{name} {what}", where=name, allowed=allowed)
        _apply(flag, name, values, position, out, release)
    return out


def _unmodelled(arg: Arg, token: str, known: EngineOption | None, out: ParsedArgs,
                ignore_unknown: bool, engine: str, release: str) -> None:
    """A flag cgconfig does not model: SGLang's own (its values checked as SGLang's argparse
    would), or, under ``--ignore-unknown-args``, anything."""
    from cgconfig.engines.sglang.engine_flags import check_engine_flag, unknown_flag_error

    if known is None and not ignore_unknown:
        raise unknown_flag_error(arg.name, engine, release)
    out.ignored.append(arg.name)
    if known is not None:
        check_engine_flag(known, token, list(arg.values), engine, release)


def _apply(flag: Flag, spelling: str, values: list[str], position: int, out: ParsedArgs,
           release: str) -> None:
    where = spelling
    if flag.kind == "setting":
        _setting(out, flag.name, values)
        return
    if flag.name == "--cuda-graph-config":
        out.config_docs.append((values[0], position))
        return
    converted = None if flag.value == "switch" else _convert(flag, values, where, release)
    if flag.replacement and _deprecated_at(spelling, release):
        out.deprecations.append(
            f"'{spelling}' is deprecated and will be removed in a future release. "
            f"Use '{flag.replacement}' instead."
        )
    for key, const in flag.writes:
        value = converted if const is ARG else const
        if flag.kind == "fact":
            out.facts[key.split(".", 1)[1]] = (value, spelling)
            continue
        layer = flag.layer if flag.layer is not None else Layer.CONVENIENCE
        check_size_value(key, value, spelling)
        out.leaves.append(Leaf(key, value, Origin(layer, spelling, position=position)))


def _deprecated_at(spelling: str, release: str) -> bool:
    """Whether ``release`` warns of ``spelling`` as deprecated: its parser marks it so (a
    ``DeprecatedAction`` from 0.5.14), or it is no flag of that release (cgconfig's own
    spelling of a removed flag). 0.5.13 takes ``--enable-breakable-cuda-graph`` and the other
    legacy graph switches plainly, so the warning would name a flag it lacks."""
    from cgconfig.line.table import load_table

    known = load_table("sglang", release).lookup(spelling)
    return known is None or known.deprecated


def _setting(out: ParsedArgs, name: str, values: list[str]) -> None:
    """Record one setting flag. ``--dialect`` is the splitter's and ``--ignore-unknown-args``
    the parser's own; neither reaches the resolution."""
    settings = out.settings
    if name == "--strict":
        settings.strict = True
    elif name == "--rules":
        settings.rule_files.append(values[0])
    elif name == "--disable-rule":
        settings.disabled_rules.append(values[0])
    elif name == "--allow-override":
        settings.allow_override.append(values[0])
    elif name == "--apply-advice":
        settings.apply_advice.append(values[0])
    elif name == "--deployment":
        if out.deployment is not None:
            raise InputError("--deployment given twice; one deployment file describes the "
                             "machine", where="--deployment",
                             hint="merge the files, or keep the one you mean")
        out.deployment = values[0]
