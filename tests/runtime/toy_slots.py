"""The input slots the CPU runner tests share: a copied activation, a zero-padded index and a
per-request length padded with a sentinel."""

from __future__ import annotations

import torch

from cgconfig.runtime.buffers import Axis, PaddingPolicy, Slot

TOY_SLOTS = [
    Slot("x", torch.float32, trailing=(2,), policy=PaddingPolicy.COPY),
    Slot("loc", torch.int64, policy=PaddingPolicy.ZERO),
    Slot("lens", torch.int64, axis=Axis.REQUESTS, policy=PaddingPolicy.FILL_SENTINEL,
         pad_value=1),
]
