"""The TensorRT-LLM dialect: an ``--extra-llm-api-options`` YAML file.

Reads ``cuda_graph_config`` (``batch_sizes``, ``max_batch_size``, ``enable_padding``; ``null``
disables decode graphs) and ``torch_compile_config`` (``enable_piecewise_cuda_graph``,
``capture_num_tokens``: TensorRT-LLM's piecewise prefill graphs). TensorRT-LLM's defaults
apply where the file is silent: decode graphs on, max batch 128, padding off, no prefill graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cgconfig.dialects import trtllm_sizes
from cgconfig.docio import LineMap, locate, read_document
from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import check_decode_batch, check_prefill_tokens, quote, quote_key
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault, ResolveRequest
from cgconfig.sources.contribution import Contribution
from cgconfig.sources.dialect_flags import TRTLLM_FLAGS
from cgconfig.sources.documents import validate_leaf

GRAPH_KEYS = ("batch_sizes", "max_batch_size", "enable_padding")
PIECEWISE_DEFAULT_TOKENS = [2**i for i in range(8)] + list(range(256, 3073, 256))


def _find_file(tokens: list[str]) -> tuple[str | None, str]:
    """The options file the tokens name (the last one wins) and the flag that named it."""
    path = None
    flag = next(iter(TRTLLM_FLAGS.flags))
    i = 0
    while i < len(tokens):
        name, eq, inline = tokens[i].partition("=")
        flag = name
        if eq:
            path, i = inline, i + 1
        elif i + 1 < len(tokens):
            path, i = tokens[i + 1], i + 2
        else:
            raise InputError(f"{name} expects a YAML file", where=name)
    return path, flag


@dataclass
class TrtllmOptions:
    """The TensorRT-LLM dialect's tokens: the flag naming an options file, and the file."""

    tokens: list[str]
    needs_file: bool = True
    """False on a ``trtllm-serve MODEL`` line: without an options file TensorRT-LLM's
    defaults apply (with ``--dialect trtllm`` the file is the only input, so it is required)."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Read the options file once and map it onto cgconfig's keys and TRT-LLM defaults."""
        del so_far  # nothing here depends on other sources
        path, flag = _find_file(self.tokens)
        if path is None and not self.needs_file:
            return _from_options({}, {}, "", flag)
        return _contribution(path, flag)


def _check_sizes(block: dict[str, Any], name: str, lines: LineMap) -> None:
    """``max_batch_size`` an int, ``batch_sizes`` a list of ints, all within the limits,
    before anything is generated from them (booleans are not numbers here)."""
    for key in ("max_batch_size", "batch_sizes"):
        if key not in block:
            continue
        value = block[key]
        at = locate(name, lines, ("cuda_graph_config", key))
        if key == "batch_sizes" and not isinstance(value, list):
            raise InputError(f"batch_sizes must be a list of ints, got {quote(value)}", where=at)
        for item in value if key == "batch_sizes" else [value]:
            if isinstance(item, bool) or not isinstance(item, int):
                raise InputError(f"{key} must hold ints, got {quote(item)}", where=at)
            check_decode_batch(item, at)


def _contribution(path: str | None, flag: str) -> Contribution:
    if path is None:
        raise InputError("the TensorRT-LLM dialect needs an options file",
                         where="--dialect trtllm", hint=f"pass {flag} FILE.yaml")
    data, lines, name = read_document(path, flag)
    data = data or {}
    if not isinstance(data, dict):
        raise InputError(f"must be a mapping, got {type(data).__name__}", where=name)
    return _from_options(data, lines, name, flag)


