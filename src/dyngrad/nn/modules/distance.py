"""``torch.nn.modules.distance`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.distance import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    CosineSimilarity,
    PairwiseDistance,
)

__all__ = ['CosineSimilarity', 'PairwiseDistance']
