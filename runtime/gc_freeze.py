"""Keep Python's garbage collector out of graph capture.

``torch.cuda.graph`` runs ``gc.collect()`` before each capture, and a collection can also start
on its own in the middle of one. In a server process with millions of live objects each full
collection costs tens of milliseconds, paid once per captured size and per warm-up. Freezing
moves every existing object to the permanent generation, so those collections only scan what
capture itself creates; disabling GC stops collections from firing inside a capture. The plan's
``enable_cudagraph_gc`` turns this off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_gc(enable_gc: bool = False) -> Iterator[None]:
    """Collect once, freeze and disable the GC for the block; restore it afterwards.

    With ``enable_gc`` true the block runs with the collector untouched.
    """
    if enable_gc:
        yield
        return
    was_enabled = gc.isenabled()
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.unfreeze()
