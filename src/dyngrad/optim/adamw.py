"""``torch.optim.adamw`` (PyTorch's module path): re-exports :class:`dyngrad.optim.AdamW`."""

from __future__ import annotations

from . import AdamW

__all__ = ["AdamW"]
