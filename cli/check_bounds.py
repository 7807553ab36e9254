"""The running-request bound of a plan, per engine, for ``cgconfig check``'s CG001 and CG005:
the most requests one decode step holds. The command line wires the engines' own readers
(it may import an engine's package; the lint core may not)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from cgconfig.lint.analyze import Bound
from cgconfig.lint.locate import find_word
from cgconfig.plan import Plan

#: The note TensorRT-LLM's source writes when max_batch_size bounds the list
#: (``cgconfig/engines/trtllm/source.py``: ``EngineLimits.chain``).
_TRTLLM_NOTE = re.compile(r"captures decode batches of at most (min\(max_batch_size (\d{1,9}) "
                          r"\(([^)]*)\).*\)) = (\d{1,9}) requests")
#: The ``max_num_tokens`` term of that note, and where its value came from.
_TRTLLM_TOKENS = re.compile(r"max_num_tokens \d{1,9} \(([^)]*)\)")


def running_bound(plan: Plan, argv: Sequence[str]) -> Bound | None:
    """SGLang ``--max-running-requests``; vLLM ``max_num_seqs`` (its flag or the default the
    plan's grid used); TensorRT-LLM ``min(max_batch_size, max_num_tokens / tokens per step)``
    (the note its source writes; the file chose it when it set the term that binds: a default
    ``max_batch_size`` under the file's smaller ``max_num_tokens`` bound is the file's)."""
    engine = plan.engine_version.get("engine") or plan.facts.get("derived", {}).get("dialect")
    if engine == "sglang":
        value = plan.facts.get("max_running_requests")
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        dp = plan.facts.get("dp_size")
        if plan.facts.get("derived", {}).get("attn_dp_enabled") and isinstance(dp, int) and dp > 1:
            # Under DP attention each rank's scheduler runs its share (SGLang 0.5.8's
            # ModelRunner.initialize, 0.5.10's _resolve_max_num_reqs: max_running_requests //
            # dp_size), and the plan's decode graphs are one rank's; srt-slurm #168 checks
            # max-running-requests <= cuda-graph-max-bs × dp-size by hand.
            share = max(1, value // dp)
            return Bound(share, "--max-running-requests",
                         shown=f"--max-running-requests {value} // attention-DP size {dp} =",
                         ranks=dp)
        return Bound(value, "--max-running-requests")
    if engine == "vllm":
        seqs = _max_num_seqs(plan, list(argv))
        if seqs is None:
            return None
        return Bound(seqs, "--max-num-seqs" if find_word(argv, "--max-num-seqs") is not None
                     else None)
    if engine == "trtllm":
        for note in plan.notes:
            found = _TRTLLM_NOTE.search(note)
            if found:
                chain, value = found.group(1), int(found.group(4))
                origin = found.group(3)
                tokens = _TRTLLM_TOKENS.search(chain)
                if value < int(found.group(2)) and tokens:  # max_num_tokens is the binding term
                    origin = tokens.group(1)
                if origin.endswith("default"):
                    flag = None  # the binding bound is trtllm-serve's own
                elif origin in ("--max_batch_size", "--max_num_tokens"):
                    flag = origin
                else:
                    flag = "--extra_llm_api_options"
                return Bound(value, flag, shown=f"the running bound {chain} =",
                             graph_setting="cuda_graph_config.max_batch_size")
    return None


def _max_num_seqs(plan: Plan, argv: list[str]) -> int | None:
    """vLLM's ``max_num_seqs`` as the plan used it: the line's ``--max-num-seqs``, else the
    value the plan's size decision names (``max_num_seqs=256`` in the ``why`` of its
    ``decode.bs`` provenance, which vLLM's size step writes)."""
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
