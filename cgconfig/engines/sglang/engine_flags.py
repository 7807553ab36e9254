"""The engine's own flag table, as the SGLang source's parser consults it.

The engine is SGLang 0.5.23 for an SGLang line (or a line without an entry point); on a
``vllm serve`` or ``trtllm-serve`` line the engine's table claims its flags before this parser
runs, so what reaches it is cgconfig's own flags and, rarely, an abbreviation of an engine flag.
cgconfig's flag table (``cgconfig.fields.flags``) is looked up first; only a flag it lacks comes
here, so a line of cgconfig flags never loads an engine's table. SGLang's table says whether the
engine knows a flag, how many values it takes (argparse ``nargs``) and which values its
argparse accepts (``choices``, ``type``), so an unmodelled flag is consumed exactly as SGLang
would and a value SGLang rejects is an error naming the engine version.
"""

from __future__ import annotations

from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.flags import Flag, flag_index, known_spellings
from cgconfig.limits import short
from cgconfig.line.flag_values import check_values, lookup_option, max_values, min_values
from cgconfig.line.table import EngineFlag, load_table
from cgconfig.line.tokens import ParserKind, is_option

#: A flag SGLang knows and its inline ``=value`` (``None`` when the value follows).
EngineOption = tuple[EngineFlag, str | None]


def engine_option(token: str, engine: str, release: str) -> EngineOption | None:
    """The flag of ``engine`` at ``release`` that ``token`` names (exact, ``--flag=value`` or
    a unique abbreviation where the engine's parser allows it), or ``None`` when that release
    does not know it."""
    if token[:1] != "-":
        return None
    return lookup_option(load_table(engine, release), token)


def engine_label(engine: str, release: str) -> str:
    """The engine and version as messages name them (``SGLang 0.5.20``)."""
    return load_table(engine, release).label


def modelled_alias(flag: EngineFlag, engine: str = "sglang") -> Flag | None:
    """cgconfig's flag for an SGLang flag reached by another spelling (``--model`` is
    ``--model-path``; ``--speculative-algo`` abbreviates ``--speculative-algorithm``).
    cgconfig's flags are SGLang's spellings: another engine's flag is never one of them."""
    if engine != "sglang":
        return None
    index = flag_index()
    return next((index[o] for o in flag.options if o in index), None)


def engine_end(known: EngineOption, tokens: list[str], i: int,
               parser: ParserKind = "argparse") -> int:
    """Index after the engine flag at ``tokens[i]`` and the values its ``nargs`` takes (words
    that are no option, as the line's ``parser`` reads them)."""
    flag, inline = known
    j = i + 1
    if inline is None and flag.takes_value:
        limit = min(j + max_values(flag.nargs, len(tokens)), len(tokens))
        while j < limit and not is_option(tokens[j], parser):
            j += 1
    return j


def check_engine_flag(known: EngineOption, token: str, values: list[str],
                      engine: str, release: str) -> None:
    """Refuse what the engine's parser would refuse of the flag ``token`` names and the
    ``values`` that followed it (:func:`engine_end`'s): a value given to a switch, too few
    values, a value its ``type`` or ``choices`` rejects, naming the engine's version."""
    flag, inline = known
    table = load_table(engine, release)
    spelling = short(token.split("=", 1)[0])
    if inline is not None:
        if not flag.takes_value:
            raise InputError(f"{spelling} is a switch and takes no value ({table.label})",
                             where=spelling)
        check_values(table, flag, [inline])
        return
    if flag.takes_value:
        if len(values) < min_values(flag.nargs):
            raise InputError(f"{spelling} expects a value ({table.label})", where=spelling,
                             allowed=flag.choices)
        check_values(table, flag, values)


#: How a line starts each engine, for the hint on another engine's flag.
_ENTRY_EXAMPLES = {"sglang": "python -m sglang.launch_server", "vllm": "vllm serve MODEL",
                   "trtllm": "trtllm-serve MODEL"}


