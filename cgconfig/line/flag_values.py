"""Split an engine's launch-line arguments exactly as that engine's own parser would.

SGLang and vLLM parse with argparse (Python 3.11 rules: exact option strings, ``--flag=value``,
unique prefixes of long options when ``allow_abbrev`` is on, negative numbers as values, ``nargs``
``'+'``/``'*'`` consuming up to the next option); vLLM's ``FlexibleArgumentParser`` first rewrites
underscores to dashes, ``-O3`` to ``--optimization-level 3`` and ``-cc.key=value`` dotted forms
into one JSON value. trtllm-serve parses with click: exact names only, every option takes the next
token. Every flag the engine knows lands in ``modelled`` or ``ignored``; only what the engine would
reject becomes an error naming the engine version.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from cgconfig.errors import InputError, unexpanded_variable_hint
from cgconfig.line.table import EngineFlag, EngineTable, load_table
from cgconfig.line.tokens import (
    END_OF_OPTIONS,
    ParserKind,
    has_negative_number_options,
    is_option,
    parser_kind,
)

_VLLM_OPT_LEVELS = {"0", "1", "2", "3"}
_RULES: dict[tuple[str, str], tuple[ParserKind, bool]] = {}


def table_rules(table: EngineTable) -> tuple[ParserKind, bool]:
    """The table's parser kind and whether it has an option that looks like a negative number
    (argparse's ``_has_negative_number_optionals``): what :func:`is_option` needs (per engine
    version)."""
    key = (table.engine, table.version)
    if key not in _RULES:
        _RULES[key] = (parser_kind(table.parser), has_negative_number_options(table.by_spelling))
    return _RULES[key]


class SplitLine(NamedTuple):
    """A launch line's engine arguments, split by what cgconfig does with them."""

    modelled: list[str]
    """Tokens of flags cgconfig reads, in canonical spelling (``--flag value...``)."""
    ignored: list[str]
    """Tokens of flags the engine knows and cgconfig does not read, as written."""
    errors: list[InputError]
    """What the engine itself would reject: unknown or ambiguous flags, bad arity or choices."""


class _Opt(NamedTuple):
    flag: EngineFlag
    explicit: str | None


def _error(table: EngineTable, what: str, where: str, **kw: object) -> InputError:
    return InputError(f"{what} ({table.label})", where=where, **kw)  # type: ignore[arg-type]


def lookup_option(table: EngineTable, token: str) -> tuple[EngineFlag, str | None] | None:
    """The flag an option token names (exact spelling, ``--flag=value``, or a unique prefix
    where the engine allows abbreviations) and its ``=value``; ``None`` when the engine does
    not know it. An ambiguous prefix is an :class:`InputError` naming the engine."""
    flag = table.lookup(token)
    if flag is not None:
        return flag, None
    name, eq, explicit = token.partition("=")
    if eq and (flag := table.lookup(name)) is not None:
        return flag, explicit
    if not table.allow_abbrev:
        return None
    if token.startswith("--"):
        matches = [(o, explicit if eq else None) for o in table.prefix_matches(name)]
    else:  # argparse also matches "-x<value>" and prefixes of single-dash options
        matches = [(o, token[2:] or None) for o in table.by_spelling if o == token[:2]]
        matches += [(o, None) for o in table.prefix_matches(token) if o != token[:2]]
    if len(matches) > 1:
        names = [o for o, _ in matches]
        listed = ", ".join(names[:4]) + (f", … ({len(names)} flags)" if len(names) > 4 else "")
        raise _error(table, f"ambiguous option: could match {listed}", name)
    if matches:
        option, value = matches[0]
        return table.by_spelling[option], value
    return None


def _classify(table: EngineTable, token: str) -> _Opt | InputError | None:
    """An option (with an ``=value``), an error, or ``None`` for a value/positional token
    (:func:`~cgconfig.line.tokens.is_option` under the table's parser rules)."""
    kind, negative_options = table_rules(table)
    if not is_option(token, kind, negative_number_options=negative_options):
        return None
    try:
        found = lookup_option(table, token)
    except InputError as error:
        return error
    if found is not None:
        return _Opt(*found)
    name = token.partition("=")[0]
    return _error(table, "unknown flag", name, suggestion=table.did_you_mean(name))


def max_values(nargs: int | str | None, rest: int) -> int:
    """The most values an argparse ``nargs`` takes when ``rest`` tokens follow."""
    if nargs is None or nargs == "?":
        return 1
    return nargs if isinstance(nargs, int) else rest


