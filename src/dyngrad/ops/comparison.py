"""Comparisons, logical and bitwise ops: no gradient (their results are bool or integer).

Operands follow PyTorch's type promotion and broadcasting; a Python int outside an integer
tensor's range wraps into its dtype, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..transforms.batching import any_batched
from ..autograd.grad_mode import state as _ctx
from ..tensor import Tensor
from ._batching import batched_elementwise
from ._util import binary_operands, data_of, inplace
from .arithmetic import _wrap_ints

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "equal",
    "allclose",
    "isclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_and_",
    "bitwise_or_",
    "bitwise_xor_",
    "bitwise_left_shift_",
    "bitwise_right_shift_",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "not_equal",
]
TENSOR_METHODS = set(__all__)


# ----------------------------------------------------------------- comparisons (no grad)
def _compare(ufunc: Any, name: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        if _ctx.interpreters and any_batched((input, other)):  # inside vmap: on the batched values
            return batched_elementwise(op, input, other)
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
    if _ctx.interpreters and any_batched((input,)):
        return batched_elementwise(logical_not, input)
    return Tensor._make(np.logical_not(data_of(input)))


def bitwise_not(input: Tensor) -> Tensor:
    """Bitwise not of an integer or bool tensor."""
    if _ctx.interpreters and any_batched((input,)):
        return batched_elementwise(bitwise_not, input)
    d = data_of(input)
    if d.dtype.kind == "f":
        raise TypeError("bitwise_not is only supported for integer and bool tensors")
    return Tensor._make(np.invert(d))


_TORCH_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _bitwise(ufunc: Any, name: str, kernel: str) -> Any:
    def op(input: Any, other: Any) -> Tensor:
        if _ctx.interpreters and any_batched((input, other)):
            return batched_elementwise(op, input, other)
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
    if _ctx.interpreters and any_batched((input, other)):
        return batched_elementwise(isclose, input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return Tensor._make(np.isclose(data_of(input), data_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    """True when every element satisfies ``isclose``."""
    return bool(np.allclose(data_of(input), data_of(other), rtol=rtol, atol=atol, equal_nan=equal_nan))
