"""``torch.utils.hooks`` (PyTorch's module path): ``RemovableHandle``, what every
``register_*_hook`` returns (the one of :mod:`dyngrad.autograd.graph`)."""

from __future__ import annotations

from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
