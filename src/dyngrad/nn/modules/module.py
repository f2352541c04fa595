"""``torch.nn.modules.module`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.module import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Module,
)

__all__ = ['Module']
