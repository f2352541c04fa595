"""``torch.nn.modules.batchnorm`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.batchnorm import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
)
from ..norm import _BatchNorm  # noqa: F401
from ..norm_instance import _NormBase  # noqa: F401

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d']
