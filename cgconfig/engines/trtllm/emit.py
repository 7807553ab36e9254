"""``--emit trtllm``: the plan as a trtllm-serve options file (``--extra_llm_api_options``).

``cuda_graph_config`` pins the captured decode list (``batch_sizes``, in requests) and
``enable_padding``, or is ``null`` when no decode graph is captured; piecewise prefill graphs
become ``torch_compile_config`` (``enable_piecewise_cuda_graph``, ``capture_num_tokens``).
Given to trtllm-serve with the line's own size flags, TensorRT-LLM captures exactly that list:
the list is already within the engine's bound, so ``_filter_cuda_graph_batch_sizes`` keeps it
whole (``tests/fidelity/emit_roundtrip_trtllm.py`` proves it through TensorRT-LLM's code).
The user's own options file is kept around the graph keys (``max_batch_size``,
``speculative_config``... still bound the list the same way). What the options file cannot say
is named, one note per item.
"""

from __future__ import annotations

from typing import Any

from cgconfig.emit_keys import copy_keys, unsaid
from cgconfig.emit_units import decode_sizes_as
from cgconfig.plan import Plan


def trtllm_options(plan: Plan, user_options: dict[str, Any] | None = None
                   ) -> tuple[dict[str, Any], list[str]]:
    """The options document (``user_options`` with the graph keys replaced) and a note for
    each thing it cannot express."""
    notes: list[str] = []
    doc: dict[str, Any] = dict(user_options or {})
    decode = plan.capture["decode"]
    sizes = decode_sizes_as(plan, decode["sizes"], "requests", "trtllm")
    if decode["backend"] == "disabled" or not sizes:
        doc["cuda_graph_config"] = None
        if plan.config["decode"]["backend"] != "disabled" and not sizes:
            notes.append("decode graphs on with no capture size: emitted as "
                         "cuda_graph_config: null, which captures the same nothing")
    else:
        doc["cuda_graph_config"] = {"batch_sizes": sizes,
                                    "enable_padding": not plan.options["disable_padding"]}
        if decode["backend"] == "breakable":
            notes.append("a breakable decode graph: TensorRT-LLM captures whole decode graphs")
        elif decode["backend"] == "tc_piecewise":  # SGLang's decode runner runs it as full
            notes.append("a tc_piecewise decode graph (SGLang runs it as full): TensorRT-LLM "
                         "captures whole decode graphs")
    prefill = plan.capture["prefill"]
    compile_block = doc.get("torch_compile_config")
    compile_block = dict(compile_block) if isinstance(compile_block, dict) else {}
    compile_block.pop("capture_num_tokens", None)
    if prefill["backend"] != "disabled" and prefill["sizes"]:
        doc["torch_compile_config"] = {**compile_block, "enable_piecewise_cuda_graph": True,
                                       "capture_num_tokens": list(prefill["sizes"])}
        if prefill["backend"] == "full":
            notes.append("full prefill graphs: TensorRT-LLM's prefill graphs are piecewise "
                         "(torch_compile_config), emitted as such")
    elif compile_block or "torch_compile_config" in doc:
        doc["torch_compile_config"] = {**compile_block, "enable_piecewise_cuda_graph": False}
    # Each key the options file cannot say is one note, as its declaration says.
    notes += [text for _, text in
              unsaid(plan, "trtllm", "{key}={value!r} has no TensorRT-LLM options-file key")]
    copy_keys(plan, "trtllm", doc)
    return doc, notes


def trtllm_text(plan: Plan, user_options: dict[str, Any] | None = None
                ) -> tuple[str, list[str]]:
    """The options file's YAML text and the notes."""
    import yaml

    doc, notes = trtllm_options(plan, user_options)
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100), notes


def emit_text(plan: Plan, user_config: dict[str, Any] | None) -> tuple[str, list[str]]:
    """The plug-in part ``emit``: the options file as text, and the notes."""
    return trtllm_text(plan, user_config)
