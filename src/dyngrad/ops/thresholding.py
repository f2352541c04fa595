"""More activations (re-exported through :mod:`dyngrad.ops.activation`): ``threshold``,
``hardshrink``, ``softshrink``, ``prelu``, ``rrelu``, ``softsign``, ``logsigmoid``,
``tanhshrink``, ``glu``; shapes ``(*) -> (*)`` except
``glu`` (``(*, 2n, *) -> (*, n, *)``) and ``prelu``'s weight ``(C,)`` or ``(1,)``.

Derivatives follow PyTorch's ``derivatives.yaml`` (the values at the kinks included);
backward is written with dyngrad ops, so each is differentiable twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Elementwise, Op
from ._batching import dims_at, front, only_first_batched, pointwise
from ._docs import inplace_doc, unary_doc
from ._util import float_data, refuse_bool, require_floating, wrap
from ._util import inplace as _inplace
from .indexing import narrow
from .pointwise import where
from .splitting import cat

__all__ = [
    "threshold", "threshold_", "hardshrink", "softshrink", "prelu", "rrelu", "rrelu_", "glu",
    "softsign", "logsigmoid", "tanhshrink",
]
TENSOR_METHODS = {"hardshrink", "prelu"}


def _float(x: Tensor, op: str) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return float_data(x)


def _xp(*d: Any) -> Any:
    return np if type(d[0]) is np.ndarray and len(d) == 1 else B.array_module(*d)


def _same(out: Any, d: Any) -> Any:
    """``out`` in ``d``'s dtype (a NumPy scalar operand may have promoted it)."""
    if type(out) is np.ndarray:
        return out.astype(d.dtype, copy=False)
    return B.astype(out, B.np_dtype_of(d), copy=False)


class Threshold(Elementwise):
    """``out = x`` where ``x > threshold`` else ``value``; ``grad_x = grad`` where
    ``x > threshold``, else 0."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, threshold: float, value: float) -> Tensor:
        d = x._data
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        if type(d) is np.ndarray:
            return wrap(np.where(d > threshold, d, B.asarray_any(value, dtype=d.dtype)))
        return wrap(B.array_module(d).where(d > threshold, d, B.full_like(d, value)))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return wrap(x._data > ctx.threshold)


class Shrink(Elementwise):
    """hardshrink: ``out = x`` where ``|x| > lambd`` else 0; softshrink: ``out = x - lambd *
    sign(x)`` where ``|x| > lambd`` else 0. Both: ``grad_x = grad`` where ``|x| > lambd``
    (0 on ``[-lambd, lambd]``)."""

    _node_name = "HardshrinkBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, lambd: float, soft: bool) -> Tensor:
        d = float_data(x)
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xp = _xp(d)
        keep = xp.abs(d) > lambd
        val = d - lambd * xp.sign(d) if soft else d
        return wrap(_same(xp.where(keep, val, 0), d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = x._data
        return wrap(_xp(d).abs(d) > ctx.lambd)


class Softshrink(Shrink):
    """Shrink with ``soft=True`` (see :class:`Shrink`); PyTorch's node name."""



