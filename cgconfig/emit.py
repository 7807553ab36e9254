"""Turn a plan back into engine flags: SGLang (exact), vLLM (exact where it can say it), shell
variables.

``--emit sglang`` pins every configured key of both phases in one ``--cuda-graph-config``
(backend, ``max_bs``, the size list, the prefill extras) plus the graph options that differ from
their defaults. With the same deployment facts, SGLang 0.5.23 resolves that line to the plan:
``tests/fidelity/emit_roundtrip.py`` proves it on the fidelity corpus.

``--emit vllm`` writes a ``--compilation-config``; what vLLM 0.33.0 has no way to say is named,
one note per item (:data:`VLLM_INEXPRESSIBLE` lists them all), never dropped silently.

Units differ between the engines (``Plan.units``): SGLang's decode sizes count requests, its
prefill sizes and all of vLLM's count tokens (a decode step takes ``tokens_per_request`` tokens
per request under speculative decoding). Each emitter converts; a size that does not convert
exactly is refused with one line naming the phase.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from cgconfig.emit_keys import copy_keys, unsaid
from cgconfig.emit_units import decode_sizes_as
from cgconfig.errors import InputError
from cgconfig.fields.flags import OPTION_FLAGS
from cgconfig.fields.table import default_value
from cgconfig.plan import Plan

#: What ``--emit vllm`` cannot express, by the note's tag (docs/emit.md lists the same items):
#: the plan's shapes below, then each tag that keys declare ``NotExpressible("vllm", TAG)``.
VLLM_INEXPRESSIBLE: dict[str, str] = {
    "mode": "a pair of phase backends with no vLLM cudagraph_mode (breakable prefill with full "
            "or disabled decode is PIECEWISE; one phase eager while the other is piecewise)",
    "one-list": "separate decode and prefill size lists: vLLM has one cudagraph_capture_sizes "
                "list (tokens) for uniform-decode and mixed batches",
    "max-bs": "a phase max_bs other than its largest size: vLLM's max_cudagraph_capture_size is "
              "the largest size of the one list",
    "compile-mode": "piecewise graphs (PIECEWISE, FULL_AND_PIECEWISE) under a compilation mode "
                    "other than VLLM_COMPILE: vLLM turns a requested PIECEWISE into NONE and "
                    "FULL_AND_PIECEWISE into FULL_DECODE_ONLY "
                    "(VllmConfig._normalize_piecewise_cudagraph_mode), though its worker can "
                    "reach them later from another request",
    "empty-sizes": "graphs on with no capture size (every size above max_num_batched_tokens): "
                   "vLLM refuses an empty cudagraph_capture_sizes; NONE, which captures the same "
                   "nothing, is emitted",
}
#: Compilation-config keys the plan decides; a user's other keys are kept around them.
VLLM_GRAPH_KEYS = ("cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size")
_VLLM_COMPILE = 3
"""``CompilationMode.VLLM_COMPILE``, the only mode with piecewise graphs."""


def _declared_tags() -> dict[str, str]:
    """Each tag keys declare ``NotExpressible("vllm", TAG)`` with: what vLLM lacks, and the keys."""
    from cgconfig.fields.spec import NotExpressible
    from cgconfig.fields.table import all_config_keys, spec

    found: dict[str, tuple[str, list[str]]] = {}
    for key in all_config_keys():
        mapping = spec(key).mapping("vllm")
        if isinstance(mapping, NotExpressible):
            found.setdefault(mapping.tag, (mapping.why, []))[1].append(key)
    return {tag: f"{why}: {', '.join(keys)}" for tag, (why, keys) in found.items()}


VLLM_INEXPRESSIBLE.update(_declared_tags())


def sglang_config_notes(plan: Plan) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The ``--cuda-graph-config`` document that pins the plan's configuration, and a note for
    each thing SGLang cannot take: an empty decode list, an unaligned DeepEP prefill list."""
    from cgconfig.engines.versions import release_label

    doc: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for phase, values in plan.config.items():
        # Every key is pinned, disabled phases included: SGLang 0.5.23 derives an unset prefill
        # max_bs from the chunked-prefill size (python/sglang/srt/arg_groups/memory_hook.py:
        # handle_gpu_memory_settings) and fills an unset list from its own generator, so
        # anything left out is re-derived, not kept.
        body = {key: value for key, value in values.items() if value is not None}
        if phase == "decode" and plan.size_unit("decode") != "requests":
            if body.get("bs") is not None:
                body["bs"] = decode_sizes_as(plan, body["bs"], "requests", "sglang")
            if body.get("max_bs") is not None:
                body["max_bs"] = decode_sizes_as(plan, [body["max_bs"]], "requests", "sglang")[0]
        if phase == "decode" and body.get("bs") == []:
            # The same handle_gpu_memory_settings takes max() of an explicit decode list.
            body = {"backend": "disabled"}
            if values["backend"] != "disabled":
                notes.append(f"decode is {values['backend']} with no capture size; "
                             f"{release_label('sglang', plan.engine_version)} cannot take an "
                             "empty decode list, so decode is emitted "
                             "disabled, which captures the same nothing")
        if (phase == "prefill" and body.get("backend") == "breakable"
                and plan.facts.get("moe_a2a_backend") == "deepep"
                and any(size % 8 for size in body.get("bs") or ())):
            # The plan's list came from a later regeneration (parallel_hook's DP clamp) that
            # SGLang does not align; a list on the command line is aligned first.
            notes.append("prefill sizes that are not multiples of 8 under DeepEP: "
                         f"{release_label('sglang', plan.engine_version)} "
                         "rounds a given prefill list up to multiples of 8 "
                         "(cuda_graph_hook.apply_deepep_adjustments), so the emitted list "
                         "captures the aligned sizes")
        doc[phase] = body
    return doc, notes


