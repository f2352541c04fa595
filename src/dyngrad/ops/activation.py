"""Activation functions (re-exported by ``dyngrad.nn.functional``): ``input (*) -> output (*)``,
same float dtype as the input.

Each Function's docstring states its derivative; the formulas, including the values PyTorch
picks at kinks (``x == 0``, ``x == min_val``...), follow PyTorch's
``tools/autograd/derivatives.yaml`` and ``aten/src/ATen/native/Activation.cpp``. Backward is
written with dyngrad ops on the saved input, so every activation is differentiable twice.
Functions with an ``inplace`` flag write into ``input`` when it is True.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import thresholding as _thresholding
from ._bases import Elementwise
from ._docs import inplace_doc, unary_doc
from ._util import inplace as _inplace
from ._util import refuse_bool, require_floating, wrap
from .pointwise import where
from .special import erf
from .thresholding import *  # noqa: F403
from .thresholding import _float

__all__ = [
    "softplus", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "elu", "elu_",
    "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "hardswish", "hardsigmoid",
]
__all__ += _thresholding.__all__
TENSOR_METHODS: set[str] = set(_thresholding.TENSOR_METHODS)

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _xp(d: Any) -> Any:
    return np if type(d) is np.ndarray else B.array_module(d)


def _same(out: Any, d: Any) -> Any:
    """``out`` in ``d``'s dtype (a NumPy scalar operand may have promoted it)."""
    if type(out) is np.ndarray:
        return out.astype(d.dtype, copy=False)
    return B.astype(out, B.np_dtype_of(d), copy=False)


