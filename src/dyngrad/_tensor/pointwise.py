"""Tensor methods: math applied value by value (``abs``, ``exp``, ``log``, ``sin``, ``tanh``,
``sigmoid``, ``clamp``, rounding, special functions) and the pointwise functions of two or
three tensors (``maximum``, ``atan2``, ``lerp``, ``addcmul``, ...).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).

In-place forms (``x.exp_()``) are in inplace.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["PointwiseMethods"]


class PointwiseMethods:
    """Pointwise math methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- operators
    def __abs__(self) -> Tensor:
        return _core._ops.abs(self)

    # ---- ops.elementwise
    def abs(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.abs(self, *args, **kwargs)

    def absolute(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.absolute(self, *args, **kwargs)

    def clamp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clamp(self, *args, **kwargs)

    def clamp_max(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clamp_max(self, *args, **kwargs)

    def clamp_min(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clamp_min(self, *args, **kwargs)

    def clip(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clip(self, *args, **kwargs)

    def cos(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cos(self, *args, **kwargs)

    def exp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.exp(self, *args, **kwargs)

    def log(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log(self, *args, **kwargs)

    def relu(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.relu(self, *args, **kwargs)

    def sigmoid(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sigmoid(self, *args, **kwargs)

    def sin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sin(self, *args, **kwargs)

    def sqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sqrt(self, *args, **kwargs)

    def tanh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tanh(self, *args, **kwargs)

    # ---- ops.trig
    def acos(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.acos(self, *args, **kwargs)

    def acosh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.acosh(self, *args, **kwargs)

    def arccos(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arccos(self, *args, **kwargs)

    def arccosh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arccosh(self, *args, **kwargs)

    def arcsin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arcsin(self, *args, **kwargs)

    def arcsinh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arcsinh(self, *args, **kwargs)

    def arctan(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arctan(self, *args, **kwargs)

    def arctanh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arctanh(self, *args, **kwargs)

    def asin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.asin(self, *args, **kwargs)

    def asinh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.asinh(self, *args, **kwargs)

    def atan(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.atan(self, *args, **kwargs)

    def atanh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.atanh(self, *args, **kwargs)

    def cosh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cosh(self, *args, **kwargs)

    def sinh(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sinh(self, *args, **kwargs)

    def tan(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tan(self, *args, **kwargs)

    # ---- ops.special
    def erf(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erf(self, *args, **kwargs)

    def erfc(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erfc(self, *args, **kwargs)

    def exp2(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.exp2(self, *args, **kwargs)

    def expm1(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.expm1(self, *args, **kwargs)

    def log10(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log10(self, *args, **kwargs)

    def log1p(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log1p(self, *args, **kwargs)

    def log2(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log2(self, *args, **kwargs)

    def logit(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logit(self, *args, **kwargs)

    def reciprocal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.reciprocal(self, *args, **kwargs)

    def rsqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.rsqrt(self, *args, **kwargs)

    def square(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.square(self, *args, **kwargs)

    # ---- ops.rounding
    def ceil(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.ceil(self, *args, **kwargs)

    def fix(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fix(self, *args, **kwargs)

    def floor(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.floor(self, *args, **kwargs)

    def frac(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.frac(self, *args, **kwargs)

    def round(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.round(self, *args, **kwargs)

    def sign(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sign(self, *args, **kwargs)

    def trunc(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.trunc(self, *args, **kwargs)

    def nan_to_num(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nan_to_num(self, *args, **kwargs)

    # ---- ops.thresholding
    def hardshrink(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.hardshrink(self, *args, **kwargs)

    def prelu(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.prelu(self, *args, **kwargs)

    # ---- ops.pointwise (two or three inputs)
    def addcdiv(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addcdiv(self, *args, **kwargs)

    def addcmul(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addcmul(self, *args, **kwargs)

    def arctan2(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.arctan2(self, *args, **kwargs)

    def atan2(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.atan2(self, *args, **kwargs)

    def fmax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fmax(self, *args, **kwargs)

    def fmin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fmin(self, *args, **kwargs)

    def hypot(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.hypot(self, *args, **kwargs)

    def lerp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lerp(self, *args, **kwargs)

    def logaddexp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logaddexp(self, *args, **kwargs)

    def maximum(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.maximum(self, *args, **kwargs)

    def minimum(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.minimum(self, *args, **kwargs)

    # ---- special functions (ops.gamma, ops.xlogy, ops.special.erfinv)
    def lgamma(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lgamma(self, *args, **kwargs)

    def digamma(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.digamma(self, *args, **kwargs)

    def polygamma(self, n: int) -> Tensor:
        """``x.polygamma(n)`` is ``dyngrad.polygamma(n, x)``: the ``n``-th derivative of
        digamma (PyTorch's argument order: the order first in the function).

        Derivative: ``grad = grad_output * polygamma(n + 1, x)`` (derivatives.yaml
        ``polygamma``).

        Args:
            n (int): the order, ``>= 0``.
        Returns:
            Tensor: ``(*)``, ``self``'s shape, floating.
        Raises:
            RuntimeError: a negative ``n``.
            TypeError: an ``n`` that is not an int.

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([0.5, 3.0]).polygamma(1)
            tensor([4.9348, 0.3949])
        """
        return _core._ops.polygamma(n, self)

    def mvlgamma(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mvlgamma(self, *args, **kwargs)

    def erfinv(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erfinv(self, *args, **kwargs)

    def xlogy(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.xlogy(self, *args, **kwargs)

    def igamma(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.igamma(self, *args, **kwargs)

    def igammac(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.igammac(self, *args, **kwargs)

    # --- ops/everyday.py
    def sinc(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sinc(self, *args, **kwargs)

    def deg2rad(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.deg2rad(self, *args, **kwargs)

    def rad2deg(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.rad2deg(self, *args, **kwargs)

    def logaddexp2(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logaddexp2(self, *args, **kwargs)

    def copysign(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.copysign(self, *args, **kwargs)

    def heaviside(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.heaviside(self, *args, **kwargs)

    def signbit(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.signbit(self, *args, **kwargs)
