"""``--emit vllm``: the plan as vLLM's ``--compilation-config`` (the plug-in part ``emit``).

Exact where vLLM can say it; what vLLM 0.33.0 has no way to say is named, one note per item
(:data:`VLLM_INEXPRESSIBLE` lists them all), never dropped silently. vLLM's one capture-size
list counts tokens: a decode size of N requests is N * tokens-per-request tokens, and a size
that does not convert exactly is refused with one line naming the phase.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from cgconfig.emit_keys import copy_keys, unsaid
from cgconfig.emit_units import decode_sizes_as
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


def _phase_tokens(plan: Plan, phase: str, sizes: list[int]) -> list[int]:
    return decode_sizes_as(plan, sizes, "tokens", "vllm") if phase == "decode" else list(sizes)


def vllm_args(plan: Plan, user_config: dict[str, Any] | None = None
              ) -> tuple[list[str], list[str]]:
    """vLLM's ``--compilation-config`` for the plan, around the keys of ``user_config`` (the
    user's own compilation config) that are not graph keys, and one note per thing vLLM cannot
    say (tagged as in :data:`VLLM_INEXPRESSIBLE`)."""
    from cgconfig.engines.vllm.modes import CudaGraphMode, phases_to_mode
    from cgconfig.line.versions import release_label

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
                     f"mode {compile_mode!r} {release_label('vllm', plan.engine_version)} turns a requested "
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


def emit_text(plan: Plan, user_config: dict[str, Any] | None) -> tuple[str, list[str]]:
    """The plug-in part ``emit``: the line's flags as text, and the notes."""
    args, notes = vllm_args(plan, user_config)
    return shlex.join(args) + "\n", notes
