"""Fused neural-network Functions with their own numerically stable forward and a backward
written in dyngrad ops (so every one of them is differentiable twice).

The public wrappers live in :mod:`dyngrad.nn.functional`; ``softmax`` and ``log_softmax``
are also ``dyngrad.softmax``/``Tensor.softmax`` as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Elementwise, Op
from ._batching import dims_at, pointwise_promoting
from ._batching_reduce import along_dim
from ._util import binary_operands, float_data, is_wrapper, norm_dim, require_floating, wrap
from .elementwise import sigmoid

__all__ = ["softmax", "log_softmax"]
TENSOR_METHODS = {"softmax", "log_softmax"}


def _cast_for(input: Tensor, dtype: Any) -> np.ndarray:
    d = float_data(input)
    if dtype is not None:
        d = B.astype(d, B.to_np_dtype(dtype), copy=False)
    return d


class Softmax(Op):
    """``out = exp(x - max) / sum(exp(x - max))`` along ``dim``; shapes ``(*) -> (*)``.

    ``grad_x = out * (grad - sum(grad * out, dim))`` (the Jacobian of softmax is
    ``diag(s) - s s^T``)."""

    vmap = staticmethod(along_dim)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, dtype: Any = None) -> Tensor:
        d = _cast_for(x, dtype)
        xp = B.xp_for(d)  # numpy itself for NumPy, CuPy and Dask arrays
        if d.ndim == 0:
            out = wrap(B.ones_like(d))
        else:
            with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
                e = xp.exp(d - xp.max(d, axis=dim, keepdims=True))
            out = wrap(e / xp.sum(e, axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (out,) = ctx.saved_tensors
        if out.ndim == 0:
            return g * 0, None, None
        return out * (g - (g * out).sum(ctx.dim, keepdim=True)), None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = out * (u - sum(u * out, dim))`` (the Jacobian
        ``diag(s) - s s^T`` is symmetric, so this is backward's rule applied to ``u``)."""
        return Softmax.backward(ctx, u)[0]


class LogSoftmax(Op):
    """``out = x - max - log(sum(exp(x - max)))`` along ``dim``; ``(*) -> (*)``.

    ``grad_x = grad - exp(out) * sum(grad, dim)``."""

    vmap = staticmethod(along_dim)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, dtype: Any = None) -> Tensor:
        d = _cast_for(x, dtype)
        xp = B.xp_for(d)  # numpy itself for NumPy, CuPy and Dask arrays
        if d.ndim == 0:
            out = wrap(B.zeros_like(d))
        else:
            with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
                z = d - xp.max(d, axis=dim, keepdims=True)
            with np.errstate(invalid="ignore"):
                out = wrap(z - xp.log(xp.sum(xp.exp(z), axis=dim, keepdims=True)))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (out,) = ctx.saved_tensors
        if out.ndim == 0:
            return g * 0, None, None
        return g - out.exp() * g.sum(ctx.dim, keepdim=True), None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = u - sum(u * exp(out), dim)`` (Jacobian ``I - 1 s^T``)."""
        (out,) = ctx.saved_tensors
        if out.ndim == 0:
            return u * 0
        return u - (u * out.exp()).sum(ctx.dim, keepdim=True)


def _softmax_dim(input: Tensor, dim: Any, op: str) -> int:
    if dim is None:  # PyTorch's legacy implicit choice, with its warning
        import warnings

        warnings.warn(
            f"Implicit dimension choice for {op} has been deprecated. Change the call to include dim=X as an argument.",
            stacklevel=3,
        )
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return norm_dim(dim, input.ndim, op)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """Softmax along ``dim``: ``exp(x_i) / sum_j exp(x_j)``, computed stably.

    Args:
        input: ``(*)`` floating tensor (an integer or bool one needs ``dtype``, as in PyTorch).
        dim: the dimension that sums to 1.
        dtype: cast the input to this dtype first.
    Returns:
        ``(*)``, same shape.
    Raises:
        IndexError: ``dim`` out of range.
        NotImplementedError: an integer or bool input without ``dtype`` (as PyTorch).

    Derivative: ``grad_input = output * (grad_output - (grad_output * output).sum(dim, keepdim=True))``.

    Example:
        >>> import dyngrad
        >>> dyngrad.softmax(dyngrad.tensor([[1.0, 1.0], [0.0, 1000.0]]), dim=1)
        tensor([[0.5000, 0.5000],
                [0.0000, 1.0000]])
    """
    if dtype is None:
        require_floating("softmax", input)
    return Softmax.apply(input, _softmax_dim(input, dim, "softmax"), dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``log(softmax(input, dim))`` computed as ``x - max - log(sum(exp(x - max)))``, without
    overflow or ``log(0)``. ``grad_input = grad - exp(out) * sum(grad, dim)``.

    Args:
        input: ``(*)``.
        dim: the dimension the probabilities sum over (``None`` is deprecated, as PyTorch:
            it picks one with a warning).
        dtype: cast ``input`` to this dtype first.

    Returns:
        Tensor of ``input``'s shape.
    Raises:
        IndexError: for a ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> y = dyngrad.tensor([[0.0, 0.0]]).log_softmax(dim=1)
        >>> [round(v, 4) for v in y[0].tolist()]
        [-0.6931, -0.6931]
    """
    if dtype is None:
        require_floating("log_softmax", input)
    return LogSoftmax.apply(input, _softmax_dim(input, dim, "log_softmax"), dtype)


