"""Unary exponential, logarithmic and special functions: ``input (*) -> output (*)``.

Integer and bool inputs compute in the default float dtype; float32 stays float32 and
float64 stays float64. Domain errors give ``nan``/``inf`` as PyTorch does (no warnings).
Derivatives are the textbook ones (e.g. Abramowitz & Stegun, ch. 4 and 7) and match
PyTorch's ``tools/autograd/derivatives.yaml``; each Function's docstring states its own.
Every backward is written with dyngrad ops, so all are differentiable twice.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import _specfun
from ._bases import Elementwise
from ._docs import inplace_doc, unary_doc
from ._util import float_data, inplace, wrap

__all__ = [
    "exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "reciprocal",
    "logit", "erf", "erfc", "erfinv",
    "exp2_", "expm1_", "log2_", "log10_", "log1p_", "rsqrt_", "square_", "reciprocal_", "logit_", "erf_", "erfc_",
    "erfinv_",
]
TENSOR_METHODS = set(__all__)

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _unary(name: str, x: Tensor) -> Tensor:
    """The standard's function ``name`` (NumPy 2 has the same names) on ``x`` as floats."""
    d = float_data(x)
    with np.errstate(all="ignore"):
        return wrap(getattr(np if type(d) is np.ndarray else B.array_module(d), name)(d))


