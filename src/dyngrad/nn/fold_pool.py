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
    """Extract sliding local blocks: each column of the output is one flattened
    ``C * prod(kernel_size)`` block of the (padded) input ("im2col"). See
    :func:`dyngrad.nn.functional.unfold`.

    Derivative: ``grad_input = fold(grad_output, ...)`` with the same geometry (overlapping
    blocks add; PyTorch's ``im2col`` backward is ``col2im``).

    Args:
        kernel_size (int or tuple): the block size, an int or a pair.
        dilation (int or tuple): spacing between block elements. Default: ``1``.
        padding (int or tuple): zeros added to both sides of each spatial dim. Default: ``0``.
        stride (int or tuple): the step between blocks. Default: ``1``.
    Raises:
        RuntimeError: (at call time) for an input that is not 3-d or 4-d, or one too small for a
            single block.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C * prod(kernel_size), L)`` or ``(C * prod(kernel_size), L)``, ``L`` the
          number of blocks, ``prod_d floor((size_d + 2 * padding_d - dilation_d * (kernel_size_d -
              1) - 1) / stride_d + 1)``.

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
    """Sum sliding local blocks into a tensor, the inverse arrangement of :class:`Unfold`
    ("col2im"; overlapping blocks add). See :func:`dyngrad.nn.functional.fold`.

    Derivative: ``grad_input = unfold(grad_output, ...)`` with the same geometry (PyTorch's
    ``col2im`` backward is ``im2col``).

    Args:
        output_size (int or tuple): the spatial size ``(H, W)`` of the result.
        kernel_size (int or tuple): the block size, an int or a pair.
        dilation (int or tuple): spacing between block elements. Default: ``1``.
        padding (int or tuple): the padding the blocks were taken with (cropped away). Default:
            ``0``.
        stride (int or tuple): the step between blocks. Default: ``1``.
    Raises:
        RuntimeError: (at call time) for an input that is not 2-d or 3-d, a channel size not
            divisible by ``prod(kernel_size)``, or a block count that does not match
            ``output_size``.
    Shape:
        - Input: ``(N, C * prod(kernel_size), L)`` or ``(C * prod(kernel_size), L)``.
        - Output: ``(N, C, H, W)`` or ``(C, H, W)``, ``(H, W) = output_size``.

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
    """Adaptive max pooling to a fixed length: output ``i`` is the maximum over
    ``[floor(i * L / L_out), ceil((i + 1) * L / L_out))`` (PyTorch's bins). See
    :func:`dyngrad.nn.functional.adaptive_max_pool1d`.

    Derivative: each output's gradient goes to its window's (first) maximal element
    (PyTorch's ``adaptive_max_pool2d_backward``).

    Args:
        output_size (int): ``L_out``.
        return_indices (bool): also return the int64 index of each maximum. Default: ``False``.
    Raises:
        RuntimeError: (at call time) for an input that is not 2-d or 3-d, or ``output_size < 1``
            (PyTorch returns an empty tensor for 0).
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.AdaptiveMaxPool1d(2, return_indices=True)(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """

    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling to a fixed ``(H_out, W_out)`` (PyTorch's bins in each
    dim; see :class:`AdaptiveMaxPool1d`). See :func:`dyngrad.nn.functional.adaptive_max_pool2d`.

    Derivative: each output's gradient goes to its window's (first) maximal element
    (PyTorch's ``adaptive_max_pool2d_backward``).

    Args:
        output_size (int or tuple): an int (both) or a pair; ``None`` in the pair keeps that size.
        return_indices (bool): also return the int64 flat index (into ``H * W``) of each maximum.
            Default: ``False``.
    Raises:
        RuntimeError: (at call time) for an input that is not 3-d or 4-d, or a non-positive output
            size.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.AdaptiveMaxPool2d((1, None))(dyngrad.arange(6.0).reshape(1, 2, 3))
        tensor([[[3., 4., 5.]]])
    """

    _fn = "adaptive_max_pool2d"


class AdaptiveAvgPool1d(Module):
    """Adaptive average pooling to a fixed length: output ``i`` averages
    ``[floor(i * L / L_out), ceil((i + 1) * L / L_out))`` (PyTorch's bins). See
    :func:`dyngrad.nn.functional.adaptive_avg_pool1d`.

    Derivative: linear (a constant averaging matrix ``A``), so ``grad_input = grad_output @ A``.

    Args:
        output_size (int): ``L_out``.
    Raises:
        RuntimeError: (at call time) for an input that is not 2-d or 3-d, or ``output_size < 1``
            (PyTorch returns an empty tensor for 0).
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.AdaptiveAvgPool1d(2)(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        tensor([[[2., 1.]]])
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
    """Power-average pooling: ``(sum over the window of x ** p) ** (1 / p)`` with
    ``p = norm_type`` (``p = 1``: sum pooling; large ``p``: close to max pooling). See
    :func:`dyngrad.nn.functional.lp_pool1d`.

    Derivative: composed of ``pow``, :func:`avg_pool1d <dyngrad.nn.functional.avg_pool1d>`,
    ``sign``/``relu`` and ``pow(1 / p)``, as PyTorch's ``lp_pool1d`` (so the gradient at an
    all-zero window is 0 or nan exactly as PyTorch's).

    Args:
        norm_type (float): ``p``.
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.
    Raises:
        RuntimeError: (at call time) for an input that is not 2-d or 3-d, or one shorter than the
            kernel.
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, ``L_out = floor((L - kernel_size) / stride) +
          1``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LPPool1d(2, 2)(dyngrad.tensor([[[3.0, 4.0, 0.0, 1.0]]]))
        tensor([[[5., 1.]]])
    """

    _fn = "lp_pool1d"


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)`` with
    ``p = norm_type``. See :func:`dyngrad.nn.functional.lp_pool2d`.

    Derivative: composed of ``pow``, :func:`avg_pool2d <dyngrad.nn.functional.avg_pool2d>`,
    ``sign``/``relu`` and ``pow(1 / p)``, as PyTorch's ``lp_pool2d``.

    Args:
        norm_type (float): ``p``.
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: ``False``.
    Raises:
        RuntimeError: (at call time) for an input that is not 3-d or 4-d, or one smaller than the
            kernel.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = floor((H - kH) / sH)
          + 1`` (likewise ``W_out``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LPPool2d(1, 2)(dyngrad.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[10., 18.],
                  [42., 50.]]]])
    """

    _fn = "lp_pool2d"
