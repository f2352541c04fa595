"""``dyngrad.scipy.special``: ``scipy.special``'s names and arguments for the functions dyngrad
has, differentiable. Swap ``from scipy.special import expit, logsumexp`` for
``from dyngrad.scipy.special import expit, logsumexp`` in a function you differentiate.

Arrays in, arrays out: with no Tensor argument the result is an ndarray (computed by the same
ops), so the swapped function still runs on plain NumPy inputs; with Tensors (as inside
``dyngrad.func.grad``) results are Tensors. ``axis=None`` means every axis, as in SciPy.

Example:
    >>> import numpy as np
    >>> from dyngrad.func import grad
    >>> from dyngrad.scipy.special import logsumexp
    >>> grad(lambda x: logsumexp(x))(np.zeros(2))
    array([0.5, 0.5])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops as _ops
from .. import special as _special
from ..ops import fused, statistics
from ..tensor import Tensor
from .. import _backend as B

__all__ = [
    "expit", "logit", "erf", "erfc", "erfinv", "ndtr", "ndtri", "gammaln", "digamma", "psi", "polygamma",
    "xlogy", "xlog1py", "entr", "logsumexp", "softmax", "log_softmax", "expm1", "log1p",
]


def _arrays_in_arrays_out(fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        tensor_in = any(isinstance(a, Tensor) for a in args)
        args = tuple(Tensor._make(np.asarray(a)) if isinstance(a, (np.ndarray, list)) else a for a in args)
        if not tensor_in and args and not isinstance(args[0], Tensor):
            args = (Tensor._make(np.asarray(args[0], dtype=np.float64)),) + args[1:]
        res = fn(*args, **kwargs)
        if tensor_in:
            return res
        return tuple(r._data for r in res) if isinstance(res, tuple) else res._data

    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _floats(x: Tensor) -> Tensor:
    return x.to(np.float64) if B.kind(x._data) in "biu" else x


@_arrays_in_arrays_out
def expit(x: Tensor) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (``scipy.special.expit``)."""
    return _special.sigmoid(_floats(x))


@_arrays_in_arrays_out
def logit(x: Tensor) -> Tensor:
    """``log(x / (1 - x))`` (``scipy.special.logit``)."""
    return _ops.logit(_floats(x))


@_arrays_in_arrays_out
def erf(z: Tensor) -> Tensor:
    """The error function (``scipy.special.erf``)."""
    return _ops.erf(_floats(z))


@_arrays_in_arrays_out
def erfc(x: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(x)`` (``scipy.special.erfc``)."""
    return _ops.erfc(_floats(x))


@_arrays_in_arrays_out
def erfinv(y: Tensor) -> Tensor:
    """The inverse error function (``scipy.special.erfinv``)."""
    return _ops.erfinv(_floats(y))


@_arrays_in_arrays_out
def ndtr(x: Tensor) -> Tensor:
    """The standard normal CDF (``scipy.special.ndtr``), accurate in the lower tail."""
    return _special.ndtr(_floats(x))


@_arrays_in_arrays_out
def ndtri(y: Tensor) -> Tensor:
    """The standard normal quantile, ``sqrt(2) * erfinv(2 y - 1)`` (``scipy.special.ndtri``)."""
    return _ops.erfinv(_floats(y) * 2.0 - 1.0) * math.sqrt(2.0)


@_arrays_in_arrays_out
def gammaln(x: Tensor) -> Tensor:
    """``log|Gamma(x)|`` (``scipy.special.gammaln``)."""
    return _ops.lgamma(_floats(x))


@_arrays_in_arrays_out
def digamma(x: Tensor) -> Tensor:
    """The digamma function ``d/dx log Gamma(x)`` (``scipy.special.digamma``, ``psi``)."""
    return _ops.digamma(_floats(x))


psi = digamma


@_arrays_in_arrays_out
def polygamma(n: Any, x: Tensor) -> Tensor:
    """The ``n``-th derivative of digamma (``scipy.special.polygamma``; ``n`` an integer)."""
    if isinstance(n, Tensor):
        n = int(n.item())
    return _ops.polygamma(int(n), _floats(x))


@_arrays_in_arrays_out
def xlogy(x: Any, y: Any) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (``scipy.special.xlogy``)."""
    return _ops.xlogy(x, y)


@_arrays_in_arrays_out
def xlog1py(x: Any, y: Any) -> Tensor:
    """``x * log1p(y)``, 0 where ``x == 0`` (``scipy.special.xlog1py``)."""
    return _special.xlog1py(x, y)


@_arrays_in_arrays_out
def entr(x: Tensor) -> Tensor:
    """``-x log x`` (``scipy.special.entr``)."""
    return _special.entr(_floats(x))


@_arrays_in_arrays_out
def expm1(x: Tensor) -> Tensor:
    """``exp(x) - 1`` (``scipy.special.expm1``)."""
    return _ops.expm1(_floats(x))


@_arrays_in_arrays_out
def log1p(x: Tensor) -> Tensor:
    """``log(1 + x)`` (``scipy.special.log1p``)."""
    return _ops.log1p(_floats(x))


def _axes(x: Tensor, axis: Any) -> tuple:
    if axis is None:
        return tuple(range(x.dim()))
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


@_arrays_in_arrays_out
def logsumexp(a: Tensor, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False) -> Tensor:
    """``log(sum(b * exp(a)))`` over ``axis`` (``scipy.special.logsumexp``), computed stably.

    Args:
        a: the values.
        axis: the axes to reduce (``None``: all).
        b: non-negative weights broadcastable to ``a`` (``None``: ones).
        keepdims: keep the reduced axes as size 1.
        return_sign: not supported (weights must be non-negative).

    Returns:
        The reduced tensor.

    Raises:
        TypeError: ``return_sign=True``.
    """
    if return_sign:
        raise TypeError("dyngrad.scipy.special.logsumexp does not support return_sign=True")
    a = _floats(a)
    if b is not None:
        a = a + _ops.log(b if isinstance(b, Tensor) else Tensor._make(np.asarray(b, dtype=a._data.dtype)))
    dims = _axes(a, axis)
    if not dims:
        return a
    return statistics.logsumexp(a, dims, keepdims)


def _flat_or_axis(x: Tensor, axis: Any, fn: Callable[[Tensor, int], Tensor]) -> Tensor:
    if axis is None:
        return fn(x.reshape(-1), 0).reshape(tuple(x.shape))
    if isinstance(axis, (tuple, list)):
        # over several axes: move them last, flatten them, apply, and undo
        axes = sorted(a % x.dim() for a in axis)
        rest = [i for i in range(x.dim()) if i not in axes]
        perm = x.permute(rest + axes)
        shp = tuple(perm.shape)
        y = fn(perm.reshape(shp[: len(rest)] + (-1,)), -1).reshape(shp)
        inv = np.argsort(rest + axes).tolist()
        return y.permute(inv)
    return fn(x, axis)


@_arrays_in_arrays_out
def softmax(x: Tensor, axis: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` over ``axis`` (``scipy.special.softmax``; ``None``: all)."""
    return _flat_or_axis(_floats(x), axis, fused.softmax)


@_arrays_in_arrays_out
def log_softmax(x: Tensor, axis: Any = None) -> Tensor:
    """``x - logsumexp(x)`` over ``axis`` (``scipy.special.log_softmax``; ``None``: all)."""
    return _flat_or_axis(_floats(x), axis, fused.log_softmax)
