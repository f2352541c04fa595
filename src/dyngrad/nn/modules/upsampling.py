"""``torch.nn.modules.upsampling`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.upsampling import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = ['Upsample', 'UpsamplingBilinear2d', 'UpsamplingNearest2d']