def _from_options(data: dict[str, Any], lines: LineMap, name: str, flag: str) -> Contribution:
    """The contribution of an options document (empty: TensorRT-LLM's defaults)."""
    out = Contribution(dialect="trtllm")

    def origin(*parts: Any) -> Origin:
        return Origin(Layer.CONFIG, f"{flag} {name}", locate(name, lines, parts))

    leaves: list[Leaf] = []
    source = "TensorRT-LLM default"
    # null, false (and YAML's off/no) all switch decode graphs off, as no config object does.
    if "cuda_graph_config" in data and data["cuda_graph_config"] in (None, False):
        leaves.append(Leaf("decode.backend", "disabled", origin("cuda_graph_config")))
    else:
        block = data.get("cuda_graph_config")
        block = {} if block is None else block
        if not isinstance(block, dict):
            raise InputError(f"cuda_graph_config must be a mapping, null or false, got "
                             f"{quote(block)}",
                             where=locate(name, lines, ("cuda_graph_config",)))
        _check_sizes(block, name, lines)
        for key in block:
            if key not in GRAPH_KEYS:
                raise InputError(f"unknown key {quote_key(key)}",
                                 where=locate(name, lines, ("cuda_graph_config", key)),
                                 allowed=GRAPH_KEYS, suggestion=did_you_mean(str(key),
                                                                              GRAPH_KEYS))
        padding = block.get("enable_padding", False)
        if not isinstance(padding, bool):
            raise InputError(f"enable_padding must be true or false, got {quote(padding)}",
                             where=locate(name, lines, ("cuda_graph_config", "enable_padding")))
        try:
            sizes, max_bs = trtllm_sizes.validate(block.get("batch_sizes"),
                                                  block.get("max_batch_size", 0), padding)
        except (ValueError, TypeError) as exc:
            raise InputError(str(exc).replace("\n", " "),
                             where=locate(name, lines, ("cuda_graph_config",))) from None
        if "batch_sizes" in block:
            leaves.append(Leaf("decode.bs", sizes, origin("cuda_graph_config", "batch_sizes")))
        else:
            why = (f"generated for max_batch_size={max_bs}, enable_padding={padding} "
                   "(TensorRT-LLM _generate_cuda_graph_batch_sizes)")
            out.defaults.append(DialectDefault("decode.bs", sizes, source, why))
        if "max_batch_size" in block:
            leaves.append(Leaf("decode.max_bs", max_bs,
                               origin("cuda_graph_config", "max_batch_size")))
        if "enable_padding" in block:
            leaves.append(Leaf("options.disable_padding", not padding,
                               origin("cuda_graph_config", "enable_padding")))
        else:
            out.defaults.append(DialectDefault(
                "options.disable_padding", True, source,
                "TensorRT-LLM pads to a captured size only with enable_padding: true"))
    compile_block = data.get("torch_compile_config")
    compile_block = {} if compile_block is None else compile_block
    if not isinstance(compile_block, dict):
        raise InputError(f"torch_compile_config must be a mapping or null, got "
                         f"{quote(compile_block)}",
                         where=locate(name, lines, ("torch_compile_config",)))
    if compile_block.get("enable_piecewise_cuda_graph"):
        tokens = compile_block.get("capture_num_tokens")
        at = origin("torch_compile_config", "enable_piecewise_cuda_graph")
        tokens_at = locate(name, lines, ("torch_compile_config", "capture_num_tokens"))
        leaves.append(Leaf("prefill.backend", "breakable", at))
        if tokens is not None and not isinstance(tokens, list):
            raise InputError(f"capture_num_tokens must be a list of positive ints, got "
                             f"{quote(tokens)}", where=tokens_at)
        if tokens:
            if not all(isinstance(t, int) and not isinstance(t, bool) and t > 0
                       for t in tokens):
                raise InputError("capture_num_tokens must contain positive ints.",
                                 where=tokens_at)
            for t in tokens:
                check_prefill_tokens(t, tokens_at)
            leaves.append(Leaf("prefill.bs", sorted(set(tokens)),
                               origin("torch_compile_config", "capture_num_tokens")))
        else:
            out.defaults.append(DialectDefault(
                "prefill.bs", PIECEWISE_DEFAULT_TOKENS, source,
                "TensorRT-LLM piecewise capture_num_tokens default"))
    else:
        out.defaults.append(DialectDefault(
            "prefill.backend", "disabled", source,
            "TensorRT-LLM captures prefill (piecewise) graphs only with "
            "torch_compile_config.enable_piecewise_cuda_graph: true"))
    for leaf in leaves:
        validate_leaf(leaf.key, leaf.value, leaf.origin.describe())
    out.leaves = leaves
    known = {"cuda_graph_config", "torch_compile_config"}
    out.ignored = [f"{name}:{k}" for k in data if k not in known]
    return out
