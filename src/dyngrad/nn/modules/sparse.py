"""``torch.nn.modules.sparse`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.sparse import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    Embedding,
)

__all__ = ['Embedding']
