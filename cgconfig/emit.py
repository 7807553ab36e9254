"""Turn a plan back into engine flags: SGLang (exact), vLLM (closest), shell variables.

``--emit sglang`` realises the plan exactly: one ``--cuda-graph-config`` JSON holding each
phase's backend and exact size list, plus the graph options. Feeding those flags back (with the
same deployment facts) resolves to the same plan; a test proves it.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from cgconfig.fields.flags import OPTION_FLAGS
from cgconfig.fields.table import default_value
from cgconfig.plan import Plan


def sglang_config(plan: Plan) -> dict[str, dict[str, Any]]:
    """The ``--cuda-graph-config`` document that pins the plan's configuration exactly."""
    doc: dict[str, dict[str, Any]] = {}
    for phase, values in plan.config.items():
        body: dict[str, Any] = {"backend": values["backend"]}
        if values["backend"] != "disabled":
            for key, value in values.items():
                if key in ("backend", "max_bs") or value is None:
                    continue
                body[key] = value
        doc[phase] = body
    return doc


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


def vllm_args(plan: Plan) -> tuple[list[str], list[str]]:
    """The closest vLLM ``--compilation-config`` and what it cannot express."""
    from cgconfig.dialects.vllm_modes import phases_to_mode

    decode, prefill = plan.capture["decode"], plan.capture["prefill"]
    mode, lost = phases_to_mode(decode["backend"], prefill["backend"])
    notes = list(lost)
    config: dict[str, Any] = {"cudagraph_mode": mode.name}
    sizes = sorted(set(decode["sizes"]) | set(prefill["sizes"]))
    if sizes:
        config["cudagraph_capture_sizes"] = sizes
        config["max_cudagraph_capture_size"] = sizes[-1]
    if decode["sizes"] and prefill["sizes"]:
        notes.append("vLLM has one capture-size list for decode (requests) and mixed batches "
                     "(tokens): the union of both phases' sizes is emitted")
    if plan.options["disable_padding"]:
        notes.append("--disable-cuda-graph-padding has no vLLM equivalent (vLLM always pads)")
    if plan.options["enable_torch_compile"]:
        config["compile_sizes"] = plan.capture["decode"]["compile_sizes"]
    return ["--compilation-config", json.dumps(config, separators=(",", ":"))], notes


def env_lines(plan: Plan) -> list[str]:
    """``export`` lines for shell ``eval``: backends, size lists and the SGLang flags."""
    lines = []
    for phase in ("decode", "prefill"):
        cap = plan.capture[phase]
        upper = phase.upper()
        lines.append(f"export CGCONFIG_{upper}_BACKEND={shlex.quote(cap['backend'])}")
        lines.append(f"export CGCONFIG_{upper}_SIZES={shlex.quote(' '.join(map(str, cap['sizes'])))}")
    lines.append(f"export CGCONFIG_SGLANG_ARGS={shlex.quote(shlex.join(sglang_args(plan)))}")
    lines.append(f"export CGCONFIG_DOWNGRADED={'1' if plan.downgraded else '0'}")
    return lines


def emit_plan(plan: Plan, target: str) -> tuple[str, list[str]]:
    """Text for ``resolve --emit TARGET`` and notes on what the target cannot express."""
    if target == "sglang":
        return shlex.join(sglang_args(plan)) + "\n", []
    if target == "vllm":
        args, notes = vllm_args(plan)
        return shlex.join(args) + "\n", notes
    if target == "env":
        return "\n".join(env_lines(plan)) + "\n", []
    raise ValueError(f"unknown emit target {target!r}")
