"""The vLLM dialect: ``--compilation-config``/``-cc`` JSON, dotted ``-cc.key=value`` overrides,
``--enforce-eager``, ``--max-num-seqs``, ``--max-num-batched-tokens``,
``--num-speculative-tokens``, ``--cudagraph-capture-sizes``, ``--max-cudagraph-capture-size``.

Merge order (documented, unlike vLLM's): every JSON document in argv order, then every dotted
key in argv order, deep-merged; later wins and every shadowed value stays in the provenance.
vLLM itself drops the JSON entirely when any dotted key is present.

``null`` is vLLM's "unset" (:meth:`VllmInput.effective`). What the values mean is
:mod:`.source`'s job; vLLM's own steps after them are :mod:`.stage_b`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cgconfig.docio import loads_bounded
from cgconfig.engines.release_change import holds_in, value_at
from cgconfig.engines.vllm.compile_changes import (
    ATTN_FUSION_KEY,
    COMPILATION_LEVEL_KEY,
    COMPILATION_MODE_FIELD,
    DEPRECATED_GRAPH_SWITCHES,
    MAX_CAPTURE_SIZE_FIELD,
    OPTIMIZATION_LEVELS,
)
from cgconfig.engines.vllm.flags import DIALECT_FLAGS as VLLM_FLAGS
from cgconfig.engines.vllm.releases import COMPILATION_CONFIG_FORBIDS_EXTRA, CUDA_GRAPH_SIZES
from cgconfig.errors import InputError, did_you_mean
from cgconfig.fields.values import looks_human_int, parse_human_int, parse_int
from cgconfig.limits import quote, quote_key
from cgconfig.line.split import Arg, claimed_args

CC_FLAGS = ("--compilation-config", "-cc", "-O")  # -O: vLLM 0.11.2 (OPTIMIZATION_LEVELS)
CC_PREFIXES = ("-cc.", "--compilation-config.", "-O.")
#: CompilationConfig keys that matter here.
MODELLED_KEYS = ("cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "mode",
                 "splitting_ops")
#: CompilationConfig keys accepted and ignored (no effect on which graphs are captured).
PASSTHROUGH_KEYS = (
    "backend", "cudagraph_num_of_warmups", "cudagraph_copy_inputs",
    "cudagraph_specialize_lora", "use_inductor_graph_partition", "compile_sizes",
    "inductor_compile_config", "inductor_passes", "custom_ops", "debug_dump_path",
    "cache_dir", "compile_cache_save_format", "compile_mm_encoder", "cudagraph_mm_encoder",
    "fast_moe_cold_start", "static_forward_context", "dynamic_shapes_config",
)
#: vLLM 0.33.0 ``PassConfig`` fields (``config/compilation.py``): a nested key not listed is
#: pydantic's ``unexpected_keyword_argument``.
PASS_CONFIG_KEYS = ("fuse_norm_quant", "fuse_act_quant", "fuse_attn_quant", "eliminate_noops",
                    "fuse_allreduce_rms", "enable_qk_norm_rope_fusion", "fuse_rope_kvcache_cat_mla",
                    "fuse_act_padding", "fuse_mla_dual_rms_norm", "fuse_rope_kvcache",
                    "fuse_qk_norm_rope_kvcache", "rope_kvcache_fusion_max_token_num",
                    "fi_allreduce_fusion_max_size_mb")
COMPILATION_MODES = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2,
                     "VLLM_COMPILE": 3}


@dataclass
class CcValue:
    """One compilation-config key's value and where it was written."""

    value: Any
    source: str
    at: str
    position: int


