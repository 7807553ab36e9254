"""The launch line a log implies: the engine's printed arguments turned back into flags.

Only flags that change graph decisions in cgconfig's engine table (``graph_effect``) and whose
value differs from the table's default are written; SGLang's resolved ``cuda_graph_config``
(0.5.23 prints it inside ``server_args={...}``) is what the plan is compared with, so it is not
fed back in. Keys the table does not know (an older release's) are listed, not guessed.
"""

from __future__ import annotations

import json
from typing import Any

from cgconfig.engines.tokens import ENGINE_PARSERS, ParserKind, is_option

ENTRY = {"sglang": ["python", "-m", "sglang.launch_server"], "vllm": ["vllm", "serve"],
         "trtllm": ["trtllm-serve"]}
_NOT_INPUTS = frozenset({"cuda_graph_config", "model_tag"})
_MODEL_KEYS = {"sglang": ("model_path",), "vllm": ("model_tag", "model")}


def argv_from_args(engine: str, args: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The launch argv for ``args`` and the argument names the engine table does not know."""
    from cgconfig.engines import load_table

    table = load_table(engine)
    by_dest = {flag.dest: flag for flag in table.flags if flag.options}
    argv = list(ENTRY[engine])
    unknown: list[str] = []
    if engine == "vllm":
        model = next((args[k] for k in _MODEL_KEYS["vllm"] if isinstance(args.get(k), str)), None)
        if model:
            argv.append(model)
    for key, value in args.items():
        if key in _NOT_INPUTS or (engine == "vllm" and key == "model"):
            continue
        spelling = "--" + key.replace("_", "-")
        flag = table.lookup(spelling) or by_dest.get(key)
        if flag is None:
            if engine == "sglang" and spelling in _cgconfig_spellings():
                # An older release's flag that cgconfig still reads (a deprecated alias):
                # written as its replacement, which every supported release reads.
                if value is not None and value is not False:
                    argv.extend(_replaced(spelling, value))
                continue
            unknown.append(key)
            continue
        if not (flag.graph_effect or flag.modelled) or value is None or value == flag.default:
            continue
        argv.extend(_tokens(flag.options[0], flag.nargs, value, ENGINE_PARSERS[engine]))
    return argv, unknown


def _replaced(spelling: str, value: Any) -> list[str]:
    """An old SGLang spelling's tokens, as its declared replacement where it has one
    (``--cuda-graph-max-bs 8`` → ``--cuda-graph-max-bs-decode 8``; a switch whose
    replacement is ``--flag VALUE`` → those two words)."""
    from cgconfig.fields.flags import flag_index

    flag = flag_index().get(spelling)
    words = (flag.replacement or "").split() if flag is not None else []
    if len(words) == 1:
        return _tokens(words[0], 0 if value is True else None, value)
    if len(words) == 2 and value is True:
        return words
    return _tokens(spelling, 0 if value is True else None, value)


def _cgconfig_spellings() -> frozenset[str]:
    from cgconfig.fields.flags import known_spellings

    return frozenset(known_spellings())


def _tokens(option: str, nargs: int | str | None, value: Any,
            parser: ParserKind = "argparse") -> list[str]:
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
