"""Statistical reductions, norms and scans (second file of the reduction family;
re-exported by :mod:`dyngrad.ops.reduction`): var, std, var_mean, std_mean, logsumexp,
norm, ``vector_norm`` (public as ``dyngrad.linalg.vector_norm``), cumsum, cumprod.

Shapes: ``input (*) -> output`` with the reduced dims removed (size 1 with keepdim).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching_reduce import along_dim, reduce_dims
from ._util import norm_dim, wrap
from .reduction import _count, _dtype_arg, _kept_shape, const, host_const, rdims, unreduce

__all__ = ["var", "std", "var_mean", "std_mean", "logsumexp", "norm", "cumsum", "cumprod"]
TENSOR_METHODS = {"var", "std", "logsumexp", "norm", "cumsum", "cumprod"}


def _correction(op: str, dim: Any, unbiased: Any, correction: Any) -> tuple:
    """Resolve PyTorch's overloads: ``var(x, unbiased)``, ``var(x, dim, unbiased,
    keepdim)``, ``var(x, dim, *, correction, keepdim)``. Returns ``(dim, correction)``."""
    if isinstance(dim, bool):  # var(x, True)
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{op}(): cannot specify both 'unbiased' and 'correction'")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _check_float(op: str, x: Tensor) -> None:
    if B.kind(x._data) != "f":
        raise RuntimeError(f"{op}(): input dtype should be floating point, but got {x.dtype.name}")


class Var(Op):
    """``out = sum((x - mean)^2) / (N - correction)`` over ``dims``;
    ``grad_x = grad * 2 (x - mean) / (N - correction)`` (N: reduced element count)."""

    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, correction: float, keepdim: bool) -> Tensor:
        ctx.dims, ctx.c, ctx.keepdim = dims, correction, keepdim
        ctx.save_for_backward(x)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # N - correction <= 0: nan/inf
            d = x._data
            if type(d) is np.ndarray or B.native(d):
                v = np.var(d, axis=dims, ddof=correction, keepdims=keepdim)
            else:
                v = B.namespace(d).var(d, axis=dims, correction=correction, keepdims=keepdim)
        return wrap(B.asarray_any(v, dtype=x._data.dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return _var_grad(x, unreduce(g, x._data.shape, ctx.dims, ctx.keepdim), ctx.dims, ctx.c), None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u * 2 (x - mean) / (N - correction), dims)``."""
        (x,) = ctx.saved_tensors
        return _var_grad(x, u, ctx.dims, ctx.c).sum(ctx.dims, ctx.keepdim)