@dataclass
class VllmInput:
    """What a vLLM command line said."""

    cc: dict[str, list[CcValue]] = field(default_factory=dict)
    enforce_eager: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    num_speculative_tokens: int = 0
    support: str | None = None
    attention_backend: str | None = None
    speculative: tuple[Any, Any, bool] | None = None
    """``--speculative-config``'s method, model and whether it gave num_speculative_tokens."""
    pass_config: dict[str, Any] = field(default_factory=dict)
    """``compilation_config.pass_config``, validated against vLLM's ``PassConfig``."""
    notes: list[str] = field(default_factory=list)
    """What vLLM's parser dropped (vLLM 0.11.2: every compilation-config document but the
    last)."""
    cuda_graph_sizes: CcValue | None = None
    """vLLM 0.10.2's ``--cuda-graph-sizes`` (``SchedulerConfig.cuda_graph_sizes``), which the
    default grid is built from (:mod:`.capture_size_changes`); later releases copy it into
    ``cudagraph_capture_sizes``."""

    def final(self, key: str) -> CcValue | None:
        """The winning value of a compilation-config key, if any input set it."""
        chain = self.effective(key)
        return chain[-1] if chain else None

    def effective(self, key: str) -> list[CcValue]:
        """A key's values that take effect, in precedence order (dotted keys win over JSON).

        ``null`` is vLLM's "unset": a final null clears the chain (the key keeps its default)
        and earlier nulls are skipped.
        """
        chain = sorted(self.cc.get(key, []), key=lambda c: c.position)
        return [] if chain and chain[-1].value is None else [c for c in chain if c.value is not None]

    def compilation_mode(self, default: str = "VLLM_COMPILE") -> int:
        """``compilation_config.mode`` as a number: 0 under ``--enforce-eager``; unset is the
        optimization level's ``default`` (VLLM_COMPILE at -O1 and above, NONE at -O0)."""
        if self.enforce_eager is not None:
            return COMPILATION_MODES["NONE"]
        cc = self.final("mode")
        level = self.final("level")  # compile_changes.COMPILATION_LEVEL_KEY: mode unset only
        if cc is None and level is not None:
            if isinstance(level.value, bool) or not isinstance(level.value, int):
                raise InputError(f"1 validation error for CompilationConfig: level: Input should "
                                 f"be a valid integer, got {quote(level.value)}",
                                 where=f"{level.source} at {level.at}")
            cc = level
        if cc is None:
            return COMPILATION_MODES[default]
        if cc is level and isinstance(cc.value, int) and cc.value not in \
                COMPILATION_MODES.values() and self.level_is_any_int:
            return int(cc.value)  # vLLM 0.10.2's level is a plain int: 7 is no level, no graphs
        name = str(cc.value).upper()
        number = COMPILATION_MODES.get(name, cc.value)
        if isinstance(number, bool) or number not in COMPILATION_MODES.values():
            raise InputError(f"Invalid compilation mode: {cc.value}",
                             where=f"{cc.source} at {cc.at}", allowed=COMPILATION_MODES,
                             suggestion=did_you_mean(name, COMPILATION_MODES))
        return int(number)

    level_is_any_int: bool = False
    """vLLM 0.10.2: ``compilation_config.level`` is an ``int`` field that any integer passes
    (:data:`~.compile_changes.COMPILATION_MODE_FIELD`)."""

    def splitting_ops(self) -> list[str] | None:
        """``compilation_config.splitting_ops`` as given; None when unset."""
        cc = self.final("splitting_ops")
        if cc is None:
            return None
        if not isinstance(cc.value, list) or not all(isinstance(op, str) for op in cc.value):
            raise InputError(f"must be a list of op names, got {quote(cc.value)}",
                             where=f"{cc.source} at {cc.at}", allowed='e.g. [] or '
                             '["vllm::unified_attention_with_output", …]')
        return list(cc.value)


def _parse_value(text: str, where: str) -> Any:
    try:
        # The document limits: no NaN/Infinity, no integer too long, no 1,000-deep nesting.
        return loads_bounded(text, where)
    except ValueError:
        return parse_human_int(text, where) if looks_human_int(text) else text


def _pass_config(out: VllmInput, key: str, value: Any, source: str, release: str) -> None:
    """``pass_config`` (a document) or ``pass_config.KEY`` (a dotted key), as pydantic
    validates it when vLLM ``release`` builds ``CompilationConfig``."""
    from cgconfig.line.versions import release_label

    items = value.items() if key == "pass_config" and isinstance(value, dict) else \
        [(key.split(".", 1)[1], value)] if "." in key else None
    if items is None:
        raise InputError(f"1 validation error for CompilationConfig: pass_config must be a "
                         f"mapping, got {quote(value)} ({release_label('vllm')})", where=source)
    fusion = str(value_at(ATTN_FUSION_KEY, release))  # 0.11.2: enable_attn_fusion
    for name, item in items:
        if name == fusion:
            out.pass_config[name] = item
            continue
        if name not in PASS_CONFIG_KEYS and not holds_in(COMPILATION_CONFIG_FORBIDS_EXTRA,
                                                         release):
            continue  # 0.11.2's and 0.12.0's PassConfig ignore a key they do not have
        if name not in PASS_CONFIG_KEYS:
            raise InputError(f"1 validation error for CompilationConfig: pass_config.{name}: "
                             f"Unexpected keyword argument ({release_label('vllm')} PassConfig)",
                             where=f"{source} at /pass_config/{name}", allowed=PASS_CONFIG_KEYS,
                             suggestion=did_you_mean(name, PASS_CONFIG_KEYS))
        out.pass_config[name] = item


