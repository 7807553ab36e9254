"""Tensor views that do not keep their memory alive.

Graphs of one runner share a memory pool: a tensor produced inside graph A returns its block to
the pool once nothing references it, so graph B, captured next, can reuse the block. That reuse
is the whole reason to share a pool (replays never overlap, so the aliasing is safe). Holding a
normal reference to A's output, or to the arguments an eager break function reads, would pin
those blocks and make every graph pay for its own copy. A *weak view* points at the same bytes
without owning them: the captured graph keeps the pool alive, the view keeps nothing.

The constructor used here is private to PyTorch (inductor's CUDA-graph trees rely on it). When it
is missing the helpers fall back to strong references: still correct, only less memory sharing;
:func:`weak_views_supported` says which one is in effect so reports can show it.
"""

from __future__ import annotations

from typing import Any

import torch

from .tree import map_tensors

_make_storage = getattr(torch._C, "_construct_storage_from_data_pointer", None)


def weak_views_supported() -> bool:
    """True when this torch can build non-owning views (see the module docstring)."""
    return _make_storage is not None


def weak_view(t: torch.Tensor) -> torch.Tensor:
    """A tensor with ``t``'s data pointer, dtype, sizes and strides that does not own the memory.

    The caller must guarantee the memory outlives the view (here: the graph pool outlives the
    graphs that hold such views). Without the private constructor, ``t`` itself is returned.
    """
    if _make_storage is None:
        return t
    storage = t.untyped_storage()
    weak_storage = _make_storage(storage.data_ptr(), t.device, storage.nbytes())
    view = torch.empty((), dtype=t.dtype, device=t.device)
    view.set_(weak_storage, t.storage_offset(), t.size(), t.stride())
    return view


def weak_tree(tree: Any) -> Any:
    """:func:`weak_view` applied to every tensor in a nested output or argument tree."""
    return map_tensors(weak_view, tree)
