"""``torch.nn.modules.container`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.container import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    ModuleDict,
    ModuleList,
    Sequential,
)

__all__ = ['ModuleDict', 'ModuleList', 'Sequential']
