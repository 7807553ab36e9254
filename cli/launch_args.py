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

Every value is quoted with :func:`cgconfig.emit.shell_quote` (:func:`shlex.quote`, control
characters as ``printf`` escapes), so the lines are safe to ``source`` in bash and POSIX sh and
give back every value exactly; the ``*_ARGS`` values are shell words, split with ``eval "set -- $VAR"``.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING, Any

from cgconfig.cli.options import CLI_FLAGS, HOST_FLAGS
from cgconfig.fields.flags import CONFIG_FLAGS, OPTION_FLAGS, SETTING_FLAGS, Flag, flag_index
from cgconfig.plan import Plan

if TYPE_CHECKING:
    from cgconfig.line.split import Arg, ArgvSplit

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


def _cgconfig_owns(name: str, owned: dict[str, Flag], dialect: str) -> bool:
    """Whether the flag spelled ``name`` is cgconfig's on a ``dialect`` line, not the server's."""
    if name in owned:
        return dialect == "sglang" or owned[name] in META_FLAGS or name in CGCONFIG_ONLY_FACTS
    return dialect == "vllm" and (name in CGCONFIG_ONLY_VLLM or name in VLLM_GRAPH_FLAGS
                                  or name in VLLM_CC_FLAGS
                                  or name.startswith(("-cc.", "--compilation-config.")))


def _kept(split: ArgvSplit) -> list[int]:
    """The positions in ``split.words`` of the server's words: every owner's runs (the
    splitter's, flag and values) but those cgconfig owns; the CLI's own flags and
    ``--dialect`` (no part) never."""
    owned = _owned_sglang()
    kept: list[int] = []
    for owner, part in split.parts.items():
        if owner == HOST_FLAGS.owner:
            continue
        dropped = {p for arg in part.args if arg.name and _cgconfig_owns(arg.name, owned,
                                                                          split.dialect)
                   for p in part.positions[arg.at:arg.end]}
        kept += (p for p in part.positions if p not in dropped)
    return sorted(kept)


def server_argv(line: ArgvSplit | list[str]) -> list[str]:
    """The server's arguments (see the module doc), as the engine's parser reads them: on a
    line with an entry point (``vllm serve M ...``) the engine's arguments after it, the model
    first; otherwise the whole line."""
    split = line_split(line)
    words = [split.words[p] for p in _kept(split) if p >= split.engine_start]
    return [split.model, *words] if split.model is not None else words


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def server_line(argv: list[str]) -> list[str]:
    """``argv`` without the words cgconfig owns, as written: on a line with an entry point its
    ``VAR=value`` words and the entry point stay, cgconfig's words before it go (what a
    launch script runs)."""
    split = line_split(argv)
    entry = split.entry
    prefix: list[str] = []
    if entry is not None:
        prefix = [w for w in split.line[:entry.program_at] if _ASSIGNMENT.match(w)]
        prefix += split.line[entry.program_at:entry.args_at]
        if split.model is not None:
            prefix.append(split.model)
    seen: set[int] = set()
    words: list[str] = []
    for p in _kept(split):
        if p < split.engine_start:
            continue
        origin = split.origins[p]
        if origin is None:  # a word the entry point wrote (sglang serve's --model-path)
            words.append(split.words[p])
        elif origin not in seen:  # -O3 is two words to vLLM's parser, one as written
            seen.add(origin)
            words.append(split.line[origin])
    return prefix + words


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
    from cgconfig.engines.trtllm.flags import DIALECT_FLAGS as TRTLLM_FLAGS

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
    from cgconfig.engines.vllm.emit import vllm_args

    return vllm_args(plan, user_compilation_config(line))


def launch_env_lines(line: ArgvSplit | list[str],
                     plan: Plan) -> tuple[list[str], list[str], list[str]]:
    """The extra ``export`` lines of ``--emit env``, what vLLM cannot express and notes on the
    launch line, both for stderr, from the line as the resolution split it. On a line with an
    engine entry point (``vllm serve M ...``), the server arguments are the engine's: the
    entry point, its ``VAR=value`` prefixes and any wrapper before it are left out."""
    from cgconfig.emit import host_words, shell_quote
    from cgconfig.engines.sglang.emit import sglang_config

    split = line_split(line)
    dialect, prefix_notes = split.dialect, []
    if split.entry is not None and split.entry.env:  # the server command is the script's
        prefix_notes.append("the line's VAR=value prefixes are not server arguments: set "
                            f"{', '.join(split.entry.env)} in the launch script's environment")
    vllm, notes = vllm_launch_args(split, plan)
    graph_config = (json.dumps(sglang_config(plan), separators=(",", ":"))
                    if host_words(plan)[0] else "")
    lines = [
        f"export CGCONFIG_SERVER_ARGS={shell_quote(shlex.join(server_argv(split)))}",
        f"export CGCONFIG_VLLM_ARGS={shell_quote(shlex.join(vllm))}",
        f"export CGCONFIG_CUDA_GRAPH_CONFIG={shell_quote(graph_config)}",
    ]
    return lines, notes if dialect == "vllm" else [], prefix_notes