def _var_grad(x: Tensor, g: Tensor, dims: tuple | None, c: float) -> Tensor:
    """``g * 2 (x - mean(x)) / (N - c)`` with ``g`` in kept-dims shape."""
    n = max(_count(x._data.shape, dims) - c, 0)
    centered = x - x.mean(dims, keepdim=True) if x._data.size else x
    if n == 0:  # degenerate (N <= correction): PyTorch's 2/0 * (x - mean), i.e. inf or nan
        with np.errstate(invalid="ignore"):
            return wrap(B.asarray_any(g._data * centered._data * math.inf, dtype=x._data.dtype))
    return g * centered * (2.0 / n)


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False``
    means 0). ``N - correction <= 0`` gives inf/nan, as PyTorch.

    Derivative: ``grad_input = grad_output * 2 * (input - mean) / (N - correction)``
    (derivatives.yaml ``var_backward``).

    Args:
        input (Tensor): ``(*)``, floating.
        dim (int or tuple of int, optional): the dims to reduce. Default: ``None`` (all).
        unbiased (bool, optional): the older spelling of ``correction``: ``True`` is 1,
            ``False`` is 0. Default: ``None``.
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
        correction (int or float, optional): keyword only; divide by ``N - correction``.
            Default: ``None`` (1, Bessel's correction).
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``).
    Raises:
        IndexError: dim out of range.
        RuntimeError: integer input, or both ``unbiased`` and ``correction`` (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        >>> y = dyngrad.var(x)
        >>> y.backward()
        >>> y.detach(), dyngrad.var(x, correction=0).detach()
        (tensor(1.6667), tensor(1.2500))
        >>> x.grad
        tensor([-1.0000, -0.3333,  0.3333,  1.0000])
    """
    dim, c = _correction("var", dim, unbiased, correction)
    _check_float("var", input)
    return Var.apply(input, rdims(dim, input._data.ndim, "var"), c, keepdim)


class Std(Op):
    """``out = sqrt(var(x))``; ``grad_x = grad / (2 out) * 2 (x - mean) / (N - correction)``,
    with 0 where ``out == 0`` (PyTorch's ``std_backward``)."""

    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, correction: float, keepdim: bool) -> Tensor:
        ctx.dims, ctx.c, ctx.keepdim = dims, correction, keepdim
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            d = x._data
            if type(d) is np.ndarray or B.native(d):
                s = np.std(d, axis=dims, ddof=correction, keepdims=keepdim)
            else:
                s = B.namespace(d).std(d, axis=dims, correction=correction, keepdims=keepdim)
            out = wrap(B.asarray_any(s, dtype=x._data.dtype))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, dims = x._data.shape, ctx.dims
        o = unreduce(out, shape, dims, ctx.keepdim)
        gv = (unreduce(g, shape, dims, ctx.keepdim) / (2 * o)).masked_fill(wrap(o._data == 0), 0)
        return _var_grad(x, gv, dims, ctx.c), None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = var_t / (2 out)``, 0 where ``out == 0``."""
        x, out = ctx.saved_tensors
        tv = _var_grad(x, u, ctx.dims, ctx.c).sum(ctx.dims, ctx.keepdim)
        return (tv / (2 * out)).masked_fill(wrap(out._data == 0), 0)


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> Tensor:
    """Standard deviation ``sqrt(var(input, dim, correction))`` over ``dim`` (same arguments
    as :func:`var`).

    Derivative: ``grad_input = grad_output * (input - mean) / ((N - correction) * output)``,
    0 where ``output == 0`` (derivatives.yaml ``std_backward``).

    Args:
        input (Tensor): ``(*)``, floating.
        dim (int or tuple of int, optional): the dims to reduce. Default: ``None`` (all).
        unbiased (bool, optional): the older spelling of ``correction``: ``True`` is 1,
            ``False`` is 0. Default: ``None``.
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
        correction (int or float, optional): keyword only; divide by ``N - correction``.
            Default: ``None`` (1, Bessel's correction).
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``).
    Raises:
        IndexError: dim out of range.
        RuntimeError: integer input, or both ``unbiased`` and ``correction`` (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 3.0], [2.0, 2.0]], requires_grad=True)
        >>> y = dyngrad.std(x, dim=1, keepdim=True)
        >>> y.detach()
        tensor([[1.4142],
                [0.0000]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[-0.7071,  0.7071],
                [ 0.0000,  0.0000]])
    """
    dim, c = _correction("std", dim, unbiased, correction)
    _check_float("std", input)
    return Std.apply(input, rdims(dim, input._data.ndim, "std"), c, keepdim)


class VarMean(Op):
    """``(var, mean)`` in one pass; ``grad_x = g_var * 2 (x - mean) / (N - c) + g_mean / N``."""

    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py
    _std = False

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, correction: float, keepdim: bool) -> tuple:
        ctx.dims, ctx.c, ctx.keepdim = dims, correction, keepdim
        d = x._data
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if type(d) is np.ndarray or B.native(d):
                m = B.asarray_any(np.mean(d, axis=dims, keepdims=keepdim), dtype=d.dtype)
                f = np.std if type(ctx)._forward_cls._std else np.var
                v = wrap(B.asarray_any(f(d, axis=dims, ddof=correction, keepdims=keepdim), dtype=d.dtype))
            else:
                xp = B.namespace(d)
                m = xp.mean(d, axis=dims, keepdims=keepdim)
                f = xp.std if type(ctx)._forward_cls._std else xp.var
                v = wrap(f(d, axis=dims, correction=correction, keepdims=keepdim))
        ctx.save_for_backward(x, v)
        return v, wrap(m)

    @staticmethod
    def backward(ctx: Any, gv: Tensor, gm: Tensor) -> tuple:
        x, v = ctx.saved_tensors
        shape, dims, k = x._data.shape, ctx.dims, ctx.keepdim
        gv = unreduce(gv, shape, dims, k)
        if type(ctx)._forward_cls._std:
            o = unreduce(v, shape, dims, k)
            gv = (gv / (2 * o)).masked_fill(wrap(o._data == 0), 0)
        gx = _var_grad(x, gv, dims, ctx.c) + unreduce(gm, shape, dims, k).expand(shape) / _count(shape, dims)
        return gx, None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``(t_var, t_mean) = (sum(u * 2 (x - mean) / (N - c), dims), mean(u, dims))``;
        for std, ``t_std = t_var / (2 std)`` (0 where ``std == 0``)."""
        x, v = ctx.saved_tensors
        tv = _var_grad(x, u, ctx.dims, ctx.c).sum(ctx.dims, ctx.keepdim)
        if ctx._forward_cls._std:
            tv = (tv / (2 * v)).masked_fill(wrap(v._data == 0), 0)
        return tv, u.mean(ctx.dims, ctx.keepdim)


