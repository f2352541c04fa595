"""Arithmetic: ``+ - * / ** //  %``, negation and in-place forms (casts, fills and copies are in
:mod:`dyngrad.ops.copying`; comparisons,
logical and bitwise ops are in :mod:`dyngrad.ops.comparison`).

Binary ops follow PyTorch's type promotion (:func:`dyngrad._backend.result_type`) and
broadcasting; their backward returns gradients of the broadcast shape and the engine sums
them down to each input's shape (``sum_to_size``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import state as _ctx
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import pointwise_promoting, unary
from ._docs import inplace_doc
from ._util import (
    binary_operands,
    cast_to,
    check_no_partial_overlap,
    data_of,
    float_dtype,
    inplace,
    inplace_shape_error,
    recording,
    require_tensor,
    wrap,
)

__all__ = [
    "add",
    "sub",
    "subtract",
    "rsub",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "neg",
    "negative",
    "pow",
    "float_power",
    "floor_divide",
    "remainder",
    "fmod",
    "add_",
    "sub_",
    "mul_",
    "div_",
    "pow_",
    "neg_",
]
TENSOR_METHODS = set(__all__) - {"to_dtype"}


_INT_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


def _wrap_ints(a: Any, b: Any) -> tuple[Any, Any]:
    """PyTorch converts a Python int operand of an integer tensor's dtype with wraparound
    (``uint8_tensor < -1`` compares with 255, ``int8_tensor * 200`` multiplies by -56);
    NumPy would raise OverflowError. Ints beyond 64 bits are left alone (torch raises too)."""
    if type(b) is int and isinstance(a, Tensor):
        r = _INT_RANGE.get(a._data.dtype if type(a._data) is np.ndarray else B.np_dtype_of(a._data))
        if r is not None and not r[0] <= b <= r[1] and -(2**63) <= b < 2**64:
            b = int(np.array(b, dtype=np.uint64 if b >= 2**63 else np.int64).astype(B.np_dtype_of(a._data)))
    elif type(a) is int and isinstance(b, Tensor):
        r = _INT_RANGE.get(b._data.dtype if type(b._data) is np.ndarray else B.np_dtype_of(b._data))
        if r is not None and not r[0] <= a <= r[1] and -(2**63) <= a < 2**64:
            a = int(np.array(a, dtype=np.uint64 if a >= 2**63 else np.int64).astype(B.np_dtype_of(b._data)))
    return a, b


_PY_SCALARS = (bool, int, float)


def _module(ad: Any, bd: Any, rt: np.dtype) -> Any:
    """:mod:`numpy` for NumPy operands (one or two type checks), else whatever is not NumPy
    (the caller then asks :func:`~dyngrad._backend.std_operands`)."""
    if type(ad) is np.ndarray:
        if type(bd) is np.ndarray or type(bd) in _PY_SCALARS:
            return np
    elif type(bd) is np.ndarray and type(ad) in _PY_SCALARS:
        return np
    return None


def _check_alpha(a: Any, b: Any, alpha: Any) -> None:
    """PyTorch's checks of ``add``/``sub``'s ``alpha`` (an int alpha is always fine).

    Raises:
        RuntimeError: a float alpha with an integral (or bool) result; a bool alpha with a
            non-bool result.
    """
    kind = np.dtype(B.result_type(a, b)).kind
    if isinstance(alpha, (bool, np.bool_)):
        if kind != "b":
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, (float, np.floating)) and kind in "iub":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


class Add(Op):
    """``out = a + alpha * b`` (broadcast). ``grad_a = grad``, ``grad_b = alpha * grad``."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, alpha: Any = 1) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        ctx.alpha = alpha
        xp = _module(ad, bd, rt)
        if xp is not np:
            xp, ad, bd = B.std_operands(ad, bd, rt)
        out = xp.add(ad, bd if alpha == 1 else xp.multiply(bd, alpha))
        return wrap(out if out.dtype == rt else cast_to(out, rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = None
        if n[1]:
            gb = g if ctx.alpha == 1 else g * ctx.alpha
        return (g if n[0] else None), gb, None

    # hand-written: affine in its number operands and alpha (backward passes grad through as is), so not Linear
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode: ``t = ua + alpha * ub`` (None tangents are zero)."""
        if ub is not None and ctx.alpha != 1:
            ub = ub * ctx.alpha
        return ub if ua is None else (ua if ub is None else ua + ub)


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``, broadcast, with PyTorch's type promotion.

    Derivative: ``grad_input = grad_output``, ``grad_other = alpha * grad_output``, each summed
    over the dims it was broadcast along (source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``.
        alpha (number, optional): keyword-only multiplier of ``other``. Default: ``1``.
    Returns:
        Tensor: the broadcast shape; the promoted dtype of ``input`` and ``other`` (a Python
        number does not widen a tensor's dtype category: int tensor + 2.5 is float32).
    Raises:
        RuntimeError: when the shapes do not broadcast; a float ``alpha`` with an integral or bool
            result; a bool ``alpha`` with a non-bool result.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0], requires_grad=True)
        >>> dyngrad.add(a, b, alpha=2)
        tensor([7., 8.], grad_fn=<AddBackward0>)
        >>> dyngrad.add(a, b, alpha=2).sum().backward()
        >>> a.grad, b.grad
        (tensor([1., 1.]), tensor([4.]))
    """
    input, other = _wrap_ints(input, other)
    if alpha.__class__ is not int:
        _check_alpha(input, other, alpha)
    return Add.apply(input, other, alpha) if alpha != 1 else Add.apply(input, other)


class Sub(Op):
    """``out = a - alpha * b``. ``grad_a = grad``, ``grad_b = -alpha * grad``."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, alpha: Any = 1) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rt == np.bool_:
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead."
            )
        ctx.alpha = alpha
        xp = _module(ad, bd, rt)
        if xp is not np:
            xp, ad, bd = B.std_operands(ad, bd, rt)
        out = xp.subtract(ad, bd if alpha == 1 else xp.multiply(bd, alpha))
        return wrap(out if out.dtype == rt else cast_to(out, rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = None
        if n[1]:
            gb = -g if ctx.alpha == 1 else g * (-ctx.alpha)
        return (g if n[0] else None), gb, None

    # hand-written: affine in its number operands and alpha (backward passes grad through as is), so not Linear
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode: ``t = ua - alpha * ub``."""
        if ub is not None:
            ub = -ub if ctx.alpha == 1 else ub * (-ctx.alpha)
        return ub if ua is None else (ua if ub is None else ua + ub)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` (broadcast, promoted). Bool - bool is a RuntimeError.

    ``dyngrad.subtract`` is this function.

    Derivative: ``grad_input = grad_output``, ``grad_other = -alpha * grad_output``
    (derivatives.yaml ``sub.Tensor``), each summed to its operand's shape.

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``; promoted with it
            (PyTorch's type promotion: an int tensor minus a float gives the default float
            dtype).
        alpha (number): keyword only, the multiplier of ``other``. Default: ``1``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: when both operands are bool, or the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0, 4.0], requires_grad=True)
        >>> y = dyngrad.sub(a, b, alpha=2)
        >>> y.detach()
        tensor([-5., -6.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([1., 1.]), tensor([-2., -2.]))
    """
    input, other = _wrap_ints(input, other)
    if alpha.__class__ is not int:
        _check_alpha(input, other, alpha)
    return Sub.apply(input, other, alpha) if alpha != 1 else Sub.apply(input, other)


subtract = sub


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``sub`` with the operands swapped).

    Derivative: ``grad_input = -alpha * grad_output``, ``grad_other = grad_output``
    (derivatives.yaml ``rsub``).

    Args:
        input (Tensor): ``(*)``.
        other (Tensor or number): broadcastable with ``input``; promoted with it.
        alpha (number): keyword only, the multiplier of ``input``. Default: ``1``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: when both operands are bool, or the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> dyngrad.rsub(dyngrad.tensor([1, 2]), 5)
        tensor([4, 3])
    """
    require_tensor("rsub", input)
    return sub(other, input * alpha if alpha != 1 else input)


class Mul(Op):
    """``out = a * b``. ``grad_a = grad * b``, ``grad_b = grad * a`` (product rule)."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        if (isinstance(a, Tensor) and isinstance(b, Tensor) and type(a._data) is np.ndarray
                and type(b._data) is np.ndarray and B.kind(a._data) == "f" and B.kind(b._data) == "b"):
            # a float tensor times a bool mask (ReLU's backward): NumPy's loop casts the mask
            # chunk by chunk (exact), no full-size float copy of it
            ad, bd, rt = a._data, b._data, a._data.dtype
        else:
            ad, bd, rt = binary_operands(a, b)
        n = ctx.needs_input_grad
        if True in n:
            at, bt = isinstance(a, Tensor), isinstance(b, Tensor)
            # other before self, as PyTorch saves them (the order pack hooks see them in)
            ctx.save_for_backward(b if n[0] and bt else None, a if n[1] and at else None)
            ctx.a = None if at else a
            ctx.b = None if bt else b
        xp = _module(ad, bd, rt)
        if xp is not np:
            xp, ad, bd = B.std_operands(ad, bd, rt)
        out = xp.multiply(ad, bd)
        return wrap(out if out.dtype == rt else cast_to(out, rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        b, a = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = (g * (b if b is not None else ctx.b)) if n[0] else None
        gb = (g * (a if a is not None else ctx.a)) if n[1] else None
        return ga, gb

    # hand-written: the hot path: saves only the operand each gradient needs and skips the base's call
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any) -> Any:
        """Forward mode (product rule): ``t = ua * b + a * ub``."""
        a, b = ctx._fwd_inputs[:2]
        ta = None if ua is None else ua * b
        tb = None if ub is None else a * ub
        return tb if ta is None else (ta if tb is None else ta + tb)


def mul(input: Any, other: Any) -> Tensor:
    """Elementwise product ``input * other`` with broadcasting and type promotion.

    ``dyngrad.multiply`` is this function.

    Derivative: ``grad_input = grad_output * other``, ``grad_other = grad_output * input``
    (the product rule; derivatives.yaml ``mul.Tensor``), each summed to its operand's shape.

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``; promoted with it (an int
            tensor times a float gives the default float dtype).
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0, 4.0], requires_grad=True)
        >>> y = dyngrad.mul(a, b)
        >>> y.detach()
        tensor([3., 8.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([3., 4.]), tensor([1., 2.]))
    """
    return Mul.apply(*_wrap_ints(input, other))


multiply = mul


class Div(Op):
    """``out = a / b`` (true division; integers give the default float dtype).
    ``grad_a = grad / b``, ``grad_b = -grad * a / b**2`` (quotient rule)."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, rounding_mode: str | None = None) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rounding_mode is None:
            rt = float_dtype(rt)
            if type(ad) is not np.ndarray or type(bd) is not np.ndarray:
                xp, ad, bd = B.std_operands(ad, bd, rt)  # (an Array API library divides floats only)
            else:
                xp = np
            with np.errstate(divide="ignore", invalid="ignore"):
                out = xp.divide(ad, bd)
        elif rounding_mode == "trunc":
            xp, ad, bd = B.std_operands(ad, bd, rt)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = xp.trunc(xp.divide(ad, bd)) if rt.kind == "f" else _int_div(ad, bd, "trunc")
        elif rounding_mode == "floor":
            xp, ad, bd = B.std_operands(ad, bd, rt)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = xp.floor_divide(ad, bd) if rt.kind == "f" else _int_div(ad, bd, "floor")
        else:
            raise RuntimeError(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
            )
        ctx.rounding = rounding_mode
        n = ctx.needs_input_grad
        if True in n and rounding_mode is None:
            ctx.save_for_backward(
                a if n[1] and isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None
            )
            ctx.a = None if isinstance(a, Tensor) else a
            ctx.b = None if isinstance(b, Tensor) else b
        return wrap(out if out.dtype == rt else cast_to(out, rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        if ctx.rounding is not None:
            n = ctx.needs_input_grad
            return (g * 0 if n[0] else None), (g * 0 if n[1] else None), None
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        bb = b if b is not None else ctx.b
        ga = g / bb if n[0] else None
        gb = -g * (a if a is not None else ctx.a) / (b * b) if n[1] else None
        return ga, gb, None

    # hand-written: quotient rule sharing one division; the rounding modes have a zero derivative
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode (quotient rule): ``t = (ua - out * ub) / b``; zero when rounded."""
        a, b = ctx._fwd_inputs[:2]
        if ctx.rounding is not None:
            return (ua if ua is not None else ub) * 0
        t = None if ua is None else ua
        if ub is not None:
            tb = -(a / b) * ub
            t = tb if t is None else t + tb
        return t / b


def _int_div(a: Any, b: Any, mode: str) -> np.ndarray:
    xp = B.array_module(a, b)
    if xp is np:
        if np.any(B.asarray_any(b) == 0):
            raise RuntimeError("ZeroDivisionError: integer division by zero")
    elif b == 0 if isinstance(b, int) else bool(xp.any(b == 0)):  # (a host read of one bool, as PyTorch's check)
        raise RuntimeError("ZeroDivisionError: integer division by zero")
    q = xp.floor_divide(a, b)
    if mode == "trunc":
        r = xp.remainder(a, b)
        if xp is np:
            q = np.where((r != 0) & ((B.asarray_any(a) < 0) != (B.asarray_any(b) < 0)), q + 1, q)
        else:
            q = xp.where((r != 0) & ((a < 0) != (b < 0)), q + 1, q)
    return q


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other``, broadcast; ``rounding_mode`` picks true, truncating or floor division.

    ``divide`` and ``true_divide`` are the same function. ``rounding_mode=None`` is true
    division: integer inputs give the default float dtype, ``x / 0`` is ``inf``/``nan``.
    ``'trunc'`` rounds toward zero and ``'floor'`` toward minus infinity, keeping the promoted
    dtype (integer division by zero raises).

    Derivative: ``grad_input = grad_output / other``, ``grad_other = -grad_output * input /
    other**2`` (summed over broadcast dims; source: PyTorch's derivatives.yaml); 0 with a
    rounding mode (the rounded quotient is piecewise constant).

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``.
        rounding_mode (str, optional): keyword-only: ``None``, ``'trunc'`` or ``'floor'``.
            Default: ``None``.
    Returns:
        Tensor: the broadcast shape; floating for true division, else the promoted dtype.
    Raises:
        RuntimeError: for another ``rounding_mode``, shapes that do not broadcast, or an integer
            division by zero with a rounding mode.

    Example:
        >>> import dyngrad
        >>> dyngrad.div(dyngrad.tensor([5, -5]), 2)
        tensor([ 2.5000, -2.5000])
        >>> dyngrad.div(dyngrad.tensor([5, -5]), 2, rounding_mode="floor")
        tensor([ 2, -3])
        >>> a = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([4.0], requires_grad=True)
        >>> dyngrad.div(a, b).sum().backward()
        >>> a.grad, b.grad
        (tensor([0.2500, 0.2500]), tensor([-0.1875]))
    """
    if rounding_mode is None:
        return Div.apply(input, other)
    return Div.apply(*_wrap_ints(input, other), rounding_mode)


divide = div
true_divide = div


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input // other``: the quotient rounded toward minus infinity (PyTorch >= 1.13), broadcast.

    The same as ``div(input, other, rounding_mode='floor')``; the promoted dtype is kept.

    Derivative: ``grad_input = grad_other = 0`` (the result is piecewise constant). PyTorch
    raises "derivative for aten::floor_divide is not implemented" instead; dyngrad returns the
    zero gradient, as PyTorch does for ``div(..., rounding_mode='floor')``.

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: on an integer division by zero, or shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.floor_divide(dyngrad.tensor([5, -5]), 2)
        tensor([ 2, -3])
        >>> dyngrad.floor_divide(dyngrad.tensor([5.0, -5.0]), 2.5)
        tensor([ 2., -2.])
    """
    return Div.apply(*_wrap_ints(input, other), "floor")


class Neg(Linear):
    """``out = -a``; ``grad_a = -grad``."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        if B.kind(a._data) == "b":
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        d = a._data
        return wrap((np if type(d) is np.ndarray else B.array_module(d)).negative(d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return -g


def neg(input: Tensor) -> Tensor:
    """Elementwise negation ``-input``.

    ``dyngrad.negative`` is this function.

    Derivative: ``grad_input = -grad_output`` (derivatives.yaml ``neg``).

    Args:
        input (Tensor): ``(*)``, any dtype but bool.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        RuntimeError: when ``input`` is bool (use ``~`` or ``logical_not`` to invert a mask).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> y = dyngrad.neg(x)
        >>> y.detach()
        tensor([-1.,  2.])
        >>> y.sum().backward()
        >>> x.grad
        tensor([-1., -1.])
    """
    return Neg.apply(input)


negative = neg


class Pow(Op):
    """``out = a ** b``.

    ``grad_a = grad * b * a**(b-1)`` (zero where ``b == 0``);
    ``grad_b = grad * out * log(a)`` (zero where ``a == 0`` and ``b >= 0``), the rules
    PyTorch's ``pow_backward_self``/``pow_backward_exponent`` use.
    """

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if type(ad) is np.ndarray and type(bd) is np.ndarray:
            xp: Any = np
        else:
            xp, ad, bd = B.std_operands(ad, bd, rt)
        if rt.kind in "iu" and (np.any(B.asarray_any(bd) < 0) if xp is np else
                                (bd < 0 if isinstance(bd, int) else bool(xp.any(bd < 0)))):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = xp.pow(ad, bd)
        out = cast_to(out, rt)
        n = ctx.needs_input_grad
        if True in n:
            ctx.a_scalar = None if isinstance(a, Tensor) else a
            ctx.b_scalar = None if isinstance(b, Tensor) else b
            res = wrap(out)
            ctx.save_for_backward(
                a if isinstance(a, Tensor) else None,
                b if isinstance(b, Tensor) else None,
                res if n[1] else None,
            )
            return res
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        a, b, out = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = gb = None
        if n[0]:
            if b is None:
                e = ctx.b_scalar
                ga = g * 0.0 if e == 0 else g * (e * a ** (e - 1))
            else:
                ga = g * b * a ** (b - 1)
                ga = ga.masked_fill(b == 0, 0.0)
        if n[1]:
            base = a if a is not None else ctx.a_scalar
            if a is None:
                if base != 0:
                    gb = g * out * float(np.log(base))
                else:  # no log(0) computed (it would warn): 0 where b >= 0, -inf (as PyTorch) else
                    gb = (g * 0).masked_fill(b < 0, float("-inf"))
            else:
                # mask log(0) = -inf before multiplying (0 * -inf would warn and give nan)
                gb = g * out * a.log().masked_fill((a == 0) & (b >= 0), 0.0)
        return ga, gb

    # hand-written: backward keeps PyTorch's masks (b == 0, log 0); the jvp applies it per tangent
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any) -> Any:
        """Forward mode: ``t = ua * b * a**(b-1) + ub * out * log(a)``; the Jacobian is
        diagonal (elementwise), so each term is backward's rule (zero masks included) applied to that tangent."""
        ts = [Pow.backward(ctx, u)[i] for i, u in enumerate((ua, ub)) if u is not None]
        return sum(ts[1:], ts[0])


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    """``input ** exponent`` (either may be a Python number), broadcast and promoted.

    Derivative: ``grad_input = grad_output * exponent * input ** (exponent - 1)`` (0 where
    ``exponent == 0``), ``grad_exponent = grad_output * output * log(input)`` (0 where
    ``input == 0`` and ``exponent >= 0``): PyTorch's ``pow_backward_self`` and
    ``pow_backward_exponent``.

    Args:
        input (Tensor or number): ``(*)``, the base.
        exponent (Tensor or number): broadcastable with ``input``; promoted with it.
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: integer tensors to negative integer powers, or shapes that do not
            broadcast.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([2.0, 4.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0, 0.5], requires_grad=True)
        >>> y = dyngrad.pow(a, b)
        >>> y.detach()
        tensor([8., 2.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([12.0000,  0.2500]), tensor([5.5452, 2.7726]))
    """
    return Pow.apply(input, exponent)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 (both are converted to float64 first).

    Derivative: ``grad_input = grad_output * exponent * input ** (exponent - 1)``,
    ``grad_exponent = grad_output * input ** exponent * log(input)`` (as :func:`pow`; source:
    PyTorch's derivatives.yaml), in float64; the gradient reaches ``input`` through the cast.

    Args:
        input (Tensor or number): ``(*)``, any dtype.
        exponent (Tensor or number): broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape, float64 (``nan`` for a negative base to a non-integer
        power).
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> dyngrad.float_power(dyngrad.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=dyngrad.float64)
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> dyngrad.float_power(x, 2).sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """
    a = input.to(B.float64) if isinstance(input, Tensor) else float(input)
    e = exponent.to(B.float64) if isinstance(exponent, Tensor) else float(exponent)
    return Pow.apply(a, e)


class Remainder(Op):
    """``out = a - floor(a / b) * b`` (Python's sign convention; ``fmod`` truncates).
    ``grad_a = grad``, ``grad_b = -grad * floor(a / b)`` (``trunc`` for fmod)."""

    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, trunc: bool = False) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if type(ad) is np.ndarray and type(bd) is np.ndarray:
            xp: Any = np
        else:
            xp, ad, bd = B.std_operands(ad, bd, rt)
        if rt.kind in "iu" and (np.any(B.asarray_any(bd) == 0) if xp is np else
                                (bd == 0 if isinstance(bd, int) else bool(xp.any(bd == 0)))):
            raise RuntimeError("ZeroDivisionError: integer remainder by zero")
        with np.errstate(divide="ignore", invalid="ignore"):
            if xp is np:
                out = np.fmod(ad, bd) if trunc else np.remainder(ad, bd)
                q = (np.trunc if trunc else np.floor)(np.true_divide(ad, bd))
            else:  # (no fmod in the standard: |a| mod |b| is exact, then a's sign)
                out = _std_fmod(xp, ad, bd, rt) if trunc else xp.remainder(ad, bd)
                fa, fb = (B.std_operand(v, float_dtype(rt), ad if hasattr(ad, "shape") else bd) for v in (ad, bd))
                q = (xp.trunc if trunc else xp.floor)(xp.divide(fa, fb))
        ctx.q = q
        return wrap(out if out.dtype == rt else cast_to(out, rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = -g * wrap(B.astype(ctx.q, B.np_dtype_of(g._data))) if n[1] else None
        return (g if n[0] else None), gb, None

    # hand-written: backward keeps PyTorch's masks (b == 0, log 0); the jvp applies it per tangent
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode: ``t = ua - ub * q`` with ``q`` the rounded quotient."""
        ts = [Remainder.backward(ctx, u)[i] for i, u in enumerate((ua, ub)) if u is not None]
        return sum(ts[1:], ts[0])


def _std_fmod(xp: Any, a: Any, b: Any, rt: np.dtype) -> Any:
    """C's ``fmod`` with the Array API standard's functions: ``|a| mod |b|`` (exact for
    nonnegative operands: no rounding happens in a remainder) with ``a``'s sign."""
    r = xp.remainder(xp.abs(a) if hasattr(a, "shape") else abs(a), xp.abs(b) if hasattr(b, "shape") else abs(b))
    if rt.kind == "f":
        return xp.copysign(r, a) if hasattr(a, "shape") else xp.copysign(r, float(a))
    return xp.where(a < 0, -r, r)


def remainder(input: Any, other: Any) -> Tensor:
    """Python-style modulus ``input % other`` (result has the sign of ``other``; ``fmod``
    keeps the sign of ``input``).

    Derivative: ``grad_input = grad_output``, ``grad_other = -grad_output *
    floor(input / other)`` (derivatives.yaml ``remainder.Tensor``).

    Args:
        input (Tensor or number): ``(*)``, the dividend.
        other (Tensor or number): broadcastable with ``input``, the divisor; promoted with it.
    Returns:
        Tensor: the broadcast shape, the promoted dtype (``nan`` for a floating divisor 0).
    Raises:
        RuntimeError: an integer remainder by zero, or shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([5.0, -5.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0, 3.0], requires_grad=True)
        >>> y = dyngrad.remainder(a, b)
        >>> y.detach()
        tensor([2., 1.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([1., 1.]), tensor([-1.,  2.]))
    """
    return Remainder.apply(*_wrap_ints(input, other))


def fmod(input: Any, other: Any) -> Tensor:
    """C-style remainder ``input - trunc(input / other) * other``: the sign of ``input``, broadcast.

    Compare :func:`remainder`, whose result has the sign of ``other``. A float ``x fmod 0`` is
    ``nan``.

    Derivative: ``grad_input = grad_output``, ``grad_other = -grad_output * trunc(input /
    other)`` (source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): the divisor, broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: on an integer remainder by zero, or shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.fmod(dyngrad.tensor([-3, 3]), 2)
        tensor([-1,  1])
        >>> dyngrad.remainder(dyngrad.tensor([-3, 3]), 2)
        tensor([1, 1])
    """
    require_tensor("fmod", input)
    return Remainder.apply(*_wrap_ints(input, other), True)


# ----------------------------------------------------------------- in-place forms
def _fast_inplace(self: Tensor, ufunc: Any, other: Any, name: str) -> Tensor | None:
    """Without recording, do the ufunc straight into ``self``'s memory."""
    if recording(self, other) or _ctx.interpreters:  # a transform (forward mode's tangents): via inplace()
        return None
    if isinstance(other, Tensor):
        check_no_partial_overlap(self, (other,), {})
    other = _wrap_ints(self, other)[1]
    od = data_of(other)
    rt = B.result_type(self, other)
    if rt != self._data.dtype and not np.can_cast(rt, self._data.dtype, "same_kind"):
        raise RuntimeError(
            f"{name}: result type {B.from_np_dtype(rt).name} can't be cast to the desired output "
            f"type {self.dtype.name}"
        )
    if not B.writeable(self._data):
        raise RuntimeError(f"{name}: the tensor's memory is read-only (an expanded view); clone() it first")
    try:
        ufunc(self._data, od, out=self._data, casting="unsafe")
    except ValueError:  # (no cost unless raised) shapes that do not broadcast into self
        raise RuntimeError(f"{name}: " + inplace_shape_error(self._data.shape, np.shape(od))) from None
    self._vc[0] += 1
    return self


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self += alpha * other``: bumps ``self``'s version and returns ``self``.

    Derivative: as :func:`add`'s, ``grad_self = grad_output``, ``grad_other = alpha * grad_output``
    (summed over broadcast dims).

    Args:
        self (Tensor): ``(*)``, written in place.
        other (Tensor or number): broadcastable to ``self``'s shape.
        alpha (number, optional): keyword-only multiplier of ``other``. Default: ``1``.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (an int tensor plus a
            float), ``other`` would broadcast ``self`` to a larger shape, ``self`` is read-only (an
            expanded view), the checks of ``alpha`` fail (see :func:`add`), or ``self`` is a leaf
            that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0])
        >>> x.add_(dyngrad.tensor([1.0, 2.0]), alpha=3) is x
        True
        >>> x
        tensor([4., 8.])
    """
    if alpha == 1:
        r = _fast_inplace(self, np.add, other, "add_")
        if r is not None:
            return r
    return inplace(add, self, other, alpha=alpha)


def sub_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self -= alpha * other``; returns self."""
    if alpha == 1:
        r = _fast_inplace(self, np.subtract, other, "sub_")
        if r is not None:
            return r
    return inplace(sub, self, other, alpha=alpha)


def mul_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self *= other``; returns self."""
    r = _fast_inplace(self, np.multiply, other, "mul_")
    return r if r is not None else inplace(mul, self, other)


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """In-place ``self /= other`` (``rounding_mode`` as :func:`div`); returns ``self``.

    Derivative: as :func:`div`'s, ``grad_self = grad_output / other``, ``grad_other =
    -grad_output * self / other**2`` (0 with a rounding mode).

    Args:
        self (Tensor): ``(*)``, written in place.
        other (Tensor or number): broadcastable to ``self``'s shape.
        rounding_mode (str, optional): keyword-only: ``None``, ``'trunc'`` or ``'floor'``.
            Default: ``None``.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: true division of an integer or bool ``self`` (the float result cannot be
            written back); another ``rounding_mode``; ``other`` would broadcast ``self`` larger; an
            integer division by zero; ``self`` is a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([5.0, 4.0])
        >>> x.div_(2) is x
        True
        >>> x
        tensor([2.5000, 2.0000])
        >>> dyngrad.tensor([5, -5]).div_(2, rounding_mode="trunc")
        tensor([ 2, -2])
    """
    if rounding_mode is None and B.kind(self._data) != "f":
        raise RuntimeError(
            f"div_: result type Float can't be cast to the desired output type {self.dtype.name}"
        )
    return inplace(div, self, other, rounding_mode=rounding_mode)


def pow_(self: Tensor, exponent: Any) -> Tensor:
    """In-place ``self **= exponent``; returns self."""
    return inplace(pow, self, exponent)


def neg_(self: Tensor) -> Tensor:
    """In-place negation; returns self."""
    return inplace(neg, self)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
_SHAPE_RAISES = "        RuntimeError: when ``other`` does not broadcast to ``input``'s shape.\n"
sub_.__doc__ = inplace_doc(
    "sub", "[1.0, 2.0]", "tensor([-2., -1.])", call=", 1, alpha=3", raises=_SHAPE_RAISES,
    args="        other (Tensor or number): broadcastable to ``input``'s shape.\n"
         "        alpha (number): keyword only, the multiplier of ``other``. Default: ``1``.\n")
mul_.__doc__ = inplace_doc(
    "mul", "[1.0, 2.0]", "tensor([2.5000, 5.0000])", call=", 2.5", raises=_SHAPE_RAISES,
    args="        other (Tensor or number): broadcastable to ``input``'s shape.\n")
pow_.__doc__ = inplace_doc(
    "pow", "[2, 3]", "tensor([4, 9])", call=", 2", raises=_SHAPE_RAISES,
    args="        exponent (Tensor or number): broadcastable to ``input``'s shape.\n")
neg_.__doc__ = inplace_doc("neg", "[1, -2]", "tensor([-1,  2])")
