"""``torch.nn.modules.dropout`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.dropout import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)

__all__ = ['AlphaDropout', 'Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'FeatureAlphaDropout']
