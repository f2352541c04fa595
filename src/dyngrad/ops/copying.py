"""Fills, copies and casts: ``fill_``, ``zero_``, ``copy_``, ``to(dtype)``, ``clone``,
``contiguous``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import no_grad
from ..autograd.grad_mode import state as _ctx
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import front, logical_ndim, pad_to, unary
from ._util import data_of, inplace, recording, wrap

__all__ = [
    "fill_",
    "copy_",
    "zero_",
    "to_dtype",
    "clone",
    "contiguous",
]
TENSOR_METHODS = set(__all__) - {"to_dtype"}


class Fill(Op):
    """``out = value`` everywhere (same shape). ``grad_self = 0``,
    ``grad_value = sum(grad)`` when value is a 0-d tensor."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Any) -> Tensor:
        v = value._data if isinstance(value, Tensor) else value
        d = a._data
        if type(d) is np.ndarray or B.native(d):
            return wrap(np.full(d.shape, v, dtype=d.dtype))
        xp = B.namespace(d)  # an Array API array: full of a number, or the 0-d value broadcast
        nd = B.np_dtype_of(d)
        if isinstance(v, (bool, int, float, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0):
            with np.errstate(all="ignore"):
                return wrap(xp.full(d.shape, np.asarray(v).astype(nd).item(), dtype=d.dtype))
        return wrap(xp.broadcast_to(B.astype(v, nd, copy=False), d.shape))

    @staticmethod
    def vmap(info: Any, in_dims: tuple, a: Tensor, value: Any) -> tuple:
        """Batching rule: a batched ``a`` with a shared value fills as is; a batched 0-d
        ``value`` (one per example) is copied into the batch-first target with
        :class:`Copy` (``grad_value`` = each example's own sum)."""
        da, dv = in_dims
        if dv is None:
            out = Fill.apply(a, value)
            return out, da
        return Copy.apply(_batched_target(a, da, info.batch_size), pad_to(front(value, dv), logical_ndim(a, da))), 0

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        return (g * 0 if n[0] else None), (g.sum() if n[1] else None)

    # hand-written: affine in a number value (a constant carries no tangent), so not Linear
    @staticmethod
    def jvp(ctx: Any, ua: Any, uv: Any = None) -> Any:
        """Forward mode: ``t = uv`` broadcast (0 without a value tangent)."""
        return ua * 0 if uv is None else uv


def fill_(self: Tensor, value: Any) -> Tensor:
    """Fill ``self`` with ``value`` in place (cast to ``self``'s dtype); bumps the version, returns ``self``.

    A float value truncates toward zero into an integer tensor; an int that does not fit raises,
    except that a negative int wraps into ``uint8`` (as PyTorch).

    Derivative: ``grad_self = 0`` (every element is overwritten); a 0-d tensor ``value`` gets
    ``grad_value = grad_output.sum()``.

    Args:
        self (Tensor): ``(*)``, written in place.
        value (number or Tensor): a number or a 0-d tensor.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: when ``value`` is a tensor with dims, an int does not fit ``self``'s dtype,
            ``self`` is read-only (an expanded view), or ``self`` is a leaf that requires grad.
        ValueError: when ``value`` is not a number (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, dtype=dyngrad.int64)
        >>> dyngrad.fill_(x, 2.7) is x
        True
        >>> x
        tensor([2, 2])
        >>> v = dyngrad.tensor(2.0, requires_grad=True)
        >>> dyngrad.zeros(3).fill_(v).sum().backward()
        >>> v.grad
        tensor(3.)
    """
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
        )
    if type(value) is int and B.kind(self._data) in "iu":
        value = B.int_fill_value(value, self._data.dtype)
    if not recording(self, value) and not _ctx.interpreters:  # a transform (forward mode's tangents) goes via inplace()
        if not B.writeable(self._data):
            raise RuntimeError("fill_: the tensor's memory is read-only (an expanded view); clone() it first")
        self._data[...] = value._data if isinstance(value, Tensor) else value
        self._vc[0] += 1
        return self
    return inplace(Fill.apply, self, value)


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place; returns self.

    Derivative: ``grad_self = 0`` (the old values are gone; derivatives.yaml ``zero_``).

    Args:
        self (Tensor): ``(*)``, any dtype, overwritten.
    Returns:
        Tensor: ``self`` itself.
    Raises:
        RuntimeError: when ``self`` is a leaf that requires grad (outside ``no_grad``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, 2)
        >>> dyngrad.zero_(x) is x
        True
        >>> x
        tensor([[0., 0.],
                [0., 0.]])
    """
    return fill_(self, 0)


class Copy(Op):
    """``out = src`` broadcast to ``self``'s shape and cast to its dtype.
    ``grad_self = 0``, ``grad_src = grad`` (summed down to src's shape)."""

    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx: Any, a: Tensor, src: Any) -> Tensor:
        sd = data_of(src)
        try:
            if B.native(a._data):
                out = np.broadcast_to(B.asarray_any(sd), a._data.shape).astype(a._data.dtype)
            else:  # an Array API array (a Python number or a 0-d NumPy src joins it as a constant)
                if isinstance(sd, (bool, int, float, np.generic, np.ndarray)):
                    sd = B.like(np.asarray(sd), a._data)
                out = B.astype(B.broadcast_to(sd, a._data.shape), B.np_dtype_of(a._data))
        except ValueError:
            raise RuntimeError(
                f"copy_: the size of src {list(np.shape(sd))} is not broadcastable to self "
                f"{list(a._data.shape)}"
            ) from None
        ctx.src_dtype = B.np_dtype_of(B.asarray_any(sd))  # (a NumPy dtype: .to() takes it)
        return wrap(out)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, a: Tensor, src: Any) -> Any:
        """Batching rule: batch dims to the front, ``src`` padded to ``a``'s per-example rank
        (right-aligned broadcasting), an unbatched ``a`` expanded over the batch. A ``src`` of
        higher per-example rank than ``a`` runs as a loop (so the error is per example)."""
        da, ds = in_dims
        if logical_ndim(src, ds) > logical_ndim(a, da):
            return NotImplemented
        target = _batched_target(a, da, info.batch_size)
        if ds is not None:
            src = pad_to(front(src, ds), target.ndim - 1)
        return Copy.apply(target, src), 0

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        return (g * 0 if n[0] else None), (g.to(ctx.src_dtype) if n[1] else None)

    # hand-written: affine in a number value (a constant carries no tangent), so not Linear
    @staticmethod
    def jvp(ctx: Any, ua: Any, us: Any = None) -> Any:
        """Forward mode: ``t = us`` broadcast and cast (0 without a src tangent)."""
        return ua * 0 if us is None else us


