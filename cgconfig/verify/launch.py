"""The launch line a log implies: the engine's printed arguments turned back into flags.

Only flags that change graph decisions in cgconfig's engine table (``graph_effect``) and whose
value differs from the table's default are written; SGLang's resolved ``cuda_graph_config``
(0.5.23 prints it inside ``server_args={...}``) is what the plan is compared with, so it is not
fed back in. Keys the release's table does not know are listed, not guessed.
"""

from __future__ import annotations

import json
from typing import Any

from cgconfig.line.plugins import part
from cgconfig.line.tokens import ENGINE_PARSERS, ParserKind, is_option

_NOT_INPUTS = frozenset({"cuda_graph_config", "model_tag"})


def launch_entry(engine: str) -> list[str]:
    """The words that start ``engine``'s server (its plug-in part ``launch_entry``)."""
    return list(part(engine, "launch_entry"))


def argv_from_args(engine: str, release: str, args: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The launch argv for ``args`` and the argument names the table of ``release`` (the one the
    log is judged by) does not know. The release's own table: a 0.5.13 dump's
    ``enable_breakable_cuda_graph`` is a flag of 0.5.13, not of 0.5.23, and each release has
    its own defaults to leave out."""
    from cgconfig.line import load_table

    table = load_table(engine, release)
    by_dest = {flag.dest: flag for flag in table.flags if flag.options}
    model, consumed = part(engine, "launch_model")(args)
    argv = [*launch_entry(engine), *model]
    unknown: list[str] = []
    for key, value in args.items():
        if key in _NOT_INPUTS or key in consumed:
            continue
        spelling = "--" + key.replace("_", "-")
        flag = table.lookup(spelling) or by_dest.get(key)
        if flag is None:
            # An older release's flag the engine still reads another way, as its words, or
            # a name nobody knows (listed, not guessed).
            words = part(engine, "old_spelling")(spelling, value)
            if words is None:
                unknown.append(key)
            else:
                argv.extend(words)
            continue
        if value is None or value == flag.default:
            continue
        if not (flag.graph_effect or flag.modelled) and \
                part(engine, "old_spelling")(spelling, value) is None:
            # Not a graph flag, and no spelling cgconfig reads: a legacy switch the table
            # calls ignored (SGLang 0.5.13's --enable-breakable-cuda-graph, read by cgconfig's
            # own flags) is written as printed, the release's parser has it.
            continue
        if flag.nargs == 0 and not isinstance(value, bool):
            # A switch printed with a value it cannot take (``'enforce_eager': 'yes'``): left
            # out and named, never turned into a stray positional that aborts the line.
            unknown.append(f"{key}={str(value)[:20]!r}")
            continue
        argv.extend(flag_words(flag.options[0], flag.nargs, value, ENGINE_PARSERS[engine]))
    return argv, unknown


def flag_words(option: str, nargs: int | str | None, value: Any,
               parser: ParserKind = "argparse") -> list[str]:
    """``option`` with ``value`` as the parser reads it back (a switch, a list, an inline
    value that looks like an option)."""
    if isinstance(value, bool):
        if nargs == 0:
            return [option] if value else []
        return [option, "true" if value else "false"]
    if isinstance(value, (list, tuple)):
        if not value:
            return []
        if nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1):
            return [option, *(_text(v) for v in value)]
        return [option, ",".join(_text(v) for v in value)]
    text = _text(value)
    # A value the parser would read as an option (``-1.``, ``-x``) goes inline, as argparse
    # and click both take it: ``--flag=-x``.
    return [f"{option}={text}"] if is_option(text, parser) else [option, text]


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)
