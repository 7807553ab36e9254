"""Walk the nested outputs of a forward (tensors inside tuples, lists and dicts).

Models return a logits tensor, a ``(logits, hidden)`` tuple or a dict; the runner slices each
tensor back to the real rows and the breakable backend copies each one into a bridge buffer.
This is the few lines of tree mapping that needs, kept local so the runtime does not lean on
``torch.utils._pytree``, a private module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


def map_tensors(fn: Callable[[torch.Tensor], Any], tree: Any) -> Any:
    """Rebuild ``tree`` with ``fn`` applied to every tensor; other leaves are kept as they are."""
    if isinstance(tree, torch.Tensor):
        return fn(tree)
    if isinstance(tree, tuple):
        mapped = [map_tensors(fn, item) for item in tree]
        # A NamedTuple rebuilds from positional fields, a plain tuple from one iterable.
        return type(tree)(*mapped) if hasattr(tree, "_fields") else tuple(mapped)
    if isinstance(tree, list):
        return [map_tensors(fn, item) for item in tree]
    if isinstance(tree, dict):
        return {key: map_tensors(fn, value) for key, value in tree.items()}
    return tree


def tensors(tree: Any) -> list[torch.Tensor]:
    """Every tensor in ``tree``, in the order :func:`map_tensors` visits them."""
    found: list[torch.Tensor] = []

    def visit(t: torch.Tensor) -> torch.Tensor:
        found.append(t)
        return t

    map_tensors(visit, tree)
    return found


def slice_rows(tree: Any, rows: int) -> Any:
    """Keep the first ``rows`` rows (dim 0) of every tensor: the real part of a padded output."""
    if isinstance(tree, torch.Tensor):  # the usual output, sliced without the tree walk
        return tree if tree.dim() == 0 else tree[:rows]
    return map_tensors(lambda t: t if t.dim() == 0 else t[:rows], tree)
