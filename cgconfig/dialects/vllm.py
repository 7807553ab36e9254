"""The vLLM dialect: ``--compilation-config``/``-cc`` JSON, dotted ``-cc.key=value`` overrides,
``--enforce-eager``, ``--max-num-seqs``, ``--max-num-batched-tokens``,
``--num-speculative-tokens``, ``--cudagraph-capture-sizes``, ``--max-cudagraph-capture-size``.

Merge order (documented, unlike vLLM's): every JSON document in argv order, then every dotted
key in argv order, deep-merged; later wins and every shadowed value stays in the provenance.
vLLM itself drops the JSON entirely when any dotted key is present.

Each ``cudagraph_mode`` (a name, or 0/1/2; ``null`` = unset) maps onto per-phase backends
(decode = vLLM's uniform-decode batches, prefill = its mixed/prefill batches). The rest follows
vLLM 0.33.0's order, each step a decision ``vllm.<id>``: ``VllmConfig.__post_init__`` (eager and
A8 "piecewise needs VLLM_COMPILE" before the sizes; sizes only while graphs are on, user sizes
capped by ``max_num_batched_tokens``, a 1024 ceiling on the SM100 family from ``--gpu-sm``),
``CompilationConfig.set_splitting_ops_for_v1``, then the worker's Stage B (B2-B7).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cgconfig.dialects import VLLM_FLAGS, is_vllm_flag
from cgconfig.errors import InputError, StrictConflictError, did_you_mean
from cgconfig.plan import Decision, Outcome
from cgconfig.provenance import Layer, Leaf, Origin

CC_FLAGS = ("--compilation-config", "-cc")
#: CompilationConfig keys that matter here.
MODELLED_KEYS = ("cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size", "mode",
                 "splitting_ops")
#: CompilationConfig keys accepted and ignored (no effect on which graphs are captured).
PASSTHROUGH_KEYS = (
    "backend", "cudagraph_num_of_warmups", "cudagraph_copy_inputs",
    "cudagraph_specialize_lora", "use_inductor_graph_partition", "compile_sizes", "pass_config",
    "inductor_compile_config", "inductor_passes", "custom_ops", "debug_dump_path",
    "cache_dir", "compile_cache_save_format", "compile_mm_encoder", "cudagraph_mm_encoder",
    "fast_moe_cold_start", "static_forward_context", "dynamic_shapes_config",
)
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
    rest: list[str] = field(default_factory=list)

    def final(self, key: str) -> CcValue | None:
        """The winning value of a compilation-config key, if any input set it."""
        chain = self.cc.get(key)
        return chain[-1] if chain else None


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        from cgconfig.argv import _HUMAN_INT, _HUMAN_SCALE

        match = _HUMAN_INT.match(text)
        if match:
            return int(float(match.group(1)) * _HUMAN_SCALE[match.group(2).lower()])
        return text


def _record(out: VllmInput, key: str, value: Any, source: str, at: str, position: int) -> None:
    allowed = MODELLED_KEYS + PASSTHROUGH_KEYS
    if key not in allowed:
        raise InputError(f"unknown compilation-config key {key!r}", where=f"{source} at {at}",
                         suggestion=did_you_mean(key, allowed),
                         allowed=", ".join(MODELLED_KEYS) + ", … (vLLM CompilationConfig)")
    if key in PASSTHROUGH_KEYS:
        return
    out.cc.setdefault(key, []).append(CcValue(value, source, at, position))


def _int(text: str, where: str, *, allow_zero: bool = False) -> int:
    from cgconfig.argv import parse_int

    value = parse_int(text, where, allow_negative=allow_zero)
    if value < 0:
        raise InputError(f"expected a non-negative integer, got {value}", where=where)
    return value


def parse_vllm_argv(argv: list[str]) -> VllmInput:
    """Pull the vLLM flags out of ``argv``; everything else is left in ``rest``."""
    out = VllmInput()
    dotted_base = 10_000  # dotted keys win over JSON documents wherever they appear
    i = 0
    while i < len(argv):
        token = argv[i]
        name, _, inline = token.partition("=")
        if not is_vllm_flag(name):
            out.rest.append(token)
            i += 1
            continue
        takes_value = VLLM_FLAGS.get(name, True)
        value: str | None = None
        if takes_value:
            if inline:
                value = inline
                i += 1
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 2
            else:
                raise InputError(f"{name} expects a value", where=name)
        else:
            i += 1
        assert value is not None or not takes_value
        if name in CC_FLAGS:
            from cgconfig.docio import load_json_text

            doc = load_json_text(value or "", name)
            if not isinstance(doc, dict):
                raise InputError(f"must be a JSON object, got {type(doc).__name__}", where=name)
            for key, item in doc.items():
                _record(out, key, item, name, f"/{key}", i)
        elif name.startswith(("-cc.", "--compilation-config.")):
            key = name.split(".", 1)[1]
            _record(out, key, _parse_value(value or ""), name, f"/{key}", dotted_base + i)
        elif name == "--enforce-eager":
            out.enforce_eager = i
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
            if not isinstance(tokens, int) or tokens < 0:
                raise InputError("num_speculative_tokens must be a non-negative integer",
                                 where=f"{name} at /num_speculative_tokens")
            out.num_speculative_tokens = tokens
        elif name == "--cudagraph-capture-sizes":
            sizes = [value or ""]
            while i < len(argv) and not argv[i].startswith("-"):
                sizes.append(argv[i])
                i += 1
            if out.final("cudagraph_capture_sizes"):
                raise InputError("cudagraph_capture_sizes and compilation_config."
                                 "cudagraph_capture_sizes are mutually exclusive", where=name)
            _record(out, "cudagraph_capture_sizes", [_int(s, name) for s in sizes], name, "",
                    dotted_base * 2 + i)
        elif name == "--max-cudagraph-capture-size":
            _record(out, "max_cudagraph_capture_size", _int(value or "", name), name, "",
                    dotted_base * 2 + i)
        elif name == "--cudagraph-support":
            from cgconfig.dialects.vllm_modes import parse_level

            try:
                out.support = parse_level(value or "").name
            except ValueError as exc:
                raise InputError(str(exc), where=name) from None
        elif name == "--vllm-attention-backend":
            out.attention_backend = value
    for key in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
        sources = {c.source for c in out.cc.get(key, [])}
        engine_flag = "--" + key.replace("_", "-")
        if engine_flag in sources and len(sources) > 1:
            raise InputError(f"{key} and compilation_config.{key} are mutually exclusive",
                             where=engine_flag)
    return out


# ------------------------------------------------------------------------------ mapping

def _leaf(key: str, value: Any, cc: CcValue, why: str) -> Leaf:
    return Leaf(key, value, Origin(Layer.CONFIG, f"{cc.source} ({why})", cc.at or None,
                                   cc.position))


def _mode_of(cc: CcValue) -> Any:
    from cgconfig.dialects.vllm_modes import mode_from_value

    try:
        return mode_from_value(cc.value)
    except ValueError as exc:
        raise InputError(str(exc), where=f"{cc.source} at {cc.at}".strip()) from None


def _sizes_of(cc: CcValue) -> list[int]:
    value = cc.value
    where = f"{cc.source} at {cc.at}" if cc.at else cc.source
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise InputError(f"must be a list of positive integers, got {value!r}", where=where)
    return sorted(set(value))


def _chain(vin: VllmInput, key: str) -> list[CcValue]:
    """A key's values that take effect: ``null`` is vLLM's "unset", so a final null clears the
    chain (the key keeps its default) and earlier nulls are skipped."""
    chain = sorted(vin.cc.get(key, []), key=lambda c: c.position)  # dotted keys win over JSON
    return [] if chain and chain[-1].value is None else [c for c in chain if c.value is not None]


def _compilation_mode(vin: VllmInput) -> int:
    """``compilation_config.mode`` as a number; unset is VLLM_COMPILE (vLLM's default at -O1+)."""
    chain = _chain(vin, "mode")
    if not chain:
        return COMPILATION_MODES["VLLM_COMPILE"]
    cc = chain[-1]
    name = str(cc.value).upper()
    number = COMPILATION_MODES.get(name, cc.value)
    if isinstance(number, bool) or number not in COMPILATION_MODES.values():
        raise InputError(f"Invalid compilation mode: {cc.value}", where=f"{cc.source} at {cc.at}",
                         allowed=COMPILATION_MODES, suggestion=did_you_mean(name, COMPILATION_MODES))
    return int(number)


def _splitting_ops(vin: VllmInput) -> list[str] | None:
    chain = _chain(vin, "splitting_ops")
    if not chain:
        return None
    cc = chain[-1]
    if not isinstance(cc.value, list) or not all(isinstance(op, str) for op in cc.value):
        raise InputError(f"must be a list of op names, got {cc.value!r}",
                         where=f"{cc.source} at {cc.at}", allowed='e.g. [] or '
                         '["vllm::unified_attention_with_output", …]')
    return list(cc.value)


def _number_fact(facts: dict[str, Any], name: str) -> Any:
    """A deployment fact when it is a number, else None: a badly typed fact (from a file) is
    reported by the resolver's fact validation, with its source, not here."""
    value = facts.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass
class _SizePlan:
    """vLLM's capture sizes as ``VllmConfig._set_cudagraph_sizes`` leaves them, and why."""

    sizes: list[int]
    max_size: int
    why: str
    notes: list[str] = field(default_factory=list)
    """vLLM's warnings while setting them (a truncated maximum, user sizes overridden)."""


def request_from_vllm(argv: list[str]) -> Any:
    """A :class:`~cgconfig.resolve.ResolveRequest` from a vLLM-style command line.

    Follows vLLM 0.33.0's order: ``VllmConfig.__post_init__`` (enforce_eager, the default mode,
    piecewise needs VLLM_COMPILE, then the capture sizes, then ``set_splitting_ops_for_v1``) and
    the worker's ``resolve_cudagraph_mode_and_sizes`` (Stage B, spec-decode rounding).
    """
    from cgconfig.api import request_from_parsed
    from cgconfig.argv import parse_argv
    from cgconfig.dialects import vllm_modes, vllm_sizes
    from cgconfig.resolve import DialectDefault

    vin = parse_vllm_argv(argv)
    # Drop `--dialect vllm` as a pair: a bare "vllm" elsewhere is a value (`--emit vllm`).
    rest = [t for i, t in enumerate(vin.rest) if t != "--dialect" and not t.startswith(
        "--dialect=") and not (i and vin.rest[i - 1] == "--dialect")]
    request = request_from_parsed(parse_argv(rest))
    request.dialect = "vllm"
    leaves: list[Leaf] = []
    modes = _chain(vin, "cudagraph_mode")
    for cc in modes:
        mode = _mode_of(cc)
        decode, prefill = vllm_modes.mode_to_phases(mode)
        why = f"cudagraph_mode={mode.name} → decode {decode}, prefill {prefill}"
        leaves += [_leaf("decode.backend", decode, cc, why), _leaf("prefill.backend", prefill,
                                                                   cc, why)]
    if vin.enforce_eager is not None:
        eager = CcValue(True, "--enforce-eager", "", 30_000 + vin.enforce_eager)
        why = "equivalent to -cc.mode=none -cc.cudagraph_mode=none"
        leaves += [_leaf("decode.backend", "disabled", eager, why),
                   _leaf("prefill.backend", "disabled", eager, why)]
    size_chain = _chain(vin, "cudagraph_capture_sizes")
    user_sizes = _sizes_of(size_chain[-1]) if size_chain else None
    for cc in size_chain:
        sizes = _sizes_of(cc)
        leaves += [_leaf("decode.bs", sizes, cc, "capture sizes, in tokens"),
                   _leaf("prefill.bs", sizes, cc, "capture sizes, in tokens")]
    max_chain = _chain(vin, "max_cudagraph_capture_size")
    user_max = max_chain[-1] if max_chain else None
    if user_max is not None and (not isinstance(user_max.value, int)
                                 or isinstance(user_max.value, bool)):
        raise InputError(f"must be an integer, got {user_max.value!r}",
                         where=f"{user_max.source} {user_max.at}".strip())
    request.leaves = [*request.leaves, *leaves]

    # VllmConfig.__post_init__: enforce_eager turns compilation and graphs off; an unset
    # mode takes the -O2 default; piecewise graphs need VLLM_COMPILE. Only then are
    # the sizes computed, and only when graphs are still on.
    compilation = 0 if vin.enforce_eager is not None else _compilation_mode(vin)
    vllm_compile = compilation == COMPILATION_MODES["VLLM_COMPILE"]
    requested = _mode_of(modes[-1]) if modes else vllm_modes.CudaGraphMode.FULL_AND_PIECEWISE
    if vin.enforce_eager is not None:
        requested = vllm_modes.CudaGraphMode.NONE
    at_sizes = requested.without_piecewise() if not vllm_compile else requested
    seqs, tokens, basis = _engine_defaults(_number_fact(request.facts, "gpu_memory_gib"))
    if vin.max_num_seqs and vin.max_num_batched_tokens:
        basis = "both given"
    max_num_seqs = vin.max_num_seqs or seqs
    max_num_batched_tokens = vin.max_num_batched_tokens or tokens
    sm = _number_fact(request.facts, "gpu_sm")
    if at_sizes is vllm_modes.CudaGraphMode.NONE:
        size_plan = _SizePlan([], 0, f"cudagraph_mode is NONE when vLLM sets the capture sizes "
                                     f"(requested {requested.name}): no sizes, no size checks")
    else:
        try:
            result = vllm_sizes.default_capture_sizes(
                max_num_seqs, max_num_batched_tokens,
                num_speculative_tokens=vin.num_speculative_tokens,
                max_capture_size=user_max.value if user_max else None,
                capture_sizes=user_sizes, blackwell=sm is not None and sm // 10 == 10)
        except ValueError as exc:
            raise InputError(str(exc), where="--compilation-config") from None
        gpu = (f"--gpu-sm {sm}" if sm is not None else
               "GPU compute capability unknown (--gpu-sm): not Blackwell assumed")
        dropped = sorted(set(user_sizes or []) - set(result.sizes))
        size_plan = _SizePlan(result.sizes, result.max_size, (
            f"max_num_seqs={max_num_seqs}, max_num_batched_tokens={max_num_batched_tokens} "
            f"({basis}), num_speculative_tokens={vin.num_speculative_tokens}, {gpu}" + (
                f"; sizes above max_num_batched_tokens dropped: {dropped}" if dropped else "")),
            notes=result.notes)
        if user_sizes is None and result.sizes:
            request.defaults += [
                DialectDefault(f"{phase}.bs", result.sizes, "vLLM default grid", size_plan.why)
                for phase in ("decode", "prefill")]
    if not modes and vin.enforce_eager is None:
        decode, prefill = vllm_modes.mode_to_phases(vllm_modes.CudaGraphMode.FULL_AND_PIECEWISE)
        why_mode = f"vLLM default cudagraph_mode FULL_AND_PIECEWISE (-O2) → decode {decode}, " \
                   f"prefill {prefill}"
        request.defaults += [DialectDefault("decode.backend", decode, "vLLM default", why_mode),
                             DialectDefault("prefill.backend", prefill, "vLLM default",
                                            why_mode)]
    support = vin.support
    backend_name = vin.attention_backend
    if support is None and backend_name is not None:
        if backend_name.upper() not in vllm_modes.VLLM_BACKEND_SUPPORT:
            raise InputError(f"unknown vLLM attention backend {backend_name!r}",
                             where="--vllm-attention-backend",
                             allowed=", ".join(vllm_modes.VLLM_BACKEND_SUPPORT),
                             suggestion=did_you_mean(backend_name.upper(),
                                                     vllm_modes.VLLM_BACKEND_SUPPORT))
        support = vllm_modes.backend_support(
            backend_name, num_speculative_tokens=vin.num_speculative_tokens).name
    request.hooks.append(_stage_b_hook(support, backend_name or "", vin.num_speculative_tokens,
                                       vllm_compile, _splitting_ops(vin), size_plan,
                                       request.strict))
    return request


#: vLLM's OpenAI-server engine defaults by GPU memory (arg_utils): (at least GiB,
#: max_num_seqs, max_num_batched_tokens), first match wins.
VLLM_ENGINE_DEFAULTS: tuple[tuple[float, int, int], ...] = (
    (160, 1024, 16384),
    (70, 1024, 8192),
    (0, 256, 2048),
)


def _engine_defaults(memory_gib: float | None) -> tuple[int, int, str]:
    """vLLM's engine-argument defaults for a GPU's memory, and where they came from."""
    if memory_gib is None:
        _, seqs, tokens = VLLM_ENGINE_DEFAULTS[-1]
        return seqs, tokens, "vLLM server defaults for unknown GPU memory"
    floor, seqs, tokens = next(row for row in VLLM_ENGINE_DEFAULTS if memory_gib >= row[0])
    return seqs, tokens, f"vLLM server defaults for ≥ {floor:g} GiB ({memory_gib:g} GiB)"


def _write_sizes(draft: Any, sizes: list[int], rule: str, why: str) -> list[Any]:
    """Set both phases' lists (vLLM has one list for both) and their maxima; the changes."""
    changes = []
    for phase in ("decode", "prefill"):
        draft.mark_sizes_explicit(phase)
        for key, value, reason in ((f"{phase}.bs", sizes, why),
                                   (f"{phase}.max_bs", sizes[-1] if sizes else None,
                                    "the largest capture size")):
            if draft.get(key) != value:
                changes.append(draft.record(key, value, source=f"rule:{rule}", layer="rule",
                                            why=reason))
    return [c for c in changes if c is not None]


def _stage_b_hook(support: str | None, backend: str, num_spec: int, vllm_compile: bool,
                  splitting_ops: list[str] | None, size_plan: _SizePlan, strict: bool) -> Any:
    """vLLM's mode resolution after the user's input: A8, the sizes, A19-A22, Stage B, B7."""
    from cgconfig.dialects import vllm_modes

    def hook(draft: Any) -> None:
        mode, _ = vllm_modes.phases_to_mode(draft.get("decode.backend"),
                                            draft.get("prefill.backend"))
        original = mode
        if not vllm_compile and mode.requires_piecewise():
            # A8: piecewise graphs need the vLLM_COMPILE compilation mode.
            mode = mode.without_piecewise()
            _apply(draft, "vllm.A8", original, mode,
                   f"Cudagraph mode {original.name} is not compatible with compilation mode "
                   f"other than VLLM_COMPILE. Overriding to {mode.name}.", strict,
                   "VllmConfig._normalize_piecewise_cudagraph_mode")
        draft.warnings.extend(f"vLLM: {note}" for note in size_plan.notes)
        changes = _write_sizes(draft, size_plan.sizes, "vllm.sizes", size_plan.why)
        if changes:
            draft.decisions.append(Decision(
                rule="vllm.sizes", kind="constraint", outcome="applied",
                why=f"vLLM's capture sizes: {size_plan.why}", changes=changes,
                source="vLLM 0.33.0 VllmConfig._set_cudagraph_sizes"))
        fixup = vllm_modes.splitting_fixup(mode, splitting_ops, vllm_compile)
        if fixup.rule:
            _apply(draft, f"vllm.{fixup.rule}", mode, fixup.mode, fixup.message, strict,
                   "CompilationConfig.set_splitting_ops_for_v1")
        try:
            # Without a capability, no Stage-B downgrade is assumed; B7 still applies.
            resolution = vllm_modes.resolve_mode(
                fixup.mode, vllm_modes.parse_level(support or "ALWAYS"),
                num_speculative_tokens=num_spec, compilation_mode_is_vllm_compile=vllm_compile,
                attention_split=fixup.attention_split, backend_name=backend)
        except vllm_modes.VllmModeError as exc:
            raise InputError(str(exc), where="vLLM cudagraph_mode") from None
        for step in resolution.steps:
            _apply(draft, f"vllm.{step.rule}", step.before, step.after, step.message, strict)
        q = resolution.size_multiple
        if q > 1 and size_plan.sizes:
            try:
                rounded = vllm_modes.round_sizes_for_spec(size_plan.sizes, size_plan.max_size, q)
            except vllm_modes.VllmModeError as exc:
                raise InputError(str(exc), where="vLLM capture sizes") from None
            changes = _write_sizes(draft, rounded, "vllm.B7",
                                   f"rounded to multiples of {q} (1 + num_speculative_tokens)")
            if changes:
                draft.decisions.append(Decision(
                    rule="vllm.B7", kind="constraint", outcome="applied",
                    why=f"full decode graphs with {num_spec} speculative tokens replay "
                        f"uniform batches of {q} tokens per request: sizes rounded to "
                        f"multiples of {q}", changes=changes,
                    source="vLLM 0.33.0 CompilationConfig.adjust_cudagraph_sizes_for_spec_decode"
                           " (B7)"))

    return hook


def _apply(draft: Any, rule: str, before: Any, after: Any, message: str, strict: bool,
           function: str = "CompilationConfig.resolve_cudagraph_mode_and_sizes") -> None:
    from cgconfig.dialects import vllm_modes

    decode, prefill = vllm_modes.mode_to_phases(after)
    changes = []
    locked = []
    for key, value in (("decode.backend", decode), ("prefill.backend", prefill)):
        if draft.get(key) == value:
            continue
        if key in draft.locked:
            locked.append(key)
        if key in draft.locked and strict:
            inputs = ", ".join(draft.user_inputs(key))
            raise StrictConflictError([
                f"rule {rule} (constraint) would change {key} from {draft.get(key)!r} to "
                f"{value!r}, which {inputs} set explicitly: {message.rstrip('.')}. Remedies: drop {inputs}; "
                f"or choose cudagraph_mode={after.name}"])
        change = draft.record(key, value, source=f"rule:{rule}", layer="rule", why=message)
        if change is not None:
            changes.append(change)
    if not changes:
        return
    outcome: Outcome = "overrode-lock" if locked else "applied"
    if locked:
        draft.warnings.append(f"rule {rule} overrode {', '.join(locked)}: {message}")
    draft.decisions.append(Decision(
        rule=rule, kind="constraint", outcome=outcome,
        why=f"{message} ({before.name} → {after.name})", changes=changes,
        source=f"vLLM 0.33.0 {function} ({rule[5:]})",
        inputs=[i for k in locked for i in draft.user_inputs(k)]))