def _batched_target(a: Tensor, d: Any, n: int) -> Tensor:
    """``a`` batch-first; an unbatched ``a`` expanded to ``(n, *a.shape)`` (only its shape
    and dtype matter to Fill/Copy)."""
    if d is not None:
        return front(a, d)
    return a.unsqueeze(0).expand(n, *a.shape)


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values into ``self`` in place (broadcast to ``self``'s shape, cast to its dtype).

    Returns ``self`` with its version bumped; ``self`` keeps its dtype (a float ``src`` truncates
    toward zero into an integer ``self``). ``non_blocking`` is accepted and ignored (one
    device). dyngrad also takes a number or a nested list as ``src`` (PyTorch requires a
    Tensor).

    Derivative: ``grad_self = 0`` (overwritten); ``grad_src = grad_output`` summed to ``src``'s
    shape and cast back to ``src``'s dtype.

    Args:
        self (Tensor): ``(*)``, written in place.
        src (Tensor or number): broadcastable to ``self``'s shape.
        non_blocking (bool, optional): ignored. Default: ``False``.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: when ``src`` does not broadcast to ``self``'s shape, or ``self`` is a leaf
            that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, 2)
        >>> dyngrad.copy_(x, dyngrad.tensor([3, 4])) is x
        True
        >>> x
        tensor([[3., 4.],
                [3., 4.]])
    """
    return inplace(Copy.apply, self, src)


class ToDtype(Linear):
    """``out = a`` cast to ``dtype``. ``grad_a = grad`` cast back to ``a``'s dtype."""

    _node_name = "ToCopyBackward0"
    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: np.dtype) -> Tensor:
        ctx.in_dtype = a._data.dtype if type(a._data) is np.ndarray else B.np_dtype_of(a._data)  # (a NumPy dtype: .to() takes it)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(B.astype(a._data, dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.to(ctx.in_dtype), None


