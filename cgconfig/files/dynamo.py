"""Dynamo's worker entry points, read as the engine launch they wrap.

``python3 -m dynamo.sglang ARGS`` parses SGLang's ``ServerArgs`` flags plus Dynamo's own and
starts SGLang in-process; cgconfig reads it as ``python3 -m sglang.launch_server`` with the
engine's flags, Dynamo's own flags left out (``dynamo-flags.json``, from Dynamo's argument
groups) and the role Dynamo's flags name (``--is-prefill-worker``). ``dynamo.vllm`` reads as
vLLM's API server, ``dynamo.trtllm`` as ``trtllm-serve``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

_PYTHONS = ("python", "python3")


@cache
def dynamo_flags() -> dict[str, Any]:
    """The shipped table of Dynamo's entry points and own flags."""
    text = resources.files("cgconfig.files").joinpath("dynamo-flags.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _module_engine(words: list[str]) -> tuple[int, str] | None:
    for i in range(len(words) - 2):
        base = words[i].rsplit("/", 1)[-1]
        if (base in _PYTHONS or base.startswith("python3.")) and words[i + 1] == "-m":
            for engine, spec in dynamo_flags()["engines"].items():
                if words[i + 2] == spec["module"]:
                    return i, engine
    return None


def _arity(flag: str, own: dict[str, Any]) -> Any:
    name = flag.split("=", 1)[0]
    if name.startswith("--no-") and own.get("--" + name[5:]) == 0:
        return 0
    return own.get(name)


def map_entry_point(words: list[str]) -> tuple[list[int], list[str], str] | None:
    """For a line starting a Dynamo worker: the indices of ``words`` kept, the words the
    engine receives (same length), and a note; ``None`` for any other line."""
    found = _module_engine(words)
    if found is None:
        return None
    at, engine = found
    data = dynamo_flags()
    own = {**data["common"], **data[engine]}
    entry = list(data["engines"][engine]["entry"])
    keep = list(range(at)) + [at, at + 1, at + 2][:len(entry)]
    out = words[:at] + entry
    # an entry of one word (trtllm-serve) keeps the first word's line; fill to equal length
    dropped: list[str] = []
    renamed: dict[str, str] = data.get(f"{engine}_renamed", {})
    i = at + 3
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if name in renamed:  # Dynamo's spelling of an engine flag: the engine's own
            value_at = i if "=" in word else i + 1
            value = word.split("=", 1)[1] if "=" in word else \
                (words[i + 1] if i + 1 < len(words) else "")
            if renamed[name]:
                keep.append(i)
                out.append(renamed[name])
            keep.append(value_at)
            out.append(value)
            i = value_at + 1
            continue
        arity = _arity(word, own) if word.startswith("--") else None
        if arity is None:
            keep.append(i)
            out.append(word)
            i += 1
            continue
        dropped.append(word.split("=", 1)[0])
        i += 1
        if "=" in word or arity == 0:
            continue
        if arity == 1:
            i += 1
        else:  # '*' or '?': the words up to the next flag
            while i < len(words) and not words[i].startswith("-"):
                i += 1
                if arity == "?":
                    break
    while len(keep) > len(out):
        keep.pop(at + len(entry))
    module = data["engines"][engine]["module"]
    note = (f"read python3 -m {module} as {' '.join(entry)}"
            + (f"; Dynamo's own flags left out: {', '.join(dict.fromkeys(dropped))}"
               if dropped else ""))
    return keep, out, note


def dynamo_role(words: list[str]) -> str | None:
    """The P/D role Dynamo's own flags name (``--is-prefill-worker``, ``--is-decode-worker``,
    TensorRT-LLM's ``--disaggregation-mode prefill|decode``)."""
    if "--is-prefill-worker" in words:
        return "prefill"
    if "--is-decode-worker" in words:
        return "decode"
    for i, word in enumerate(words[:-1]):
        if word == "--disaggregation-mode" and words[i + 1] in ("prefill", "decode"):
            return words[i + 1]
    return None