def _nll_mask(d: np.ndarray, tt: np.ndarray, keep: np.ndarray, scale: Any, cdim: int) -> np.ndarray:
    """``-scale`` at each target class along ``cdim`` (zeros elsewhere): nll_loss's gradient."""
    m = np.zeros(np.shape(d), dtype=d.dtype)
    np.put_along_axis(m, np.expand_dims(tt, cdim), np.expand_dims(np.where(keep, -scale, 0), cdim), axis=cdim)
    return m


class MseLoss(Op):
    """Mean squared error ``l = (input - target)^2`` over the broadcast elements, reduced
    (``'none'``, ``'sum'``, ``'mean'``): one node, ``MseLossBackward0``, as in PyTorch,
    saving ``input`` and ``target`` (``grad_fn._saved_self`` / ``_saved_target``).

    ``grad_input = 2 (input - target) grad`` (divided by the element count for 'mean'),
    ``grad_target = -grad_input`` (PyTorch's ``mse_loss_backward``, derivatives.yaml); both
    are built from differentiable ops, so double backward works.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, target: Tensor, reduction: str) -> Tensor:
        xd, td, rt = binary_operands(x, target)
        xp = B.xp_for(xd, td)  # numpy itself for NumPy, CuPy and Dask arrays
        d = xp.subtract(xd, td)
        d = d if d.dtype == rt else B.astype(d, rt)
        sq = d * d
        if reduction == "none":
            out = sq
        elif reduction == "sum":
            out = B.asum(sq)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):  # an empty mean is nan, silently
                out = B.asum(sq) / sq.size if sq.size else B.like(np.asarray(np.nan, dtype=rt), sq)
        ctx.reduction, ctx.count = reduction, d.size
        if True in ctx.needs_input_grad:
            ctx.save_for_backward(x, target)
        return wrap(B.asarray_any(out, dtype=rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, t = ctx.saved_tensors
        scale = 2.0 if ctx.reduction != "mean" else (2.0 / ctx.count if ctx.count else math.nan)
        gx = (x - t) * (g * scale)
        n = ctx.needs_input_grad
        return (gx if n[0] else None), (-gx if n[1] else None), None

    @staticmethod
    def jvp(ctx: Any, ux: Any, ut: Any, *_: Any) -> Any:
        """Forward mode: ``t = 2 (input - target) (u_input - u_target)``, reduced as the loss."""
        x, t = ctx._fwd_inputs[:2]
        u = ux if ut is None else (-ut if ux is None else ux - ut)
        e = (x - t) * u * 2.0
        if ctx.reduction == "none":
            return e
        return e.sum() if ctx.reduction == "sum" else e.mean()

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Any, target: Any, reduction: str) -> Any:
        """Batching rule: :func:`_pair_loss_vmap` (one 'none' call on the batch, then each
        example reduced over its own dims)."""
        return _pair_loss_vmap(MseLoss, info, in_dims, x, target, reduction)


def _pair_loss_vmap(op: Any, info: Any, in_dims: tuple, x: Any, target: Any, reduction: str) -> Any:
    """Batching rule of an elementwise loss of ``(input, target)`` reduced by ``reduction``:
    the batch moves to dim 0 of both operands (an unbatched one gets a size-1 dim there),
    each padded to the same logical rank so that the examples broadcast as the unbatched
    op's operands do; one ``'none'`` call, then each example is reduced over its own dims."""
    def front(v: Any, d: Any) -> Any:
        return v.movedim(d, 0) if d is not None else v.unsqueeze(0)

    xs, ts = front(x, in_dims[0]), front(target, in_dims[1])
    r = max(xs.ndim, ts.ndim)
    xs = xs.reshape(xs.shape[0], *([1] * (r - xs.ndim)), *xs.shape[1:])
    ts = ts.reshape(ts.shape[0], *([1] * (r - ts.ndim)), *ts.shape[1:])
    losses = op.apply(xs, ts, "none")
    if losses.shape[0] != info.batch_size:
        losses = losses.expand(info.batch_size, *losses.shape[1:])
    if reduction == "none":
        return losses, 0
    dims = tuple(range(1, losses.ndim))
    if not dims:
        return losses, 0
    return (losses.sum(dims) if reduction == "sum" else losses.mean(dims)), 0