class Prelu(Op):
    """``out = x`` where ``x > 0`` else ``w * x`` (``w`` broadcast along the channel dim).
    ``grad_x = grad * (1 if x > 0 else w)``, ``grad_w = grad * (0 if x > 0 else x)`` (summed
    to ``w``'s shape by the engine)."""

    _node_name = "PreluKernelBackward0"
    vmap = pointwise  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor) -> Tensor:
        d = x._data
        ctx.save_for_backward(x, w)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(_same(_xp(d, w._data).where(d > 0, d, w._data * d), d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        pos = x > 0
        n = ctx.needs_input_grad
        gx = g * where(pos, 1.0, w) if n[0] else None
        gw = g * where(pos, 0.0, x) if n[1] else None
        return gx, gw

    # hand-written: the weight broadcasts over channels; the jvp applies backward's rule per tangent
    @staticmethod
    def jvp(ctx: Any, ux: Any, uw: Any) -> Any:
        """Forward mode: ``t = ux * (1 if x > 0 else w) + uw * (0 if x > 0 else x)``
        (elementwise after broadcasting, so each term is backward's rule applied to that tangent)."""
        ts = [Prelu.backward(ctx, u)[i] for i, u in enumerate((ux, uw)) if u is not None]
        return sum(ts[1:], ts[0])


class RreluWithNoise(Op):
    """``out = x`` where ``x > 0`` else ``slope * x`` with a fixed per-element ``slope``
    (random in training, ``(lower + upper) / 2`` in eval); ``grad_x = grad * (1 or slope)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, slope: np.ndarray) -> Tensor:
        d = float_data(x)
        if type(d) is np.ndarray:
            w = np.where(d > 0, 1.0, slope).astype(d.dtype, copy=False)
        else:  # (a NumPy slope array: a constant of d's library)
            sl = B.like(slope, d, B.np_dtype_of(d)) if isinstance(slope, np.ndarray) else slope
            if not hasattr(sl, "shape"):
                sl = B.full_like(d, float(sl))
            w = _xp(d).where(d > 0, 1.0, sl)
        ctx.w = w
        return wrap(d * w)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, slope: Any) -> Any:
        """Batching rule: the slopes are a constant array (rrelu in eval mode: 0-d; training
        draws its slopes with ``rand_like`` and does not come here) or of the per-example
        shape: batch dim to the front so they broadcast right-aligned over every example."""
        if not only_first_batched(in_dims):
            return NotImplemented
        if np.ndim(slope) == 0:
            return RreluWithNoise.apply(x, slope), in_dims[0]
        return RreluWithNoise.apply(front(x, in_dims[0]), slope), 0

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g * wrap(ctx.w), None

    # hand-written: the noise is drawn in forward and kept as an array
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = u * (1 if x > 0 else slope)``."""
        return u * wrap(ctx.w)


class Softsign(Elementwise):
    """``out = x / (1 + |x|)``; ``grad_x = grad / (1 + |x|)**2``. Named ``DivBackward0``
    like PyTorch's composite (its last op is a division)."""

    _node_name = "DivBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "softsign")
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(d / (1 + _xp(d).abs(d)))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        den = x.abs() + 1
        return 1 / (den * den)


class LogSigmoid(Elementwise):
    """``out = log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))`` (stable);
    ``grad_x = grad * sigmoid(-x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "logsigmoid")
        ctx.save_for_backward(x)
        xp = _xp(d)
        return wrap(xp.minimum(d, 0) - xp.log1p(xp.exp(-xp.abs(d))))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return (-x).sigmoid()


class Tanhshrink(Elementwise):
    """``out = x - tanh(x)``; ``grad_x = grad * tanh(x)**2``. Named ``SubBackward0`` like
    PyTorch's composite (its last op is a subtraction)."""

    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = _float(x, "tanhshrink")
        ctx.save_for_backward(x)
        return wrap(d - _xp(d).tanh(d))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        t = x.tanh()
        return t * t


class Glu(Op):
    """``out = a * sigmoid(b)`` with ``a, b`` the halves of ``x`` along ``dim``;
    ``grad_x = cat(grad * sigmoid(b), grad * a * sigmoid(b) * (1 - sigmoid(b)))`` along ``dim``
    (Dauphin et al. 2017)."""

    vmap = dims_at(1)  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        d = float_data(x)
        xp = _xp(d)
        if xp is np:
            a, b = np.split(d, 2, axis=dim)
        else:  # (no split in the standard: two slices)
            h = d.shape[dim] // 2
            lead = (slice(None),) * (dim % d.ndim)
            a, b = d[lead + (slice(0, h), ...)], d[lead + (slice(h, 2 * h), ...)]
        ctx.save_for_backward(x)
        ctx.dim = dim
        with np.errstate(over="ignore"):
            return wrap(_same(a / (1 + xp.exp(-b)), d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        h = x.shape[ctx.dim] // 2
        a, s = narrow(x, ctx.dim, 0, h), narrow(x, ctx.dim, h, h).sigmoid()
        ga = g * s
        return cat([ga, ga * a * (1 - s)], ctx.dim), None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = ua * s + a * s (1 - s) * ub`` for ``x = [a, b]``,
        ``u = [ua, ub]`` split along ``dim`` and ``s = sigmoid(b)``."""
        (x,) = ctx.saved_tensors
        h = x.shape[ctx.dim] // 2
        a, s = narrow(x, ctx.dim, 0, h), narrow(x, ctx.dim, h, h).sigmoid()
        return narrow(u, ctx.dim, 0, h) * s + a * s * (1 - s) * narrow(u, ctx.dim, h, h)


# ---------------------------------------------------------------- public functions
def _threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return Threshold.apply(input, threshold, value)


def _rrelu(input: Tensor, slope: np.ndarray) -> Tensor:
    return RreluWithNoise.apply(input, slope)


def _rrelu_train(input: Tensor, slope: Tensor) -> Tensor:
    return where(input > 0, input, input * slope)


_threshold.__name__, _rrelu.__name__, _rrelu_train.__name__ = "threshold", "rrelu", "rrelu"  # in-place messages


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``input`` where ``input > threshold``, else ``value``."""
    refuse_bool("threshold", input, exc=NotImplementedError)
    if inplace:
        return _inplace(_threshold, input, threshold, value)
    return Threshold.apply(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place :func:`threshold`."""
    refuse_bool("threshold_", input, "threshold", NotImplementedError)
    return _inplace(_threshold, input, threshold, value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0.

    Raises:
        TypeError: a ``lambd`` that is not a number (``hardshrink(): argument 'lambd'
            (position 2) must be Number, not str``), as PyTorch.
    """
    require_floating("hardshrink", input)
    if not isinstance(lambd, (int, float, np.integer, np.floating)) or isinstance(lambd, bool):
        raise TypeError(f"hardshrink(): argument 'lambd' (position 2) must be Number, not {type(lambd).__name__}")
    return Shrink.apply(input, float(lambd), False)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Shrink toward 0 by ``lambd``: ``input - lambd * sign(input)`` where ``|input| > lambd``.

    Raises:
        RuntimeError: when ``lambd < 0``.
    """
    require_floating("softshrink", input)
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found {lambd}")
    return Softshrink.apply(input, float(lambd), True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Leaky ReLU with a learned slope: one per channel (dim 1) or a single shared one.

    Derivative: ``grad_input = grad_output * (1 if input > 0 else weight)``, ``grad_weight =
    grad_output * (0 if input > 0 else input)`` summed over all dims but the channel dim
    (derivatives.yaml ``_prelu_kernel_backward``).

    Args:
        input (Tensor): ``(N, C, *)``, floating; a 1-d or 0-d input has one channel.
        weight (Tensor): ``(C,)`` or ``(1,)``, the slopes below 0 (one shared by all channels
            when it has one element).
    Returns:
        Tensor: ``(N, C, *)``, ``input``'s shape.
    Raises:
        RuntimeError: when ``weight.numel()`` is neither 1 nor the channel count, or
            ``weight`` has more than one dim.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[-2.0, 3.0], [-1.0, -4.0]], requires_grad=True)
        >>> w = dyngrad.tensor([0.25, 0.5], requires_grad=True)
        >>> y = dyngrad.prelu(x, w)
        >>> y.detach()
        tensor([[-0.5000,  3.0000],
                [-0.2500, -2.0000]])
        >>> y.sum().backward()
        >>> w.grad
        tensor([-3., -4.])
    """
    nw = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1 or nw not in (1, channels):
        raise RuntimeError(
            "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{nw} and channel size = {channels}."
        )
    if nw == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return Prelu.apply(input, w)


def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False
) -> Tensor:
    """Randomized leaky ReLU: negative inputs are scaled by ``U(lower, upper)`` slopes drawn
    from the default Generator in training, by ``(lower + upper) / 2`` in eval.

    In training the slopes come from ``rand_like`` (a random op, so vmap's ``randomness``
    modes apply) and the result is ``where(x > 0, x, x * slope)``, whose gradient is
    ``grad * (1 or slope)``."""
    require_floating("rrelu", input)
    if lower > upper:
        raise RuntimeError(f"rrelu: Lower bound should be less than or equal to the upper bound (got lower={lower}, "
                           f"upper={upper})")
    if training:
        from .random import rand_like  # deferred: the random family is built on these ops

        slope = rand_like(input) * (upper - lower) + lower
        if inplace:
            return _inplace(_rrelu_train, input, slope)
        return _rrelu_train(input, slope)
    slope = B.asarray_any((lower + upper) / 2.0)
    if inplace:
        return _inplace(_rrelu, input, slope)
    return RreluWithNoise.apply(input, slope)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place :func:`rrelu`."""
    require_floating("rrelu_", input)
    return rrelu(input, lower, upper, training, inplace=True)


def softsign(input: Tensor) -> Tensor:
    """``input / (1 + |input|)``."""
    refuse_bool("softsign", input, exc=NotImplementedError)
    return Softsign.apply(input)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(input))`` computed without overflow."""
    require_floating("logsigmoid", input)
    return LogSigmoid.apply(input)


def tanhshrink(input: Tensor) -> Tensor:
    """``input - tanh(input)``."""
    refuse_bool("tanhshrink", input)
    return Tanhshrink.apply(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` where ``a, b`` are the halves of ``input``
    along ``dim`` (Dauphin et al. 2017). ``grad_a = grad * sigmoid(b)``,
    ``grad_b = grad * a * sigmoid(b) * (1 - sigmoid(b))``.

    Args:
        input: ``(*, 2M, *)``: even size along ``dim``.
        dim: the dimension to halve.

    Returns:
        ``(*, M, *)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.functional.glu(dyngrad.tensor([1.0, 2.0, 0.0, 0.0])).tolist()
        [0.5, 1.0]

    Raises:
        RuntimeError: when ``input.shape[dim]`` is odd (or ``input`` is 0-d).
    """
    require_floating("glu", input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim if -input.ndim <= dim < input.ndim else dim
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    return Glu.apply(input, d)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
_INT_NOTE = "floating (an integer input computes in the default float dtype)"
threshold.__doc__ = unary_doc(
    "threshold", "``input`` where ``input > threshold``, else ``value``.",
    "``grad_input = grad_output`` where ``input > threshold``, else 0 (derivatives.yaml "
    "``threshold_backward``).",
    "[-1.0, 0.5, 2.0]", "tensor([-9., -9.,  2.])", "tensor([0., 0., 1.])",
    input="any dtype", returns="``(*)``, ``input``'s shape and dtype", call=", 0.5, -9.0",
    args="        threshold (float): the value to exceed.\n"
         "        value (float): what replaces the elements ``<= threshold``.\n"
         "        inplace (bool): overwrite ``input`` (as ``threshold_``). Default: ``False``.\n")
hardshrink.__doc__ = unary_doc(
    "hardshrink", "``input`` where ``|input| > lambd``, else 0.",
    "``grad_input = grad_output`` where ``|input| > lambd``, else 0 (derivatives.yaml "
    "``hardshrink_backward``).",
    "[-1.0, 0.5, 2.0]", "tensor([-1.,  0.,  2.])", "tensor([1., 0., 1.])",
    input=_INT_NOTE + "; PyTorch refuses it",
    args="        lambd (float): the half-width of the zeroed band. Default: ``0.5``.\n",
    not_tensor="AttributeError",
    raises="        ValueError: a ``lambd`` that is not a number (a str; PyTorch: TypeError).\n")
softshrink.__doc__ = unary_doc(
    "softshrink", "Shrink toward 0 by ``lambd``: ``input - lambd * sign(input)`` where "
    "``|input| > lambd``, else 0.",
    "``grad_input = grad_output`` where ``|input| > lambd``, else 0 (derivatives.yaml "
    "``softshrink_backward``).",
    "[-1.0, 0.25, 2.0]", "tensor([-0.5000,  0.0000,  1.5000])", "tensor([1., 0., 1.])",
    input=_INT_NOTE,
    args="        lambd (float): the shrinkage, ``>= 0``. Default: ``0.5``.\n",
    raises="        RuntimeError: when ``lambd < 0``.\n",
    not_tensor="AttributeError")
rrelu.__doc__ = unary_doc(
    "rrelu", "Randomized leaky ReLU (Xu et al. 2015): negative inputs are scaled by slopes drawn "
    "from ``U(lower, upper)`` (the default Generator) in training, by ``(lower + upper) / 2`` in "
    "eval.",
    "``grad_input = grad_output`` where ``input > 0``, else ``grad_output * slope`` (the slope "
    "drawn, or the mean in eval; derivatives.yaml ``rrelu_with_noise_backward``). In training "
    "the slopes come from ``rand_like``, so vmap's ``randomness`` modes apply.",
    "[-2.0, 3.0]", "tensor([-0.4583,  3.0000])", "tensor([0.2292, 1.0000])",
    input=_INT_NOTE,
    args="        lower (float): the slopes' lower bound. Default: ``1/8``.\n"
         "        upper (float): the slopes' upper bound, ``>= lower``. Default: ``1/3``.\n"
         "        training (bool): draw the slopes (else use their mean). Default: ``False``.\n"
         "        inplace (bool): overwrite ``input`` (as ``rrelu_``). Default: ``False``.\n",
    raises="        RuntimeError: when ``lower > upper``.\n",
    not_tensor="AttributeError")
softsign.__doc__ = unary_doc(
    "softsign", "``input / (1 + |input|)``.",
    "``grad_input = grad_output / (1 + |input|) ** 2`` (the quotient rule on PyTorch's "
    "composite ``input / (1 + input.abs())``).",
    "[-1.0, 0.0, 3.0]", "tensor([-0.5000,  0.0000,  0.7500])", "tensor([0.2500, 1.0000, 0.0625])",
    input=_INT_NOTE)
logsigmoid.__doc__ = unary_doc(
    "logsigmoid", "``log(sigmoid(input))``, computed without overflow as ``min(input, 0) - "
    "log1p(exp(-|input|))``.",
    "``grad_input = grad_output * sigmoid(-input)`` (derivatives.yaml ``log_sigmoid_backward``).",
    "[-100.0, 0.0, 2.0]", "tensor([-100.0000,   -0.6931,   -0.1269])", "tensor([1.0000, 0.5000, 0.1192])",
    input=_INT_NOTE + "; PyTorch refuses it")
tanhshrink.__doc__ = unary_doc(
    "tanhshrink", "``input - tanh(input)``.",
    "``grad_input = grad_output * tanh(input) ** 2`` (``1 - (1 - tanh ** 2)``, PyTorch's "
    "composite).",
    "[0.0, 1.0]", "tensor([0.0000, 0.2384])", "tensor([0.0000, 0.5800])",
    input=_INT_NOTE)
threshold_.__doc__ = inplace_doc(
    "threshold", "[-1.0, 2.0]", "tensor([-9.,  2.])", call=", 0.5, -9.0",
    args="        threshold (float): the value to exceed.\n"
         "        value (float): what replaces the elements ``<= threshold``.\n")
rrelu_.__doc__ = inplace_doc(
    "rrelu", "[-2.0, 3.0]", "tensor([-0.4583,  3.0000])",
    args="        lower, upper (float): the slopes' bounds. Defaults: ``1/8``, ``1/3``.\n"
         "        training (bool): draw the slopes (else use their mean). Default: ``False``.\n",
    raises="        RuntimeError: when ``lower > upper``.\n")