def sglang_config(plan: Plan) -> dict[str, dict[str, Any]]:
    """The ``--cuda-graph-config`` document that pins the plan's configuration exactly."""
    return sglang_config_notes(plan)[0]


def sglang_args(plan: Plan) -> list[str]:
    """SGLang server flags that realise the plan (graph flags only, no deployment facts)."""
    args = ["--cuda-graph-config", json.dumps(sglang_config(plan), separators=(",", ":"))]
    for flag in OPTION_FLAGS:
        if flag.replacement:
            continue
        key = flag.writes[0][0]
        value = plan.options[key.split(".", 1)[1]]
        if value == default_value(key):
            continue
        args += [flag.name] if isinstance(value, bool) else [flag.name, str(value)]
    return args


def _phase_tokens(plan: Plan, phase: str, sizes: list[int]) -> list[int]:
    return decode_sizes_as(plan, sizes, "tokens", "vllm") if phase == "decode" else list(sizes)


def vllm_args(plan: Plan, user_config: dict[str, Any] | None = None
              ) -> tuple[list[str], list[str]]:
    """vLLM's ``--compilation-config`` for the plan, around the keys of ``user_config`` (the
    user's own compilation config) that are not graph keys, and one note per thing vLLM cannot
    say (tagged as in :data:`VLLM_INEXPRESSIBLE`)."""
    from cgconfig.engines.versions import release_label
    from cgconfig.engines.vllm.modes import CudaGraphMode, phases_to_mode

    decode, prefill = plan.config["decode"], plan.config["prefill"]
    mode, lost = phases_to_mode(decode["backend"], prefill["backend"])
    notes = [f"[mode] {note}" for note in lost]
    config = {k: v for k, v in (user_config or {}).items() if k not in VLLM_GRAPH_KEYS}
    lists = {phase: _phase_tokens(plan, phase, plan.config[phase]["bs"] or [])
             for phase in ("decode", "prefill") if plan.config[phase]["backend"] != "disabled"}
    sizes = sorted({size for phase_sizes in lists.values() for size in phase_sizes})
    if mode is not CudaGraphMode.NONE and not sizes:
        notes.append(f"[empty-sizes] {mode.name} with no capture size: vLLM refuses an empty "
                     "cudagraph_capture_sizes, so NONE (which captures the same nothing) is "
                     "emitted")
        mode = CudaGraphMode.NONE
    config["cudagraph_mode"] = mode.name
    compile_mode = config.get("mode")
    if mode.requires_piecewise() and compile_mode not in (None, _VLLM_COMPILE, "VLLM_COMPILE"):
        notes.append(f"[compile-mode] {mode.name} needs compilation mode VLLM_COMPILE (3); with "
                     f"mode {compile_mode!r} {release_label('vllm')} turns a requested "
                     f"{mode.name} into "
                     f"{mode.without_piecewise().name} (VllmConfig."
                     "_normalize_piecewise_cudagraph_mode)")
    if sizes and mode is not CudaGraphMode.NONE:
        config["cudagraph_capture_sizes"] = sizes
        config["max_cudagraph_capture_size"] = sizes[-1]
    if len({tuple(v) for v in lists.values()}) > 1:
        notes.append("[one-list] " + ", ".join(f"{p} has {len(v)} sizes" for p, v in lists.items())
                     + f" (tokens); vLLM has one list for both: their union ({len(sizes)} sizes) "
                     "is emitted and each phase captures all of it")
    for phase, phase_sizes in lists.items():
        max_bs = plan.config[phase]["max_bs"]
        top = _phase_tokens(plan, phase, [max_bs])[0] if max_bs is not None else None
        if phase_sizes and top is not None and top != max(phase_sizes):
            notes.append(f"[max-bs] {phase} max_bs {max_bs} is not its largest size "
                         f"{max(plan.config[phase]['bs'])}: vLLM's ceiling is the largest size")
    # Each key vLLM cannot say is one note, as its declaration tags it (never a silent drop).
    notes += [f"[{tag}] {text}" for tag, text in
              unsaid(plan, "vllm", "{key}={value!r} has no vLLM equivalent")]
    if plan.options["enable_torch_compile"]:
        config["compile_sizes"] = _phase_tokens(plan, "decode",
                                                plan.capture["decode"]["compile_sizes"])
    copy_keys(plan, "vllm", config)
    return ["--compilation-config", json.dumps(config, separators=(",", ":"))], notes


