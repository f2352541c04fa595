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
    """Pad the last dim with ``value`` (:func:`dyngrad.nn.functional.pad` with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right)``; negative widths
            crop.
        value (float): the fill value.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, W)``.
        - Output: ``(*, W_out)``, with ``W_out = W + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ConstantPad1d((1, 2), 3.5)(dyngrad.zeros(1, 2)).tolist()
        [[3.5, 0.0, 0.0, 3.5, 3.5]]
    """

    _k = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value`` (:func:`dyngrad.nn.functional.pad` with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom)``;
            negative widths crop.
        value (float): the fill value.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, H, W)``.
        - Output: ``(*, H_out, W_out)``, with ``W_out = W + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ConstantPad2d(1, 1.0)(dyngrad.zeros(1, 1, 1)).tolist()
        [[[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]]
    """

    _k = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value`` (:func:`dyngrad.nn.functional.pad` with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom, front,
            back)``; negative widths crop.
        value (float): the fill value.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, D, H, W)``.
        - Output: ``(*, D_out, H_out, W_out)``, with ``W_out = W + left + right`` (likewise ``H``,
          ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ConstantPad3d((1, 1, 0, 0, 0, 0), 2.0)(dyngrad.zeros(1, 1, 1, 1)).tolist()
        [[[[2.0, 0.0, 2.0]]]]
    """

    _k = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros (``ConstantPad1d(padding, 0.0)``) (:func:`dyngrad.nn.functional.pad`
    with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right)``; negative widths
            crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, W)``.
        - Output: ``(*, W_out)``, with ``W_out = W + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ZeroPad1d(2)
        ZeroPad1d((2, 2))
        >>> nn.ZeroPad1d(1)(dyngrad.ones(3)).tolist()
        [0.0, 1.0, 1.0, 1.0, 0.0]
    """

    _k = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last 2 dims with zeros (``ConstantPad2d(padding, 0.0)``)
    (:func:`dyngrad.nn.functional.pad` with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom)``;
            negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, H, W)``.
        - Output: ``(*, H_out, W_out)``, with ``W_out = W + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ZeroPad2d((1, 0, 0, 1))(dyngrad.ones(1, 2, 2)).tolist()
        [[[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]]]
    """

    _k = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last 3 dims with zeros (``ConstantPad3d(padding, 0.0)``)
    (:func:`dyngrad.nn.functional.pad` with mode ``'constant'``).

    Derivative: ``grad_input`` is ``grad_output`` with the padding cropped off (a slice; PyTorch's
    ``constant_pad_nd`` backward).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom, front,
            back)``; negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank.
    Shape:
        - Input: ``(*, D, H, W)``.
        - Output: ``(*, D_out, H_out, W_out)``, with ``W_out = W + left + right`` (likewise ``H``,
          ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ZeroPad3d(1)(dyngrad.ones(1, 1, 1)).shape
        dyngrad.Size([3, 3, 3])
    """

    _k = 3


class ReflectionPad1d(_PadNd):
    """Reflect the last dim at its borders (the border element not repeated); each width must be
    smaller than the dim (:func:`dyngrad.nn.functional.pad` with mode ``'reflect'``).

    Derivative: ``grad_input`` adds each padded element's gradient back onto the element it reflects
    (PyTorch's ``reflection_pad1d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right)``; negative widths
            crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, a width not smaller than its dim, and for an input that is not
            ``(k+1)``-d or ``(k+2)``-d (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, with ``W_out = W + left + right`` (likewise
          ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReflectionPad1d(2)(dyngrad.arange(4.0).reshape(1, 1, 4)).tolist()
        [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    """

    _k, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Reflect the last 2 dims at their borders; each width must be smaller than its dim
    (:func:`dyngrad.nn.functional.pad` with mode ``'reflect'``).

    Derivative: ``grad_input`` adds each padded element's gradient back onto the element it reflects
    (PyTorch's ``reflection_pad2d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom)``;
            negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, a width not smaller than its dim, and for an input that is not
            ``(k+1)``-d or ``(k+2)``-d (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, with ``W_out = W + left +
          right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReflectionPad2d(1)(dyngrad.arange(4.0).reshape(1, 2, 2)).tolist()
        [[[3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0], [3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0]]]
    """

    _k, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Reflect the last 3 dims at their borders; each width must be smaller than its dim
    (:func:`dyngrad.nn.functional.pad` with mode ``'reflect'``).

    Derivative: ``grad_input`` adds each padded element's gradient back onto the element it reflects
    (PyTorch's ``reflection_pad3d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom, front,
            back)``; negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, a width not smaller than its dim, and for an input that is not
            ``(k+1)``-d or ``(k+2)``-d (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, with ``W_out = W
          + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReflectionPad3d(1)(dyngrad.zeros(1, 2, 2, 2)).shape
        dyngrad.Size([1, 4, 4, 4])
    """

    _k, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeat the border elements of the last dim (:func:`dyngrad.nn.functional.pad` with mode
    ``'replicate'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the border element it
    repeats (PyTorch's ``replication_pad1d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right)``; negative widths
            crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, and for an input that is not ``(k+1)``-d or ``(k+2)``-d
            (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, with ``W_out = W + left + right`` (likewise
          ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReplicationPad1d((1, 2))(dyngrad.tensor([[[1.0, 2.0]]])).tolist()
        [[[1.0, 1.0, 2.0, 2.0, 2.0]]]
    """

    _k, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Repeat the border elements of the last 2 dims (:func:`dyngrad.nn.functional.pad` with mode
    ``'replicate'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the border element it
    repeats (PyTorch's ``replication_pad2d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom)``;
            negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, and for an input that is not ``(k+1)``-d or ``(k+2)``-d
            (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, with ``W_out = W + left +
          right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReplicationPad2d((1, 0, 1, 0))(dyngrad.arange(4.0).reshape(1, 2, 2)).tolist()
        [[[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [2.0, 2.0, 3.0]]]
    """

    _k, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Repeat the border elements of the last 3 dims (:func:`dyngrad.nn.functional.pad` with mode
    ``'replicate'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the border element it
    repeats (PyTorch's ``replication_pad3d_backward``).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom, front,
            back)``; negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, and for an input that is not ``(k+1)``-d or ``(k+2)``-d
            (``NotImplementedError``).
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, with ``W_out = W
          + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReplicationPad3d(1)(dyngrad.zeros(1, 1, 1, 1)).shape
        dyngrad.Size([1, 3, 3, 3])
    """

    _k, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._k + 1, self._k + 2):
            raise ValueError(f"expected {self._k + 1}D or {self._k + 2}D input (got {input.ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wrap the last dim around; each width at most the dim (:func:`dyngrad.nn.functional.pad` with
    mode ``'circular'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the element it wraps from
    (the transposed gather).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right)``; negative widths
            crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, or a width that wraps more than once; ValueError for an input
            that is not 2-d or 3-d.
    Shape:
        - Input: ``(N, C, W)`` or ``(C, W)``.
        - Output: ``(N, C, W_out)`` or ``(C, W_out)``, with ``W_out = W + left + right`` (likewise
          ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CircularPad1d(1)(dyngrad.tensor([[[1.0, 2.0, 3.0]]])).tolist()
        [[[3.0, 1.0, 2.0, 3.0, 1.0]]]
    """

    _k = 1


class CircularPad2d(_CircularPadNd):
    """Wrap the last 2 dims around; each width at most its dim (:func:`dyngrad.nn.functional.pad` with
    mode ``'circular'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the element it wraps from
    (the transposed gather).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom)``;
            negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, or a width that wraps more than once; ValueError for an input
            that is not 3-d or 4-d.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, with ``W_out = W + left +
          right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CircularPad2d(1)(dyngrad.arange(4.0).reshape(1, 2, 2)).tolist()
        [[[3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0], [3.0, 2.0, 3.0, 2.0], [1.0, 0.0, 1.0, 0.0]]]
    """

    _k = 2


class CircularPad3d(_CircularPadNd):
    """Wrap the last 3 dims around; each width at most its dim (:func:`dyngrad.nn.functional.pad` with
    mode ``'circular'``).

    Derivative: ``grad_input`` adds each padded element's gradient onto the element it wraps from
    (the transposed gather).

    Args:
        padding (int or tuple): one width for every side, or ``(left, right, top, bottom, front,
            back)``; negative widths crop.
    Raises:
        RuntimeError: (at call time) when the padding tuple has an odd length or more widths than
            twice the input's rank, or a width that wraps more than once; ValueError for an input
            that is not 4-d or 5-d.
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, with ``W_out = W
          + left + right`` (likewise ``H``, ``D``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CircularPad3d(1)(dyngrad.zeros(1, 2, 2, 2)).shape
        dyngrad.Size([1, 4, 4, 4])
    """

    _k = 3
