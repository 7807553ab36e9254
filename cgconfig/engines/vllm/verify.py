"""vLLM's side of ``cgconfig verify`` (the plug-in parts ``expected_groups``, ``step_sizes``,
``eager_flags``, ``launch_entry``, ``launch_model``, ``old_spelling``): its graphs are grouped by
mode (decode FULL, mixed PIECEWISE or FULL) over one token-counted list, and its printed
``non-default args`` go back into a ``vllm serve MODEL`` line.
"""

from __future__ import annotations

from typing import Any

from cgconfig.engines.vllm import captured
from cgconfig.plan import Plan
from cgconfig.verify.compare import Expected

#: ``vllm serve``: the model follows as the one positional.
LAUNCH_ENTRY = ("vllm", "serve")
#: The one bound of the one list, in tokens.
EAGER_FLAGS = {"mixed": "--max-cudagraph-capture-size"}
#: The printed arguments that name the model (``model_tag`` first, as ``vllm serve`` sets it).
MODEL_KEYS = ("model_tag", "model")


def expected_groups(plan: Plan, argv: list[str]) -> list[Expected]:
    """The graphs vLLM captures, as the plan lists them: FULL uniform-decode graphs and the
    mixed-batch graphs (PIECEWISE or FULL), both computed by
    :func:`cgconfig.engines.vllm.captured.captured_lists` (the FULL decode window of the release's
    model runner); with piecewise decode or mode FULL, decode steps replay the mixed graphs."""
    del argv  # the plan already holds max_num_seqs and the runner's window
    groups = captured.plan_groups(plan.config, plan.capture)
    out: list[Expected] = []
    decode = groups.get("FULL", {}).get("uniform_decode")
    if decode:
        out.append(Expected("decode FULL", "decode", plan.backend("decode"), decode))
    for mode in ("PIECEWISE", "FULL"):
        mixed = groups.get(mode, {}).get("mixed")
        if mixed:
            out.append(Expected(f"mixed {mode}", "prefill", plan.backend("prefill"), mixed))
    return out


def step_sizes(plan: Plan, phase: str) -> list[int]:
    """One token-counted list covers every step, whatever its phase: the longer of the two."""
    del phase
    return max((plan.capture_sizes(p) for p in ("decode", "prefill")), key=len)


def launch_model(args: dict[str, Any]) -> tuple[list[str], frozenset[str]]:
    """The model positional, and the printed arguments it consumed."""
    model = next((args[k] for k in MODEL_KEYS if isinstance(args.get(k), str)), None)
    return ([model] if model else []), frozenset(MODEL_KEYS)


def old_spelling(spelling: str, value: Any) -> None:
    """An argument the release's table does not know is listed as unknown, not guessed."""
    del spelling, value
