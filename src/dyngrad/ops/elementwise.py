"""Elementwise functions: ``input (*) -> output (*)``; integer inputs compute in the default
float dtype. Each Function's docstring gives its derivative."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import pointwise, rounding, special, trig
from ._bases import Elementwise
from ._docs import inplace_doc, unary_doc
from ._util import data_of, float_data, inplace, refuse_bool, wrap
from .pointwise import *  # noqa: F403 - re-exported until ops/__init__ lists these modules
from .rounding import *  # noqa: F403
from .special import *  # noqa: F403
from .trig import *  # noqa: F403

__all__ = [
    "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "absolute", "sqrt",
    "clamp", "clip", "clamp_min", "clamp_max",
    "exp_", "log_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_", "abs_", "sqrt_",
    "clamp_", "clip_",
]
TENSOR_METHODS = set(__all__)
for _m in (special, trig, pointwise, rounding):
    __all__ += _m.__all__
    TENSOR_METHODS |= _m.TENSOR_METHODS


class Exp(Elementwise):
    """``out = exp(x)``; ``grad_x = grad * exp(x) = grad * out``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        with np.errstate(over="ignore"):
            out = wrap((np if type(d) is np.ndarray else B.array_module(d)).exp(d))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return ctx.saved_tensors[0]  # exp(x) = out


def exp(input: Tensor) -> Tensor:
    """Elementwise ``e ** input``."""
    return Exp.apply(input)