def record_key(out: VllmInput, key: str, value: Any, source: str, at: str, position: int,
            release: str) -> None:
    if key.split(".", 1)[0] == "pass_config":
        _pass_config(out, key, value, source, release)
        return
    allowed: tuple[str, ...] = MODELLED_KEYS + PASSTHROUGH_KEYS
    if not holds_in(COMPILATION_MODE_FIELD, release):
        allowed = tuple(k for k in allowed if k != "mode")  # 0.10.2: no mode field (ignored)
    if not holds_in(MAX_CAPTURE_SIZE_FIELD, release):
        allowed = tuple(k for k in allowed if k != "max_cudagraph_capture_size")
    if holds_in(DEPRECATED_GRAPH_SWITCHES, release):
        allowed += ("use_cudagraph", "full_cuda_graph")
    if holds_in(COMPILATION_LEVEL_KEY, release):
        allowed += ("level",)  # mode's deprecated spelling, kept in out.cc
    if "." in key and key.split(".", 1)[0] in PASSTHROUGH_KEYS:
        return  # a nested key of a block without graph effect (-cc.pass_config.fuse_x=true)
    if key not in allowed and not holds_in(COMPILATION_CONFIG_FORBIDS_EXTRA, release):
        return  # 0.12.0's CompilationConfig ignores a key it does not have (no extra="forbid")
    if key not in allowed:
        raise InputError(f"unknown compilation-config key {quote_key(key)}", where=f"{source} at {at}",
                         suggestion=did_you_mean(key, allowed),
                         allowed=", ".join(MODELLED_KEYS) + ", … (vLLM CompilationConfig)")
    if key in PASSTHROUGH_KEYS:
        return
    out.cc.setdefault(key, []).append(CcValue(value, source, at, position))


def _cuda_graph_sizes(out: VllmInput, given: list[str], name: str, position: int,
                      release: str) -> None:
    """``--cuda-graph-sizes``: ``EngineArgs.create_engine_config`` of the releases that have it
    sets ``compilation_config.cudagraph_capture_sizes`` from it before
    ``--cudagraph-capture-sizes`` (which then finds the list set: mutually exclusive)."""
    if holds_in(DEPRECATED_GRAPH_SWITCHES, release):
        # vLLM 0.10.2: SchedulerConfig.cuda_graph_sizes, the default grid's source (an
        # explicit compilation_config.cudagraph_capture_sizes replaces that grid)
        out.cuda_graph_sizes = CcValue([_int(s, name) for s in given], name, "", position)
        return
    if not holds_in(CUDA_GRAPH_SIZES, release):
        # the newest release's line was split with its own table, which lacks the flag (older
        # ones are refused by version_flags.check_vllm_spellings, with the release's source)
        from cgconfig.engines.vllm.version_flags import release_history
        from cgconfig.line.versions import label

        raise InputError(f"{release_history(name, release)}: {label('vllm', release)} refuses "
                         f"it (unrecognized arguments: {name})", where=name)
    record_key(out, "cudagraph_capture_sizes", [_int(s, name) for s in given], name, "", position,
            release)


def _int(text: str, where: str, *, allow_zero: bool = False) -> int:
    value = parse_int(text, where, allow_negative=allow_zero)
    if value < 0:
        raise InputError(f"expected a non-negative integer, got {value}", where=where)
    return value


