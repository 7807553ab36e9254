"""The TensorRT-LLM dialect's own step: what the engine captures of the configured decode list.

Installed on the draft as its decode filter (the capture step calls it instead of SGLang's):
``PyTorchModelEngine.__init__`` keeps the sizes up to ``min(max_batch_size, max_num_tokens /
(1 + draft tokens))`` (``_filter_cuda_graph_batch_sizes``), duplicates included, and with
padding captures that bound itself. Each change is a decision on ``capture.decode.sizes``, so
``explain`` shows the clamp chain; TensorRT-LLM's warnings become the plan's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cgconfig.draft import Draft
from cgconfig.engines.trtllm import sizes as trtllm_sizes
from cgconfig.engines.trtllm.llm_args import SOURCE_ARGS, EngineLimits
from cgconfig.plan import Change, Decision

CAPTURE_KEY = "capture.decode.sizes"


@dataclass
class TrtllmCapture:
    """The draft step of one trtllm-serve line: its engine limits (with the warnings
    TensorRT-LLM logs, ``validate_runtime_args``) and cgconfig's own warnings on the options
    (lax values, sizes of 0 or fewer requests)."""

    limits: EngineLimits
    warnings: list[str] = field(default_factory=list)

    def __call__(self, draft: Draft) -> None:
        draft.warnings.extend(self.warnings)
        draft.warnings.extend(f"TensorRT-LLM: {w}" for w in self.limits.warnings)

        def decode_filter(configured: list[int]) -> list[int]:
            return self.capture(draft, configured)

        draft.decode_filter = decode_filter

    def capture(self, draft: Draft, configured: list[int]) -> list[int]:
        """``_filter_cuda_graph_batch_sizes`` over the configured list, recorded."""
        padding = not draft.get("options.disable_padding")
        bound = self.limits.bound
        sizes, warning = trtllm_sizes.filter_batch_sizes(configured, bound, padding)
        kept = [s for s in sizes if s > 0]
        if sizes != configured:
            first = next((s for s in configured if s > bound), None)
            what = (f"keeps the sizes up to {bound} and pads to {bound} (padding is on and "
                    f"{first} is above it)" if warning else f"keeps the sizes up to {bound}")
            draft.decisions.append(Decision(
                rule="trtllm.capture-filter", kind="resolver", outcome="applied",
                why=f"TensorRT-LLM {what}: {self.limits.chain()}",
                changes=[Change(CAPTURE_KEY, configured, kept)],
                source=trtllm_sizes.FILTER_SOURCE))
        if warning:
            draft.warnings.append(f"TensorRT-LLM: {warning}")
        if kept != sizes:
            draft.warnings.append(
                f"TensorRT-LLM would capture a graph of {bound} requests (padding to a bound of "
                f"{self.limits.chain()}); a batch of {bound} requests is not a batch, so "
                "cgconfig captures none (see docs/fidelity.md)")
        if not kept and configured:
            draft.warnings.append(f"decode: no configured size is within {self.limits.chain()}; "
                                  "TensorRT-LLM runs decode eagerly")
        return kept


#: Where the default list comes from, for the plan's notes.
DEFAULT_SOURCE = f"{SOURCE_ARGS}:BaseCudaGraphConfig._generate_cuda_graph_batch_sizes"
