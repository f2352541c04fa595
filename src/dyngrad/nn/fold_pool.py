"""Sliding-block and more pooling layers: Unfold, Fold, AdaptiveMaxPool1d/2d,
AdaptiveAvgPool1d, LPPool1d/2d (thin Modules over :mod:`dyngrad.nn.functional`, PyTorch
2.13's constructors and reprs)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["Unfold", "Fold", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "LPPool1d", "LPPool2d"]


class Unfold(Module):
    """Extract sliding local blocks (:func:`dyngrad.nn.functional.unfold`).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.Unfold(kernel_size=(2, 3))
        >>> m, list(m(dyngrad.randn(2, 5, 3, 4)).shape)
        (Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=1), [2, 30, 4])
    """

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Fold(Module):
    """Sum sliding local blocks into a tensor (:func:`dyngrad.nn.functional.fold`).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
        >>> m, list(m(dyngrad.randn(1, 12, 12)).shape)
        (Fold(output_size=(4, 5), kernel_size=(2, 2), dilation=1, padding=0, stride=1), [1, 3, 4, 5])
    """

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class _AdaptiveMaxPoolNd(Module):
    _fn = ""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:
        return getattr(F, self._fn)(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling ``(N, C, L) -> (N, C, output_size)``
    (:func:`dyngrad.nn.functional.adaptive_max_pool1d`).

    Example:
        >>> from dyngrad import nn
        >>> nn.AdaptiveMaxPool1d(3)
        AdaptiveMaxPool1d(output_size=3)
    """

    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling ``(N, C, H, W) -> (N, C, Ho, Wo)``
    (:func:`dyngrad.nn.functional.adaptive_max_pool2d`); None in ``output_size`` keeps
    that dim."""

    _fn = "adaptive_max_pool2d"


class AdaptiveAvgPool1d(Module):
    """Adaptive average pooling ``(N, C, L) -> (N, C, output_size)``
    (:func:`dyngrad.nn.functional.adaptive_avg_pool1d`).

    Example:
        >>> from dyngrad import nn
        >>> nn.AdaptiveAvgPool1d(3)
        AdaptiveAvgPool1d(output_size=3)
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _LPPoolNd(Module):
    _fn = ""

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return getattr(F, self._fn)(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over ``(N, C, L)`` (:func:`dyngrad.nn.functional.lp_pool1d`).

    Example:
        >>> from dyngrad import nn
        >>> nn.LPPool1d(2, 3)
        LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """Power-average pooling over ``(N, C, H, W)`` (:func:`dyngrad.nn.functional.lp_pool2d`)."""

    _fn = "lp_pool2d"
