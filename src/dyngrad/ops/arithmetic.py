"""Arithmetic: ``+ - * / ** //  %``, negation, comparisons, logical ops, casts and copies.

Binary ops follow PyTorch's type promotion (:func:`dyngrad._backend.result_type`) and
broadcasting; their backward returns gradients of the broadcast shape and the engine sums
them down to each input's shape (``sum_to_size``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.function import Function, _fwd_state
from ..tensor import Tensor
from ._util import binary_operands, data_of, float_dtype, inplace, recording, wrap

__all__ = [
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide",
    "neg", "negative", "pow", "float_power", "floor_divide", "remainder", "fmod",
    "eq", "ne", "lt", "le", "gt", "ge", "equal", "allclose", "isclose",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_",
    "add_", "sub_", "mul_", "div_", "pow_", "neg_", "fill_", "copy_", "zero_",
    "to_dtype", "clone", "contiguous", "greater", "less", "greater_equal", "less_equal",
    "not_equal",
]
TENSOR_METHODS = set(__all__) - {"to_dtype"}


_INT_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


def _wrap_ints(a: Any, b: Any) -> tuple[Any, Any]:
    """PyTorch converts a Python int operand of an integer tensor's dtype with wraparound
    (``uint8_tensor < -1`` compares with 255, ``int8_tensor * 200`` multiplies by -56);
    NumPy would raise OverflowError. Ints beyond 64 bits are left alone (torch raises too)."""
    if type(b) is int and isinstance(a, Tensor):
        r = _INT_RANGE.get(a.data.dtype)
        if r is not None and not r[0] <= b <= r[1] and -(2**63) <= b < 2**64:
            b = int(np.array(b, dtype=np.uint64 if b >= 2**63 else np.int64).astype(a.data.dtype))
    elif type(a) is int and isinstance(b, Tensor):
        r = _INT_RANGE.get(b.data.dtype)
        if r is not None and not r[0] <= a <= r[1] and -(2**63) <= a < 2**64:
            a = int(np.array(a, dtype=np.uint64 if a >= 2**63 else np.int64).astype(b.data.dtype))
    return a, b


class Add(Function):
    """``out = a + alpha * b`` (broadcast). ``grad_a = grad``, ``grad_b = alpha * grad``."""

    _builtin = True
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, alpha: Any = 1) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        ctx.alpha = alpha
        out = np.add(ad, bd if alpha == 1 else np.multiply(bd, alpha))
        return wrap(out if out.dtype == rt else out.astype(rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = None
        if n[1]:
            gb = g if ctx.alpha == 1 else g * ctx.alpha
        return (g if n[0] else None), gb, None

    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode: ``t = ua + alpha * ub`` (None tangents are zero)."""
        if ub is not None and ctx.alpha != 1:
            ub = ub * ctx.alpha
        return ub if ua is None else (ua if ub is None else ua + ub)


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other`` with broadcasting and type promotion.

    Args:
        input, other: Tensors (``(*)``, broadcastable) or Python numbers.
        alpha: scalar multiplier of ``other``.
    Returns:
        Tensor of the broadcast shape and promoted dtype.
    """
    input, other = _wrap_ints(input, other)
    return Add.apply(input, other, alpha) if alpha != 1 else Add.apply(input, other)


class Sub(Function):
    """``out = a - alpha * b``. ``grad_a = grad``, ``grad_b = -alpha * grad``."""

    _builtin = True
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, alpha: Any = 1) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rt == np.bool_:
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead."
            )
        ctx.alpha = alpha
        out = np.subtract(ad, bd if alpha == 1 else np.multiply(bd, alpha))
        return wrap(out if out.dtype == rt else out.astype(rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = None
        if n[1]:
            gb = -g if ctx.alpha == 1 else g * (-ctx.alpha)
        return (g if n[0] else None), gb, None

    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any, *_: Any) -> Any:
        """Forward mode: ``t = ua - alpha * ub``."""
        if ub is not None:
            ub = -ub if ctx.alpha == 1 else ub * (-ctx.alpha)
        return ub if ua is None else (ua if ub is None else ua + ub)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` (broadcast, promoted). Bool - bool is a RuntimeError."""
    input, other = _wrap_ints(input, other)
    return Sub.apply(input, other, alpha) if alpha != 1 else Sub.apply(input, other)


