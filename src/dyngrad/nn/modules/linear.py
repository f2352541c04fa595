"""``torch.nn.modules.linear`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.linear import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Bilinear,
    Identity,
    Linear,
)

__all__ = ['Bilinear', 'Identity', 'Linear']