def min_values(nargs: int | str | None) -> int:
    """The fewest values an argparse ``nargs`` needs."""
    if nargs is None or nargs == "+":
        return 1
    return nargs if isinstance(nargs, int) else 0


def check_values(table: EngineTable, flag: EngineFlag, values: list[str],
                 spelling: str | None = None) -> None:
    """Raise the first reason the engine's parser would reject ``values`` for ``flag``
    (named as the line wrote it, ``spelling``, when given: ``--tp_size``, not its long name)."""
    errors: list[InputError] = []
    _check_values(table, flag, values, errors, spelling)
    if errors:
        raise errors[0]


def _check_values(table: EngineTable, flag: EngineFlag, values: list[str], errors: list[InputError],
                  spelling: str | None = None) -> None:
    where = spelling or flag.name
    for value in values:
        if flag.choices is not None and value not in flag.choices:
            errors.append(_error(table, f"invalid choice {value!r}", where, allowed=flag.choices,
                                 suggestion=_close(value, flag.choices)))
        elif flag.type_name in ("int", "float"):
            try:
                int(value) if flag.type_name == "int" else float(value)
            except ValueError:
                errors.append(_error(table, f"expected {flag.type_name}, got {value!r}", where,
                                     hint=unexpanded_variable_hint(value)))
        elif flag.type_name == "loads":
            try:
                json.loads(value)
            except ValueError:
                errors.append(_error(table, f"expected JSON, got {value!r}", where))
        elif flag.type_name == "parse_dataclass" and not value.lstrip().startswith("{"):
            # vLLM validates these as a config dataclass: only a JSON object can pass.
            errors.append(_error(table, f"expected a JSON object, got {value!r}", where))


def _close(value: str, pool: Sequence[str]) -> str | None:
    import difflib

    found = difflib.get_close_matches(value, list(pool), n=1, cutoff=0.6)
    return found[0] if found else None


def normalize_vllm_argv(argv: Sequence[str], origins: list[int] | None = None) -> list[str]:
    """FlexibleArgumentParser.parse_args' token rewrites (underscores, ``-O``), dotted forms kept;
    ``origins``, when given, receives for each token out the index of the word it came from."""
    out: list[str] = []
    for i, token in enumerate(argv):
        if origins is not None:
            origins += [i - 1] * (len(out) - len(origins))
        if token.startswith("--"):
            key, eq, value = token.partition("=")
            head, dot, tail = key[2:].partition(".")
            out.append("--" + head.replace("_", "-") + dot + tail + eq + value)
        elif token.startswith("-O") and token != "-O":
            out += ["--optimization-level", token[3:] if token[2] == "=" else token[2:]]
        elif token == "-O" and i + 1 < len(argv) and argv[i + 1] in _VLLM_OPT_LEVELS:
            out.append("--optimization-level")
        else:
            out.append(token)
    if origins is not None:
        origins += [len(argv) - 1] * (len(out) - len(origins))
    return out


def _nested(keys: list[str], value: object) -> dict[str, object]:
    for key in reversed(keys[1:]):
        value = {key: value}
    return {keys[0]: value}


def _merge(into: dict[str, object], update: dict[str, object]) -> None:
    for key, value in update.items():
        current = into.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            _merge(current, value)
        elif isinstance(value, list) and isinstance(current, list):
            current += value
        else:
            into[key] = value


def _dotted_value(text: str, append: bool) -> object:
    if append:
        return text.split(",")
    try:
        return json.loads(text)
    except ValueError:
        return text


def split_line(engine: str, argv: Sequence[str]) -> SplitLine:
    """Split ``argv`` (the engine's arguments, after its entry point) as ``engine`` would parse it."""
    table = load_table(engine)
    if table.parser.get("kind") == "click":
        return _split_click(table, list(argv))
    tokens = normalize_vllm_argv(argv) if table.parser.get("underscore_dashes") else list(argv)
    result = SplitLine([], [], [])
    dotted: dict[str, dict[str, object]] = {}
    positionals = list(table.positionals)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == END_OF_OPTIONS:  # the rest are positionals
            if not positionals:  # argparse keeps "--" for a positional; none is left to take it
                result.errors.append(_error(table, "unexpected argument", token,
                                            hint="the engine takes no positional argument here"))
            _positionals(table, tokens[i + 1:], positionals, result)
            break
        key = token.partition("=")[0]
        if table.parser.get("dotted_json") and token.startswith("-") and "." in key:
            i = _take_dotted(table, tokens, i, dotted, result)
            continue
        kind = _classify(table, token)
        if isinstance(kind, InputError):
            result.errors.append(kind)
            i += 1
            while i < len(tokens) and _classify(table, tokens[i]) is None:
                i += 1  # argparse reports an unknown flag's values with it ("unrecognized arguments")
            continue
        if kind is None:
            _positionals(table, [token], positionals, result)
            i += 1
            continue
        i = _take_option(table, tokens, i, kind, result)
    for option, value in dotted.items():
        flag = table.by_spelling[option]
        target = result.modelled if flag.modelled else result.ignored
        target += [flag.name if flag.modelled else option, json.dumps(value)]
    return result