class StdMean(VarMean):
    """``(std, mean)``; the std part of the gradient as in :class:`Std`."""

    _std = True


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> tuple:
    """``(var(input, dim), mean(input, dim))`` in one pass (arguments as :func:`var`).

    Derivative: ``grad_input = grad_var * 2 * (input - mean) / (N - correction) + grad_mean /
    N`` (the two outputs' derivatives summed).

    Args:
        input (Tensor): ``(*)``, floating.
        dim (int or tuple of int, optional): the dims to reduce. Default: ``None`` (all).
        unbiased (bool, optional): the older spelling of ``correction``: ``True`` is 1,
            ``False`` is 0. Default: ``None``.
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
        correction (int or float, optional): keyword only; divide by ``N - correction``.
            Default: ``None`` (1, Bessel's correction).
    Returns:
        tuple of Tensor: ``(var, mean)``, each ``input``'s shape without the reduced dims.
    Raises:
        IndexError: dim out of range.
        RuntimeError: integer input, or both ``unbiased`` and ``correction`` (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.var_mean(dyngrad.tensor([[1.0, 2.0], [3.0, 5.0]]), dim=0)
        (tensor([2.0000, 4.5000]), tensor([2.0000, 3.5000]))
    """
    dim, c = _correction("var_mean", dim, unbiased, correction)
    _check_float("var_mean", input)
    return VarMean.apply(input, rdims(dim, input._data.ndim, "var_mean"), c, keepdim)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> tuple:
    """``(std(input, dim), mean(input, dim))`` in one pass (arguments as :func:`var`).

    Derivative: ``grad_input = grad_std * (input - mean) / ((N - correction) * std) +
    grad_mean / N`` (0 in the first term where ``std == 0``).

    Args:
        input (Tensor): ``(*)``, floating.
        dim (int or tuple of int, optional): the dims to reduce. Default: ``None`` (all).
        unbiased (bool, optional): the older spelling of ``correction``: ``True`` is 1,
            ``False`` is 0. Default: ``None``.
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
        correction (int or float, optional): keyword only; divide by ``N - correction``.
            Default: ``None`` (1, Bessel's correction).
    Returns:
        tuple of Tensor: ``(std, mean)``, each ``input``'s shape without the reduced dims.
    Raises:
        IndexError: dim out of range.
        RuntimeError: integer input, or both ``unbiased`` and ``correction`` (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.std_mean(dyngrad.tensor([1.0, 2.0, 3.0, 4.0]))
        (tensor(1.2910), tensor(2.5000))
    """
    dim, c = _correction("std_mean", dim, unbiased, correction)
    _check_float("std_mean", input)
    return StdMean.apply(input, rdims(dim, input._data.ndim, "std_mean"), c, keepdim)


