"""Trigonometric and hyperbolic functions and their inverses: ``input (*) -> output (*)``.

Integer inputs compute in the default float dtype; ``nan`` outside the domain, as PyTorch.
Derivatives are the textbook ones (Abramowitz & Stegun 4.4, 4.5, 4.6), as in PyTorch's
``derivatives.yaml``; backward is written with dyngrad ops (differentiable twice).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
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


def _unary(name: str, x: Tensor) -> Tensor:
    """The standard's function ``name`` (NumPy 2 has the same names) on ``x`` as floats."""
    d = float_data(x)
    with np.errstate(all="ignore"):
        return wrap(getattr(np if type(d) is np.ndarray else B.array_module(d), name)(d))


class Tan(Elementwise):
    """``out = tan(x)``; ``grad_x = grad * (1 + out**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = _unary("tan", x)
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
        return _unary("asin", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(1 - x * x)


class Acos(Elementwise):
    """``out = acos(x)``; ``grad_x = -grad / sqrt(1 - x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("acos", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return -rsqrt(1 - x * x)


class Atan(Elementwise):
    """``out = atan(x)``; ``grad_x = grad / (1 + x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("atan", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (x * x + 1)


class Sinh(Elementwise):
    """``out = sinh(x)``; ``grad_x = grad * cosh(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("sinh", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return cosh(x)


class Cosh(Elementwise):
    """``out = cosh(x)``; ``grad_x = grad * sinh(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("cosh", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return sinh(x)


class Asinh(Elementwise):
    """``out = asinh(x)``; ``grad_x = grad / sqrt(x**2 + 1)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("asinh", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(x * x + 1)


class Acosh(Elementwise):
    """``out = acosh(x)`` (``x >= 1``); ``grad_x = grad / sqrt(x**2 - 1)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("acosh", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return rsqrt(x * x - 1)


class Atanh(Elementwise):
    """``out = atanh(x)`` (``|x| < 1``); ``grad_x = grad / (1 - x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("atanh", x)

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
    """Elementwise arcsine in radians, in ``[-pi/2, pi/2]`` (``nan`` outside ``[-1, 1]``)."""
    return Asin.apply(input)


def acos(input: Tensor) -> Tensor:
    """Elementwise arccosine in radians, in ``[0, pi]`` (``nan`` outside ``[-1, 1]``)."""
    return Acos.apply(input)


def atan(input: Tensor) -> Tensor:
    """Elementwise arctangent in radians, in ``(-pi/2, pi/2)``."""
    return Atan.apply(input)


def sinh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic sine."""
    return Sinh.apply(input)


def cosh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic cosine ``(e**input + e**-input) / 2`` (``inf`` on overflow)."""
    return Cosh.apply(input)


def asinh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic sine ``log(input + sqrt(input**2 + 1))``."""
    return Asinh.apply(input)


def acosh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic cosine ``log(input + sqrt(input**2 - 1))`` (``nan`` below 1)."""
    return Acosh.apply(input)


def atanh(input: Tensor) -> Tensor:
    """Elementwise inverse hyperbolic tangent ``log((1 + input) / (1 - input)) / 2`` (``+-inf`` at +-1, ``nan`` outside ``[-1, 1]``)."""
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
    "[0.0, 0.7853982]", "tensor([0., 1.])", "tensor([1., 2.])",
    not_tensor="AttributeError")
sinh.__doc__ = unary_doc(
    "sinh", "Elementwise hyperbolic sine.",
    "``grad_input = grad_output * cosh(input)`` (derivatives.yaml ``sinh``).",
    "[0.0, 1.0]", "tensor([0.0000, 1.1752])", "tensor([1.0000, 1.5431])")
tan_.__doc__ = inplace_doc("tan", "[0.0, 0.7853982]", "tensor([0., 1.])")
sinh_.__doc__ = inplace_doc("sinh", "[0.0, 1.0]", "tensor([0.0000, 1.1752])")
_ANY_DTYPE = "any dtype (integer and bool inputs compute in the default float dtype)"
_FLOAT_RESULT = "``(*)``, ``input``'s shape; ``input``'s floating dtype"
asin.__doc__ = unary_doc(
    "asin", "Elementwise arcsine in radians, in ``[-pi/2, pi/2]`` (``nan`` outside ``[-1, 1]``).",
    "``grad_input = grad_output / sqrt(1 - input**2)`` (``inf`` at +-1; source: PyTorch's "
    "derivatives.yaml, Abramowitz & Stegun 4.4.52).",
    "[0.0, 0.5]", "tensor([0.0000, 0.5236])", "tensor([1.0000, 1.1547])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
acos.__doc__ = unary_doc(
    "acos", "Elementwise arccosine in radians, in ``[0, pi]`` (``nan`` outside ``[-1, 1]``).",
    "``grad_input = -grad_output / sqrt(1 - input**2)`` (``-inf`` at +-1; source: PyTorch's "
    "derivatives.yaml, Abramowitz & Stegun 4.4.53).",
    "[0.0, 0.5]", "tensor([1.5708, 1.0472])", "tensor([-1.0000, -1.1547])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
atan.__doc__ = unary_doc(
    "atan", "Elementwise arctangent in radians, in ``(-pi/2, pi/2)``.",
    "``grad_input = grad_output / (1 + input**2)`` (source: PyTorch's derivatives.yaml, "
    "Abramowitz & Stegun 4.4.54).",
    "[0.0, 1.0]", "tensor([0.0000, 0.7854])", "tensor([1.0000, 0.5000])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
cosh.__doc__ = unary_doc(
    "cosh", "Elementwise hyperbolic cosine ``(e**input + e**-input) / 2`` (``inf`` on overflow).",
    "``grad_input = grad_output * sinh(input)`` (source: PyTorch's derivatives.yaml, "
    "Abramowitz & Stegun 4.5.18).",
    "[0.0, 1.0]", "tensor([1.0000, 1.5431])", "tensor([0.0000, 1.1752])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
asinh.__doc__ = unary_doc(
    "asinh", "Elementwise inverse hyperbolic sine ``log(input + sqrt(input**2 + 1))``.",
    "``grad_input = grad_output / sqrt(input**2 + 1)`` (source: PyTorch's derivatives.yaml, "
    "Abramowitz & Stegun 4.6.39).",
    "[0.0, 1.0]", "tensor([0.0000, 0.8814])", "tensor([1.0000, 0.7071])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
acosh.__doc__ = unary_doc(
    "acosh", "Elementwise inverse hyperbolic cosine ``log(input + sqrt(input**2 - 1))`` (``nan`` "
    "below 1).",
    "``grad_input = grad_output / sqrt(input**2 - 1)`` (``inf`` at 1, ``nan`` below; source: "
    "PyTorch's derivatives.yaml, Abramowitz & Stegun 4.6.40).",
    "[2.0, 3.0]", "tensor([1.3170, 1.7627])", "tensor([0.5774, 0.3536])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
atanh.__doc__ = unary_doc(
    "atanh", "Elementwise inverse hyperbolic tangent ``log((1 + input) / (1 - input)) / 2`` "
    "(``+-inf`` at +-1, ``nan`` outside ``[-1, 1]``).",
    "``grad_input = grad_output / (1 - input**2)`` (source: PyTorch's derivatives.yaml, "
    "Abramowitz & Stegun 4.6.41).",
    "[0.0, 0.5]", "tensor([0.0000, 0.5493])", "tensor([1.0000, 1.3333])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
asin_.__doc__ = inplace_doc("asin", "[0.0, 0.5]", "tensor([0.0000, 0.5236])")
acos_.__doc__ = inplace_doc("acos", "[0.0, 1.0]", "tensor([1.5708, 0.0000])")
atan_.__doc__ = inplace_doc("atan", "[0.0, 1.0]", "tensor([0.0000, 0.7854])")
cosh_.__doc__ = inplace_doc("cosh", "[0.0, 1.0]", "tensor([1.0000, 1.5431])")
asinh_.__doc__ = inplace_doc("asinh", "[0.0, 1.0]", "tensor([0.0000, 0.8814])")
acosh_.__doc__ = inplace_doc("acosh", "[1.0, 2.0]", "tensor([0.0000, 1.3170])")
atanh_.__doc__ = inplace_doc("atanh", "[0.0, 0.5]", "tensor([0.0000, 0.5493])")