class BinaryCrossEntropyWithLogits(Op):
    """Binary cross entropy of logits without weights: ``l = (1 - t) x + softplus(-x)``
    (``= -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))``, computed stably), reduced:
    one node, ``BinaryCrossEntropyWithLogitsBackward0``, as in PyTorch.

    ``grad_input = (sigmoid(x) - t) grad``, ``grad_target = -x grad`` (divided by the element
    count for 'mean'; PyTorch's ``binary_cross_entropy_with_logits_backward`` and
    ``..._target_backward`` without weights), built from differentiable ops.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, target: Tensor, reduction: str) -> Tensor:
        xd, td, rt = binary_operands(x, target)
        xp = B.xp_for(xd, td)  # numpy itself for NumPy, CuPy and Dask arrays
        with np.errstate(over="ignore"):
            sp = xp.maximum(-xd, 0) + xp.log1p(xp.exp(-xp.abs(xd)))  # softplus(-x)
            loss = (1 - td) * xd + sp
        loss = loss if loss.dtype == rt else B.astype(loss, rt)
        if reduction == "none":
            out = loss
        elif reduction == "sum":
            out = B.asum(loss)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = B.asum(loss) / loss.size if loss.size else B.like(np.asarray(np.nan, dtype=rt), loss)
        ctx.reduction, ctx.count = reduction, loss.size
        if True in ctx.needs_input_grad:
            ctx.save_for_backward(x, target)
        return wrap(B.asarray_any(out, dtype=rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, t = ctx.saved_tensors
        if ctx.reduction == "mean":
            g = g * (1.0 / ctx.count if ctx.count else math.nan)
        n = ctx.needs_input_grad
        gx = (sigmoid(x) - t) * g if n[0] else None
        gt = -x * g if n[1] else None
        return gx, gt, None

    @staticmethod
    def jvp(ctx: Any, ux: Any, ut: Any, *_: Any) -> Any:
        """Forward mode: ``t = (sigmoid(x) - t) u_input - x u_target``, reduced as the loss."""
        x, t = ctx._fwd_inputs[:2]
        e = None if ux is None else (sigmoid(x) - t) * ux
        if ut is not None:
            e = -x * ut if e is None else e - x * ut
        if ctx.reduction == "none":
            return e
        return e.sum() if ctx.reduction == "sum" else e.mean()

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Any, target: Any, reduction: str) -> Any:
        """Batching rule: :func:`_pair_loss_vmap`."""
        return _pair_loss_vmap(BinaryCrossEntropyWithLogits, info, in_dims, x, target, reduction)


class NllLoss(Op):
    """Negative log likelihood of class indices.

    ``input (N, C)``, ``(C)`` or ``(N, C, d1, ...)``; ``target (N)``, ``()`` or
    ``(N, d1, ...)`` integer class indices. Per element ``l = -w[t] * input[n, t]`` (0 where
    ``t == ignore_index``); 'mean' divides the sum by ``sum(w[t])`` over kept elements.

    The loss is linear in ``input``: ``grad_input = grad * M`` with the constant
    ``M[n, t] = -w[t] / denom`` (``grad`` unsqueezed along the class dim for 'none').
    ``grad_weight`` is not computed (PyTorch does not differentiate it either).
    """

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, target: Tensor, weight: Any, ignore_index: int, reduction: str
    ) -> Tensor:
        d = x._data
        t = target._data
        cdim = 0 if d.ndim == 1 else 1
        C = d.shape[cdim]
        if type(d) is not np.ndarray and not B.native(d):
            out, m = _nll_xp(d, t, weight, ignore_index, reduction, cdim, C)
            ctx.cdim = cdim
            ctx.none = reduction == "none"
            ctx.save_for_backward(wrap(m))
            return wrap(out)
        keep = t != ignore_index
        tt = np.where(keep, t, 0)
        if keep.any():
            bad = tt[keep]
            bad = bad[(bad < 0) | (bad >= C)]
            if bad.size:
                raise IndexError(f"nll_loss: Target {int(bad.flat[0])} is out of bounds (C = {C}).")
        w = weight._data.astype(d.dtype) if weight is not None else np.ones(C, d.dtype)
        wt = np.where(keep, w[tt], 0).astype(d.dtype)
        picked = np.take_along_axis(d, np.expand_dims(tt, cdim), axis=cdim).squeeze(cdim)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            losses = -wt * picked
        scale = wt
        if reduction == "none":
            out = losses
        elif reduction == "sum":
            out = losses.sum()
        else:
            denom = wt.sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                out = losses.sum() / denom
                # as PyTorch: ignored elements get no gradient even when denom == 0 (loss nan)
                scale = np.where(keep, wt / denom, 0)
        if type(d) is np.ndarray:
            m = _nll_mask(d, tt, keep, scale, cdim)
        else:  # Dask: put_along_axis writes in place (into a computed copy there): one lazy task
            m = B.lazy_kernel(_nll_mask, d.shape, d.dtype, d, tt, keep, scale, cdim)
        ctx.cdim = cdim
        ctx.none = reduction == "none"
        ctx.save_for_backward(wrap(m.astype(d.dtype, copy=False)))
        return wrap(B.asarray_any(out, dtype=d.dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        if ctx.needs_input_grad[2]:
            raise RuntimeError(
                "nll_loss/cross_entropy: the derivative for 'weight' is not implemented (as in "
                "PyTorch); pass a weight that does not require grad (weight.detach())"
            )
        (m,) = ctx.saved_tensors
        if ctx.none and m.ndim > 1:
            g = g.unsqueeze(ctx.cdim)
        return g * m, None, None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u * M, class dim)`` ('none') or ``sum(u * M)``: the loss
        is linear in ``input`` with the constant ``M`` backward uses."""
        (m,) = ctx.saved_tensors
        return (u * m).sum(ctx.cdim) if ctx.none else (u * m).sum()

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Any, target: Any, weight: Any, ignore_index: int, reduction: str) -> Any:
        """Batching rule: the batch becomes one more sample dim of one loss call. ``(C)``
        examples form an ``(B, C)`` input (target ``(B)``); ``(N, C, d...)`` examples get
        the batch as a spatial dim at 2 (target: at 1), so the class dim stays dim 1. The
        'none' losses are then reduced per example: 'sum' sums them, 'mean' multiplies
        the sum by ``1 / sum(w[t])`` over the example's kept targets (a constant; an
        example with none kept gives nan and no gradient, as the unbatched op).
        Batched class weights run as a loop."""
        if in_dims[2] is not None:
            return NotImplemented
        nb = info.batch_size
        lnd = x.ndim - (in_dims[0] is not None)
        xpos, tpos = (0, 0) if lnd == 1 else (2, 1)

        def place(t: Any, d: Any, pos: int) -> Any:
            if d is not None:
                return t.movedim(d, pos)
            shape = list(t.shape)
            return t.unsqueeze(pos).expand(*shape[:pos], nb, *shape[pos:])

        x, target = place(x, in_dims[0], xpos), place(target, in_dims[1], tpos)
        losses = NllLoss.apply(x, target, weight, ignore_index, "none")
        if reduction == "none":
            return losses, tpos
        rest = tuple(i for i in range(losses.ndim) if i != tpos)
        s = losses.sum(rest) if rest else losses
        if reduction == "sum":
            return s, 0

        if is_wrapper(target) or is_wrapper(weight):
            return NotImplemented  # targets batched by an outer vmap: values unreadable here
        t = target._data
        keep = t != ignore_index
        if type(t) is not np.ndarray and not B.native(t):
            xp = B.namespace(t)
            w = weight._data if weight is not None else xp.ones(x.shape[1 if x.ndim > 1 else 0], dtype=xp.float64)
            tt = xp.where(keep, t, 0)
            denom = xp.sum(xp.where(keep, xp.reshape(xp.take(w, xp.reshape(tt, (-1,))), tt.shape), 0), axis=rest)
        else:
            xp = np
            w = weight._data if weight is not None else np.ones(x.shape[1 if x.ndim > 1 else 0])
            denom = np.where(keep, w[np.where(keep, t, 0)], 0).sum(axis=rest)
        dt = B.np_dtype_of(s._data)
        empty = denom == 0
        with np.errstate(divide="ignore"):
            r = xp.where(empty, 0, 1 / xp.where(empty, 1, denom))
        # skip the ops that change nothing (one target per example, no class weights: r == 1)
        out = s if bool(xp.all(r == 1)) else s * wrap(B.astype(r, dt))
        return (out + wrap(B.astype(xp.where(empty, np.nan, 0), dt)) if bool(xp.any(empty)) else out), 0