class Exp2(Elementwise):
    """``out = 2 ** x``; ``grad_x = grad * out * ln 2``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        if type(d) is np.ndarray:
            out = _unary("exp2", x)
        else:  # (no exp2 in the standard: 2 ** x, which IEEE pow computes exactly at integers)
            with np.errstate(all="ignore"):
                out = wrap(B.array_module(d).pow(2.0, d))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return ctx.saved_tensors[0] * _LN2  # out * ln 2


class Expm1(Elementwise):
    """``out = exp(x) - 1`` (accurate near 0); ``grad_x = grad * (out + 1)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = _unary("expm1", x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return out + 1


class Log2(Elementwise):
    """``out = log2(x)``; ``grad_x = grad / (x * ln 2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("log2", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (x * _LN2)


class Log10(Elementwise):
    """``out = log10(x)``; ``grad_x = grad / (x * ln 10)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("log10", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (x * _LN10)


class Log1p(Elementwise):
    """``out = log(1 + x)`` (accurate near 0); ``grad_x = grad / (x + 1)``."""

    _node_name = "Log1PBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _unary("log1p", x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 1 / (x + 1)


class Rsqrt(Elementwise):
    """``out = x ** -0.5``; ``grad_x = -grad * out**3 / 2``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        with np.errstate(all="ignore"):
            xp = np if type(d) is np.ndarray else B.array_module(d)
            out = wrap(xp.reciprocal(xp.sqrt(d)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return out * out * out * -0.5


class Square(Elementwise):
    """``out = x * x`` (integers stay integers, as ``pow(x, 2)``); ``grad_x = 2 * grad * x``."""

    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = x._data
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap((np if type(d) is np.ndarray else B.array_module(d)).square(
                B.astype(d, np.int64) if B.kind(d) == "b" else d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return ctx.saved_tensors[0] * 2


class Reciprocal(Elementwise):
    """``out = 1 / x``; ``grad_x = -grad * out**2``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = _unary("reciprocal", x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return -(out * out)


class Logit(Elementwise):
    """``out = log(z / (1 - z))`` with ``z = clamp(x, eps, 1 - eps)`` when ``eps`` is given.

    ``grad_x = grad / (x * (1 - x))``; with ``eps``, 0 where ``x`` lies outside
    ``[eps, 1 - eps]`` (PyTorch's ``logit_backward``).
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, eps: float | None = None) -> Tensor:
        d = float_data(x)
        xp = np if type(d) is np.ndarray else B.array_module(d)
        z = d if eps is None else xp.clip(d, float(eps), 1 - float(eps))
        ctx.save_for_backward(x)
        ctx.eps = eps
        with np.errstate(all="ignore"):
            return wrap(xp.log(z / (1 - z)))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        if ctx.eps is None:
            return 1 / (x * (1 - x))
        # 0 outside [eps, 1 - eps], also where 1 / (x * (1 - x)) is infinite (x = 0 or 1):
        # there x is replaced by 0.5, so the masked-off value is 0 / 0.25, not 0 * inf = nan
        d = x._data
        m = wrap(B.astype((d >= ctx.eps) & (d <= 1 - ctx.eps), B.np_dtype_of(d)))
        xs = x * m + (1 - m) * 0.5
        return m / (xs * (1 - xs))


# erf/erfc: NumPy has no erf ufunc and SciPy is not a dependency: _specfun.erf/erfc
# evaluate Cody's rational approximations on whole arrays (at most 7 ulp from the C
# library's in float64, far inside the 1e-12 we test for; full relative accuracy in the
# tails, erfc(10) = 2.1e-45) and fall back to math.erf per element for small arrays.
_ERF = _specfun.erf
_ERFC = _specfun.erfc


#: the kernels with the standard's functions only, for Array API arrays (array-api-strict)
_STD = {_ERF: _specfun.erf_std, _ERFC: functools.partial(_specfun.erf_std, complement=True),
        _specfun.erfinv: _specfun.erfinv_std}


def _special(fn: Any, x: Tensor) -> np.ndarray:
    d = float_data(x)
    if B.is_api_array(d):
        return B.astype(_STD[fn](B.astype(d, np.float64, copy=False)), B.np_dtype_of(d), copy=False)
    return B.asarray_any(fn(d.astype(np.float64)), dtype=np.float64).astype(d.dtype, copy=False)


class Erf(Elementwise):
    """``out = erf(x) = 2/sqrt(pi) * int_0^x exp(-t**2) dt``;
    ``grad_x = grad * 2/sqrt(pi) * exp(-x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(_special(_ERF, x))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return (-(x * x)).exp() * _TWO_OVER_SQRT_PI


class Erfc(Elementwise):
    """``out = erfc(x) = 1 - erf(x)`` (accurate for large ``x``);
    ``grad_x = -grad * 2/sqrt(pi) * exp(-x**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(_special(_ERFC, x))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return (-(x * x)).exp() * -_TWO_OVER_SQRT_PI


class Erfinv(Elementwise):
    """``out = erfinv(x)`` (``erf(out) = x``; see :mod:`dyngrad.ops._specfun` for how);
    ``grad_x = grad * sqrt(pi)/2 * exp(out**2)`` (the inverse function's derivative,
    as PyTorch's derivatives.yaml)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = wrap(_special(_specfun.erfinv, x))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return (out * out).exp() * (1 / _TWO_OVER_SQRT_PI)


# ---------------------------------------------------------------- public functions
# Each takes ``input`` (*) of any dtype and returns (*) of the input's float dtype (integer
# inputs: the default dtype), except ``square``, which keeps integer dtypes as PyTorch does.


def exp2(input: Tensor) -> Tensor:
    """Elementwise ``2 ** input``."""
    return Exp2.apply(input)


def expm1(input: Tensor) -> Tensor:
    """Elementwise ``exp(input) - 1``, accurate for small ``input`` (no cancellation near 0).

    Derivative: ``grad_input = grad_output * exp(input) = grad_output * (output + 1)`` (source: PyTorch's
    derivatives.yaml).

    Args:
        input (Tensor): ``(*)``, any dtype (integer and bool inputs compute in the default float
            dtype).
    Returns:
        Tensor: ``(*)``, ``input``'s shape; ``input``'s floating dtype.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0, 1e-10, 1.0], dtype=dyngrad.float64, requires_grad=True)
        >>> dyngrad.expm1(x)[1].item(), (dyngrad.exp(x) - 1)[1].item()  # exp(x) - 1 cancels
        (1.00000000005e-10, 1.000000082740371e-10)
        >>> dyngrad.expm1(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 1.0000, 2.7183], dtype=dyngrad.float64)
    """
    return Expm1.apply(input)


def log2(input: Tensor) -> Tensor:
    """Elementwise base-2 logarithm (``-inf`` at 0, ``nan`` below)."""
    return Log2.apply(input)


def log10(input: Tensor) -> Tensor:
    """Elementwise base-10 logarithm (``-inf`` at 0, ``nan`` below)."""
    return Log10.apply(input)


def log1p(input: Tensor) -> Tensor:
    """Elementwise ``log(1 + input)``, accurate for small inputs."""
    return Log1p.apply(input)


def rsqrt(input: Tensor) -> Tensor:
    """Elementwise ``1 / sqrt(input)`` (``inf`` at 0, ``nan`` below)."""
    return Rsqrt.apply(input)


def square(input: Tensor) -> Tensor:
    """Elementwise ``input * input`` (integer dtypes are kept, bool gives int64)."""
    return Square.apply(input)


def reciprocal(input: Tensor) -> Tensor:
    """Elementwise ``1 / input`` (integers give the default float dtype)."""
    return Reciprocal.apply(input)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """Elementwise ``log(p / (1 - p))``; ``eps`` clamps ``p`` into ``[eps, 1 - eps]`` first
    (and zeroes the gradient outside it).

    Raises:
        TypeError: an ``eps`` that is not a number (``logit(): argument 'eps' (position 2)
            must be float, not str``), as PyTorch.
    """
    if eps is None:
        return Logit.apply(input)
    if not isinstance(eps, (int, float, np.integer, np.floating)) or isinstance(eps, bool):
        raise TypeError(f"logit(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")
    return Logit.apply(input, float(eps))


def erf(input: Tensor) -> Tensor:
    """Elementwise Gauss error function ``erf(x) = 2/sqrt(pi) * int_0^x exp(-t**2) dt``."""
    return Erf.apply(input)


def erfc(input: Tensor) -> Tensor:
    """Elementwise complementary error function ``1 - erf(input)``, accurate in the tail."""
    return Erfc.apply(input)


def erfinv(input: Tensor) -> Tensor:
    """Elementwise inverse error function: ``erf(erfinv(y)) = y`` on ``(-1, 1)``, ``+-inf`` at ``+-1``, ``nan`` outside (as PyTorch)."""
    return Erfinv.apply(input)


# ---------------------------------------------------------------- in-place forms
def exp2_(input: Tensor) -> Tensor:
    """In-place :func:`exp2`."""
    return inplace(exp2, input)


def expm1_(input: Tensor) -> Tensor:
    """In-place :func:`expm1`."""
    return inplace(expm1, input)


def log2_(input: Tensor) -> Tensor:
    """In-place :func:`log2`."""
    return inplace(log2, input)


def log10_(input: Tensor) -> Tensor:
    """In-place :func:`log10`."""
    return inplace(log10, input)


def log1p_(input: Tensor) -> Tensor:
    """In-place :func:`log1p`."""
    return inplace(log1p, input)


def rsqrt_(input: Tensor) -> Tensor:
    """In-place :func:`rsqrt`."""
    return inplace(rsqrt, input)


def square_(input: Tensor) -> Tensor:
    """In-place :func:`square`."""
    return inplace(square, input)


def reciprocal_(input: Tensor) -> Tensor:
    """In-place :func:`reciprocal`."""
    return inplace(reciprocal, input)


def logit_(input: Tensor, eps: float | None = None) -> Tensor:
    """In-place :func:`logit`."""
    return inplace(logit, input, eps)


def erf_(input: Tensor) -> Tensor:
    """In-place :func:`erf`."""
    return inplace(erf, input)


def erfc_(input: Tensor) -> Tensor:
    """In-place :func:`erfc`."""
    return inplace(erfc, input)


def erfinv_(input: Tensor) -> Tensor:
    """In-place :func:`erfinv`."""
    return inplace(erfinv, input)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
log2.__doc__ = unary_doc(
    "log2", "Elementwise base-2 logarithm (``-inf`` at 0, ``nan`` below, as PyTorch).",
    "``grad_input = grad_output / (input * ln 2)`` (derivatives.yaml ``log2``).",
    "[1.0, 8.0]", "tensor([0., 3.])", "tensor([1.4427, 0.1803])")
log10.__doc__ = unary_doc(
    "log10", "Elementwise base-10 logarithm (``-inf`` at 0, ``nan`` below, as PyTorch).",
    "``grad_input = grad_output / (input * ln 10)`` (derivatives.yaml ``log10``).",
    "[1.0, 10.0]", "tensor([0., 1.])", "tensor([0.4343, 0.0434])")
log1p.__doc__ = unary_doc(
    "log1p", "Elementwise ``log(1 + input)``, accurate for small inputs (``-inf`` at -1, ``nan`` below).",
    "``grad_input = grad_output / (1 + input)`` (derivatives.yaml ``log1p``).",
    "[0.0, 1.0]", "tensor([0.0000, 0.6931])", "tensor([1.0000, 0.5000])")
rsqrt.__doc__ = unary_doc(
    "rsqrt", "Elementwise ``1 / sqrt(input)`` (``inf`` at 0, ``nan`` below).",
    "``grad_input = -0.5 * grad_output * output ** 3`` (derivatives.yaml ``rsqrt``; the output "
    "is what backward saves).",
    "[4.0, 0.25]", "tensor([0.5000, 2.0000])", "tensor([-0.0625, -4.0000])",
    not_tensor="AttributeError")
square.__doc__ = unary_doc(
    "square", "Elementwise ``input * input``.",
    "``grad_input = 2 * input * grad_output`` (derivatives.yaml ``pow`` with exponent 2).",
    "[-2.0, 3.0]", "tensor([4., 9.])", "tensor([-4.,  6.])",
    input="any dtype (integer dtypes are kept and bool gives int64, as PyTorch)",
    returns="``(*)``, ``input``'s shape and dtype")
reciprocal.__doc__ = unary_doc(
    "reciprocal", "Elementwise ``1 / input`` (``+-inf`` at 0).",
    "``grad_input = -grad_output * output ** 2`` (derivatives.yaml ``reciprocal``).",
    "[2.0, -0.5]", "tensor([ 0.5000, -2.0000])", "tensor([-0.2500, -4.0000])",
    not_tensor="AttributeError")
logit.__doc__ = unary_doc(
    "logit", "Elementwise ``log(p / (1 - p))`` of ``p = input``; ``eps`` clamps ``p`` into "
    "``[eps, 1 - eps]`` first.",
    "``grad_input = grad_output / (input * (1 - input))``, and 0 outside ``[eps, 1 - eps]`` "
    "when ``eps`` is given (derivatives.yaml ``logit_backward``).",
    "[0.5, 0.25, 0.0]", "tensor([ 0.0000, -1.0986, -2.1972])", "tensor([4.0000, 5.3333, 0.0000])",
    args="        eps (float, optional): the clamp's bound. Default: ``None`` (no clamp: ``-inf`` at 0,\n"
         "            ``inf`` at 1, ``nan`` outside ``[0, 1]``).\n",
    call=", eps=0.1",
    not_tensor="AttributeError",
    raises="        ValueError: an ``eps`` that is not a number (a str; PyTorch: TypeError).\n")
log2_.__doc__ = inplace_doc("log2", "[1.0, 8.0]", "tensor([0., 3.])")
log10_.__doc__ = inplace_doc("log10", "[1.0, 10.0]", "tensor([0., 1.])")
log1p_.__doc__ = inplace_doc("log1p", "[0.0, 1.0]", "tensor([0.0000, 0.6931])")
rsqrt_.__doc__ = inplace_doc("rsqrt", "[4.0, 0.25]", "tensor([0.5000, 2.0000])")
square_.__doc__ = inplace_doc("square", "[-2, 3]", "tensor([4, 9])")
reciprocal_.__doc__ = inplace_doc("reciprocal", "[2.0, -0.5]", "tensor([ 0.5000, -2.0000])")
logit_.__doc__ = inplace_doc("logit", "[0.5, 0.0]", "tensor([ 0.0000, -2.1972])", call=", eps=0.1",
                             args="        eps (float, optional): as :func:`dyngrad.logit`. Default: ``None``.\n")
_ANY_DTYPE = "any dtype (integer and bool inputs compute in the default float dtype)"
_FLOAT_RESULT = "``(*)``, ``input``'s shape; ``input``'s floating dtype"
exp2.__doc__ = unary_doc(
    "exp2", "Elementwise ``2 ** input``.",
    "``grad_input = grad_output * 2**input * ln 2`` (source: PyTorch's derivatives.yaml).",
    "[0.0, 1.0]", "tensor([1., 2.])", "tensor([0.6931, 1.3863])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT,
    not_tensor="AttributeError")
erf.__doc__ = unary_doc(
    "erf", "Elementwise Gauss error function ``erf(x) = 2/sqrt(pi) * int_0^x exp(-t**2) dt``.\n\n    "
    "In float64 the error is below 1 ulp (see dyngrad/ops/_specfun.py).",
    "``grad_input = grad_output * 2/sqrt(pi) * exp(-input**2)`` (source: PyTorch's "
    "derivatives.yaml, Abramowitz & Stegun 7.1.19).",
    "[0.0, 0.5, -1.0]", "tensor([ 0.0000,  0.5205, -0.8427])", "tensor([1.1284, 0.8788, 0.4151])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
erfc.__doc__ = unary_doc(
    "erfc", "Elementwise complementary error function ``1 - erf(input)``, accurate in the tail.",
    "``grad_input = -grad_output * 2/sqrt(pi) * exp(-input**2)`` (source: PyTorch's "
    "derivatives.yaml).",
    "[0.0, 0.5, 10.0]", "tensor([1.0000e+00, 4.7950e-01, 1.4013e-45])", "tensor([-1.1284e+00, -8.7878e-01, -4.2039e-44])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
erfinv.__doc__ = unary_doc(
    "erfinv", "Elementwise inverse error function: ``erf(erfinv(y)) = y`` on ``(-1, 1)``, ``+-inf`` at "
    "``+-1``, ``nan`` outside (as PyTorch).",
    "``grad_input = grad_output * sqrt(pi)/2 * exp(output**2)`` (the inverse function's "
    "derivative; source: PyTorch's derivatives.yaml).",
    "[0.0, 0.5]", "tensor([0.0000, 0.4769])", "tensor([0.8862, 1.1126])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT,
    not_tensor="AttributeError")
exp2_.__doc__ = inplace_doc("exp2", "[0.0, 3.0]", "tensor([1., 8.])")
expm1_.__doc__ = inplace_doc("expm1", "[0.0, 1.0]", "tensor([0.0000, 1.7183])")
erf_.__doc__ = inplace_doc("erf", "[0.0, 0.5]", "tensor([0.0000, 0.5205])")
erfc_.__doc__ = inplace_doc("erfc", "[0.0, 0.5]", "tensor([1.0000, 0.4795])")
erfinv_.__doc__ = inplace_doc("erfinv", "[0.0, 0.5]", "tensor([0.0000, 0.4769])")
