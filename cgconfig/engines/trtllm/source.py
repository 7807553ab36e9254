"""The TensorRT-LLM dialect: a trtllm-serve line's options YAML and its size flags.

Reads ``cuda_graph_config`` (validated as TensorRT-LLM's ``DecodeCudaGraphConfig`` /
``EncodeCudaGraphConfig``; ``null`` disables decode graphs), the engine limits that bound what
is captured (``--max_batch_size``, ``--max_num_tokens``, their top-level YAML keys, which win,
and ``speculative_config``'s draft tokens) and ``torch_compile_config``
(``enable_piecewise_cuda_graph``, ``capture_num_tokens``: TensorRT-LLM's piecewise prefill
graphs). TensorRT-LLM's defaults apply where the inputs are silent: decode graphs on, the list
of max batch 128, padding off, engine max batch 2048 and 8192 tokens, no prefill graphs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cgconfig.docio import LineMap, locate, read_document
from cgconfig.engines.trtllm.capture_options import TrtllmCapture
from cgconfig.engines.trtllm.flags import DIALECT_FLAGS as TRTLLM_FLAGS
from cgconfig.engines.trtllm.flags import ENTRY_ONLY_FLAGS
from cgconfig.engines.trtllm.llm_args import (
    SOURCE_ARGS,
    ConfigProblem,
    EngineLimits,
    GraphConfig,
    engine_limits,
    graph_config,
    lax,
)
from cgconfig.errors import InputError, did_you_mean
from cgconfig.limits import check_int_text, check_prefill_tokens, quote
from cgconfig.line.split import Arg, DialectFlags, Part, claimed_args
from cgconfig.provenance import Layer, Leaf, Origin
from cgconfig.resolve.request import DialectDefault, ResolveRequest
from cgconfig.sources.contribution import Contribution
from cgconfig.sources.documents import validate_leaf
from cgconfig.sources.entry_point import PARALLEL_FACTS

#: Top-level keys of the options file this source reads (the others do not change the graphs).
READ_KEYS = ("cuda_graph_config", "torch_compile_config", "max_batch_size", "max_num_tokens",
             "speculative_config", "enable_attention_dp", "tensor_parallel_size",
             "pipeline_parallel_size")
PIECEWISE_DEFAULT_TOKENS = [2**i for i in range(8)] + list(range(256, 3073, 256))


#: trtllm-serve's own flags this source reads besides the options file.
SIZE_FLAGS = ("--max_batch_size", "--max_num_tokens")


def _read_args(args: list[Arg]) -> tuple[str | None, str, dict[str, int]]:
    """The options file the flags name (the last one wins), the flag that named it, and
    ``--max_batch_size`` / ``--max_num_tokens`` (click ``int``: the last one wins); each flag
    with the value the splitter gave it."""
    path = None
    flag = next(iter(TRTLLM_FLAGS.flags))
    sizes: dict[str, int] = {}
    for arg in args:
        name, given = arg.name, arg.given
        if not given:
            raise InputError(f"{name} expects a value", where=name)
        value = given[0]
        if name == "--backend":
            if value != "pytorch":
                raise InputError(
                    f"cgconfig plans the CUDA graphs of the pytorch backend only, not {value!r}",
                    where=name, allowed=("pytorch",),
                    hint="cgconfig's port is of the pytorch runtime (PyTorchModelEngine)")
        elif name in SIZE_FLAGS:
            check_int_text(value, name)
            try:
                sizes[name[2:]] = int(value)  # click's INT: int(value)
            except ValueError:
                from cgconfig.line.table import load_table

                raise InputError(f"expected int, got {value!r} ({load_table('trtllm').label})",
                                 where=name) from None
        else:
            path, flag = value, name
    return path, flag, sizes


@dataclass
class TrtllmOptions:
    """The TensorRT-LLM dialect's tokens: the flag naming an options file, and the file."""

    tokens: list[str]
    needs_file: bool = True
    """False on a ``trtllm-serve MODEL`` line: without an options file TensorRT-LLM's
    defaults apply (with ``--dialect trtllm`` the file is the only input, so it is required)."""
    args: list[Arg] | None = None
    """The splitter's runs of the tokens (flag and value)."""

    def contribute(self, so_far: ResolveRequest) -> Contribution:
        """Read the options file once and map it onto cgconfig's keys and TRT-LLM defaults."""
        del so_far  # nothing here depends on other sources
        table = DialectFlags("trtllm", {**TRTLLM_FLAGS.flags, **ENTRY_ONLY_FLAGS})
        args = self.args if self.args is not None else claimed_args(
            self.tokens, list(range(len(self.tokens))), table, "click")
        path, flag, sizes = _read_args(args)
        if path is None and not self.needs_file:
            return _from_options({}, {}, "", flag, sizes)
        if path is None:
            raise InputError("the TensorRT-LLM dialect needs an options file",
                             where="--dialect trtllm", hint=f"pass {flag} FILE.yaml")
        data, lines, name = read_document(path, flag)
        # An empty file is {} (TensorRT-LLM's update_llm_args_with_extra_options maps None to {}).
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise InputError(f"Configuration file root must be a mapping, got "
                             f"{type(data).__name__}", where=name)
        return _from_options(data, lines, name, flag, sizes)


