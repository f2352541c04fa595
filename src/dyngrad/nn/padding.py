"""Padding layers over :func:`dyngrad.nn.functional.pad`: ZeroPad, ConstantPad,
ReflectionPad, ReplicationPad and CircularPad in 1, 2 and 3 dims, as PyTorch 2.13's
(``padding`` an int for every side or a tuple ``(left, right[, top, bottom[, front,
back]])``, the repr PyTorch prints)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


def _widths(padding: Any, n: int) -> tuple:
    """An int -> ``n`` copies; an iterable -> its tuple (as PyTorch's ``_ntuple``)."""
    if isinstance(padding, (int, np.integer)):
        return (int(padding),) * n
    return tuple(padding)


class _PadNd(Module):
    """Pads the last ``_k`` dims with ``F.pad(input, padding, _mode)``."""

    _k = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _widths(padding, 2 * self._k)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``(*, W) -> (*, W + left + right)``.

    Args:
        padding (int or (int, int)): ``(left, right)``; negative values crop.
        value (float): the fill value.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ConstantPad1d((1, 2), 3.5)(dyngrad.zeros(1, 2)).tolist()
        [[3.5, 0.0, 0.0, 3.5, 3.5]]
    """

    _k = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``; ``padding`` an int or ``(left, right, top,
    bottom)`` (see :class:`ConstantPad1d`)."""

    _k = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``; ``padding`` an int or ``(left, right, top,
    bottom, front, back)`` (see :class:`ConstantPad1d`)."""

    _k = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros (``ConstantPad1d(padding, 0.0)``).

    Example:
        >>> from dyngrad import nn
        >>> nn.ZeroPad1d(2)
        ZeroPad1d((2, 2))
    """

    _k = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last 2 dims with zeros (``ConstantPad2d(padding, 0.0)``)."""

    _k = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last 3 dims with zeros (``ConstantPad3d(padding, 0.0)``)."""

    _k = 3


class ReflectionPad1d(_PadNd):
    """Reflect the last dim at its borders (the border element not repeated):
    ``(C, W)`` or ``(N, C, W)``; each width must be smaller than the dim.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReflectionPad1d(2)(dyngrad.arange(4.0).reshape(1, 1, 4)).tolist()
        [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    """

    _k, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Reflection padding of the last 2 dims: ``(C, H, W)`` or ``(N, C, H, W)``."""

    _k, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Reflection padding of the last 3 dims: ``(C, D, H, W)`` or ``(N, C, D, H, W)``."""

    _k, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeat the border element of the last dim: ``(C, W)`` or ``(N, C, W)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReplicationPad1d((1, 2))(dyngrad.tensor([[[1.0, 2.0]]])).tolist()
        [[[1.0, 1.0, 2.0, 2.0, 2.0]]]
    """

    _k, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Replication padding of the last 2 dims: ``(C, H, W)`` or ``(N, C, H, W)``."""

    _k, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Replication padding of the last 3 dims: ``(C, D, H, W)`` or ``(N, C, D, H, W)``."""

    _k, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._k + 1, self._k + 2):
            raise ValueError(f"expected {self._k + 1}D or {self._k + 2}D input (got {input.ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wrap the last dim around: ``(C, W)`` or ``(N, C, W)``; widths at most the dim.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CircularPad1d(1)(dyngrad.tensor([[[1.0, 2.0, 3.0]]])).tolist()
        [[[3.0, 1.0, 2.0, 3.0, 1.0]]]
    """

    _k = 1


class CircularPad2d(_CircularPadNd):
    """Circular padding of the last 2 dims: ``(C, H, W)`` or ``(N, C, H, W)``."""

    _k = 2


class CircularPad3d(_CircularPadNd):
    """Circular padding of the last 3 dims: ``(C, D, H, W)`` or ``(N, C, D, H, W)``."""

    _k = 3
