"""``torch.nn.modules.conv`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.conv import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from ..conv_layers import _ConvNd, _ConvTransposeNd  # noqa: F401
from .utils import _pair, _single, _triple  # noqa: F401

__all__ = ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d']