class Log(Elementwise):
    """``out = log(x)`` (natural); ``grad_x = grad / x``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = float_data(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return wrap((np if type(d) is np.ndarray else B.array_module(d)).log(d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return 1 / ctx.saved_tensors[0]


def log(input: Tensor) -> Tensor:
    """Elementwise natural logarithm (``-inf`` at 0, ``nan`` below, as PyTorch).

    Derivative: ``grad_input = grad_output / input``.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 4.0], requires_grad=True)
        >>> dyngrad.log(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 0.2500])
    """
    return Log.apply(input)


class Sin(Elementwise):
    """``out = sin(x)``; ``grad_x = grad * cos(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = float_data(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap((np if type(d) is np.ndarray else B.array_module(d)).sin(d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return ctx.saved_tensors[0].cos()


def sin(input: Tensor) -> Tensor:
    """Elementwise sine (radians)."""
    return Sin.apply(input)


class Cos(Elementwise):
    """``out = cos(x)``; ``grad_x = -grad * sin(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        d = float_data(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap((np if type(d) is np.ndarray else B.array_module(d)).cos(d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return -ctx.saved_tensors[0].sin()


def cos(input: Tensor) -> Tensor:
    """Elementwise cosine of ``input`` in radians."""
    return Cos.apply(input)


class Tanh(Elementwise):
    """``out = tanh(x)``; ``grad_x = grad * (1 - out**2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        out = wrap((np if type(d) is np.ndarray else B.array_module(d)).tanh(d))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return 1 - out * out


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent.

    Derivative: ``grad_input = grad_output * (1 - output ** 2)`` (backward saves the output).

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, values in ``(-1, 1)``.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0], requires_grad=True)
        >>> dyngrad.tanh(x).backward()
        >>> x.grad
        tensor([1.])
    """
    return Tanh.apply(input)


class Sigmoid(Elementwise):
    """``out = 1 / (1 + exp(-x))``; ``grad_x = grad * out * (1 - out)``.

    Forward is computed without overflow: ``exp(-|x|)`` in both branches."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        if type(d) is np.ndarray:
            e = np.exp(-np.abs(d))
            out = wrap(np.where(d >= 0, 1 / (1 + e), e / (1 + e)).astype(d.dtype, copy=False))
        else:  # (Python scalars keep the dtype in the standard's promotion)
            xp = B.array_module(d)
            e = xp.exp(-xp.abs(d))
            out = wrap(xp.where(d >= 0, 1 / (1 + e), e / (1 + e)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (out,) = ctx.saved_tensors
        return out * (1 - out)


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic sigmoid ``1 / (1 + exp(-input))``.

    Derivative: ``grad_input = grad_output * output * (1 - output)``.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, values in ``(0, 1)``.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0], requires_grad=True)
        >>> y = dyngrad.sigmoid(x)
        >>> y.backward()
        >>> y.item(), x.grad.item()
        (0.5, 0.25)
    """
    return Sigmoid.apply(input)


class Relu(Elementwise):
    """``out = max(x, 0)``; ``grad_x = grad * (out != 0)``: 0 at x <= 0, and the gradient
    passes where ``out`` is NaN (PyTorch's ``threshold_backward``: ``0 if out <= 0 else
    grad``; ``out`` is never negative)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        out = wrap((np if type(d) is np.ndarray else B.array_module(d)).maximum(d, 0))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        out = ctx.saved_tensors[0]
        if type(out) is Tensor:  # the constant mask directly (what the comparison op would give)
            return Tensor._make(out._data != 0)
        return out != 0


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``max(input, 0)``.

    Derivative: ``grad_input = grad_output * (input > 0)`` (0 at 0, as PyTorch; where
    ``input`` is NaN the gradient passes, as PyTorch's ``threshold_backward``).

    Args:
        input (Tensor): ``(*)``.
        inplace (bool): overwrite ``input`` (``relu_``).
    Returns:
        Tensor: ``(*)``.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).
        RuntimeError: ``inplace=True`` on a leaf that requires grad. (A bool ``input`` is
            accepted; PyTorch raises RuntimeError.)

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        >>> dyngrad.relu(x).sum().backward()
        >>> x.grad
        tensor([0., 0., 1.])
    """
    refuse_bool("relu", input)
    if inplace:
        return relu_(input)
    return Relu.apply(input)


class Abs(Elementwise):
    """``out = |x|``; ``grad_x = grad * sign(x)`` (0 at x = 0)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        if B.kind(d) == "b":  # PyTorch has no bool kernel
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        ctx.save_for_backward(x)
        return wrap((np if type(d) is np.ndarray else B.array_module(d)).abs(d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        d = ctx.saved_tensors[0]._data
        return wrap((np if type(d) is np.ndarray else B.array_module(d)).sign(d))


def abs(input: Tensor) -> Tensor:  # noqa: A001
    """Elementwise absolute value ``|input|`` (``absolute`` is the same function).

    Derivative: ``grad_input = grad_output * sign(input)`` (0 at ``input = 0``, as PyTorch's
    derivatives.yaml ``abs: grad * self.sgn()``).

    Args:
        input (Tensor): ``(*)``, any numeric dtype but bool (the dtype is kept; the most negative
            integer stays negative, as two's complement and PyTorch).
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        NotImplementedError: when ``input`` is a bool tensor (as PyTorch).
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-2.0, 0.0, 3.0], requires_grad=True)
        >>> dyngrad.abs(x)
        tensor([2., 0., 3.], grad_fn=<AbsBackward0>)
        >>> dyngrad.abs(x).sum().backward()
        >>> x.grad
        tensor([-1.,  0.,  1.])
    """
    return Abs.apply(input)


absolute = abs


class Sqrt(Elementwise):
    """``out = sqrt(x)``; ``grad_x = grad / (2 * out)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = float_data(x)
        with np.errstate(invalid="ignore"):
            out = wrap((np if type(d) is np.ndarray else B.array_module(d)).sqrt(d))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return 1 / (2 * ctx.saved_tensors[0])


def sqrt(input: Tensor) -> Tensor:
    """Elementwise square root (``nan`` for negative inputs)."""
    return Sqrt.apply(input)


class Clamp(Elementwise):
    """``out = min(max(x, lo), hi)``.

    ``grad_x = grad`` where ``lo <= x <= hi`` else 0 (PyTorch passes the gradient at the
    bounds); for tensor bounds ``grad_lo = grad`` where ``x < lo``, ``grad_hi = grad`` where
    ``x > hi`` (and ``lo <= hi``).
    """

    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx: Any, x: Tensor, lo: Any = None, hi: Any = None) -> Tensor:
        if lo is None and hi is None:
            raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
        d = x._data
        # PyTorch's result_type(input, min, max); Python-int bounds wrap into an integer dtype
        rt = B.result_type(*(o for o in (x, lo, hi) if o is not None))
        if type(d) is np.ndarray:
            lod = B.asarray_any(data_of(lo)).astype(rt, copy=False) if lo is not None else None
            hid = B.asarray_any(data_of(hi)).astype(rt, copy=False) if hi is not None else None
            xp: Any = np
        else:
            lod, hid = _bound(lo, d, rt), _bound(hi, d, rt)
            xp = B.array_module(d, lod, hid)
        out = B.astype(d, rt, copy=False)
        if lod is not None:
            out = xp.maximum(out, lod)
        if hid is not None:
            out = xp.minimum(out, hid)
        ctx.save_for_backward(x, lo if isinstance(lo, Tensor) else None, hi if isinstance(hi, Tensor) else None)
        ctx.lo, ctx.hi = (None if isinstance(lo, Tensor) else lo), (None if isinstance(hi, Tensor) else hi)
        return wrap(out)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        x, lot, hit = ctx.saved_tensors
        lo = lot._data if lot is not None else ctx.lo
        hi = hit._data if hit is not None else ctx.hi
        d = x._data
        # (the bounds broadcast against x: the mask has the output's shape)
        inside = None
        if lo is not None:
            inside = d >= lo  # (no &=: d may be a Dask array, which has no out=)
        if hi is not None:
            inside = (d <= hi) if inside is None else inside & (d <= hi)
        dlo = dhi = None
        if lot is not None:
            m = d < lo
            if hi is not None:
                m = m & (B.asarray_any(lo) <= hi)
            dlo = wrap(m)
        if hit is not None:
            dhi = wrap(d > hi)
        return wrap(inside), dlo, dhi


def _bound(v: Any, d: Any, rt: np.dtype) -> Any:
    """A clamp bound for a non-NumPy ``d``: a Tensor's array cast to ``rt``, a Python number
    as it is (the standard's weak scalar), anything else as an array of ``d``'s library."""
    if v is None or isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, Tensor):
        return B.astype(v._data, rt, copy=False)
    return B.like(B.asarray(v), d, rt)


class ClampTensor(Clamp):
    """:class:`Clamp` with tensor bounds (PyTorch's node name)."""

    _node_name = "ClampBackward0"


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Clamp elementwise into ``[min, max]``; bounds are numbers or broadcastable tensors.

    Raises:
        RuntimeError: when both bounds are None.

    Derivative: ``grad_input = grad_output`` where ``min <= input <= max``, 0 elsewhere
    (tensor bounds get the gradient where they are the value taken).

    Args:
        input (Tensor): ``(*)``.
        min (number or Tensor, optional): the lower bound.
        max (number or Tensor, optional): the upper bound.
    Returns:
        Tensor: ``(*)`` (broadcast with tensor bounds).

    Example:
        >>> import dyngrad
        >>> dyngrad.clamp(dyngrad.tensor([-2.0, 0.5, 3.0]), min=-1, max=1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampTensor.apply(input, min, max)
    return Clamp.apply(input, min, max)


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """Elementwise ``max(input, min)``: :func:`clamp` with only a lower bound.

    Derivative: ``grad_input = grad_output`` where ``input >= min``, 0 elsewhere (the gradient
    passes at the bound, as PyTorch); a tensor ``min`` gets ``grad_output`` where ``input < min``.

    Args:
        input (Tensor): ``(*)``.
        min (number or Tensor): the lower bound; a tensor broadcasts with ``input``. The result
            dtype is PyTorch's promotion of ``input`` and ``min`` (an int tensor with a float
            bound gives a float result).
    Returns:
        Tensor: ``(*)``, the broadcast shape.
    Raises:
        RuntimeError: when ``min`` is None (PyTorch: TypeError), or a tensor ``min`` does not
            broadcast with ``input``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-2.0, 0.0, 3.0], requires_grad=True)
        >>> dyngrad.clamp_min(x, 0.0)
        tensor([0., 0., 3.], grad_fn=<ClampBackward1>)
        >>> dyngrad.clamp_min(x, 0.0).sum().backward()
        >>> x.grad
        tensor([0., 1., 1.])
    """
    return Clamp.apply(input, min, None)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """Elementwise ``min(input, max)``: :func:`clamp` with only an upper bound.

    Derivative: ``grad_input = grad_output`` where ``input <= max``, 0 elsewhere (the gradient
    passes at the bound, as PyTorch); a tensor ``max`` gets ``grad_output`` where ``input > max``.

    Args:
        input (Tensor): ``(*)``.
        max (number or Tensor): the upper bound; a tensor broadcasts with ``input``. The result
            dtype is PyTorch's promotion of ``input`` and ``max``.
    Returns:
        Tensor: ``(*)``, the broadcast shape.
    Raises:
        RuntimeError: when ``max`` is None (PyTorch: TypeError), or a tensor ``max`` does not
            broadcast with ``input``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-2.0, 0.0, 3.0], requires_grad=True)
        >>> dyngrad.clamp_max(x, 0.0)
        tensor([-2.,  0.,  0.], grad_fn=<ClampBackward1>)
        >>> dyngrad.clamp_max(x, 0.0).sum().backward()
        >>> x.grad
        tensor([1., 1., 0.])
    """
    return Clamp.apply(input, None, max)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """In-place :func:`clamp` into ``[min, max]``; returns ``input`` (``clip_`` is the same function).

    Derivative: as :func:`clamp`'s: ``grad_input = grad_output`` where ``min <= input <= max``,
    0 elsewhere.

    Args:
        input (Tensor): ``(*)``.
        min (number or Tensor, optional): the lower bound (broadcast to ``input``'s shape).
            Default: ``None``.
        max (number or Tensor, optional): the upper bound. Default: ``None``.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when both bounds are None; when the promoted dtype cannot be written back
            (an int ``input`` with a float bound); when a tensor bound would broadcast ``input``
            to a larger shape; when ``input`` is a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-2.0, 0.5, 3.0])
        >>> dyngrad.clamp_(x, min=-1, max=1) is x
        True
        >>> x
        tensor([-1.0000,  0.5000,  1.0000])
    """
    return inplace(clamp, input, min, max)


clip_ = clamp_


def exp_(input: Tensor) -> Tensor:
    """In-place :func:`exp`: overwrites ``input`` with ``e ** input`` and returns it.

    Derivative: as :func:`exp`'s, ``grad_input = grad_output * exp(input)``.

    Args:
        input (Tensor): ``(*)``, floating.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when the result's dtype cannot be written back into ``input`` (an integer
            ``input`` of a float-valued op), or ``input`` is a leaf that requires grad (outside
            ``no_grad``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> dyngrad.exp_(x) is x
        True
        >>> x
        tensor([1.0000, 2.7183])
    """
    return inplace(exp, input)


def log_(input: Tensor) -> Tensor:
    """In-place ``log``."""
    return inplace(log, input)


def sin_(input: Tensor) -> Tensor:
    """In-place ``sin``."""
    return inplace(sin, input)


def cos_(input: Tensor) -> Tensor:
    """In-place :func:`cos`."""
    return inplace(cos, input)


def tanh_(input: Tensor) -> Tensor:
    """In-place ``tanh``."""
    return inplace(tanh, input)


def sigmoid_(input: Tensor) -> Tensor:
    """In-place ``sigmoid``."""
    return inplace(sigmoid, input)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    refuse_bool("relu_", input, "relu")
    return inplace(relu, input)


def abs_(input: Tensor) -> Tensor:
    """In-place :func:`abs`: overwrites ``input`` with ``|input|`` and returns it.

    Derivative: as :func:`abs`'s, ``grad_input = grad_output * sign(input)``.

    Args:
        input (Tensor): ``(*)``, any numeric dtype but bool.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        NotImplementedError: when ``input`` is a bool tensor.
        RuntimeError: when ``input`` is a leaf that requires grad (outside ``no_grad``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-2, 3])
        >>> dyngrad.abs_(x) is x
        True
        >>> x
        tensor([2, 3])
    """
    return inplace(abs, input)


def sqrt_(input: Tensor) -> Tensor:
    """In-place ``sqrt``."""
    return inplace(sqrt, input)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
sin.__doc__ = unary_doc(
    "sin", "Elementwise sine (radians).",
    "``grad_input = grad_output * cos(input)`` (derivatives.yaml ``sin``).",
    "[0.0, 1.5707964]", "tensor([0., 1.])", "tensor([ 1.0000e+00, -4.3711e-08])")
sqrt.__doc__ = unary_doc(
    "sqrt", "Elementwise square root (``nan`` for negative inputs, as PyTorch).",
    "``grad_input = grad_output / (2 * output)`` (derivatives.yaml ``sqrt``; ``inf`` at 0).",
    "[4.0, 0.25]", "tensor([2.0000, 0.5000])", "tensor([0.2500, 1.0000])",
    not_tensor="AttributeError")
log_.__doc__ = inplace_doc("log", "[1.0, 4.0]", "tensor([0.0000, 1.3863])")
sin_.__doc__ = inplace_doc("sin", "[0.0, 1.5707964]", "tensor([0., 1.])")
tanh_.__doc__ = inplace_doc("tanh", "[0.0, 1.0]", "tensor([0.0000, 0.7616])")
sigmoid_.__doc__ = inplace_doc("sigmoid", "[0.0, 2.0]", "tensor([0.5000, 0.8808])")
relu_.__doc__ = inplace_doc("relu", "[-1, 2]", "tensor([0, 2])")
sqrt_.__doc__ = inplace_doc("sqrt", "[4.0, 0.25]", "tensor([2.0000, 0.5000])")
_ANY_DTYPE = "any dtype (integer and bool inputs compute in the default float dtype)"
_FLOAT_RESULT = "``(*)``, ``input``'s shape; ``input``'s floating dtype"
exp.__doc__ = unary_doc(
    "exp", "Elementwise ``e ** input``.",
    "``grad_input = grad_output * exp(input) = grad_output * output`` (the output is what "
    "backward saves).",
    "[0.0, 1.0]", "tensor([1.0000, 2.7183])", "tensor([1.0000, 2.7183])",
    input="floating (an integer input gives the default float dtype)",
    returns="``(*)``, ``input``'s shape",
    not_tensor="AttributeError")
cos.__doc__ = unary_doc(
    "cos", "Elementwise cosine of ``input`` in radians.",
    "``grad_input = -grad_output * sin(input)`` (source: PyTorch's derivatives.yaml).",
    "[0.0, 1.0]", "tensor([1.0000, 0.5403])", "tensor([-0.0000, -0.8415])",
    input=_ANY_DTYPE, returns=_FLOAT_RESULT)
cos_.__doc__ = inplace_doc("cos", "[0.0, 1.0]", "tensor([1.0000, 0.5403])",
    raises=("        RuntimeError: when the result's dtype cannot be written back into ``input`` (an\n"
            '            integer ``input`` of a float-valued op), or ``input`` is a leaf that requires grad\n'
            "            (outside ``no_grad``).\n"))
