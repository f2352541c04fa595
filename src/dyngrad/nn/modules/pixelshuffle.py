"""``torch.nn.modules.pixelshuffle`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.pixelshuffle import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    PixelShuffle,
    PixelUnshuffle,
)

__all__ = ['PixelShuffle', 'PixelUnshuffle']
