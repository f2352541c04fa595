"""``torch.nn.utils.spectral_norm`` (PyTorch's module path): re-exports ``spectral_norm`` /
``remove_spectral_norm`` of :mod:`dyngrad.nn.utils`."""

from __future__ import annotations

from .norm_hooks import remove_spectral_norm, spectral_norm

__all__ = ["remove_spectral_norm", "spectral_norm"]
