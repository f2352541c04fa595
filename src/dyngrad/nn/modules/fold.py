"""``torch.nn.modules.fold`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.fold import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Fold,
    Unfold,
)

__all__ = ['Fold', 'Unfold']
