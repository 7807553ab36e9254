"""The architecture names the engines know (``model-archs.json``), for a ``--model-arch`` the
user typed: ``deepseek_v3`` (a ``model_type``, an easy slip) or ``Foo123ForCausalLM`` would
otherwise be answered as a standard attention model, where the real name
(``DeepseekV3ForCausalLM``) changes MLA, the attention backend and the graphs.

The table is generated from the engines' model registries by ``scripts/gen_model_archs.py``;
the names cgconfig's own architecture lists hold (:mod:`cgconfig.model_archs`) count as known
too. A ``config.json``'s ``architectures`` are not checked: the file is what the engine reads.
"""

from __future__ import annotations

import json
import os
from functools import cache

from cgconfig import model_archs
from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import short

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model-archs.json")


@cache
def _table() -> tuple[frozenset[str], dict[str, str]]:
    with open(_TABLE, encoding="utf-8") as handle:
        data = json.load(handle)
    own = (model_archs.MLA_ARCHS | model_archs.MLA_IF_KV_LORA_RANK
           | model_archs.MLA_UNLESS_USE_MLA_FALSE | model_archs.MULTIMODAL_ARCHS
           | model_archs.MULTIMODAL_OFF_BY_DEFAULT)
    return frozenset(data["architectures"]) | own, dict(data["model_types"])


def known_architectures() -> frozenset[str]:
    """Every architecture name an engine's model registry (or cgconfig's lists) holds."""
    return _table()[0]


def suggest(name: str) -> str | None:
    """The architecture ``name`` most likely means: the one its ``model_type`` maps to
    (``deepseek_v3`` → ``DeepseekV3ForCausalLM``), a spelling that differs only in case, or a
    close name."""
    known, types = _table()
    key = name.strip().lower().replace("-", "_")
    if key in types:
        return types[key]
    same = sorted(arch for arch in known if arch.lower() == name.lower())
    if same:  # LlamaForCausalLm: LlamaForCausalLM, not LLaMAForCausalLM
        return did_you_mean(name, same) or same[0]
    return did_you_mean(name, sorted(known))


def check_architecture(name: str, where: str) -> None:
    """Refuse an architecture name no engine knows (one line, with a did-you-mean)."""
    if name in known_architectures():
        return
    raise InputError(
        f"unknown architecture {short(name)!r}: no engine's model registry has it",
        where=where, suggestion=suggest(name),
        hint="give architectures[0] of the model's config.json (e.g. LlamaForCausalLM), or a "
             "local model folder, whose config.json is read as it is")
