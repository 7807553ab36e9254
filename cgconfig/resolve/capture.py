"""The capture step of an engine that captures exactly its listed sizes (vLLM, TensorRT-LLM);
SGLang's capture filter is its model runner's (``cgconfig.engines.sglang.cuda_graph_runner``).
"""

from __future__ import annotations

from typing import Any

from cgconfig.draft import Draft


def capture_listed(draft: Draft) -> dict[str, dict[str, Any]]:
    """vLLM and TensorRT-LLM: each enabled phase captures its listed sizes, sorted (their own
    dialect steps already applied the engine's caps); no SGLang capture filter. A dialect that
    filters the decode list itself (TensorRT-LLM's ``_filter_cuda_graph_batch_sizes``, which
    keeps repeats) sets ``draft.decode_filter``."""
    capture: dict[str, dict[str, Any]] = {}
    for phase in ("decode", "prefill"):
        backend = draft.get(f"{phase}.backend")
        listed = list(draft.get(f"{phase}.bs") or [])
        if backend == "disabled":
            sizes: list[int] = []
        elif phase == "decode" and draft.decode_filter is not None:
            sizes = draft.decode_filter(listed)
        else:
            sizes = sorted(set(listed))
        # TensorRT-LLM's own filter states its own bound (the plan's capture-bound note).
        filtered = phase == "decode" and draft.decode_filter is not None
        if backend != "disabled" and not sizes and not filtered:
            draft.warnings.append(f"{phase}: no capture sizes; {phase} runs eagerly")
        capture[phase] = {"backend": backend if sizes else "disabled", "sizes": sizes}
    capture["decode"].update(compile_sizes=[], alignment={"multiple": 1, "request_width": 1,
                                                          "pool_size": None})
    return capture