subtract = sub


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``."""
    return sub(other, input * alpha if alpha != 1 else input)


class Mul(Function):
    """``out = a * b``. ``grad_a = grad * b``, ``grad_b = grad * a`` (product rule)."""

    _builtin = True
    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        n = ctx.needs_input_grad
        if True in n:
            at, bt = isinstance(a, Tensor), isinstance(b, Tensor)
            ctx.save_for_backward(a if n[1] and at else None, b if n[0] and bt else None)
            ctx.a = None if at else a
            ctx.b = None if bt else b
        out = np.multiply(ad, bd)
        return wrap(out if out.dtype == rt else out.astype(rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        n = ctx.needs_input_grad
        ga = (g * (b if b is not None else ctx.b)) if n[0] else None
        gb = (g * (a if a is not None else ctx.a)) if n[1] else None
        return ga, gb

    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any) -> Any:
        """Forward mode (product rule): ``t = ua * b + a * ub``."""
        a, b = ctx._fwd_inputs[:2]
        ta = None if ua is None else ua * b
        tb = None if ub is None else a * ub
        return tb if ta is None else (ta if tb is None else ta + tb)


def mul(input: Any, other: Any) -> Tensor:
    """Elementwise product with broadcasting and type promotion."""
    return Mul.apply(*_wrap_ints(input, other))


multiply = mul


class Div(Function):
    """``out = a / b`` (true division; integers give the default float dtype).
    ``grad_a = grad / b``, ``grad_b = -grad * a / b**2`` (quotient rule)."""

    _builtin = True
    _node_name = "DivBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, rounding_mode: str | None = None) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rounding_mode is None:
            rt = float_dtype(rt)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.true_divide(ad, bd)
        elif rounding_mode == "trunc":
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.trunc(np.true_divide(ad, bd)) if rt.kind == "f" else _int_div(ad, bd, "trunc")
        elif rounding_mode == "floor":
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.floor_divide(ad, bd) if rt.kind == "f" else _int_div(ad, bd, "floor")
        else:
            raise ValueError(
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
        return wrap(out if out.dtype == rt else out.astype(rt))

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
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError: integer division by zero")
    q = np.floor_divide(a, b)
    if mode == "trunc":
        r = np.remainder(a, b)
        q = np.where((r != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)), q + 1, q)
    return q


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other``. ``rounding_mode``: None (true division, float result), 'trunc'
    or 'floor' (result keeps the promoted dtype; zero gradient almost everywhere)."""
    if rounding_mode is None:
        return Div.apply(input, other)
    return Div.apply(*_wrap_ints(input, other), rounding_mode)


divide = div
true_divide = div


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input // other`` rounding toward minus infinity (PyTorch >= 1.13 semantics)."""
    return Div.apply(*_wrap_ints(input, other), "floor")


class Neg(Function):
    """``out = -a``; ``grad_a = -grad``."""

    _builtin = True
    _node_name = "NegBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        if a.data.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return wrap(np.negative(a.data))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return -g

    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Tensor:
        """Forward mode: ``t = -u``."""
        return -u


def neg(input: Tensor) -> Tensor:
    """Elementwise negation ``-input``."""
    return Neg.apply(input)


negative = neg


