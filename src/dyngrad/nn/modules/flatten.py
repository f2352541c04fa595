"""``torch.nn.modules.flatten`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.flatten import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Flatten,
    Unflatten,
)

__all__ = ['Flatten', 'Unflatten']