def sglang_words(plan: Plan) -> tuple[str, list[str]]:
    """``--emit sglang``'s flags as shell words, or ``""`` and the reason when the plan's decode
    sizes are not whole numbers of requests (a vLLM line's tokens): for ``--emit env``, whose
    other variables still hold."""
    try:
        return shlex.join(sglang_args(plan)), []
    except InputError as error:
        return "", [f"CGCONFIG_SGLANG_ARGS and CGCONFIG_CUDA_GRAPH_CONFIG are empty: {error}"]


def env_lines(plan: Plan) -> list[str]:
    """``export`` lines for shell ``eval``: backends, size lists and the SGLang flags."""
    lines = []
    for phase in ("decode", "prefill"):
        cap = plan.capture[phase]
        upper = phase.upper()
        lines.append(f"export CGCONFIG_{upper}_BACKEND={shlex.quote(cap['backend'])}")
        lines.append(f"export CGCONFIG_{upper}_SIZES={shlex.quote(' '.join(map(str, cap['sizes'])))}")
        lines.append(f"export CGCONFIG_{upper}_UNIT={shlex.quote(plan.size_unit(phase))}")
    lines.append(f"export CGCONFIG_SGLANG_ARGS={shlex.quote(sglang_words(plan)[0])}")
    lines.append(f"export CGCONFIG_DOWNGRADED={'1' if plan.downgraded else '0'}")
    return lines


def emit_plan(plan: Plan, target: str, user_config: dict[str, Any] | None = None
              ) -> tuple[str, list[str]]:
    """Text for ``resolve --emit TARGET`` and notes on what the target cannot express;
    ``user_config`` is the line's own vLLM compilation config, or for ``trtllm`` its options
    file (their non-graph keys are kept)."""
    if target == "sglang":
        return shlex.join(sglang_args(plan)) + "\n", sglang_config_notes(plan)[1]
    if target == "vllm":
        args, notes = vllm_args(plan, user_config)
        return shlex.join(args) + "\n", notes
    if target == "trtllm":
        from cgconfig.engines.trtllm.emit import trtllm_text

        return trtllm_text(plan, user_config)
    if target == "env":
        return "\n".join(env_lines(plan)) + "\n", sglang_words(plan)[1]
    raise ValueError(f"unknown emit target {target!r}")
