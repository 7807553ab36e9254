"""vLLM's side of ``cgconfig verify`` (the plug-in parts ``expected_groups``, ``step_sizes``,
``eager_flags``, ``launch_entry``, ``launch_model``, ``old_spelling``): its graphs are grouped by
mode (decode FULL, mixed PIECEWISE or FULL) over one token-counted list, and its printed
``non-default args`` go back into a ``vllm serve MODEL`` line.
"""

from __future__ import annotations

from typing import Any

from cgconfig.plan import Plan
from cgconfig.verify.compare import Expected

#: ``vllm serve``: the model follows as the one positional.
LAUNCH_ENTRY = ("vllm", "serve")
#: The one bound of the one list, in tokens.
EAGER_FLAGS = {"mixed": "--max-cudagraph-capture-size"}
#: The printed arguments that name the model (``model_tag`` first, as ``vllm serve`` sets it).
MODEL_KEYS = ("model_tag", "model")


def max_num_seqs(plan: Plan, argv: list[str]) -> int | None:
    """``max_num_seqs`` as the plan used it: the line's ``--max-num-seqs``, else the value the
    plan's size decision names (``max_num_seqs=256`` in its ``why``)."""
    for i, token in enumerate(argv):
        name, eq, value = token.partition("=")
        if name in ("--max-num-seqs", "--max_num_seqs"):
            text = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            if text.isascii() and text.isdigit() and len(text) <= 9:
                return int(text)
    for entry in reversed(plan.provenance.get("decode.bs") or []):
        at = (entry.why or "").find("max_num_seqs=")
        if at >= 0:
            digits = (entry.why or "")[at + len("max_num_seqs="):].split(",", 1)[0].strip()
            if digits.isascii() and digits.isdigit() and len(digits) <= 9:
                return int(digits)
    return None


def expected_groups(plan: Plan, argv: list[str]) -> list[Expected]:
    """vLLM 0.33.0 captures its FULL decode graphs only for the sizes ``x`` with
    ``q <= x <= q * max_num_seqs`` (``q`` = 1 + speculative tokens:
    ``vllm/v1/cudagraph_dispatcher.py: CudagraphDispatcher.initialize_cudagraph_keys``); with
    piecewise decode it serves decode from the mixed graphs."""
    out: list[Expected] = []
    for phase in ("decode", "prefill"):
        backend, sizes = plan.backend(phase), plan.capture_sizes(phase)
        if backend == "disabled" or not sizes or (phase == "decode" and backend != "full"):
            continue
        mode = "FULL" if backend == "full" else "PIECEWISE"
        group = f"decode {mode}" if phase == "decode" else f"mixed {mode}"
        seqs = max_num_seqs(plan, argv) if phase == "decode" else None
        if seqs is not None:
            width = int(plan.units["decode"].get("tokens_per_request") or 1)
            sizes = [x for x in sizes if width <= x <= width * seqs]
        out.append(Expected(group, phase, backend, sizes))
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