def to_dtype(input: Tensor, dtype: Any) -> Tensor:
    """Cast to ``dtype`` (a copy); differentiable between floating dtypes.

    What ``Tensor.to(dtype)`` does; dyngrad's name (not PyTorch's). Floating to integer
    truncates toward zero, as PyTorch.

    Derivative: ``grad_input = grad_output.to(input.dtype)`` between floating dtypes; a cast
    to a non-floating dtype keeps no history (the result does not require grad, as PyTorch).

    Args:
        input (Tensor): ``(*)``.
        dtype (dtype): the target dtype.
    Returns:
        Tensor: ``(*)``, ``dtype``, a new tensor.
    Raises:
        TypeError: when ``dtype`` is not a dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.to_dtype(dyngrad.tensor([1.5, -2.5]), dyngrad.int64)
        tensor([ 1, -2])
        >>> x = dyngrad.tensor([1.0], requires_grad=True)
        >>> y = dyngrad.to_dtype(x, dyngrad.float64)
        >>> y.backward(dyngrad.tensor([2.0], dtype=dyngrad.float64))
        >>> x.grad
        tensor([2.])
    """
    nd = B.to_np_dtype(dtype)
    if nd.kind != "f" and input._is_wrapper:
        with no_grad():  # a transform's wrapper (vmap): its values go through ToDtype's rule
            return ToDtype.apply(input, nd)
    if nd.kind != "f" or not (recording(input) or _ctx.interpreters):  # forward mode: a tangent
        return Tensor._make(B.astype(input._data, nd))
    return ToDtype.apply(input, nd)


class Clone(Linear):
    """``out = copy(a)``; ``grad_a = grad``."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        d = a._data
        return wrap(d.copy() if type(d) is np.ndarray else B.copy(d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return g


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy of ``input`` with its own memory (writes to it leave ``input`` alone).

    Derivative: ``grad_input = grad_output`` (source: PyTorch's derivatives.yaml ``clone``).

    Args:
        input (Tensor): ``(*)``.
        memory_format (optional): keyword-only; accepted for compatibility (the copy is always
            C-contiguous). Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        AttributeError: when ``input`` is not a Tensor.
        Nothing else: ``memory_format`` is accepted and ignored, whatever its value
            (PyTorch: TypeError for one that is not a ``memory_format``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = dyngrad.clone(x)
        >>> y
        tensor([1., 2.], grad_fn=<CloneBackward0>)
        >>> (y * 3).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """
    return Clone.apply(input)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """``input`` itself when its memory is C-contiguous, else a C-contiguous copy.

    (PyTorch has only the method ``Tensor.contiguous``; ``dyngrad.contiguous`` is the same
    function.)

    Derivative: ``grad_input = grad_output`` (the copy is a :func:`clone`).

    Args:
        input (Tensor): ``(*)``.
        memory_format (optional): accepted for compatibility. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input`` or a copy of it.
    Raises:
        AttributeError: when ``input`` is not a Tensor.
        Nothing else: ``memory_format`` is accepted and ignored, whatever its value
            (PyTorch: TypeError for one that is not a ``memory_format``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, 3)
        >>> dyngrad.contiguous(x) is x
        True
        >>> y = dyngrad.contiguous(x.t())
        >>> y.is_contiguous(), y.shape
        (True, dyngrad.Size([3, 2]))
    """
    if B.c_contiguous(input._data):
        return input
    return Clone.apply(input)