def parse_vllm_argv(argv: list[str], positions: list[int] | None = None,
                    args: list[Arg] | None = None, *, release: str) -> VllmInput:
    """Parse the vLLM dialect's tokens (the splitter gave them) as vLLM ``release`` reads
    them; ``positions`` are their
    indices in the whole command line, which order values across sources; ``args`` are the
    splitter's runs of them (flag and values), regrouped with the same table when absent."""
    out = VllmInput()
    where_is = positions if positions is not None else list(range(len(argv)))
    if args is None:
        args = claimed_args(argv, where_is, VLLM_FLAGS)
    dotted_base = 10_000  # dotted keys win over JSON documents wherever they appear
    # vLLM 0.11.2 (-O is --compilation-config: releases.OPTIMIZATION_LEVELS): the line's
    # compilation config is one argparse document, the last one its parser passes: the JSON
    # values in line order, then one document per dotted spelling (-O., --compilation-config.)
    # in the order each first appears (FlexibleArgumentParser.parse_args appends them)
    one_document = not holds_in(OPTIMIZATION_LEVELS, release)
    documents: dict[tuple[int, int, str], list[tuple[str, Any, str, str, int]]] = {}
    dotted_first: dict[str, int] = {}

    def record(key: str, item: Any, source: str, at: str, position: int, *,
               document: tuple[int, int, str] | None = None) -> None:
        if not one_document or document is None:
            record_key(out, key, item, source, at, position, release)
        else:
            documents.setdefault(document, []).append((key, item, source, at, position))
    json_spec: dict[str, Any] | None = None  # --speculative-config as a JSON document
    dotted_spec: dict[str, Any] = {}  # --speculative-config.KEY, merged over it

    def after(i: int) -> int:
        """The command-line index following local token ``i - 1``."""
        return where_is[i - 1] + 1

    for arg in args:
        name = arg.name
        if VLLM_FLAGS.arity(name) is None:
            raise InputError(f"unexpected argument {quote(argv[arg.at])}", where="vLLM flags")
        takes_value = VLLM_FLAGS.arity(name) != 0
        given = arg.given
        i = arg.end  # the local index after its values: after(i) is where the next token goes
        value: str | None = None
        if takes_value:
            if not given:
                raise InputError(f"{name} expects a value", where=name)
            value = given[0]
        elif arg.inline is not None:
            raise InputError(f"{name} is a switch and takes no value (got {quote(arg.inline)})",
                             where=name)
        if name in CC_FLAGS:
            from cgconfig.docio import load_json_text

            doc = load_json_text(value or "", name)
            if not isinstance(doc, dict):
                raise InputError(f"must be a JSON object, got {type(doc).__name__}", where=name)
            if one_document:
                documents.setdefault((0, after(i), name), [])
            for key, item in doc.items():
                record(key, item, name, f"/{key}", after(i), document=(0, after(i), name))
        elif name.startswith(CC_PREFIXES):
            root, key = name.split(".", 1)
            first = dotted_first.setdefault(root, after(i))
            record(key, _parse_value(value or "", name), name, f"/{key}",
                   dotted_base + after(i), document=(1, first, root))
        elif name.startswith("--speculative-config."):
            key = name.split(".", 1)[1]
            if key == "num_speculative_tokens":
                out.num_speculative_tokens = _int(value or "", name, allow_zero=True)
                dotted_spec[key] = out.num_speculative_tokens
            elif key in ("method", "model"):  # the method picks the model runner
                dotted_spec[key] = _parse_value(value or "", name)
        elif name == "--enforce-eager":
            out.enforce_eager = after(i)
        elif name == "--max-num-seqs":
            out.max_num_seqs = _int(value or "", name)
        elif name == "--max-num-batched-tokens":
            out.max_num_batched_tokens = _int(value or "", name)
        elif name == "--num-speculative-tokens":
            out.num_speculative_tokens = _int(value or "", name, allow_zero=True)
        elif name == "--speculative-config":
            from cgconfig.docio import load_json_text

            spec = load_json_text(value or "", name)
            tokens = spec.get("num_speculative_tokens", 0) if isinstance(spec, dict) else None
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise InputError("num_speculative_tokens must be a non-negative integer",
                                 where=f"{name} at /num_speculative_tokens")
            out.num_speculative_tokens = tokens
            if isinstance(spec, dict):
                json_spec = spec
        elif name == "--cudagraph-capture-sizes":
            sizes = given
            if out.cc.get("cudagraph_capture_sizes"):
                raise InputError("cudagraph_capture_sizes and compilation_config."
                                 "cudagraph_capture_sizes are mutually exclusive", where=name)
            record_key(out, "cudagraph_capture_sizes", [_int(s, name) for s in sizes], name, "",
                    dotted_base * 2 + after(i), release)
        elif name == "--cuda-graph-sizes":
            _cuda_graph_sizes(out, given, name, dotted_base * 2 + after(i), release)
        elif name == "--max-cudagraph-capture-size":
            record_key(out, "max_cudagraph_capture_size", _int(value or "", name), name, "",
                    dotted_base * 2 + after(i), release)
        elif name == "--cudagraph-support":
            from cgconfig.engines.vllm.modes import parse_level

            try:
                out.support = parse_level(value or "").name
            except ValueError as exc:
                raise InputError(str(exc), where=name) from None
        elif name == "--vllm-attention-backend":
            out.attention_backend = value
    if documents:
        from cgconfig.engines.vllm.cc_documents import one_document as keep_last_document

        keep_last_document(record_key, out, documents, release)
    if holds_in(DEPRECATED_GRAPH_SWITCHES, release):
        from cgconfig.engines.vllm.cc_documents import deprecated_switches

        deprecated_switches(out, release)
        out.level_is_any_int = True
    if json_spec is not None or dotted_spec:
        spec = {**(json_spec or {}), **dotted_spec}
        out.speculative = (spec.get("method"), spec.get("model"),
                           "num_speculative_tokens" in spec)
    for key in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
        sources = {c.source for c in out.cc.get(key, [])}
        if "--cuda-graph-sizes" in sources and sources - {"--cuda-graph-sizes",
                                                           "--cudagraph-capture-sizes"}:
            # 0.12.0 applies --cuda-graph-sizes first, against the compilation config's list
            raise InputError("cuda_graph_sizes and compilation_config.cudagraph_capture_sizes "
                             "are mutually exclusive", where="--cuda-graph-sizes")
        engine_flag = "--" + key.replace("_", "-")
        if engine_flag in sources and len(sources) > 1:
            raise InputError(f"{key} and compilation_config.{key} are mutually exclusive",
                             where=engine_flag)
    return out
