"""Tensor methods: comparisons (``x == y``, ``x < y``, ``isclose``, ``equal``), logical and
bitwise operations (``~x``, ``x & y``, ``x | y``, ``x ^ y``, ``x << n``) and the per-value
tests (``isnan``, ``isfinite``, ...). Their results do not require grad.

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).

Tensors compare value by value, so ``__hash__`` (by identity) is defined here, next to
``__eq__``: a class that defines ``__eq__`` alone gets ``__hash__ = None``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["ComparisonMethods"]


class ComparisonMethods:
    """Comparison, logical and bitwise methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()
    _data: np.ndarray  # a slot of Tensor (dyngrad/tensor.py)

    # ---- operators
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:  # PyTorch: ``t == None`` is False
            return False  # type: ignore[return-value]
        return _core._ops.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:
            return True  # type: ignore[return-value]
        return _core._ops.ne(self, other)

    def __hash__(self) -> int:
        return id(self)

    def __lt__(self, other: Any) -> Tensor:
        return _core._ops.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _core._ops.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _core._ops.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _core._ops.ge(self, other)

    def __invert__(self) -> Tensor:
        return _core._ops.logical_not(self) if self._data.dtype == np.bool_ else _core._ops.bitwise_not(self)

    def __and__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_and(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_and(other, self)

    def __or__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_or(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_or(other, self)

    def __xor__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_xor(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_xor(other, self)

    def __lshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_left_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_left_shift(other, self)

    def __rshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_right_shift(self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_right_shift(other, self)

    # ---- ops.comparison
    def allclose(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.allclose(self, *args, **kwargs)

    def bitwise_and(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_and(self, *args, **kwargs)

    def bitwise_left_shift(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_left_shift(self, *args, **kwargs)

    def bitwise_not(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_not(self, *args, **kwargs)

    def bitwise_or(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_or(self, *args, **kwargs)

    def bitwise_right_shift(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_right_shift(self, *args, **kwargs)

    def bitwise_xor(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_xor(self, *args, **kwargs)

    def eq(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.eq(self, *args, **kwargs)

    def equal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.equal(self, *args, **kwargs)

    def ge(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.ge(self, *args, **kwargs)

    def greater(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.greater(self, *args, **kwargs)

    def greater_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.greater_equal(self, *args, **kwargs)

    def gt(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.gt(self, *args, **kwargs)

    def isclose(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isclose(self, *args, **kwargs)

    def le(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.le(self, *args, **kwargs)

    def less(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.less(self, *args, **kwargs)

    def less_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.less_equal(self, *args, **kwargs)

    def logical_and(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logical_and(self, *args, **kwargs)

    def logical_not(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logical_not(self, *args, **kwargs)

    def logical_or(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logical_or(self, *args, **kwargs)

    def logical_xor(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logical_xor(self, *args, **kwargs)

    def lt(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lt(self, *args, **kwargs)

    def ne(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.ne(self, *args, **kwargs)

    def not_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.not_equal(self, *args, **kwargs)

    # ---- ops.rounding (tests of each value)
    def isfinite(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isfinite(self, *args, **kwargs)

    def isinf(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isinf(self, *args, **kwargs)

    def isnan(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isnan(self, *args, **kwargs)

    def isneginf(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isneginf(self, *args, **kwargs)

    def isposinf(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.isposinf(self, *args, **kwargs)
