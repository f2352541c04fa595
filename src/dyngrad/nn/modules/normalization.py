"""``torch.nn.modules.normalization`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.normalization import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    GroupNorm,
    LayerNorm,
    LocalResponseNorm,
    RMSNorm,
)

__all__ = ['GroupNorm', 'LayerNorm', 'LocalResponseNorm', 'RMSNorm']