def _positionals(table: EngineTable, words: list[str], positionals: list[EngineFlag],
                 result: SplitLine) -> None:
    """Give ``words`` to the engine's positionals in order; a word left over is an error."""
    for word in words:
        if positionals:
            flag = positionals.pop(0)
            (result.modelled if flag.modelled else result.ignored).append(word)
        else:
            result.errors.append(_error(table, "unexpected argument", word,
                                        hint="the engine takes no positional argument here"))


def _take_option(table: EngineTable, tokens: list[str], i: int, opt: _Opt, result: SplitLine) -> int:
    flag, nargs = opt.flag, opt.flag.nargs
    start = i
    i += 1
    if opt.explicit is not None:
        if not flag.takes_value:
            result.errors.append(_error(table, f"ignored explicit argument {opt.explicit!r}", flag.name))
            return i
        values = [opt.explicit]
    else:
        values = []
        want = max_values(nargs, len(tokens))
        while len(values) < want and i < len(tokens) and tokens[i] != "--" \
                and _classify(table, tokens[i]) is None:
            values.append(tokens[i])
            i += 1
        needed = min_values(nargs)
        if len(values) < needed:
            what = "expected one argument" if nargs is None else f"expected {needed} or more argument(s)"
            result.errors.append(_error(table, what, flag.name))
            return i
    _check_values(table, flag, values, result.errors)
    if flag.modelled:
        result.modelled.extend([flag.name, *values])
    else:
        result.ignored.extend(tokens[start:i])
    return i


def _take_dotted(table: EngineTable, tokens: list[str], i: int, dotted: dict[str, dict[str, object]],
                 result: SplitLine) -> int:
    """vLLM's ``-cc.key.sub=value`` / ``--compilation-config.key value`` (``key+`` appends)."""
    token = tokens[i]
    key, eq, value = token.partition("=")
    i += 1
    if not eq:
        if i >= len(tokens):
            result.errors.append(_error(table, "expected one argument", key))
            return i
        value = tokens[i]
        i += 1
    base, *path = key.split(".")
    kind = _classify(table, base)
    if not isinstance(kind, _Opt) or not path or not all(path):
        result.errors.append(kind if isinstance(kind, InputError) else
                             _error(table, "not a dotted config option", key))
        return i
    append = path[-1].endswith("+")
    path[-1] = path[-1].rstrip("+")
    _merge(dotted.setdefault(kind.flag.options[0], {}), _nested(path, _dotted_value(value, append)))
    return i


def _split_click(table: EngineTable, argv: list[str]) -> SplitLine:
    """click: exact names (``--name`` or ``--name=value``), values taken unconditionally."""
    result = SplitLine([], [], [])
    positionals = list(table.positionals)
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == END_OF_OPTIONS:  # click: every later word is an argument
            for word in argv[i + 1:]:
                if positionals:
                    flag = positionals.pop(0)
                    (result.modelled if flag.modelled else result.ignored).append(word)
                else:
                    result.errors.append(_error(table, "unexpected extra argument", word))
            break
        if not is_option(token, "click"):
            if positionals:
                flag = positionals.pop(0)
                (result.modelled if flag.modelled else result.ignored).append(token)
            else:
                result.errors.append(_error(table, "unexpected extra argument", token))
            i += 1
            continue
        name, eq, explicit = token.partition("=")
        found = table.lookup(name)
        if found is None:
            result.errors.append(_error(table, "unknown option", name, suggestion=table.did_you_mean(name)))
            i += 1
            continue
        flag, start = found, i
        i += 1
        values: list[str] = []
        if flag.takes_value:
            if eq:
                values = [explicit]
            elif i < len(argv):
                values = [argv[i]]
                i += 1
            else:
                result.errors.append(_error(table, "option requires an argument", name))
                continue
        elif eq:
            result.errors.append(_error(table, "option does not take a value", name))
            continue
        _check_values(table, flag, values, result.errors)
        if flag.modelled:
            result.modelled.extend([flag.name, *values])
        else:
            result.ignored.extend(argv[start:i])
    return result
