"""An engine flag's values as its own parser checks them: which flag an option token names (exact,
``--flag=value``, a unique prefix where argparse allows abbreviations), how many values its
``nargs`` takes, whether the parser would refuse them (choices, ``int``/``float``, JSON), and
vLLM's ``FlexibleArgumentParser`` token rewrites (underscores to dashes, ``-O3``).

The line itself is split once, by ``line.split.split_argv``; the engines' argv readers and the
entry-point source check each run's values here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from cgconfig.errors import InputError, unexpanded_variable_hint
from cgconfig.line.table import EngineFlag, EngineTable

_VLLM_OPT_LEVELS = {"0", "1", "2", "3"}


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


def normalize_vllm_argv(argv: Sequence[str], origins: list[int] | None = None, *,
                        short_o: str = "optimization_level",
                        dotted_o: bool = False, o_key: str = "mode") -> list[str]:
    """FlexibleArgumentParser.parse_args' token rewrites (underscores, ``-O``), dotted forms kept;
    ``origins``, when given, receives for each token out the index of the word it came from.
    ``short_o``: what the release's ``-O`` is (its table's dest): ``optimization_level``
    (``-O3`` → ``--optimization-level 3``) or ``compilation_config`` (vLLM 0.11.2: ``-O3`` →
    ``-O.mode=3``, ``-O 3`` → ``-O.mode 3``). ``dotted_o``: the release reads ``-O.KEY`` as
    ``-cc.KEY`` (vLLM 0.12.0: ``arg.replace("-O", "-cc", 1)``; from 0.13.0 it is
    ``--optimization-level .KEY``). ``o_key``: the key ``-O<n>`` sets when ``-O`` is
    ``--compilation-config`` (``level`` in vLLM 0.10.2)."""
    out: list[str] = []
    for i, token in enumerate(argv):
        if origins is not None:
            origins += [i - 1] * (len(out) - len(origins))
        if token.startswith("--"):
            key, eq, value = token.partition("=")
            head, dot, tail = key[2:].partition(".")
            out.append("--" + head.replace("_", "-") + dot + tail + eq + value)
        elif short_o == "compilation_config" and token.startswith("-O"):
            if token != "-O" and token[2] != ".":
                out.append(f"-O.{o_key}={token[3:] if token[2] == '=' else token[2:]}")
            elif token == "-O" and i + 1 < len(argv) and argv[i + 1] in _VLLM_OPT_LEVELS:
                out.append(f"-O.{o_key}")
            else:
                out.append(token)
        elif dotted_o and token.startswith("-O."):
            out.append("-cc" + token[2:])
        elif token.startswith("-O") and token != "-O":
            out += ["--optimization-level", token[3:] if token[2] == "=" else token[2:]]
        elif token == "-O" and i + 1 < len(argv) and argv[i + 1] in _VLLM_OPT_LEVELS:
            out.append("--optimization-level")
        else:
            out.append(token)
    if origins is not None:
        origins += [len(argv) - 1] * (len(out) - len(origins))
    return out
