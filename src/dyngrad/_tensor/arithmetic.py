"""Tensor methods: arithmetic, ``-x``, ``x + y``, ``x - y``, ``x * y``, ``x / y``, ``x // y``,
``x % y``, ``x ** y`` and their named forms (``x.add(y)``, ``x.mul(y)``, ...).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).

In-place forms (``x += y``, ``x.add_(y)``) are in inplace.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from typing_extensions import Self  # for type checkers only (typing.Self is 3.11+)

    from ..tensor import Tensor

__all__ = ["ArithmeticMethods"]


class ArithmeticMethods:
    """The arithmetic operators and named arithmetic methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- operators
    def __neg__(self) -> Tensor:
        return _core._ops.neg(self)

    def __pos__(self) -> Self:
        return self

    def __add__(self, other: Any) -> Tensor:
        return _core._ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        # ``2 + b`` records b as the node's first input, as PyTorch (addition commutes exactly)
        return _core._ops.add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _core._ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _core._ops.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return _core._ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        # ``2 * b``: b is ``grad_fn.next_functions[0]``, as PyTorch (IEEE products commute exactly)
        return _core._ops.mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _core._ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _core._ops.div(other, self)

    def __floordiv__(self, other: Any) -> Tensor:
        return _core._ops.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _core._ops.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return _core._ops.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return _core._ops.remainder(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return _core._ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _core._ops.pow(other, self)

    # ---- ops.arithmetic
    def add(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.add(self, *args, **kwargs)

    def div(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.div(self, *args, **kwargs)

    def divide(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.divide(self, *args, **kwargs)

    def float_power(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.float_power(self, *args, **kwargs)

    def floor_divide(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.floor_divide(self, *args, **kwargs)

    def fmod(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fmod(self, *args, **kwargs)

    def mul(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mul(self, *args, **kwargs)

    def multiply(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.multiply(self, *args, **kwargs)

    def neg(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.neg(self, *args, **kwargs)

    def negative(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.negative(self, *args, **kwargs)

    def pow(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.pow(self, *args, **kwargs)

    def remainder(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.remainder(self, *args, **kwargs)

    def rsub(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.rsub(self, *args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sub(self, *args, **kwargs)

    def subtract(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.subtract(self, *args, **kwargs)

    def true_divide(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.true_divide(self, *args, **kwargs)
