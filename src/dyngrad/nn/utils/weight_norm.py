"""``torch.nn.utils.weight_norm`` (PyTorch's module path): re-exports the deprecated
``weight_norm`` / ``remove_weight_norm`` of :mod:`dyngrad.nn.utils`."""

from __future__ import annotations

from .norm_hooks import remove_weight_norm, weight_norm

__all__ = ["remove_weight_norm", "weight_norm"]