class Softplus(Elementwise):
    """``out = log(1 + exp(beta * x)) / beta``, or ``x`` where ``beta * x > threshold``.
    ``grad_x = grad * sigmoid(beta * x)`` (``grad`` above the threshold)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
        d = _float(x, "softplus")
        z = d * beta
        ctx.save_for_backward(x)
        ctx.beta, ctx.threshold = beta, threshold
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            xp = _xp(d)
            return wrap(_same(xp.where(z > threshold, d, xp.logaddexp(0.0, z) / beta), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        z = x * ctx.beta
        return where(z > ctx.threshold, 1.0, z.sigmoid())


class Hardtanh(Elementwise):
    """``out = clamp(x, min_val, max_val)``; ``grad_x = grad`` where
    ``min_val < x < max_val`` (strictly), else 0."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
        d = _float(x, "hardtanh")
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = min_val, max_val
        if type(d) is np.ndarray:
            return wrap(np.clip(d, min_val, max_val).astype(d.dtype, copy=False))
        return wrap(_same(_xp(d).clip(d, float(min_val), float(max_val)), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return wrap((x._data > ctx.lo) & (x._data < ctx.hi))


class LeakyRelu(Elementwise):
    """``out = x`` where ``x > 0`` else ``negative_slope * x``;
    ``grad_x = grad`` where ``x > 0`` else ``grad * negative_slope``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, negative_slope: float = 0.01) -> Tensor:
        d = _float(x, "leaky_relu")
        ctx.save_for_backward(x)
        ctx.slope = negative_slope
        return wrap(_same(_xp(d).where(d > 0, d, d * negative_slope), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = x._data
        if type(d) is np.ndarray:
            return wrap(np.where(d > 0, 1.0, ctx.slope).astype(d.dtype))
        nd = B.np_dtype_of(d)
        return wrap(_xp(d).where(d > 0, 1.0, B.full_like(d, float(ctx.slope), dtype=nd)))


class Elu(Elementwise):
    """PyTorch's general ELU: ``out = scale * x`` where ``x > 0`` else
    ``scale * alpha * (exp(input_scale * x) - 1)``. elu: ``scale = input_scale = 1``;
    selu: ``alpha, scale`` = the SELU constants; celu: ``input_scale = 1 / alpha``.

    ``grad_x = grad * scale`` where ``x > 0`` else
    ``grad * scale * alpha * input_scale * exp(input_scale * x)``.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Tensor:
        d = _float(x, "elu")
        ctx.save_for_backward(x)
        ctx.p = (alpha, scale, input_scale)
        xp = _xp(d)
        with np.errstate(over="ignore"):
            neg = alpha * xp.expm1(xp.minimum(d, 0) * input_scale)
        return wrap(_same(scale * xp.where(d > 0, d, neg), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.p
        neg = (x.clamp(max=0) * input_scale).exp() * (scale * alpha * input_scale)
        return where(x > 0, scale, neg)


class Celu(Elu):
    """:class:`Elu` with ``input_scale = 1 / alpha`` (PyTorch's node name for celu)."""



class Gelu(Elementwise):
    """``out = x * Phi(x)``, ``Phi(x) = (1 + erf(x / sqrt 2)) / 2`` (``approximate='none'``),
    or ``x / 2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))`` (``'tanh'``).

    ``grad_x = grad * (Phi(x) + x * phi(x))`` with ``phi(x) = exp(-x**2 / 2) / sqrt(2 pi)``;
    tanh form: ``grad * (0.5 (1 + t) + 0.5 x (1 - t**2) sqrt(2/pi) (1 + 3 * 0.044715 x**2))``
    (Hendrycks & Gimpel 2016, eq. in sec. 2; PyTorch ``GeluKernel.cpp``).
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, approximate: str = "none") -> Tensor:
        d = _float(x, "gelu")
        ctx.save_for_backward(x)
        ctx.tanh = approximate == "tanh"
        if ctx.tanh:
            with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
                t = _xp(d).tanh(_SQRT_2_OVER_PI * (d + 0.044715 * d * d * d))
                return wrap(_same(0.5 * d * (1 + t), d))
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(_same(0.5 * d * (1 + erf(wrap(d * _INV_SQRT_2))._data), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        if ctx.tanh:
            x2 = x * x
            t = ((x + x2 * x * 0.044715) * _SQRT_2_OVER_PI).tanh()
            dt = (1 - t * t) * (x2 * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
            return (t + 1) * 0.5 + x * dt * 0.5
        cdf = (erf(x * _INV_SQRT_2) + 1) * 0.5
        pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
        return cdf + x * pdf


class Silu(Elementwise):
    """``out = x * sigmoid(x)``; ``grad_x = grad * s * (1 + x * (1 - s))``, ``s = sigmoid(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "silu")
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(_same(d / (1 + _xp(d).exp(-d)), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return s * (x * (1 - s) + 1)


class Mish(Elementwise):
    """``out = x * tanh(softplus(x))``; ``grad_x = grad * (t + x * sigmoid(x) * (1 - t**2))``
    with ``t = tanh(softplus(x))`` (Misra 2019; PyTorch ``mish_backward``)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "mish")
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            xp = _xp(d)
            return wrap(_same(d * xp.tanh(xp.logaddexp(0.0, d)), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        t = softplus(x).tanh()
        return (t + x * x.sigmoid() * (1 - t * t))


class Hardswish(Elementwise):
    """``out = x * relu6(x + 3) / 6``; ``grad_x = 0`` for ``x <= -3``, ``grad * (x / 3 + 1/2)``
    for ``-3 < x < 3``, ``grad`` from 3 up (PyTorch 2.x's ``hardswish_backward``: at the kinks
    the one-sided derivative of the outer piece, 0 at -3 and 1 at 3)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "hardswish")
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(_same(d * _xp(d).clip(d + 3, 0.0, 6.0) / 6, d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = x._data
        mid = wrap((d > -3) & (d < 3))
        return (mid * (x / 3 + 0.5) + wrap(d >= 3))


class Hardsigmoid(Elementwise):
    """``out = relu6(x + 3) / 6``; ``grad_x = grad / 6`` for ``-3 < x < 3``, else 0."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "hardsigmoid")
        ctx.save_for_backward(x)
        return wrap(_same(_xp(d).clip(d + 3, 0.0, 6.0) / 6, d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = x._data
        return wrap(B.astype((d > -3) & (d < 3), B.np_dtype_of(d)) / 6)


# ---------------------------------------------------------------- public functions
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * input)) / beta``, linear where ``beta * input > threshold``."""
    require_floating("softplus", input)
    return Softplus.apply(input, beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamp into ``[min_val, max_val]`` (gradient 0 at and beyond the bounds). An integer
    input gives an integer result, the bounds truncated toward zero (as PyTorch).

    Raises:
        ValueError: when ``max_val < min_val``.
        RuntimeError: a bool input (as PyTorch).
    """
    refuse_bool("hardtanh", input)
    if max_val < min_val:
        raise ValueError("hardtanh: min_val cannot be greater than max_val")
    if not inplace and isinstance(input, Tensor) and B.kind(input._data) in "iu":
        from .elementwise import clamp  # an integer input stays integer (bounds truncated), as PyTorch

        return clamp(input, int(min_val), int(max_val))
    return _inplace(hardtanh, input, min_val, max_val) if inplace else Hardtanh.apply(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place :func:`hardtanh`."""
    refuse_bool("hardtanh_", input, "hardtanh")
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``)."""
    refuse_bool("relu6", input, "hardtanh")
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    require_floating("leaky_relu", input)
    if inplace:
        return _inplace(leaky_relu, input, negative_slope)
    return LeakyRelu.apply(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place :func:`leaky_relu`."""
    require_floating("leaky_relu_", input)
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit: ``input`` where ``input > 0``, else ``alpha * (exp(input) - 1)``.

    The same function as ``nn.functional.elu`` (Clevert et al. 2015).

    Derivative: ``grad_input = grad_output`` where ``input > 0``, else
    ``grad_output * alpha * exp(input)`` (source: PyTorch's derivatives.yaml ``elu_backward``).

    Args:
        input (Tensor): ``(*)``, floating (an integer input computes in the default float dtype; PyTorch raises NotImplementedError).
        alpha (float, optional): the negative saturation value. Default: ``1.0``.
        inplace (bool, optional): overwrite ``input`` and return it (as :func:`elu_`).
            Default: ``False``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and floating dtype.
    Raises:
        TypeError: when ``input`` is not a Tensor.
        RuntimeError: with ``inplace=True``, as :func:`elu_`.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> dyngrad.elu(x, alpha=0.5)
        tensor([-0.3161,  0.0000,  2.0000], grad_fn=<EluBackward0>)
        >>> dyngrad.elu(x, alpha=0.5).sum().backward()
        >>> x.grad
        tensor([0.1839, 0.5000, 1.0000])
    """
    require_floating("elu", input)
    if inplace:
        return _inplace(elu, input, alpha)
    return Elu.apply(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`elu`: overwrites ``input`` with ``elu(input, alpha)`` and returns it.

    Derivative: as :func:`elu`'s (the graph records the in-place op).

    Args:
        input (Tensor): ``(*)``, floating.
        alpha (float, optional): the negative saturation value. Default: ``1.0``.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when ``input`` is an integer tensor (the float result cannot be written
            back; PyTorch raises NotImplementedError), or a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 0.0, 2.0])
        >>> dyngrad.elu_(x) is x
        True
        >>> x
        tensor([-0.6321,  0.0000,  2.0000])
    """
    require_floating("elu_", input)
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(input, alpha)`` with the self-normalising constants (Klambauer et al. 2017)."""
    require_floating("selu", input)
    if inplace:
        return _inplace(selu, input)
    return Elu.apply(input, _SELU_ALPHA, _SELU_SCALE)


def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu`."""
    require_floating("selu_", input)
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    The same function as ``nn.functional.celu`` (Barron 2017); ``alpha = 1`` is :func:`elu`.

    Derivative: ``grad_input = grad_output`` where ``input > 0``, else
    ``grad_output * exp(input / alpha)`` (source: PyTorch's derivatives.yaml, ``celu`` via
    ``elu_backward`` with ``input_scale = 1 / alpha``).

    Args:
        input (Tensor): ``(*)``, floating (an integer input computes in the default float dtype; PyTorch raises NotImplementedError).
        alpha (float, optional): the negative saturation value, not 0. Default: ``1.0``.
        inplace (bool, optional): overwrite ``input`` and return it (as :func:`celu_`).
            Default: ``False``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and floating dtype.
    Raises:
        RuntimeError: when ``alpha == 0``.
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> dyngrad.celu(x, alpha=0.5)
        tensor([-0.4323,  0.0000,  2.0000], grad_fn=<CeluBackward0>)
        >>> dyngrad.celu(x, alpha=0.5).sum().backward()
        >>> x.grad
        tensor([0.1353, 1.0000, 1.0000])
    """
    require_floating("celu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu: alpha must not be 0")
    if inplace:
        return _inplace(celu, input, alpha)
    return Celu.apply(input, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu`: overwrites ``input`` with ``celu(input, alpha)`` and returns it.

    Derivative: as :func:`celu`'s.

    Args:
        input (Tensor): ``(*)``, floating.
        alpha (float, optional): the negative saturation value, not 0. Default: ``1.0``.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when ``alpha == 0``; when ``input`` is an integer tensor (PyTorch raises
            NotImplementedError) or a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 0.0, 2.0])
        >>> dyngrad.celu_(x, alpha=0.5) is x
        True
        >>> x
        tensor([-0.4323,  0.0000,  2.0000])
    """
    require_floating("celu_", input)
    return celu(input, alpha, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit, exact (``'none'``) or with the tanh approximation.

    Raises:
        RuntimeError: when ``approximate`` is neither ``'none'`` nor ``'tanh'``.

    ``gelu(x) = x * Φ(x)`` with Φ the standard normal CDF (Hendrycks & Gimpel, "Gaussian
    Error Linear Units", 2016); ``'tanh'``: ``0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))``.
    Derivative (exact): ``grad_input = grad_output * (Φ(x) + x φ(x))``, φ the normal density.

    Args:
        input (Tensor): ``(*)``.
        approximate (str): ``'none'`` (exact) or ``'tanh'``.
    Returns:
        Tensor: ``(*)``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0, 1.0], requires_grad=True)
        >>> dyngrad.nn.functional.gelu(x)
        tensor([0.0000, 0.8413], grad_fn=<GeluBackward0>)
    """
    require_floating("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh. (gelu got {approximate!r})")
    return Gelu.apply(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * sigmoid(input)`` (SiLU, also called Swish with β = 1).

    Derivative: ``grad_input = grad_output * s * (1 + input * (1 - s))``, ``s = sigmoid(input)``.

    Args:
        input (Tensor): ``(*)``.
        inplace (bool): overwrite ``input``.
    Returns:
        Tensor: ``(*)``.
    Raises:
        TypeError: when ``input`` is not a Tensor.
        RuntimeError: ``inplace=True`` on a leaf that requires grad. (An integer ``input``
            computes in the default float dtype; PyTorch raises NotImplementedError.)

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0], requires_grad=True)
        >>> dyngrad.nn.functional.silu(x).backward()
        >>> x.grad
        tensor([0.5000])
    """
    require_floating("silu", input)
    if inplace:
        return _inplace(silu, input)
    return Silu.apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * tanh(softplus(input))``."""
    require_floating("mish", input)
    if inplace:
        return _inplace(mish, input)
    return Mish.apply(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * relu6(input + 3) / 6``."""
    require_floating("hardswish", input)
    if inplace:
        return _inplace(hardswish, input)
    return Hardswish.apply(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(input + 3) / 6``."""
    require_floating("hardsigmoid", input)
    if inplace:
        return _inplace(hardsigmoid, input)
    return Hardsigmoid.apply(input)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
_INT_NOTE = ("floating (an integer input computes in the default float dtype; PyTorch "
             "refuses it)")
_INPLACE_ARG = "        inplace (bool): overwrite ``input`` (as ``{}_``). Default: ``False``.\n"
softplus.__doc__ = unary_doc(
    "softplus", "``log(1 + exp(beta * input)) / beta``, linear where ``beta * input > threshold``.",
    "``grad_input = grad_output * sigmoid(beta * input)``, ``grad_output`` where linear "
    "(derivatives.yaml ``softplus_backward``).",
    "[-1.0, 0.0, 30.0]", "tensor([ 0.3133,  0.6931, 30.0000])", "tensor([0.2689, 0.5000, 1.0000])",
    input=_INT_NOTE,
    args="        beta (float): the sharpness. Default: ``1.0``.\n"
         "        threshold (float): above ``beta * input > threshold`` the result is ``input``.\n"
         "            Default: ``20.0``.\n")
hardtanh.__doc__ = unary_doc(
    "hardtanh", "Clamp into ``[min_val, max_val]`` (gradient 0 at and beyond the bounds, as PyTorch).",
    "``grad_input = grad_output`` where ``min_val < input < max_val`` (strictly), else 0 "
    "(derivatives.yaml ``hardtanh_backward``).",
    "[-2.0, 0.5, 1.0]", "tensor([-1.0000,  0.5000,  1.0000])", "tensor([0., 1., 0.])",
    input="floating (an integer input gives the default float dtype; PyTorch keeps it)",
    args="        min_val (float): the lower bound. Default: ``-1.0``.\n"
         "        max_val (float): the upper bound. Default: ``1.0``.\n" + _INPLACE_ARG.format("hardtanh"),
    raises="        ValueError: when ``max_val < min_val``.\n")
relu6.__doc__ = unary_doc(
    "relu6", "``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``).",
    "``grad_input = grad_output`` where ``0 < input < 6``, else 0 (as ``hardtanh``).",
    "[-1.0, 3.0, 7.0]", "tensor([0., 3., 6.])", "tensor([0., 1., 0.])",
    input="floating (an integer input gives the default float dtype; PyTorch keeps it)",
    args=_INPLACE_ARG.format("relu6"))
leaky_relu.__doc__ = unary_doc(
    "leaky_relu", "``input`` where positive, ``negative_slope * input`` elsewhere.",
    "``grad_input = grad_output`` where ``input > 0``, else ``negative_slope * grad_output`` "
    "(at 0 too; derivatives.yaml ``leaky_relu_backward``).",
    "[-2.0, 0.0, 3.0]", "tensor([-0.4000,  0.0000,  3.0000])", "tensor([0.2000, 0.2000, 1.0000])",
    input=_INT_NOTE, call=", negative_slope=0.2",
    args="        negative_slope (float): the slope below 0. Default: ``0.01``.\n" + _INPLACE_ARG.format("leaky_relu"))
selu.__doc__ = unary_doc(
    "selu", "``scale * elu(input, alpha)`` with the self-normalising constants ``alpha = "
    "1.6732632...``, ``scale = 1.0507009...`` (Klambauer et al. 2017).",
    "``grad_input = scale * grad_output`` where ``input > 0``, else ``grad_output * (output + "
    "scale * alpha)`` (derivatives.yaml ``elu_backward``).",
    "[-1.0, 2.0]", "tensor([-1.1113,  2.1014])", "tensor([0.6468, 1.0507])",
    input=_INT_NOTE, args=_INPLACE_ARG.format("selu"))
mish.__doc__ = unary_doc(
    "mish", "``input * tanh(softplus(input))`` (Misra 2019).",
    "``grad_input = grad_output * (t + input * sigmoid(input) * (1 - t ** 2))``, ``t = "
    "tanh(softplus(input))`` (derivatives.yaml ``mish_backward``).",
    "[-1.0, 0.0, 1.0]", "tensor([-0.3034,  0.0000,  0.8651])", "tensor([0.0592, 0.6000, 1.0490])",
    input=_INT_NOTE, args=_INPLACE_ARG.format("mish"))
hardswish.__doc__ = unary_doc(
    "hardswish", "``input * relu6(input + 3) / 6`` (Howard et al. 2019, MobileNetV3).",
    "``grad_input = 0`` for ``input <= -3``, ``grad_output * (input / 3 + 0.5)`` for ``-3 < "
    "input < 3``, ``grad_output`` from 3 up (PyTorch 2.x's ``hardswish_backward``).",
    "[-4.0, 0.0, 1.0, 3.0]", "tensor([-0.0000, 0.0000, 0.6667, 3.0000])",
    "tensor([0.0000, 0.5000, 0.8333, 1.0000])",
    input=_INT_NOTE, args=_INPLACE_ARG.format("hardswish"))
hardsigmoid.__doc__ = unary_doc(
    "hardsigmoid", "``relu6(input + 3) / 6``.",
    "``grad_input = grad_output / 6`` for ``-3 < input < 3``, else 0 (derivatives.yaml "
    "``hardsigmoid_backward``).",
    "[-4.0, 0.0, 3.0]", "tensor([0.0000, 0.5000, 1.0000])", "tensor([0.0000, 0.1667, 0.0000])",
    input=_INT_NOTE, args=_INPLACE_ARG.format("hardsigmoid"))
hardtanh_.__doc__ = inplace_doc(
    "hardtanh", "[-2.0, 0.5]", "tensor([-1.0000,  0.5000])",
    args="        min_val, max_val (float): the bounds. Defaults: ``-1.0``, ``1.0``.\n",
    raises="        ValueError: when ``max_val < min_val``.\n")
leaky_relu_.__doc__ = inplace_doc(
    "leaky_relu", "[-2.0, 3.0]", "tensor([-0.0200,  3.0000])",
    args="        negative_slope (float): the slope below 0. Default: ``0.01``.\n")
selu_.__doc__ = inplace_doc("selu", "[-1.0, 2.0]", "tensor([-1.1113,  2.1014])")