def _problem(exc: ConfigProblem, name: str, lines: LineMap) -> InputError:
    """TensorRT-LLM's refusal as one line at the file position."""
    where = locate(name, lines, exc.path) if name else "trtllm-serve"
    suggestion = did_you_mean(exc.key, exc.allowed) if exc.key and exc.allowed else None
    return InputError(str(exc), where=where, allowed=exc.allowed, suggestion=suggestion)


def _from_options(data: dict[str, Any], lines: LineMap, name: str, flag: str,
                  sizes: dict[str, int]) -> Contribution:
    """The contribution of an options document (empty: TensorRT-LLM's defaults)."""
    out = Contribution(dialect="trtllm")
    label = name or "options"

    def origin(*parts: Any) -> Origin:
        return Origin(Layer.CONFIG, f"{flag} {name}", locate(name, lines, parts))

    leaves: list[Leaf] = []
    source = "TensorRT-LLM default"
    step_warnings: list[str] = []
    try:
        limits = engine_limits(sizes, data, label)
        block = data.get("cuda_graph_config", {})
        if block is None:  # only null turns decode graphs off; false is a validation error
            leaves.append(Leaf("decode.backend", "disabled", origin("cuda_graph_config")))
            graph = None
        elif not isinstance(block, dict):
            raise ConfigProblem(f"cuda_graph_config must be a mapping or null (null turns decode "
                                f"graphs off), got {quote(block)}", ("cuda_graph_config",))
        else:
            graph = graph_config(block)
    except ConfigProblem as exc:
        raise _problem(exc, name, lines) from None
    step_warnings += limits.coerced
    if graph is not None:
        step_warnings += graph.coerced + _graph_leaves(graph, out, leaves, origin, source)
    out.notes += _engine_notes(data, limits, graph)
    out.steps.append(TrtllmCapture(limits, step_warnings))
    for key, fact in PARALLEL_FACTS.items():  # the YAML's layout wins over --tp_size, --pp_size
        if key in data:
            try:
                out.facts[fact] = lax(data[key], "int", (key,))
            except ConfigProblem as exc:
                raise _problem(exc, name, lines) from None
            out.fact_sources[fact] = f"{label}:{key}"
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
    out.ignored = [f"{name}:{k}" for k in data if k not in READ_KEYS]
    return out


