"""TensorRT-LLM's log lines about CUDA graphs (PyTorch backend, 1.x).

``_torch/pyexecutor/model_engine.py`` (``PyTorchModelEngine._run_cuda_graph_warmup``, 1.x)::

    [TRT-LLM] [I] Creating CUDA graph instances for 35 batch sizes.
    [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=256, draft_len=0

one warmup line per captured graph (largest first); ``TensorRT-LLM version: 1.2.0`` at import
(``tensorrt_llm/__init__.py``). Also read: ``Skipping CUDA graph warmup (greedy) for batch
size=32, draft_len=7: not enough KV cache space.`` (graphs the engine did not capture), the
resolved ``PyTorchConfig(... cuda_graph_max_batch_size=128, cuda_graph_padding_enabled=True
...)`` (1.0-1.1 ``_torch/pyexecutor/config.py``; facts the plan is resolved with) and
``device total memory 119.70 GiB`` (``_torch/pyexecutor/_util.py``, the KV-cache estimate).
Sizes count requests. Scanned with ``str.find`` only.
"""

from __future__ import annotations

from cgconfig.verify.record import LogRecord
from cgconfig.verify.text import after, float_after, int_after

ERA = "TensorRT-LLM 1.x (PyTorch backend)"


class TrtllmReader:
    """Feed it the lines of one log, in order."""

    engine = "trtllm"

    def __init__(self) -> None:
        self.record = LogRecord(engine="trtllm")
        self._sizes: dict[int, set[int]] = {}
        self._skipped: set[int] = set()

    def feed(self, line: int, rank: str, text: str) -> bool:
        """Read one message; returns whether it was a TensorRT-LLM line."""
        if "Skipping CUDA graph warmup" in text:
            size = int_after(text, "batch size=")
            if size is not None:
                self._skipped.add(size)
            self.record.note_problem("skipped", line, "TensorRT-LLM skipped a CUDA graph: "
                                     + text[text.find("Skipping CUDA graph warmup"):])
            self.record.capture("decode", line).backend = "full"
            self.record.era = ERA
            return self._seen()
        if "PyTorchConfig(" in text and "use_cuda_graph=" in text:
            return self._pytorch_config(line, text)
        if "device total memory " in text:
            total = float_after(text, "device total memory ")
            if total is not None and 0 < total < 1 << 20:
                self.record.note_fact("gpu_memory_gib", total, line,
                                      text[text.find("device total memory"):][:40])
            return self._seen()
        if "Creating CUDA graph instances for " in text:
            count = int_after(text, "Creating CUDA graph instances for ")
            if count is None:
                return False
            capture = self.record.capture("decode", line)
            capture.count, capture.backend = count, "full"
            self.record.era = ERA
            return self._seen()
        if "CUDA graph warmup for batch size=" in text:
            size = int_after(text, "batch size=")
            draft = int_after(text, "draft_len=") or 0
            if size is None:
                return False
            self._sizes.setdefault(draft, set()).add(size)
            self.record.capture("decode", line).backend = "full"
            self.record.era = ERA
            return self._seen()
        if "max_num_requests=" in text and "max_num_tokens=" in text:
            # ``PyExecutor`` creation (``_torch/pyexecutor/py_executor_creator.py``): the
            # executor's limits, which bound what the warmup captures.
            args = {"max_batch_size": int_after(text, "max_batch_size=")
                    or int_after(text, "max_num_requests="),  # older lines lack max_batch_size
                    "max_num_tokens": int_after(text, "max_num_tokens=")}
            if self.record.args is None and all(v is not None for v in args.values()):
                self.record.args, self.record.args_line = dict(args), line
                self.record.args_source = "max_batch_size=..., max_num_tokens=..."
            return self._seen()
        if "TensorRT-LLM version:" in text:
            at = after(text, "TensorRT-LLM version:")
            version = text[at:at + 40].strip().split(" ")[0]
            if version[:1].isdigit() and version.isascii() and self.record.version is None:
                self.record.version, self.record.version_line = version, line
            return self._seen()
        return False

    def _pytorch_config(self, line: int, text: str) -> bool:
        """The resolved ``PyTorchConfig(...)``: padding and the graph's max batch size."""
        for word, name in (("cuda_graph_padding_enabled=", "cuda_graph_padding"),):
            at = after(text, word)
            if at >= 0 and text.startswith(("True", "False"), at):
                self.record.note_fact(name, text.startswith("True", at), line,
                                      word + text[at:at + 5].rstrip(",)"))
        top = int_after(text, "cuda_graph_max_batch_size=")
        if top is not None and 0 < top <= 1 << 20:
            self.record.note_fact("cuda_graph_max_batch_size", top, line,
                                  f"cuda_graph_max_batch_size={top}")
        if "use_cuda_graph=False" in text:
            self.record.disabled.setdefault("all", "PyTorchConfig(use_cuda_graph=False)")
        return self._seen()

    def _seen(self) -> bool:
        self.record.evidence += 1
        return True

    def finish(self) -> LogRecord:
        """The captured list: the warmup lines' sizes (of the first draft length seen), when
        there are as many as ``Creating CUDA graph instances for N`` announced (an excerpt
        that shows fewer gives the count only)."""
        if self._sizes:
            draft = min(self._sizes)
            capture = self.record.capture("decode", 0)
            sizes = sorted(self._sizes[draft] - self._skipped)
            if capture.count is None or capture.count == len(sizes):
                capture.sizes = sizes
                capture.size_source = "CUDA graph warmup for batch size=..."
            else:
                capture.size_source = (f"{len(sizes)} of the {capture.count} warmup lines "
                                       "(the count is compared)")
        return self.record


def make_reader(interval: int = 40) -> TrtllmReader:
    """A new reader (the plug-in part ``log_reader``); ``interval`` is SGLang's decode-log
    interval, which this engine's log does not have."""
    return TrtllmReader()