def _nll_xp(d: Any, t: Any, weight: Any, ignore_index: int, reduction: str, cdim: int, C: int) -> tuple:
    """(loss, gradient mask) of :class:`NllLoss`'s forward with the standard's functions (an
    Array API array): the class-``t`` entries picked with ``take_along_axis``, the mask of
    ``-scale`` at each target class with ``where`` of a one-hot comparison."""
    xp = B.namespace(d, t)
    if isinstance(t, np.ndarray):  # a 0-d NumPy target joins as a constant (namespace())
        t = B.like(t, d)
    keep = t != ignore_index
    tt = xp.where(keep, t, 0)
    bad = keep & ((tt < 0) | (tt >= C))
    if xp.any(bad):  # (the error path reads the offending target on the host, for the message)
        first = int(B.to_host(tt)[B.to_host(bad)].flat[0])
        raise IndexError(f"nll_loss: Target {first} is out of bounds (C = {C}).")
    w = B.astype(weight._data, d.dtype) if weight is not None else xp.ones(C, dtype=d.dtype)
    wt = xp.where(keep, xp.reshape(xp.take(w, xp.reshape(tt, (-1,))), tt.shape), 0)
    picked = xp.squeeze(xp.take_along_axis(d, xp.expand_dims(tt, axis=cdim), axis=cdim), axis=cdim)
    with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
        losses = -wt * picked
    scale = wt
    if reduction == "none":
        out = losses
    elif reduction == "sum":
        out = xp.sum(losses)
    else:
        denom = xp.sum(wt)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = xp.sum(losses) / denom
            # as PyTorch: ignored elements get no gradient even when denom == 0 (loss nan)
            scale = xp.where(keep, wt / denom, 0)
    cls = xp.reshape(xp.arange(C, dtype=tt.dtype), (C,) + (1,) * (d.ndim - 1 - cdim))
    m = xp.where(cls == xp.expand_dims(tt, axis=cdim), xp.expand_dims(xp.where(keep, -scale, 0), axis=cdim),
                 xp.zeros((), dtype=d.dtype))
    return out, B.astype(m, d.dtype, copy=False)


