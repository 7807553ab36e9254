"""TensorRT-LLM's log lines about CUDA graphs (PyTorch backend, 1.x).

``_torch/pyexecutor/model_engine.py`` (``PyTorchModelEngine._run_cuda_graph_warmup``, 1.x)::

    [TRT-LLM] [I] Creating CUDA graph instances for 35 batch sizes.
    [TRT-LLM] [I] Run generation only CUDA graph warmup for batch size=256, draft_len=0

one warmup line per captured graph (largest first); ``TensorRT-LLM version: 1.2.0`` at import
(``tensorrt_llm/__init__.py``). Sizes count requests. Scanned with ``str.find`` only.
"""

from __future__ import annotations

from cgconfig.verify.record import LogRecord
from cgconfig.verify.text import after, int_after

ERA = "TensorRT-LLM 1.x (PyTorch backend)"


class TrtllmReader:
    """Feed it the lines of one log, in order."""

    engine = "trtllm"

    def __init__(self) -> None:
        self.record = LogRecord(engine="trtllm")
        self._sizes: dict[int, set[int]] = {}

    def feed(self, line: int, rank: str, text: str) -> bool:
        """Read one message; returns whether it was a TensorRT-LLM line."""
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

    def _seen(self) -> bool:
        self.record.evidence += 1
        return True

    def finish(self) -> LogRecord:
        """The captured list: the warmup lines' sizes (of the first draft length seen)."""
        if self._sizes:
            draft = min(self._sizes)
            capture = self.record.capture("decode", 0)
            capture.sizes = sorted(self._sizes[draft])
            capture.size_source = "CUDA graph warmup for batch size=..."
        return self.record


def make_reader(interval: int = 40) -> TrtllmReader:
    """A new reader (the plug-in part ``log_reader``); ``interval`` is SGLang's decode-log
    interval, which this engine's log does not have."""
    return TrtllmReader()
