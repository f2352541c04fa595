"""``torch.nn.modules.instancenorm`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.instancenorm import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from ..norm_instance import _InstanceNorm, _NormBase  # noqa: F401

__all__ = ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d']
