"""``torch.nn.utils.stateless`` (PyTorch's module path): ``functional_call`` (the one of
:mod:`dyngrad.func`)."""

from __future__ import annotations

from ...func import functional_call

__all__ = ["functional_call"]
