"""``x log y`` terms, the pieces of entropies and log-likelihoods: ``xlogy``, ``xlog1py``
(``torch.special.xlog1py``) and ``entr`` (``torch.special.entr``).

``xlogy(x, y) = x * log(y)`` and ``xlog1py(x, y) = x * log1p(y)`` are 0 where ``x == 0``
(unless ``y`` is nan), so ``0 log 0 = 0`` as information theory wants. Operands broadcast
and promote as PyTorch's binary ops (Python numbers are weak constants). Derivatives as
PyTorch's ``tools/autograd/derivatives.yaml``: ``d/dx xlogy = log y`` masked to 0 where
``x == 0 and y <= 0`` (``xlogy(grad, y).masked_fill(...)``), ``d/dy xlogy = x / y``;
likewise for ``xlog1py`` with ``log1p(y)``, ``y <= -1`` and ``y + 1``;
``d/dx entr = -(1 + log x)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Elementwise
from ._util import float_data, float_dtype, inplace, wrap
from .pointwise import _cast, _operands, where

__all__ = ["xlogy", "xlogy_"]
TENSOR_METHODS = set(__all__)


def _x_log(a: Tensor, b: Tensor, log: str) -> Tensor:
    rt = float_dtype(B.result_type(a, b))
    x, y = _cast(a._data, rt), _cast(b._data, rt)
    xp = B.array_module(x, y)
    if xp is not np:  # (the mask and the product broadcast x and y)
        with np.errstate(all="ignore"):
            out = x * getattr(xp, log)(y)
        return wrap(xp.where((x == 0) & ~xp.isnan(y), 0.0, out))
    x, y = np.broadcast_arrays(x, y)
    with np.errstate(all="ignore"):
        out = x * getattr(np, log)(y)
    return wrap(np.where((x == 0) & ~np.isnan(y), np.zeros((), rt), out).astype(rt, copy=False))


class Xlogy(Elementwise):
    """``out = x * log(y)`` (0 where ``x == 0`` and ``y`` is not nan);
    ``grad_x = grad * log(y)``, 0 where ``x == 0`` and ``y <= 0``; ``grad_y = grad * x / y``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(x, y)
        return _x_log(x, y, "log")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        x, y = ctx.saved_tensors
        nx, ny = ctx.needs_input_grad
        dx = where(wrap((x._data == 0) & (y._data <= 0)), 0.0, y.log()) if nx else None
        return dx, (x / y if ny else None)


class SpecialXlog1py(Elementwise):
    """``out = x * log1p(y)`` (0 where ``x == 0`` and ``y`` is not nan);
    ``grad_x = grad * log1p(y)``, 0 where ``x == 0`` and ``y <= -1``;
    ``grad_y = grad * x / (y + 1)``."""

    _node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor) -> Tensor:
        ctx.save_for_backward(x, y)
        return _x_log(x, y, "log1p")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        x, y = ctx.saved_tensors
        nx, ny = ctx.needs_input_grad
        dx = where(wrap((x._data == 0) & (y._data <= -1)), 0.0, y.log1p()) if nx else None
        return dx, (x / (y + 1) if ny else None)


class SpecialEntr(Elementwise):
    """``out = -x log x`` for ``x > 0``, 0 at 0, ``-inf`` for ``x < 0``;
    ``grad_x = -grad * (1 + log x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = float_data(x)
        xp = np if type(d) is np.ndarray else B.array_module(d)
        with np.errstate(all="ignore"):
            out = xp.where(d > 0, -d * xp.log(d), xp.where(d == 0, 0.0, xp.where(d < 0, -math.inf, d)))
        return wrap(B.astype(B.asarray_any(out), B.np_dtype_of(d), copy=False))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return -(ctx.saved_tensors[0].log() + 1)


def xlogy(input: Any, other: Any) -> Tensor:
    """Elementwise ``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is nan).

    Derivative: ``grad_input = grad_output * log(other)`` (0 where ``input == 0`` and
    ``other`` is not nan), ``grad_other = grad_output * input / other`` (derivatives.yaml
    ``xlogy.Tensor``).

    Args:
        input (Tensor or number): ``(*A)``.
        other (Tensor or number): ``(*B)``, broadcastable with ``input`` (at least one of the
            two is a Tensor).
    Returns:
        Tensor: the broadcast shape, the promoted float dtype.
    Raises:
        TypeError: neither operand is a tensor, or one is not a number.
        RuntimeError: when the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([0.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([0.0, 3.0], requires_grad=True)
        >>> y = dyngrad.xlogy(a, b)
        >>> y.detach()
        tensor([0.0000, 2.1972])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([0.0000, 1.0986]), tensor([   nan, 0.6667]))
    """
    return Xlogy.apply(*_operands("xlogy", input, other)[0])


def xlog1py(input: Any, other: Any) -> Tensor:
    """Elementwise ``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is
    nan): ``torch.special.xlog1py``. Arguments and result as :func:`xlogy`."""
    return SpecialXlog1py.apply(*_operands("xlog1py", input, other)[0])


def entr(input: Tensor) -> Tensor:
    """Elementwise entropy term ``-input * log(input)`` (0 at 0, ``-inf`` below 0):
    ``torch.special.entr``.

    Args:
        input: a tensor ``(*)``.

    Returns:
        A tensor ``(*)`` of the input's float dtype.
    """
    return SpecialEntr.apply(input)


def xlogy_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`xlogy`: ``input = input * log(other)`` (0 where ``input == 0``).

    Derivative: as :func:`xlogy`'s; ``input`` takes over the new history.

    Args:
        input (Tensor): ``(*)``, floating, overwritten.
        other (Tensor or number): broadcastable to ``input``'s shape.
    Returns:
        Tensor: ``input`` itself.
    Raises:
        RuntimeError: when ``input`` is a leaf that requires grad, its dtype cannot hold the
            result (an integer tensor), or ``other`` does not broadcast to it.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0, 2.0])
        >>> dyngrad.xlogy_(x, dyngrad.tensor([0.0, 3.0])) is x
        True
        >>> x
        tensor([0.0000, 2.1972])
    """
    return inplace(xlogy, input, other)