class _LogSigmoid(Elementwise):
    """``out = log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|)))``; ``grad_x = grad *
    sigmoid(-x)``."""

    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        xp = B.xp_for(d)  # numpy itself for NumPy, CuPy and Dask arrays
        ctx.save_for_backward(x)
        return wrap(-(xp.maximum(-d, 0) + xp.log1p(xp.exp(-xp.abs(d)))))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return sigmoid(-x)


def log_sigmoid(x: Tensor) -> Tensor:
    """Stable ``log(sigmoid(x))`` (``nn.functional.logsigmoid``)."""
    return _LogSigmoid.apply(x)


class SmoothL1(Op):
    """Elementwise smooth-L1 of ``d = input - target``: ``0.5 d^2 / beta`` where
    ``|d| < beta``, else ``|d| - 0.5 beta``; ``(*) -> (*)``.

    ``grad_input = grad * clamp(d / beta, -1, 1)`` and ``grad_target = -grad_input``."""

    _node_name = "SmoothL1LossBackward0"
    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, t: Tensor, beta: float) -> Tensor:
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            d = x._data - t._data
        xp = B.xp_for(d)  # numpy itself for NumPy, CuPy and Dask arrays
        ad = xp.abs(d)
        ctx.beta = beta
        ctx.save_for_backward(x, t)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(B.astype(xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta), d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, t = ctx.saved_tensors
        gd = g * ((x - t) / ctx.beta).clamp(-1, 1)
        return gd, -gd, None

    # hand-written: elementwise, but backward also handles the reduction; the jvp applies it per tangent
    @staticmethod
    def jvp(ctx: Any, ux: Any, ut: Any, *_: Any) -> Any:
        """Forward mode: ``t = (ux - ut) * clamp((x - t) / beta, -1, 1)`` (diagonal Jacobian: backward's rule applied to each tangent)."""
        ts = [SmoothL1.backward(ctx, u)[i] for i, u in enumerate((ux, ut)) if u is not None]
        return sum(ts[1:], ts[0])


class BinaryCrossEntropy(Op):
    """``l = -w (t log(x) + (1 - t) log(1 - x))`` with each log clamped to ``>= -100``.

    ``grad_x = grad * w (x - t) / max(x (1 - x), 1e-12)`` and
    ``grad_t = grad * w (log(1 - x) - log(x))`` (PyTorch's formulas, derivatives.yaml)."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, t: Tensor) -> Tensor:
        d, td = x._data, t._data
        xp = B.xp_for(d, td)  # numpy itself for NumPy, CuPy and Dask arrays
        if d.size and (xp.any(d < 0) or xp.any(d > 1) or xp.any(xp.isnan(d))):
            raise RuntimeError("binary_cross_entropy: all elements of input should be between 0 and 1")
        with np.errstate(divide="ignore"):
            lx = xp.maximum(xp.log(d), -100)
            l1x = xp.maximum(xp.log1p(-d), -100)
        ctx.save_for_backward(x, t)
        return wrap(B.astype(-(td * lx + (1 - td) * l1x), d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, t = ctx.saved_tensors
        gx = gt = None
        if ctx.needs_input_grad[0]:
            gx = g * (x - t) / (x * (1 - x)).clamp(min=1e-12)
        if ctx.needs_input_grad[1]:
            gt = g * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return gx, gt

    # hand-written: elementwise, but backward also handles the reduction; the jvp applies it per tangent
    @staticmethod
    def jvp(ctx: Any, ux: Any, ut: Any, *_: Any) -> Any:
        """Forward mode: ``t = ux w (x - t) / max(x (1 - x), 1e-12) + ut w (log(1 - x) - log(x))`` (diagonal Jacobian: backward's rule applied to each tangent)."""
        ts = [BinaryCrossEntropy.backward(ctx, u)[i] for i, u in enumerate((ux, ut)) if u is not None]
        return sum(ts[1:], ts[0])


class NormalizeStats(Op):
    """``xhat = (x - mean) / sqrt(var + eps)`` with mean and biased var over ``dims``;
    ``(*) -> (*)``. The core of layer_norm, batch_norm (training) and group_norm.

    ``grad_x = rstd * (grad - mean(grad) - xhat * mean(grad * xhat))`` (means over
    ``dims``); backward recomputes ``rstd`` and ``xhat`` from the saved ``x`` with dyngrad
    ops so that it is itself differentiable (Ioffe & Szegedy 2015, sec. 3)."""

    _node_name = "NativeLayerNormBackward0"
    vmap = dims_at(1)  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple, eps: float) -> Tensor:
        d = float_data(x)
        xp = B.xp_for(d)  # numpy itself for NumPy, CuPy and Dask arrays
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            mu = d.mean(axis=dims, keepdims=True) if xp is np else xp.mean(d, axis=dims, keepdims=True)
            xc = d - mu
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            var = xp.mean(xc * xc, axis=dims, keepdims=True)
        ctx.dims = dims
        ctx.eps = eps
        ctx.save_for_backward(x)
        return wrap(B.astype(xc / xp.sqrt(var + eps), d.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        dims = ctx.dims
        xc = x - x.mean(dims, keepdim=True)
        rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps) ** -0.5
        xhat = xc * rstd
        gx = rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))
        return gx, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = rstd (u - mean(u) - xhat mean(u xhat))``: the Jacobian is
        symmetric, so this is backward's rule applied to ``u``."""
        return NormalizeStats.backward(ctx, u)[0]


def normalize_stats(x: Tensor, dims: tuple, eps: float) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` over ``dims`` (biased variance)."""
    return NormalizeStats.apply(x, tuple(dims), float(eps))
