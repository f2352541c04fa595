"""Trigonometric and hyperbolic functions and their inverses: ``input (*) -> output (*)``.

Integer inputs compute in the default float dtype; ``nan`` outside the domain, as PyTorch.
Derivatives are the textbook ones (Abramowitz & Stegun 4.4, 4.5, 4.6), as in PyTorch's
``derivatives.yaml``; backward is written with dyngrad ops (differentiable twice).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from ._bases import Elementwise
from ._docs import inplace_doc, unary_doc
from ._util import float_data, inplace, wrap
from .special import rsqrt

__all__ = [
    "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh",
    "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_",
]
TENSOR_METHODS = set(__all__)


def _unary(fn: Any, x: Tensor) -> Tensor:
    with np.errstate(all="ignore"):
        return wrap(fn(float_data(x)))


class Tan(Elementwise):
    """``out = tan(x)``; ``grad_x = grad * (1 + out**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = _unary(np.tan, x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return out * out + 1


class Asin(Elementwise):
    """``out = asin(x)``; ``grad_x = grad / sqrt(1 - x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arcsin, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(1 - x * x)


class Acos(Elementwise):
    """``out = acos(x)``; ``grad_x = -grad / sqrt(1 - x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arccos, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return -rsqrt(1 - x * x)


class Atan(Elementwise):
    """``out = atan(x)``; ``grad_x = grad / (1 + x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arctan, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (x * x + 1)


class Sinh(Elementwise):
    """``out = sinh(x)``; ``grad_x = grad * cosh(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.sinh, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return cosh(x)


class Cosh(Elementwise):
    """``out = cosh(x)``; ``grad_x = grad * sinh(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.cosh, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return sinh(x)


class Asinh(Elementwise):
    """``out = asinh(x)``; ``grad_x = grad / sqrt(x**2 + 1)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arcsinh, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(x * x + 1)


class Acosh(Elementwise):
    """``out = acosh(x)`` (``x >= 1``); ``grad_x = grad / sqrt(x**2 - 1)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arccosh, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(x * x - 1)


class Atanh(Elementwise):
    """``out = atanh(x)`` (``|x| < 1``); ``grad_x = grad / (1 - x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary(np.arctanh, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (1 - x * x)


# ---------------------------------------------------------------- public functions
# ``input`` (*) of any dtype -> (*) of its float dtype (integers: the default dtype).


def tan(input: Tensor) -> Tensor:
    """Elementwise tangent (radians)."""
    return Tan.apply(input)


def asin(input: Tensor) -> Tensor:
    """Elementwise arcsine (``nan`` outside [-1, 1])."""
    return Asin.apply(input)


def acos(input: Tensor) -> Tensor:
    """Elementwise arccosine (``nan`` outside [-1, 1])."""
    return Acos.apply(input)


def atan(input: Tensor) -> Tensor:
    """Elementwise arctangent."""
    return Atan.apply(input)


def sinh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic sine."""
    return Sinh.apply(input)


def cosh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return Cosh.apply(input)


def asinh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic sine."""
    return Asinh.apply(input)


def acosh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic cosine (``nan`` below 1)."""
    return Acosh.apply(input)


def atanh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic tangent (``+-inf`` at +-1, ``nan`` outside)."""
    return Atanh.apply(input)


arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


# ---------------------------------------------------------------- in-place forms
def tan_(input: Tensor) -> Tensor:
    """In-place :func:`tan`."""
    return inplace(tan, input)


def asin_(input: Tensor) -> Tensor:
    """In-place :func:`asin`."""
    return inplace(asin, input)


def acos_(input: Tensor) -> Tensor:
    """In-place :func:`acos`."""
    return inplace(acos, input)


def atan_(input: Tensor) -> Tensor:
    """In-place :func:`atan`."""
    return inplace(atan, input)


def sinh_(input: Tensor) -> Tensor:
    """In-place :func:`sinh`."""
    return inplace(sinh, input)


def cosh_(input: Tensor) -> Tensor:
    """In-place :func:`cosh`."""
    return inplace(cosh, input)


def asinh_(input: Tensor) -> Tensor:
    """In-place :func:`asinh`."""
    return inplace(asinh, input)


def acosh_(input: Tensor) -> Tensor:
    """In-place :func:`acosh`."""
    return inplace(acosh, input)


def atanh_(input: Tensor) -> Tensor:
    """In-place :func:`atanh`."""
    return inplace(atanh, input)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
tan.__doc__ = unary_doc(
    "tan", "Elementwise tangent (radians).",
    "``grad_input = grad_output * (1 + output ** 2)`` (derivatives.yaml ``tan``).",
    "[0.0, 0.7853982]", "tensor([0., 1.])", "tensor([1., 2.])")
sinh.__doc__ = unary_doc(
    "sinh", "Elementwise hyperbolic sine.",
    "``grad_input = grad_output * cosh(input)`` (derivatives.yaml ``sinh``).",
    "[0.0, 1.0]", "tensor([0.0000, 1.1752])", "tensor([1.0000, 1.5431])")
tan_.__doc__ = inplace_doc("tan", "[0.0, 0.7853982]", "tensor([0., 1.])")
sinh_.__doc__ = inplace_doc("sinh", "[0.0, 1.0]", "tensor([0.0000, 1.1752])")