def _graph_leaves(graph: GraphConfig, out: Contribution, leaves: list[Leaf],
                  origin: Callable[..., Origin], source: str) -> list[str]:
    """Leaves and defaults of a validated ``cuda_graph_config``; the warnings it earns."""
    warnings: list[str] = []
    given = graph.given
    sizes = [s for s in graph.batch_sizes if s > 0]
    dropped = [s for s in graph.batch_sizes if s <= 0]
    if dropped:
        warnings.append(
            f"cuda_graph_config.batch_sizes holds {dropped}: TensorRT-LLM accepts them (its "
            "validator sets no lower bound) and would capture graphs of that many requests; "
            "cgconfig leaves them out (see docs/fidelity.md)")
    repeats = sorted({s for s in sizes if sizes.count(s) > 1})
    if repeats:
        warnings.append(f"cuda_graph_config.batch_sizes repeats {repeats}: TensorRT-LLM keeps "
                        "each repeat in the list it captures from, and so does the plan")
    at = ("cuda_graph_config", "batch_sizes")
    if given.get("batch_sizes"):
        if sizes:
            leaves.append(Leaf("decode.bs", sizes, origin(*at)))
        else:
            leaves.append(Leaf("decode.backend", "disabled", origin(*at)))
    else:
        why = (f"generated for max_batch_size={graph.max_batch_size}, enable_padding="
               f"{graph.enable_padding} ({SOURCE_ARGS}:_generate_cuda_graph_batch_sizes)")
        out.defaults.append(DialectDefault("decode.bs", graph.batch_sizes, source, why))
    if "max_batch_size" in given and graph.max_batch_size > 0:
        leaves.append(Leaf("decode.max_bs", graph.max_batch_size,
                           origin("cuda_graph_config", "max_batch_size")))
    if "enable_padding" in given:
        leaves.append(Leaf("options.disable_padding", not graph.enable_padding,
                           origin("cuda_graph_config", "enable_padding")))
    else:
        out.defaults.append(DialectDefault(
            "options.disable_padding", True, source,
            "TensorRT-LLM pads to a captured size only with enable_padding: true"))
    if graph.mode == "encode":
        out.notes.append(
            "cuda_graph_config sets encoder keys, so TensorRT-LLM reads it as an "
            "EncodeCudaGraphConfig; for a decoder-only model its batch_sizes and enable_padding "
            "still drive the decode graphs, and its encoder token/length buckets are not planned")
    return warnings


def _engine_notes(data: dict[str, Any], limits: EngineLimits,
                  graph: GraphConfig | None) -> list[str]:
    """What the plan says about the engine inputs that bound or shape the list."""
    notes: list[str] = []
    explicit = [f for f in (limits.max_batch_size_from, limits.max_num_tokens_from)
                if not f.endswith("default")]
    if limits.draft_tokens or explicit:
        notes.append(f"TensorRT-LLM captures decode batches of at most {limits.chain()} "
                     "requests (model_engine.py _filter_cuda_graph_batch_sizes)")
    if limits.draft_tokens:
        notes.append(
            f"speculative decoding: each decode step carries 1 + {limits.draft_tokens} tokens "
            f"per request ({limits.draft_from}), which divides max_num_tokens in the bound above")
    spec = data.get("speculative_config")
    if isinstance(spec, dict) and spec.get("draft_len_schedule") is not None:
        notes.append("speculative_config.draft_len_schedule: not read by cgconfig (TensorRT-LLM "
                     "adds its batch-size keys to the captured list; unverified)")
    if data.get("enable_attention_dp") and graph is not None:
        notes.append(
            "enable_attention_dp: every rank captures this same list (TensorRT-LLM's "
            "PyTorchModelEngine does not divide it per rank); the ranks agree on the graph a "
            "step replays at run time, which cgconfig does not plan")
    return notes


def line_source(part: Part, *, entry_point: bool, **_: object) -> TrtllmOptions:
    """The plug-in part ``line_source``: on a ``trtllm-serve MODEL`` line the options file is
    optional; with ``--dialect trtllm`` it is the only input."""
    return TrtllmOptions(part.tokens, needs_file=not entry_point, args=part.args)


#: The plug-in part ``group_args``: the splitter groups trtllm-serve's words by its table.
group_args = None
