"""``--emit sglang``: the plan as SGLang's flags (the plug-in part ``emit``).

Every configured key of both phases is pinned in one ``--cuda-graph-config`` (backend,
``max_bs``, the size list, the prefill extras), plus the graph options that differ from their
defaults. With the same deployment facts, SGLang 0.5.23 resolves that line to the plan:
``tests/fidelity/emit_roundtrip.py`` proves it on the fidelity corpus. SGLang's decode sizes
count requests: a plan whose decode sizes count tokens (a vLLM line's) converts exactly or is
refused with one line naming the phase.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from cgconfig.emit_units import decode_sizes_as
from cgconfig.fields.flags import OPTION_FLAGS
from cgconfig.fields.table import default_value
from cgconfig.plan import Plan


def sglang_config_notes(plan: Plan) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The ``--cuda-graph-config`` document that pins the plan's configuration, and a note for
    each thing SGLang cannot take: an empty decode list, an unaligned DeepEP prefill list."""
    from cgconfig.line.versions import release_label

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


def emit_text(plan: Plan, user_config: dict[str, Any] | None) -> tuple[str, list[str]]:
    """The plug-in part ``emit``: the line's flags as text, and the notes."""
    del user_config  # SGLang's emitter pins every graph key; there is no user document
    return shlex.join(sglang_args(plan)) + "\n", sglang_config_notes(plan)[1]
