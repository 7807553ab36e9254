"""A command line's sources: split it once, let its dialect choose the sources, gather them.

The order below is the precedence of facts and settings (later sources override earlier ones);
the precedence of config values is by layer (:data:`cgconfig.provenance.PRECEDENCE`).
"""

from __future__ import annotations

from collections.abc import Callable

from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.constants import DIALECTS
from cgconfig.resolve.request import ResolveRequest
from cgconfig.sources.contribution import Source, gather
from cgconfig.sources.dialect_flags import TRTLLM_FLAGS, VLLM_FLAGS
from cgconfig.sources.machine import MachineFacts
from cgconfig.sources.model_config import ModelConfigFile
from cgconfig.sources.sglang import SglangArgv
from cgconfig.sources.split import ArgvSplit, DialectFlags, Part, split_argv


def _vllm(part: Part) -> Source:
    from cgconfig.sources.vllm import VllmArgv  # only a vLLM line pays for vLLM's tables

    return VllmArgv(part.tokens, part.positions)


def _trtllm(part: Part) -> Source:
    from cgconfig.sources.trtllm import TrtllmOptions

    return TrtllmOptions(part.tokens)


#: Each non-SGLang dialect: its flag table (what the splitter carves out) and its source.
DIALECT_SOURCES: dict[str, tuple[DialectFlags, Callable[[Part], Source]]] = {
    "vllm": (VLLM_FLAGS, _vllm),
    "trtllm": (TRTLLM_FLAGS, _trtllm),
}


_DIALECT_TABLES = tuple(table for table, _ in DIALECT_SOURCES.values())


def split_command_line(argv: list[str], host: DialectFlags | None = None) -> ArgvSplit:
    """Split ``argv`` once into the SGLang part, the dialect's part and the host's part."""
    return split_argv(list(argv), _DIALECT_TABLES, host)


def request_from_split(split: ArgvSplit, *, allow_positionals: bool = False,
                       ignore_unknown: bool | None = None) -> tuple[ResolveRequest, list[str]]:
    """Gather the sources the split's dialect chooses: SGLang's flags (with the files they
    name), the machine (platform inferred, GPUs probed), the dialect's own source, then the
    model's ``config.json``. Returns the request and the positionals."""
    if split.dialect not in DIALECTS:
        raise InputError(f"unknown dialect {split.dialect!r}", where="--dialect",
                         allowed=DIALECTS, suggestion=did_you_mean(split.dialect, DIALECTS))
    sglang = SglangArgv(split.parts.get("sglang", Part()).tokens,
                        allow_positionals=allow_positionals, ignore_unknown=ignore_unknown)
    sources: list[Source] = [sglang, MachineFacts()]
    if split.dialect in DIALECT_SOURCES:
        make = DIALECT_SOURCES[split.dialect][1]
        sources.append(make(split.parts.get(split.dialect, Part())))
    sources.append(ModelConfigFile())
    request = gather(sources)
    return request, sglang.positionals