class Logsumexp(Op):
    """``out = log(sum(exp(x)))`` over ``dims``, computed stably as
    ``m + log(sum(exp(x - m)))`` with ``m = amax(x)`` (inf-safe);
    ``grad_x = grad * exp(x - out)`` (the softmax)."""

    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool) -> Tensor:
        d = x._data if B.kind(x._data) == "f" else B.astype(x._data, B.get_default_dtype().np)
        if type(d) is not np.ndarray and not B.native(d):
            out = wrap(_logsumexp_xp(d, dims, keepdim))
            ctx.dims, ctx.keepdim = dims, keepdim
            ctx.save_for_backward(x, out)
            return out
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if d.size:
                m = np.max(d, axis=dims, keepdims=True)
                m = np.where(np.isfinite(m), m, 0)
            else:
                m = np.zeros(_kept_shape(d.shape, dims), dtype=d.dtype)
            out = np.log(np.sum(np.exp(d - m), axis=dims, keepdims=True)) + m
        if not keepdim:
            out = out.reshape([s for i, s in enumerate(out.shape) if dims is not None and i not in dims])
        out = wrap(B.asarray_any(out, dtype=d.dtype))
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape = x._data.shape
        return unreduce(g, shape, ctx.dims, ctx.keepdim) * (x - unreduce(out, shape, ctx.dims, ctx.keepdim)).exp(), None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u * exp(x - out), dims)`` (softmax-weighted)."""
        x, out = ctx.saved_tensors
        w = (x - unreduce(out, x._data.shape, ctx.dims, ctx.keepdim)).exp()
        return (u * w).sum(ctx.dims, ctx.keepdim)


def _logsumexp_xp(d: Any, dims: tuple | None, keepdim: bool) -> Any:
    """:class:`Logsumexp`'s forward with the standard's functions (an Array API array)."""
    xp = B.namespace(d)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if d.size:
            m = xp.max(d, axis=dims, keepdims=True)
            m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
        else:
            m = xp.zeros(_kept_shape(d.shape, dims), dtype=d.dtype)
        out = xp.log(xp.sum(xp.exp(d - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        out = xp.reshape(out, tuple(s for i, s in enumerate(out.shape) if dims is not None and i not in dims))
    return out


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))`` without overflow (computed as ``m + log(sum(exp(input -
    m)))``, ``m`` the max).

    Derivative: ``grad_input = grad_output * exp(input - output)`` (the softmax;
    derivatives.yaml ``logsumexp_backward``).

    Args:
        input (Tensor): ``(*)``; integer inputs compute in the default float dtype.
        dim (int or tuple of int): the dims to reduce (``()``: all).
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
    Returns:
        Tensor: ``input``'s shape without the reduced dims, floating.
    Raises:
        IndexError: for a bad dim.
        TypeError: when ``dim`` is missing (it is required, as in PyTorch).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0, 0.6931472], requires_grad=True)
        >>> y = dyngrad.logsumexp(x, 0)
        >>> y.backward()
        >>> y.detach(), x.grad
        (tensor(1.0986), tensor([0.3333, 0.6667]))
        >>> dyngrad.logsumexp(dyngrad.tensor([1000.0, 1000.0]), 0)
        tensor(1000.6932)
    """
    return Logsumexp.apply(input, rdims(dim, input._data.ndim, "logsumexp"), keepdim)


