"""``torch.autograd.variable`` (PyTorch's module path): ``Variable``, the deprecated alias of
Tensor construction (see :mod:`dyngrad.autograd`)."""

from __future__ import annotations

from . import Variable

__all__ = ["Variable"]
