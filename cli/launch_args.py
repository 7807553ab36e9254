"""What a launch script hands the server: the user's own flags, minus what cgconfig owns.

``cgconfig resolve --emit env`` adds these lines to the plan's variables:

* ``CGCONFIG_SERVER_ARGS``: the launch line without cgconfig's own flags (output, checks, rule
  packs, ``--deployment``, ``--dialect``, and the facts no server has, such as
  ``--gpu-memory-gib``) and without the graph flags that the plan's flags replace; every other
  token is passed on untouched, in order;
* ``CGCONFIG_VLLM_ARGS``: vLLM's ``--compilation-config`` for the plan, merged into the keys of
  the user's own compilation config that have nothing to do with CUDA graphs;
* ``CGCONFIG_CUDA_GRAPH_CONFIG``: the plan's SGLang ``--cuda-graph-config`` JSON on its own,
  usable as ``--cuda-graph-config "$CGCONFIG_CUDA_GRAPH_CONFIG"`` without ``eval``.

Every value is quoted with :func:`shlex.quote`, so the lines are safe to ``source`` in bash and
POSIX sh; the ``*_ARGS`` values are shell words, split with ``eval "set -- $VAR"``.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING, Any

from cgconfig.cli.options import CLI_FLAGS, HOST_FLAGS
from cgconfig.engines.tokens import is_option
from cgconfig.fields.flags import CONFIG_FLAGS, OPTION_FLAGS, SETTING_FLAGS, Flag, flag_index
from cgconfig.plan import Plan

if TYPE_CHECKING:
    from cgconfig.sources.split import Arg, ArgvSplit

#: Fact flags that no server has: cgconfig reads from them what SGLang or vLLM learns from the
#: GPU, the model's config or the environment. A launch script must not pass them on.
CGCONFIG_ONLY_FACTS = ("--gpu-memory-gib", "--gpu-sm", "--gpu-count", "--model-arch",
                      "--is-multimodal", "--use-mla", "--model-context-length",
                      "--sglang-memory-saver-cuda-graph")
#: vLLM-dialect flags that only cgconfig reads (the capability vLLM's worker would compute).
CGCONFIG_ONLY_VLLM = {"--cudagraph-support": True, "--vllm-attention-backend": True}
#: vLLM graph flags that the plan's ``--compilation-config`` replaces → whether they take a
#: value (``--cudagraph-capture-sizes`` takes a list).
VLLM_GRAPH_FLAGS = {"--cudagraph-capture-sizes": True, "--max-cudagraph-capture-size": True}
VLLM_CC_FLAGS = ("--compilation-config", "-cc")


#: cgconfig's own settings and the CLI's flags: never a server's.
META_FLAGS: tuple[Flag, ...] = SETTING_FLAGS + CLI_FLAGS


def _owned_sglang() -> dict[str, Flag]:
    owned = {name: flag for name, flag in flag_index().items()
             if flag in CONFIG_FLAGS + OPTION_FLAGS + META_FLAGS}
    owned.update({spelling: flag for flag in CLI_FLAGS for spelling in (flag.name, *flag.aliases)})
    owned.update({name: flag_index()[name] for name in CGCONFIG_ONLY_FACTS})
    return owned


def _skip(tokens: list[str], i: int, takes_value: bool, is_list: bool) -> int:
    """Index after the flag at ``i`` and its values."""
    if "=" in tokens[i] or not takes_value:
        return i + 1
    i += 1
    if is_list:
        while i < len(tokens) and not is_option(tokens[i]):
            i += 1
        return i
    return i + 1 if i < len(tokens) and not is_option(tokens[i]) else i


def _vllm_entry(argv: list[str]) -> int | None:
    """Where ``vllm serve`` starts in ``argv``, if it does."""
    return next((i for i in range(len(argv) - 1) if argv[i] == "vllm" and argv[i + 1] == "serve"),
                None)


def server_argv(argv: list[str], dialect: str) -> list[str]:
    """``argv`` without the flags cgconfig owns for ``dialect`` (see the module doc). On a
    ``vllm serve`` line the flags before the entry point are cgconfig's (``--device hip``,
    ``--gpu-sm``): only its ``VAR=value`` words are kept there."""
    owned = _owned_sglang()
    kept: list[str] = []
    i = 0
    entry = _vllm_entry(argv) if dialect == "vllm" else None
    if entry is not None:
        kept = [w for w in argv[:entry] if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        i = entry
    while i < len(argv):
        token = argv[i]
        name = token.split("=", 1)[0]
        if name in owned and (dialect == "sglang" or owned[name] in META_FLAGS
                              or name in CGCONFIG_ONLY_FACTS):
            flag = owned[name]
            i = _skip(argv, i, flag.takes_value, flag.value == "int_list")
        elif dialect == "vllm" and (name in CGCONFIG_ONLY_VLLM or name in VLLM_GRAPH_FLAGS):
            i = _skip(argv, i, True, name == "--cudagraph-capture-sizes")
        elif dialect == "vllm" and (name in VLLM_CC_FLAGS
                                    or name.startswith(("-cc.", "--compilation-config."))):
            i = _skip(argv, i, True, False)
        else:
            kept.append(token)
            i += 1
    return kept


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def line_split(line: ArgvSplit | list[str]) -> ArgvSplit:
    """The command line as the resolution split it; a bare argv (a test's, a script's) is
    split here, once, the same way."""
    if isinstance(line, list):
        from cgconfig.sources.command_line import split_command_line

        return split_command_line(line, HOST_FLAGS)
    return line


def _args(split: ArgvSplit, owner: str) -> list[Arg]:
    part = split.parts.get(owner)
    return part.args if part is not None else []


def user_compilation_config(line: ArgvSplit | list[str]) -> dict[str, Any]:
    """The user's vLLM compilation config: JSON documents, then dotted keys, merged in order
    (from the vLLM flags the splitter gave the dialect)."""
    split = line_split(line)
    docs: dict[str, Any] = {}
    dotted: list[tuple[str, Any]] = []
    for arg in _args(split, "vllm"):
        is_cc = arg.name in VLLM_CC_FLAGS
        if not (is_cc or arg.name.startswith(("-cc.", "--compilation-config."))):
            continue
        given = arg.given
        value = given[0] if given else ""
        if is_cc:
            doc = _json_or_text(value)
            if isinstance(doc, dict):
                docs.update(doc)
        else:
            dotted.append((arg.name.split(".", 1)[1], _json_or_text(value)))
    for key, value in dotted:  # dotted keys win, as in cgconfig's vLLM dialect
        node = docs
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return docs


def user_trtllm_options(line: ArgvSplit | list[str]) -> dict[str, Any]:
    """The user's trtllm-serve options file (the last one the line names; read and checked
    already by the resolution), for ``--emit trtllm`` to keep its non-graph keys."""
    from cgconfig.docio import read_document
    from cgconfig.sources.dialect_flags import TRTLLM_FLAGS

    names = {*TRTLLM_FLAGS.flags, "--config"}  # trtllm-serve's --config names the same file
    path, flag = None, ""
    for arg in _args(line_split(line), "trtllm"):
        if arg.name in names and arg.given:
            path, flag = arg.given[0], arg.name
    if path is None:
        return {}
    data = read_document(path, flag)[0]
    return data if isinstance(data, dict) else {}


def vllm_launch_args(line: ArgvSplit | list[str], plan: Plan) -> tuple[list[str], list[str]]:
    """The plan's ``--compilation-config`` merged into the user's non-graph keys, and notes on
    what vLLM cannot express."""
    from cgconfig.emit import vllm_args

    return vllm_args(plan, user_compilation_config(line))


def launch_env_lines(line: ArgvSplit | list[str],
                     plan: Plan) -> tuple[list[str], list[str], list[str]]:
    """The extra ``export`` lines of ``--emit env``, what vLLM cannot express and notes on the
    launch line, both for stderr, from the line as the resolution split it. On a line with an
    engine entry point (``vllm serve M ...``), the server arguments are the engine's: the
    entry point, its ``VAR=value`` prefixes and any wrapper before it are left out."""
    from cgconfig.emit import sglang_config, sglang_words

    split = line_split(line)
    dialect, words, prefix_notes = split.dialect, split.words, []
    if split.entry is not None:  # the server command is the launch script's: pass its arguments
        words = split.entry.argv
        if dialect == "vllm":
            from cgconfig.engines.split import normalize_vllm_argv

            words = normalize_vllm_argv(words)
        if split.entry.env:
            prefix_notes.append("the line's VAR=value prefixes are not server arguments: set "
                                f"{', '.join(split.entry.env)} in the launch script's environment")
    vllm, notes = vllm_launch_args(split, plan)
    graph_config = (json.dumps(sglang_config(plan), separators=(",", ":"))
                    if sglang_words(plan)[0] else "")
    lines = [
        f"export CGCONFIG_SERVER_ARGS={shlex.quote(shlex.join(server_argv(words, dialect)))}",
        f"export CGCONFIG_VLLM_ARGS={shlex.quote(shlex.join(vllm))}",
        f"export CGCONFIG_CUDA_GRAPH_CONFIG={shlex.quote(graph_config)}",
    ]
    return lines, notes if dialect == "vllm" else [], prefix_notes
