"""The one reading of a ``device`` argument, for every runtime entry point."""

from __future__ import annotations

import torch


def as_device(device: object) -> torch.device:
    """``torch.device(device)``, a ``ValueError`` naming it when torch does not know it."""
    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device must be a string or torch.device, got {device!r:.40}")
    try:
        return torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(f"unknown device {device!r:.40} (torch names such as 'cuda', "
                         "'cuda:0', 'cpu')") from None