class Pow(Function):
    """``out = a ** b``.

    ``grad_a = grad * b * a**(b-1)`` (zero where ``b == 0``);
    ``grad_b = grad * out * log(a)`` (zero where ``a == 0`` and ``b >= 0``), the rules
    PyTorch's ``pow_backward_self``/``pow_backward_exponent`` use.
    """

    _builtin = True
    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rt.kind in "iu" and np.any(np.asarray(bd) < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.power(ad, bd)
        out = out if out.dtype == rt else out.astype(rt)
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


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    """``input ** exponent`` (either may be a Python number), broadcast and promoted.

    Raises:
        RuntimeError: integer tensors to negative integer powers.
    """
    return Pow.apply(input, exponent)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``pow`` computed in float64."""
    a = input.to(B.float64) if isinstance(input, Tensor) else float(input)
    e = exponent.to(B.float64) if isinstance(exponent, Tensor) else float(exponent)
    return Pow.apply(a, e)


class Remainder(Function):
    """``out = a - floor(a / b) * b`` (Python's sign convention; ``fmod`` truncates).
    ``grad_a = grad``, ``grad_b = -grad * floor(a / b)`` (``trunc`` for fmod)."""

    _builtin = True
    _node_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, trunc: bool = False) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if rt.kind in "iu" and np.any(np.asarray(bd) == 0):
            raise RuntimeError("ZeroDivisionError: integer remainder by zero")
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.fmod(ad, bd) if trunc else np.remainder(ad, bd)
            q = (np.trunc if trunc else np.floor)(np.true_divide(ad, bd))
        ctx.q = q
        return wrap(out if out.dtype == rt else out.astype(rt))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gb = -g * wrap(ctx.q.astype(g.data.dtype)) if n[1] else None
        return (g if n[0] else None), gb, None


def remainder(input: Any, other: Any) -> Tensor:
    """Python-style modulus ``input % other`` (result has the sign of ``other``)."""
    return Remainder.apply(*_wrap_ints(input, other))


def fmod(input: Any, other: Any) -> Tensor:
    """C-style remainder (result has the sign of ``input``)."""
    return Remainder.apply(*_wrap_ints(input, other), True)


# ----------------------------------------------------------------- comparisons (no grad)
def _compare(ufunc: Any, name: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        ad, bd, _ = binary_operands(*_wrap_ints(input, other))
        return Tensor._make(np.asarray(ufunc(ad, bd)))

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` comparison (broadcast); a bool tensor, never requiring grad."
    return op


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")


def logical_not(input: Tensor) -> Tensor:
    """Elementwise logical not; a bool tensor."""
    return Tensor._make(np.logical_not(data_of(input)))


def bitwise_not(input: Tensor) -> Tensor:
    """Bitwise not of an integer or bool tensor."""
    d = data_of(input)
    if d.dtype.kind == "f":
        raise TypeError("bitwise_not is only supported for integer and bool tensors")
    return Tensor._make(np.invert(d))


_TORCH_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _bitwise(ufunc: Any, name: str, kernel: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        ad, bd, rt = binary_operands(*_wrap_ints(input, other))
        if rt.kind not in "biu":
            tname = _TORCH_TYPE_NAMES.get(rt.name, rt.name)
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{tname}'")
        ad = ad if isinstance(ad, np.ndarray) and ad.dtype == rt else np.asarray(ad).astype(rt)
        bd = bd if isinstance(bd, np.ndarray) and bd.dtype == rt else np.asarray(bd).astype(rt)
        return Tensor._make(np.asarray(ufunc(ad, bd)))

    op.__name__ = name
    op.__doc__ = f"""Elementwise ``{name}`` of integer or bool tensors (broadcast, type-promoted; no grad).

    Args:
        input, other: integer/bool Tensors (``(*)``, broadcastable) or Python ints/bools.
    Returns:
        Tensor of the broadcast shape and promoted dtype (bool only when both are bool).
    Raises:
        NotImplementedError (a RuntimeError): when the promoted dtype is floating, as PyTorch.
    """
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "bitwise_xor")


def _shift(left: bool) -> Any:
    """Shift kernel with PyTorch's results for shifts outside ``[0, bits)``: a left shift
    gives 0, a right shift fills with the sign bit (0 or -1)."""

    def kernel(a: np.ndarray, s: np.ndarray) -> np.ndarray:  # both of the promoted dtype
        dt = a.dtype
        if dt == np.bool_:
            a, s = a.astype(np.uint8), s.astype(np.uint8)
        bits = a.dtype.itemsize * 8
        bad = (s < 0) | (s >= bits)
        safe = np.where(bad, 0, s).astype(a.dtype)
        if left:
            out = np.where(bad, 0, np.left_shift(a, safe))
        else:
            out = np.where(bad, np.where(a < 0, -1, 0), np.right_shift(a, safe))
        return out.astype(a.dtype)

    return kernel


bitwise_left_shift = _bitwise(_shift(True), "bitwise_left_shift", "lshift")
bitwise_right_shift = _bitwise(_shift(False), "bitwise_right_shift", "rshift")


def bitwise_and_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self &= other``; bumps the version; returns self."""
    return inplace(bitwise_and, self, other)


def bitwise_or_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self |= other``; bumps the version; returns self."""
    return inplace(bitwise_or, self, other)


def bitwise_xor_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self ^= other``; bumps the version; returns self."""
    return inplace(bitwise_xor, self, other)


def bitwise_left_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self <<= other``; bumps the version; returns self."""
    return inplace(bitwise_left_shift, self, other)


def bitwise_right_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place ``self >>= other``; bumps the version; returns self."""
    return inplace(bitwise_right_shift, self, other)


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and elements."""
    return input.shape == other.shape and bool(np.array_equal(input.data, other.data))


def isclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|``; a bool tensor."""
    return Tensor._make(np.isclose(data_of(input), data_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    """True when every element satisfies ``isclose``."""
    return bool(np.allclose(data_of(input), data_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


# ----------------------------------------------------------------- in-place forms
def _fast_inplace(self: Tensor, ufunc: Any, other: Any, name: str) -> Tensor | None:
    """Without recording, do the ufunc straight into ``self``'s memory."""
    if recording(self, other) or _fwd_state.level is not None:  # dual: tangents via inplace()
        return None
    other = _wrap_ints(self, other)[1]
    od = data_of(other)
    rt = B.result_type(self, other)
    if rt != self.data.dtype and not np.can_cast(rt, self.data.dtype, "same_kind"):
        raise RuntimeError(
            f"{name}: result type {B.from_np_dtype(rt).name} can't be cast to the desired output "
            f"type {self.dtype.name}"
        )
    if not self.data.flags.writeable:
        raise RuntimeError(f"{name}: the tensor's memory is read-only (an expanded view); clone() it first")
    ufunc(self.data, od, out=self.data, casting="unsafe")
    self._vc[0] += 1
    return self


def add_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place ``self += alpha * other``; bumps the version; returns self."""
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
    """In-place ``self /= other``; integer tensors refuse true division (the result is float)."""
    if rounding_mode is None and self.data.dtype.kind != "f":
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


class Fill(Function):
    """``out = value`` everywhere (same shape). ``grad_self = 0``,
    ``grad_value = sum(grad)`` when value is a 0-d tensor."""

    _builtin = True
    _node_name = "FillBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, value: Any) -> Tensor:
        v = value.data if isinstance(value, Tensor) else value
        return wrap(np.full(a.data.shape, v, dtype=a.data.dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        return (g * 0 if n[0] else None), (g.sum() if n[1] else None)


def fill_(self: Tensor, value: Any) -> Tensor:
    """Fill ``self`` with ``value`` (a number or a 0-d tensor) in place; returns self.

    Raises:
        RuntimeError: when ``value`` is a tensor with more than one element.
    """
    if isinstance(value, Tensor) and value.data.ndim:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.data.ndim} dimensions."
        )
    if not recording(self, value):
        if not self.data.flags.writeable:
            raise RuntimeError("fill_: the tensor's memory is read-only (an expanded view); clone() it first")
        self.data[...] = value.data if isinstance(value, Tensor) else value
        self._vc[0] += 1
        return self
    return inplace(Fill.apply, self, value)


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place; returns self."""
    return fill_(self, 0)


class Copy(Function):
    """``out = src`` broadcast to ``self``'s shape and cast to its dtype.
    ``grad_self = 0``, ``grad_src = grad`` (summed down to src's shape)."""

    _builtin = True
    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx: Any, a: Tensor, src: Any) -> Tensor:
        sd = data_of(src)
        try:
            out = np.broadcast_to(np.asarray(sd), a.data.shape).astype(a.data.dtype)
        except ValueError:
            raise RuntimeError(
                f"copy_: the size of src {list(np.shape(sd))} is not broadcastable to self "
                f"{list(a.data.shape)}"
            ) from None
        ctx.src_dtype = np.asarray(sd).dtype
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        return (g * 0 if n[0] else None), (g.to(ctx.src_dtype) if n[1] else None)


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` into ``self`` in place (broadcast, cast to ``self``'s dtype)."""
    return inplace(Copy.apply, self, src)


class ToDtype(Function):
    """``out = a`` cast to ``dtype``. ``grad_a = grad`` cast back to ``a``'s dtype."""

    _builtin = True
    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, dtype: np.dtype) -> Tensor:
        ctx.in_dtype = a.data.dtype
        return wrap(a.data.astype(dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.to(ctx.in_dtype), None


def to_dtype(input: Tensor, dtype: Any) -> Tensor:
    """Cast to ``dtype`` (a copy); differentiable between floating dtypes.

    Raises:
        RuntimeError: casting a tensor that requires grad to a non-floating dtype keeps no
            history (as PyTorch: the result simply does not require grad).
    """
    nd = B.to_np_dtype(dtype)
    if nd.kind != "f" or not (recording(input) or _fwd_state.level is not None):  # dual: tangent
        return Tensor._make(input.data.astype(nd))
    return ToDtype.apply(input, nd)


class Clone(Function):
    """``out = copy(a)``; ``grad_a = grad``."""

    _builtin = True
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return wrap(a.data.copy())

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return g


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory, differentiable (``grad_input = grad``)."""
    return Clone.apply(input)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """``input`` itself when C-contiguous, else a contiguous copy (differentiable)."""
    if input.data.flags.c_contiguous:
        return input
    return Clone.apply(input)
