"""``torch.nn.modules.pooling`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.pooling import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    LPPool1d,
    LPPool2d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
)
from .utils import _pair, _single, _triple  # noqa: F401

__all__ = ['AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'LPPool1d', 'LPPool2d', 'MaxPool1d', 'MaxPool2d', 'MaxPool3d']