class VectorNorm(Op):
    """``out = (sum |x|^p)^(1/p)`` over ``dims`` (p = ``ord``); derivatives (PyTorch's
    ``linalg_vector_norm_backward``):

    - p = 2: ``grad * x / out``, 0 where ``out == 0`` (the subgradient 0 at 0);
    - p = 1: ``grad * sign(x)``; p = 0: 0;
    - p = ±inf: ``grad * sign(x) * [|x| == out] / count`` (ties share evenly);
    - other p: ``grad * x |x|^(p-2) / out^(p-1)``, 0 where ``out == 0``.
    """

    _node_name = "LinalgVectorNormBackward0"
    vmap = reduce_dims(2)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, p: float, dims: tuple | None, keepdim: bool) -> Tensor:
        if type(x._data) is not np.ndarray and not B.native(x._data):
            out = wrap(_vector_norm_xp(x._data, p, dims, keepdim))
            ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
            ctx.save_for_backward(x, out)
            return out
        a = np.abs(x._data)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if p == 2:
                r = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
            elif p == 1:
                r = np.sum(a, axis=dims, keepdims=keepdim)
            elif p == 0:
                r = np.sum(a != 0, axis=dims, keepdims=keepdim)
            elif math.isinf(p):
                if a.size == 0:
                    raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor "
                                       "because the operation does not have an identity")
                r = (np.max if p > 0 else np.min)(a, axis=dims, keepdims=keepdim)
            else:
                r = np.sum(a**p, axis=dims, keepdims=keepdim) ** (1.0 / p)
        out = wrap(B.asarray_any(r, dtype=x._data.dtype))
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        p, dims, shape, dt = ctx.p, ctx.dims, x._data.shape, x._data.dtype
        g = unreduce(g, shape, dims, ctx.keepdim)
        o = unreduce(out, shape, dims, ctx.keepdim)
        xp = B.xp_for(x._data)
        sign = const(xp.sign(x._data), dt)
        if p == 0:
            return g * host_const(np.zeros(shape), x), None, None, None
        if p == 1:
            return g * sign, None, None, None
        if math.isinf(p):
            mask = xp.abs(x._data) == o._data
            if xp is not np:
                mask = xp.astype(mask, dt)
            with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
                w = mask / mask.sum(axis=dims, keepdims=True) if xp is np else mask / xp.sum(mask, axis=dims,
                                                                                              keepdims=True)
                return g * sign * const(w, dt), None, None, None
        zero = wrap(o._data == 0)
        if p == 2:
            return g * (x / o).masked_fill(zero, 0), None, None, None
        # PyTorch's linalg_vector_norm_backward: for p < 2 the numerator is sign(x) |x|^(p-1)
        # (x |x|^(p-2) would be 0 * inf = nan at a zero element), and for p < 1 it is 0 where
        # x is 0 (the infinite slope there is given no gradient)
        if p < 2:
            num = sign * x.abs() ** (p - 1)
            if p < 1:
                num = num.masked_fill(wrap(x._data == 0), 0)
        else:
            num = x * x.abs() ** (p - 2)
        scale = (num / o ** (p - 1)).masked_fill(zero, 0)
        return g * scale, None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u * w, dims)`` with ``w`` backward's gradient for a unit
        ``grad`` (``x / out`` for p = 2, ``sign(x)`` for p = 1, ...)."""
        (_x, out) = ctx.saved_tensors
        w = VectorNorm.backward(ctx, Tensor._make(B.ones_like(out._data, dtype=B.np_dtype_of(u._data))))[0]
        return (u * w).sum(ctx.dims, ctx.keepdim)


def _vector_norm_xp(d: Any, p: float, dims: tuple | None, keepdim: bool) -> Any:
    """:class:`VectorNorm`'s forward with the standard's functions (an Array API array)."""
    xp = B.namespace(d)
    a = xp.abs(d)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if p == 2:
            return xp.sqrt(xp.sum(a * a, axis=dims, keepdims=keepdim))
        if p == 1:
            return xp.sum(a, axis=dims, keepdims=keepdim)
        if p == 0:
            return xp.sum(xp.astype(a != 0, d.dtype), axis=dims, keepdims=keepdim)
        if math.isinf(p):
            if a.size == 0:
                raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor "
                                   "because the operation does not have an identity")
            return (xp.max if p > 0 else xp.min)(a, axis=dims, keepdims=keepdim)
        return xp.sum(a**p, axis=dims, keepdims=keepdim) ** (1.0 / p)


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``linalg.vector_norm``: the ``ord``-norm (any float, ±inf, 0) of ``x`` over ``dim``
    (int, tuple or None = all, the input treated as a flat vector).

    Raises:
        RuntimeError: integer input; ±inf norm of an empty tensor. IndexError: bad dim.
    """
    if dtype is not None:
        x = x.to(dtype)
    if B.kind(x._data) != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point tensor as input. Got {x.dtype.name}")
    return VectorNorm.apply(x, float(ord), rdims(dim, x._data.ndim, "linalg.vector_norm"), keepdim)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``torch.norm``: ``p`` in {'fro', number, inf, -inf}; 'fro' is the 2-norm over
    ``dim`` (all elements when None, or a tuple of 2 dims). Nuclear norm not supported.

    The vector ``p``-norm ``(sum |x|^p)^(1/p)`` of the elements over ``dim``
    (``dyngrad.linalg.vector_norm``).

    Derivative (PyTorch's ``linalg_vector_norm_backward``): p = 2: ``grad_output * input /
    output`` (0 where ``output == 0``); p = 1: ``grad_output * sign(input)``; p = ±inf:
    ``grad_output * sign(input)`` shared evenly by the elements that reach the max/min;
    other p: ``grad_output * input * |input|^(p-2) / output^(p-1)``.

    Args:
        input (Tensor): ``(*)``, floating.
        p (str or float): ``'fro'`` (the 2-norm) or a number, ``inf`` and ``-inf``
            included. Default: ``'fro'``.
        dim (int or tuple of int, optional): the dims to reduce. Default: ``None`` (all).
        keepdim (bool): keep the reduced dims with size 1. Default: ``False``.
        dtype (dtype, optional): compute and return in this dtype. Default: ``None``.
    Returns:
        Tensor: ``input``'s shape without the reduced dims.
    Raises:
        RuntimeError: ``p='nuc'`` (not implemented) or an unknown string, or an integer input.
        IndexError: dim out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([3.0, 4.0], requires_grad=True)
        >>> y = dyngrad.norm(x)
        >>> y.backward()
        >>> y.detach(), x.grad
        (tensor(5.), tensor([0.6000, 0.8000]))
        >>> dyngrad.norm(dyngrad.tensor([[3.0, 4.0], [0.0, -1.0]]), 1, dim=1)
        tensor([7., 1.])
    """
    if isinstance(p, str):
        if p != "fro":
            raise RuntimeError(f"norm(): p={p!r} is not supported by dyngrad (only 'fro' and numbers)")
        p = 2
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


def _rev_cumsum(t: Tensor, dim: int) -> Tensor:
    """``out_i = sum_{j >= i} t_j`` along ``dim`` (with dyngrad ops, differentiable)."""
    return t.sum(dim, keepdim=True) - t.cumsum(dim) + t


class Cumsum(Linear):
    """``out_i = sum_{j <= i} x_j`` along ``dim``; ``grad_x_i = sum_{j >= i} grad_j``
    (a reversed cumulative sum). Shapes: ``(*) -> (*)``."""

    vmap = staticmethod(along_dim)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, dtype: Any) -> Tensor:
        d = x._data
        if dtype is None and B.kind(d) in "biu":
            dtype = np.int64
        ctx.dim = dim
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            if type(d) is np.ndarray or B.native(d):
                return wrap(np.cumsum(d, axis=dim, dtype=dtype) if d.ndim else d.astype(dtype or d.dtype, copy=True))
            if not d.ndim:
                return wrap(B.astype(d, dtype or B.np_dtype_of(d)))
            return wrap(B.namespace(d).cumulative_sum(d, axis=dim, dtype=B.dtype_for(d, dtype)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        if g._data.ndim == 0:
            return g, None, None
        return _rev_cumsum(g, ctx.dim), None, None


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """The cumulative sum of ``input`` along ``dim``: ``out[i] = input[0] + ... + input[i]``.

    Integer and bool inputs accumulate in int64 (as PyTorch), unless ``dtype`` is given; the
    input is cast to ``dtype`` first.

    Derivative: ``grad_input = reverse cumulative sum of grad_output along dim`` (source:
    PyTorch's derivatives.yaml ``cumsum_backward``).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to accumulate along.
        dtype (dtype, optional): keyword-only; the result's dtype. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape.
    Raises:
        IndexError: when ``dim`` is out of range.
        TypeError: when ``dim`` is missing.

    Example:
        >>> import dyngrad
        >>> dyngrad.cumsum(dyngrad.tensor([[1, 2], [3, 4]]), dim=1)
        tensor([[1, 3],
                [3, 7]])
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> dyngrad.cumsum(x, 0).sum().backward()
        >>> x.grad
        tensor([3., 2., 1.])
    """
    return Cumsum.apply(input, norm_dim(dim, input._data.ndim, "cumsum"), _dtype_arg(dtype))


class Cumprod(Op):
    """``out_i = prod_{j <= i} x_j`` along ``dim``;
    ``grad_x_i = sum_{j >= i} grad_j * prod_{k <= j, k != i} x_k``.

    Without zeros: ``rev_cumsum(grad * out) / x``. With zeros (let ``z`` be the first zero
    of a slice): entries before ``z`` use the same formula; entry ``z`` gets
    ``sum_{j >= z} grad_j * cumprod(x with x_z := 1)_j``; entries after ``z`` get 0 (as
    PyTorch's ``cumprod_backward``), written as ``x_z * (...)`` so that double backward
    sees their dependence on ``x_z``. A slice with two or more zeros uses the division-free
    ``grad_x_i = prod_{k<i} x_k * sum_{j>=i} grad_j prod_{i<k<=j} x_k`` (O(n^2) per slice),
    whose second derivatives are exact too.

    Forward mode: ``t_i = sum_{j <= i} u_j * prod_{k <= i, k != j} x_k`` (the product
    rule). Without zeros this is ``out * cumsum(u / x)``. With zeros, the sum itself with an
    ``(n, n)`` table per slice (division-free, so nested forward mode differentiates it
    exactly). Source: differentiating ``out_i = prod_{j <= i} x_j`` by the product rule.
    """

    vmap = staticmethod(along_dim)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, dtype: Any) -> Tensor:
        d = x._data
        if dtype is None and B.kind(d) in "biu":
            dtype = np.int64
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            if type(d) is np.ndarray or B.native(d):
                out = wrap(np.cumprod(d, axis=dim, dtype=dtype) if d.ndim else d.astype(dtype or d.dtype, copy=True))
            elif not d.ndim:
                out = wrap(B.astype(d, dtype or B.np_dtype_of(d)))
            else:
                out = wrap(B.namespace(d).cumulative_prod(d, axis=dim, dtype=B.dtype_for(d, dtype)))
        ctx.dim = dim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        dim, xd, dt = ctx.dim, x._data, x._data.dtype
        if xd.ndim == 0:
            return g, None, None
        zero = xd == 0
        xp = B.xp_for(zero)
        if not xp.any(zero):
            return _rev_cumsum(g * out, dim) / x, None, None
        nzero = zero.sum(axis=dim) if xp is np else xp.sum(xp.astype(zero, xp.int64), axis=dim)
        if xp.any(nzero >= 2):  # several zeros in a slice: the exact O(n^2) form
            return _cumprod_grad_pairs(x, g, dim), None, None
        n = xd.shape[dim]
        if xp is np:
            pos = np.arange(n).reshape((-1,) + (1,) * (xd.ndim - dim - 1))
            first = np.where(zero.any(axis=dim, keepdims=True), zero.argmax(axis=dim, keepdims=True), n)
        else:
            pos = xp.reshape(xp.arange(n, dtype=xp.int64), (-1,) + (1,) * (xd.ndim - dim - 1))
            first = xp.where(xp.any(zero, axis=dim, keepdims=True),
                             xp.argmax(xp.astype(zero, xp.int8), axis=dim, keepdims=True), n)
        before, at, after = pos < first, pos == first, pos >= first
        b = const(before, dt)
        xs = x * b + const(~before, dt)  # non-zero divisor
        grad_before = b * _rev_cumsum(g * out, dim) / xs
        xz = x * const(~at, dt) + const(at, dt)
        gout_z = g * xz.cumprod(dim)  # grad_j * cumprod(x with x_z := 1)_j
        grad_at = const(at, dt) * (gout_z * const(after, dt)).sum(dim, keepdim=True)
        # after z: x_z * rev_cumsum(...) / x_i, 0 in value but exact for double backward
        x_z = (x * const(at, dt)).sum(dim, keepdim=True)
        later = const(after & ~at, dt)
        safe = x * const(~zero, dt) + const(zero, dt)
        grad_after = later * x_z * _rev_cumsum(gout_z, dim) / safe
        return grad_before + grad_at + grad_after, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = out * cumsum(u / x)`` without zeros, else the division-free
        sum (see the class docstring)."""
        x, out = ctx.saved_tensors
        dim, xd = ctx.dim, x._data
        if xd.ndim == 0:
            return u
        zero = xd == 0
        if not B.xp_for(zero).any(zero):
            return out * Cumsum.apply(u / x, dim, None)
        return _cumprod_jvp_pairs(x, u, dim)


def _cumprod_jvp_pairs(x: Tensor, u: Tensor, dim: int) -> Tensor:
    """``t_i = sum_{j <= i} u_j * prod_{k <= i, k != j} x_k`` along ``dim`` with an
    ``(n, n)`` table per slice: no division, so exact whatever the zeros, and its own
    derivative is exact too (nested forward mode differentiates it: a form that is only
    right in value, ``u_z * cumprod(x with x_z := 1)`` from the first zero on, loses the
    ``x_z * d cumprod(...)`` term whose derivative is not zero)."""
    xm, um = x.movedim(dim, -1), u.movedim(dim, -1)
    n = xm.shape[-1]
    eye = np.eye(n, dtype=bool)  # [j, k]
    table = xm.unsqueeze(-2) * host_const(~eye, x) + host_const(eye, x)  # [..., j, k]: x_k, 1 where k = j
    lower = host_const(np.triu(np.ones((n, n), dtype=bool)), x)  # [j, i]: j <= i
    t = (um.unsqueeze(-1) * table.cumprod(-1) * lower).sum(-2)  # sum over j of u_j prod_{k<=i, k!=j} x_k
    return t.movedim(-1, dim)


def _cumprod_grad_pairs(x: Tensor, g: Tensor, dim: int) -> Tensor:
    """``grad_x_i = prod_{k<i} x_k * sum_{j>=i} grad_j * prod_{i<k<=j} x_k`` along ``dim``
    with an ``(n, n)`` table per slice: no division, so exact (and differentiable) whatever
    the zeros."""
    xm, gm = x.movedim(dim, -1), g.movedim(dim, -1)
    n = xm.shape[-1]
    k_gt_i = np.triu(np.ones((n, n), bool), 1)  # [i, k]: k > i
    rows = xm.unsqueeze(-2)  # [..., 1, k]
    after = (rows * host_const(k_gt_i, x) + host_const(~k_gt_i, x)).cumprod(-1)  # prod_{i<k<=j} x_k
    before = (rows * host_const(k_gt_i.T, x) + host_const(~k_gt_i.T, x)).prod(-1)  # prod_{k<i} x_k
    j_ge_i = host_const(np.triu(np.ones((n, n), bool)), x)
    return (before * (gm.unsqueeze(-2) * after * j_ge_i).sum(-1)).movedim(-1, dim)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """The cumulative product of ``input`` along ``dim``: ``out[i] = input[0] * ... * input[i]``.

    Integer and bool inputs accumulate in int64 (as PyTorch), unless ``dtype`` is given.

    Derivative: ``grad_input[i] = sum_{j >= i} grad_output[j] * prod_{k <= j, k != i} input[k]``;
    computed as ``rev_cumsum(grad_output * output) / input`` without zeros, and division-free
    where ``input`` has zeros, matching PyTorch's ``cumprod_backward`` (exact also at zeros
    and for double backward).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to accumulate along.
        dtype (dtype, optional): keyword-only; the result's dtype. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape.
    Raises:
        IndexError: when ``dim`` is out of range.
        TypeError: when ``dim`` is missing.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([2.0, 0.0, 3.0], requires_grad=True)
        >>> dyngrad.cumprod(x, 0)
        tensor([2., 0., 0.], grad_fn=<CumprodBackward0>)
        >>> dyngrad.cumprod(x, 0).sum().backward()
        >>> x.grad
        tensor([1., 8., 0.])
    """
    return Cumprod.apply(input, norm_dim(dim, input._data.ndim, "cumprod"), _dtype_arg(dtype))