def unknown_flag_error(name: str, engine: str, release: str) -> InputError:
    """The one-line error for a flag neither ``engine`` at ``release`` nor cgconfig knows,
    with a did-you-mean from both; a flag another release of the engine has is named with the
    release that added or removed it, a flag of another engine (``--gpu-memory-utilization``
    is vLLM's) as such."""
    table = load_table(engine, release)
    spelling = name.split("=", 1)[0]
    if _numeric(spelling):  # -1e3, -1. (and -0.5 on a vLLM line): a value its parser takes for a flag
        return InputError(
            f"unknown flag {short(name)}", where="command line",
            hint=f"{table.label}'s parser reads {short(spelling)} as a flag, not a value: give "
                 f"the value with '=' (--flag={short(spelling)})")
    history = release_history(engine, spelling, release)
    if history:
        return InputError(
            f"unknown flag {short(name)}", where="command line",
            hint=f"{short(spelling)} {history}: {table.label} does not have it (pass "
                 f"--ignore-unknown-args to skip such flags, or --engine-version to name "
                 f"another release)")
    if engine != "sglang" and spelling in known_spellings():  # cgconfig's SGLang spellings
        return sglang_flag_error(name, flag_index().get(spelling), engine, release)
    other = next((e for e in _ENTRY_EXAMPLES if e != engine and load_table(e).lookup(spelling)),
                 None)
    if other is not None:
        return InputError(
            f"unknown flag {short(name)}", where="command line",
            hint=f"{short(spelling)} is a {load_table(other).label} flag, not a {table.label} "
                 f"one: a line starting with `{_ENTRY_EXAMPLES[other]}` takes it")
    if spelling == "-m":  # python -m MODULE with a module that starts no known engine
        from cgconfig.line.entry import PYTHON_MODULES

        return InputError(
            "unknown flag -m: the line's `python -m MODULE` names no engine entry point "
            "cgconfig reads", where="command line", allowed=tuple(PYTHON_MODULES),
            hint="start the line with one of those modules, or `vllm serve MODEL`, "
                 "`sglang serve`, `trtllm-serve MODEL`")
    # On another engine's line, a near miss is that engine's flag: cgconfig's own flags are
    # SGLang's spellings, suggested only when the engine has nothing close.
    suggestion = table.did_you_mean(name) if engine != "sglang" else None
    return InputError(
        f"unknown flag {short(name)}", where="command line",
        suggestion=suggestion or did_you_mean(name, [*known_spellings(), *table.by_spelling]),
        hint=f"neither {table.label} nor cgconfig has it (pass --ignore-unknown-args to skip "
             f"such flags)")


def sglang_flag_error(name: str, flag: Flag | None, engine: str, release: str) -> InputError:
    """The one-line error for one of cgconfig's SGLang spellings (a graph key's flag, an SGLang
    fact, a removed SGLang flag) on a line of ``engine`` at ``release``, whose parser lacks it:
    the same refusal as any other SGLang flag there, with the engine's own spelling of the
    same fact as the did-you-mean when it has one (``--tp-size`` → ``--tensor-parallel-size``)."""
    table = load_table(engine, release)
    spelling = name.split("=", 1)[0]
    own = next((s for s in (flag.name, *flag.aliases) if table.lookup(s) is not None), None) \
        if flag is not None else None
    return InputError(
        f"unknown flag {short(name)}", where="command line",
        suggestion=own or table.did_you_mean(spelling),
        hint=f"{short(spelling)} is a SGLang flag, not a {table.label} one: a line starting "
             f"with `{_ENTRY_EXAMPLES['sglang']}` takes it")


def release_history(engine: str, spelling: str, release: str) -> str:
    """``is new in SGLang 0.5.23`` / ``was removed in SGLang 0.5.20`` for a spelling
    ``engine`` at ``release`` lacks and another supported release has, from the release
    tables; ``""`` when no supported release has it."""
    from cgconfig.line.versions import SUPPORTED, label, version_key

    releases = SUPPORTED[engine]
    having = [v for v in releases if load_table(engine, v).lookup(spelling) is not None]
    if not having or release in having:
        return ""
    key = version_key(release) or ()
    older = [v for v in having if (version_key(v) or ()) < key]
    if older:
        return f"was removed in {label(engine, releases[releases.index(older[-1]) + 1])}"
    return f"is new in {label(engine, having[0])}"


def _numeric(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True
