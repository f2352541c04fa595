"""Rounding, sign, ``nan_to_num`` and the float predicates: ``input (*) -> output (*)``.

Rounding ops and ``sign`` keep the input dtype (integer inputs are returned unchanged, as
PyTorch) and have a zero gradient (PyTorch: ``zeros_like(grad)``); ``frac`` passes the
gradient through; ``nan_to_num`` passes it where the input is finite. ``isnan``, ``isinf``,
``isfinite``, ``isposinf``, ``isneginf`` return bool tensors and are not differentiable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._bases import Elementwise, Op
from ._batching import unary
from ._docs import inplace_doc, unary_doc
from ._util import inplace, wrap, is_wrapper
from .. import _backend as B

__all__ = [
    "sign", "floor", "ceil", "round", "trunc", "fix", "frac", "nan_to_num",
    "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "sign_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "nan_to_num_",
]
TENSOR_METHODS = set(__all__)


def _zeros(g: Tensor) -> Tensor:
    return Tensor._make(B.zeros_like(g._data))


def _copy(d: Any) -> Any:
    return d.copy() if type(d) is np.ndarray else B.copy(d)


def _xp(d: Any) -> Any:
    return np if type(d) is np.ndarray else B.array_module(d)


class _ZeroDerivative(Op):
    """Base of the piecewise-constant ops (sign, floor, ceil, trunc): each subclass
    defines ``forward``; the derivative is zero almost everywhere, so ``grad_x = 0`` and the
    forward-mode tangent is ``0`` (``u * 0``, kept on the tangent's graph)."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return _zeros(g)

    # hand-written: a zero (identity) derivative: exact zeros, not grad * 0 (which keeps nan)
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        return u * 0


class Sign(_ZeroDerivative):
    """``out = sign(x)`` in {-1, 0, 1} (0 for ``nan``, as PyTorch); ``grad_x = 0``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        k = B.kind(d)
        if k == "b":
            return wrap(_copy(d))
        xp = _xp(d)
        if k == "f":  # PyTorch: sign(nan) = 0
            if xp is np:
                return wrap(np.where(np.isnan(d), 0, np.sign(d)).astype(d.dtype, copy=False))
            return wrap(xp.where(xp.isnan(d), 0.0, xp.sign(d)))
        return wrap(xp.sign(d))


def _refuse_bool(d: np.ndarray, kernel: str) -> None:
    """PyTorch has no bool kernel for the rounding functions (NotImplementedError)."""
    if B.kind(d) == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


class Floor(_ZeroDerivative):
    """``out = floor(x)``; ``grad_x = 0``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        _refuse_bool(d, "floor_vml_cpu")
        return wrap(_xp(d).floor(d) if B.kind(d) == "f" else _copy(d))


class Ceil(_ZeroDerivative):
    """``out = ceil(x)``; ``grad_x = 0``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        _refuse_bool(d, "ceil_vml_cpu")
        return wrap(_xp(d).ceil(d) if B.kind(d) == "f" else _copy(d))


class Trunc(_ZeroDerivative):
    """``out = trunc(x)`` (round toward zero); ``grad_x = 0``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        _refuse_bool(d, "trunc_vml_cpu")
        return wrap(_xp(d).trunc(d) if B.kind(d) == "f" else _copy(d))


class Round(Op):
    """``out = round(x * 10**d) / 10**d`` with halves to even (``d = decimals``);
    ``grad_x = 0``."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, decimals: int = 0) -> Tensor:
        d = x._data
        _refuse_bool(d, "round_vml_cpu")
        if B.kind(d) != "f":
            if decimals:
                raise NotImplementedError(f'"round_cpu" (decimals={decimals}) not implemented for {x.dtype.name}')
            return wrap(_copy(d))
        # (the standard's ``round`` rounds halves to even, as NumPy's ``rint``)
        rint = np.rint if type(d) is np.ndarray else B.array_module(d).round
        if decimals == 0:
            return wrap(rint(d))
        nd = B.np_dtype_of(d)
        with np.errstate(all="ignore"):
            if decimals > 0:
                f = 10.0**decimals
                return wrap(B.astype(rint(d * f) / f, nd, copy=False))
            f = 10.0 ** (-decimals)
            return wrap(B.astype(rint(d / f) * f, nd, copy=False))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return _zeros(g), None

    # hand-written: a zero (identity) derivative: exact zeros, not grad * 0 (which keeps nan)
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = 0``."""
        return u * 0


class RoundDecimals(Round):
    """:class:`Round` with ``decimals != 0`` (PyTorch's node name)."""

    _node_name = "RoundBackward1"


class Frac(Op):
    """``out = x - trunc(x)`` (sign of ``x``); ``grad_x = grad``."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = x._data
        if B.kind(d) != "f":
            raise NotImplementedError(f'"frac_cpu" not implemented for {x.dtype.name}: frac needs a floating point tensor')
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return wrap(d - _xp(d).trunc(d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return g

    # hand-written: a zero (identity) derivative: exact zeros, not grad * 0 (which keeps nan)
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        """Forward mode: ``t = u``."""
        return u


class NanToNum(Elementwise):
    """``out = x`` with ``nan``, ``+inf``, ``-inf`` replaced; ``grad_x = grad * isfinite(x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
        d = x._data
        ctx.save_for_backward(x)
        if B.kind(d) != "f":
            return wrap(_copy(d))
        xp = _xp(d)
        if xp is np:
            return wrap(np.nan_to_num(d, copy=True, nan=nan, posinf=posinf, neginf=neginf))
        fi = np.finfo(B.np_dtype_of(d))  # (NumPy's and PyTorch's defaults: the largest finite values)
        hi = float(fi.max) if posinf is None else float(posinf)
        lo = float(fi.min) if neginf is None else float(neginf)
        out = xp.where(xp.isnan(d), float(nan), d)
        return wrap(xp.where(d == math.inf, hi, xp.where(d == -math.inf, lo, out)))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = x._data
        return wrap(_xp(d).isfinite(d))


# ---------------------------------------------------------------- public functions
def sign(input: Tensor) -> Tensor:
    """Elementwise sign: -1, 0 or 1 in the input dtype (bool stays bool, ``nan`` gives 0).

    Derivative: ``grad_input = 0`` (piecewise constant; PyTorch's derivatives.yaml
    ``sign: zeros_like(grad)``).

    Args:
        input (Tensor): ``(*)``, any dtype.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.sign(dyngrad.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    return Sign.apply(input)


def floor(input: Tensor) -> Tensor:
    """Elementwise floor: the largest integer value ``<= input``."""
    return Floor.apply(input)


def ceil(input: Tensor) -> Tensor:
    """Elementwise ceiling: the smallest integer value ``>= input``."""
    return Ceil.apply(input)


def trunc(input: Tensor) -> Tensor:
    """Elementwise rounding toward zero (the integer part; ``fix`` is the same function)."""
    return Trunc.apply(input)


fix = trunc


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    """Round half to even, to ``decimals`` decimal places (negative: to tens, hundreds...).

    Derivative: ``grad_input = 0`` (piecewise constant; derivatives.yaml ``round:
    zeros_like(grad)``).

    Args:
        input (Tensor): ``(*)``, floating (an integer tensor is returned as a copy when
            ``decimals == 0``).
        decimals (int): keyword only; the number of decimal places. Default: ``0``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        NotImplementedError: ``decimals != 0`` on an integer tensor (as PyTorch).

    Example:
        >>> import dyngrad
        >>> dyngrad.round(dyngrad.tensor([0.5, 1.5, 2.567]))
        tensor([0., 2., 3.])
        >>> dyngrad.round(dyngrad.tensor([1.25, 1250.0]), decimals=-2)
        tensor([   0., 1200.])
    """
    if decimals == 0:
        return Round.apply(input)
    return RoundDecimals.apply(input, int(decimals))


def frac(input: Tensor) -> Tensor:
    """Fractional part ``input - trunc(input)``, with the sign of ``input`` (``nan`` for ``+-inf``)."""
    return Frac.apply(input)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """Replace ``nan`` by ``nan``, ``+inf`` by ``posinf`` and ``-inf`` by ``neginf``
    (defaults: 0 and the dtype's largest/lowest finite values).

    Derivative: ``grad_input = grad_output * isfinite(input)`` (derivatives.yaml
    ``nan_to_num``): no gradient reaches the replaced elements.

    Args:
        input (Tensor): ``(*)``; integer and bool tensors are returned as a copy.
        nan (float): the value for ``nan``. Default: ``0.0``.
        posinf (float, optional): the value for ``+inf``. Default: ``None`` (the dtype's
            largest finite value).
        neginf (float, optional): the value for ``-inf``. Default: ``None`` (the dtype's
            lowest finite value).
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).
        TypeError: a ``nan``, ``posinf`` or ``neginf`` that is not a number.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([float("nan"), float("inf"), 2.0], requires_grad=True)
        >>> y = dyngrad.nan_to_num(x, posinf=9.0)
        >>> y
        tensor([0., 9., 2.], grad_fn=<NanToNumBackward0>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([0., 0., 1.])
    """
    return NanToNum.apply(input, nan, posinf, neginf)


_PREDICATES = {"isnan": (np.isnan, False), "isinf": (np.isinf, False), "isfinite": (np.isfinite, True),
               "isposinf": (np.isposinf, False), "isneginf": (np.isneginf, False)}


def _predicate(which: str, d: np.ndarray) -> np.ndarray:
    fn, non_float = _PREDICATES[which]
    if B.kind(d) != "f":
        return np.full(d.shape, non_float) if type(d) is np.ndarray else B.full_like(d, non_float, dtype=np.bool_)
    xp = _xp(d)
    if xp is np:
        return fn(d)
    if which in ("isposinf", "isneginf"):  # (not in the standard)
        return d == (math.inf if which == "isposinf" else -math.inf)
    return getattr(xp, which)(d)


class FloatPredicate(Op):
    """``out = isnan(x)`` (``which`` names the predicate: isnan, isinf, isfinite, isposinf,
    isneginf), a bool tensor; not differentiable. The public functions compute without a
    graph node; this Function carries batched inputs inside vmap to its batching rule."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, which: str) -> Tensor:
        out = wrap(_predicate(which, x._data))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return None, None

    # hand-written: integer/bool output: no tangent
    @staticmethod
    def jvp(ctx: Any, *_: Any) -> None:
        """Forward mode: a bool result carries no tangent."""
        return None


def _float_predicate(input: Tensor, which: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{which}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if is_wrapper(input):  # inside vmap: its values are batched
        return FloatPredicate.apply(input, which)
    return wrap(_predicate(which, input._data))


def isnan(input: Tensor) -> Tensor:
    """Bool tensor, True where ``input`` is ``nan`` (never for integer dtypes).

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (an integer or bool tensor is never ``nan`` or
            infinite).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isnan(dyngrad.tensor([1.0, float('nan'), float('inf')]))
        tensor([False,  True, False])
    """
    return _float_predicate(input, "isnan")


def isinf(input: Tensor) -> Tensor:
    """Bool tensor, True where ``input`` is ``+inf`` or ``-inf``.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (an integer or bool tensor is never ``nan`` or
            infinite).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isinf(dyngrad.tensor([1.0, float('-inf'), float('inf')]))
        tensor([False,  True,  True])
    """
    return _float_predicate(input, "isinf")


def isfinite(input: Tensor) -> Tensor:
    """Bool tensor, True where ``input`` is neither infinite nor ``nan``.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (an integer or bool tensor is never ``nan`` or
            infinite).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isfinite(dyngrad.tensor([1.0, float('nan'), float('inf')]))
        tensor([ True, False, False])
    """
    return _float_predicate(input, "isfinite")


def isposinf(input: Tensor) -> Tensor:
    """Bool tensor, True where ``input`` is ``+inf``.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (an integer or bool tensor is never ``nan`` or
            infinite).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isposinf(dyngrad.tensor([1.0, float('-inf'), float('inf')]))
        tensor([False, False,  True])
    """
    return _float_predicate(input, "isposinf")


def isneginf(input: Tensor) -> Tensor:
    """Bool tensor, True where ``input`` is ``-inf``.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (an integer or bool tensor is never ``nan`` or
            infinite).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isneginf(dyngrad.tensor([1.0, float('-inf'), float('inf')]))
        tensor([False,  True, False])
    """
    return _float_predicate(input, "isneginf")


# ---------------------------------------------------------------- in-place forms
def sign_(input: Tensor) -> Tensor:
    """In-place :func:`sign`."""
    return inplace(sign, input)


def floor_(input: Tensor) -> Tensor:
    """In-place :func:`floor`."""
    return inplace(floor, input)


def ceil_(input: Tensor) -> Tensor:
    """In-place :func:`ceil`."""
    return inplace(ceil, input)


def trunc_(input: Tensor) -> Tensor:
    """In-place :func:`trunc`."""
    return inplace(trunc, input)


fix_ = trunc_


def round_(input: Tensor, *, decimals: int = 0) -> Tensor:
    """In-place :func:`round`."""
    return inplace(round, input, decimals=decimals)


def frac_(input: Tensor) -> Tensor:
    """In-place :func:`frac`."""
    return inplace(frac, input)


def nan_to_num_(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`."""
    return inplace(nan_to_num, input, nan, posinf, neginf)


sign_.__doc__ = inplace_doc("sign", "[-2.0, 0.0, 3.0]", "tensor([-1.,  0.,  1.])")
trunc_.__doc__ = inplace_doc("trunc", "[-2.5, 1.5]", "tensor([-2.,  1.])")
round_.__doc__ = inplace_doc("round", "[0.5, 1.5, 2.567]", "tensor([0.5000, 1.5000, 2.5700])", call=", decimals=2",
                             args="        decimals (int): keyword only, as :func:`dyngrad.round`. Default: ``0``.\n")
nan_to_num_.__doc__ = inplace_doc(
    "nan_to_num", "[float('nan'), float('-inf'), 2.0]", "tensor([ 0., -9.,  2.])", call=", neginf=-9.0",
    args="        nan, posinf, neginf (float, optional): the replacements, as :func:`dyngrad.nan_to_num`.\n"
         "            Defaults: ``0.0``, ``None``, ``None``.\n")
_FLOAT_OR_INT = "floating or integer (integers are returned as a copy)"
_SAME_DTYPE = "``(*)``, ``input``'s shape and dtype"
_NO_BOOL = "        NotImplementedError: when ``input`` is a bool tensor (as PyTorch).\n"
floor.__doc__ = unary_doc(
    "floor", "Elementwise floor: the largest integer value ``<= input``.",
    "``grad_input = 0`` (piecewise constant; PyTorch's derivatives.yaml ``floor: "
    "zeros_like(grad)``).",
    "[-1.5, 0.5, 2.0]", "tensor([-2.,  0.,  2.])", "tensor([0., 0., 0.])",
    input=_FLOAT_OR_INT, returns=_SAME_DTYPE,
    raises=_NO_BOOL,
    not_tensor="AttributeError")
ceil.__doc__ = unary_doc(
    "ceil", "Elementwise ceiling: the smallest integer value ``>= input``.",
    "``grad_input = 0`` (piecewise constant; PyTorch's derivatives.yaml ``ceil: "
    "zeros_like(grad)``).",
    "[-1.5, 0.5, 2.0]", "tensor([-1.,  1.,  2.])", "tensor([0., 0., 0.])",
    input=_FLOAT_OR_INT, returns=_SAME_DTYPE,
    raises=_NO_BOOL,
    not_tensor="AttributeError")
trunc.__doc__ = unary_doc(
    "trunc", "Elementwise rounding toward zero (the integer part; ``fix`` is the same function).",
    "``grad_input = 0`` (piecewise constant; PyTorch's derivatives.yaml ``trunc: "
    "zeros_like(grad)``).",
    "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])", "tensor([0., 0., 0.])",
    input=_FLOAT_OR_INT, returns=_SAME_DTYPE,
    raises=_NO_BOOL,
    not_tensor="AttributeError")
frac.__doc__ = unary_doc(
    "frac", "Fractional part ``input - trunc(input)``, with the sign of ``input`` (``nan`` for "
    "``+-inf``).",
    "``grad_input = grad_output`` (PyTorch's derivatives.yaml ``frac: grad``).",
    "[-1.5, 0.25, 2.0]", "tensor([-0.5000,  0.2500,  0.0000])", "tensor([1., 1., 1.])",
    input="floating",
    returns=_SAME_DTYPE,
    raises="        NotImplementedError: for integer or bool tensors (as PyTorch).\n",
    not_tensor="AttributeError")
floor_.__doc__ = inplace_doc("floor", "[-1.5, 0.5]", "tensor([-2.,  0.])",
    raises=_NO_BOOL)
ceil_.__doc__ = inplace_doc("ceil", "[-1.5, 0.5]", "tensor([-1.,  1.])",
    raises=_NO_BOOL)
frac_.__doc__ = inplace_doc("frac", "[-1.5, 0.25]", "tensor([-0.5000,  0.2500])",
    raises="        NotImplementedError: when ``input`` has an integer or bool dtype (as PyTorch).\n")
