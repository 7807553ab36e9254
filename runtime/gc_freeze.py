"""Keep Python's garbage collector out of graph capture, without paying a collection for it.

A collection that starts in the middle of a capture scans every live object of the process (in
a server, millions: tens of milliseconds each time) and can run finalizers or weakref callbacks
while the stream is capturing. By default the runner therefore freezes and disables the
collector for the capture: ``gc.freeze()`` moves every tracked object, live or dead-but-not-yet-
collected, to the permanent generation, which no collection scans, and ``gc.disable()`` stops
new objects from triggering one. Both are constant-time. Afterwards ``gc.unfreeze()`` puts those
objects back in the oldest generation, so any garbage among them is collected by the next
ordinary full collection, once the capture is over.

What the default does **not** do is collect first. The collection before freezing cost
63–95 ms in the benchmark's process against a 0.11–0.17 s capture of six small graphs
(``benchmarks/RESULTS.md``, issue #25), and it only helps when a dead reference cycle still holds
device memory that the capture could use. The two upstreams this follows disagree on it:

* PyTorch (``torch/cuda/graphs.py``, ``graph.__enter__``, torch 2.11 and 2.13) synchronises and
  empties the allocator's cache before each capture but calls ``gc.collect()`` only under
  ``torch.compiler.config.force_cudagraph_gc`` (``TORCH_CUDAGRAPH_GC``, default off). Its comment:
  the unconditional collection it used to do is "REALLY expensive, especially for doing multiple
  cudagraph captures in a row", and "will only help when a dead python cycle is holding onto
  CUDA memory".
* SGLang 0.5.23 (``sglang/srt/model_executor/runner/base_cuda_graph_runner.py``, ``freeze_gc``,
  around the decode and prefill capture loops) calls ``gc.collect()``, then ``gc.freeze()``
  unless ``enable_cudagraph_gc``, leaves the collector enabled, and after the loop unfreezes and
  collects again.

The runner takes PyTorch's side for the default: freeze and disable, no collection, so capture
pays nothing up front. The plan's ``enable_cudagraph_gc`` keeps SGLang's meaning for that flag,
"enable garbage collection during CUDA graph capture": one ``gc.collect()`` before the capture
(reclaiming device memory that dead cycles hold, the old behaviour) and the collector left
running, unfrozen, during it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_gc(enable_gc: bool = False) -> Iterator[None]:
    """Freeze and disable the collector for the block (no collection); restore it afterwards.

    With ``enable_gc`` true: collect once, then run the block with the collector untouched.
    """
    if enable_gc:
        gc.collect()
        yield
        return
    was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.unfreeze()
