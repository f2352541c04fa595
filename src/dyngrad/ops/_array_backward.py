"""Array forms of the hot ops' backward formulas (engine invariant 6).

A first-order backward (no ``create_graph``) hands plain ndarrays between nodes that have an
array form, instead of running each formula as recorded dyngrad ops on Tensors. Each form
here is the formula of its op's ``backward`` (the derivation is in the op's docstring),
computed with NumPy on the gradient and saved arrays; the engine validates its result
exactly as ``backward``'s (shape, broadcast reduction, dtype). A form returns
``NotImplemented`` (so the op's ``backward`` runs) whenever its inputs are not the common
case it was written for: a number operand that is not a Python number, operands whose
dtype differs from the gradient's (PyTorch's promotion, not NumPy's, must then decide),
saved values that only unpack as Tensors. The test suite runs every op's gradient checks
through these forms (first-order) and through ``backward`` (``create_graph=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import saved_arrays, set_array_backward
from .arithmetic import Add, Mul, Neg, Sub
from .elementwise import Exp, Relu, Tanh
from .reduction import Sum, _kept_shape

__all__: list[str] = []

_NUMBERS = (int, float, bool)


def _add(ctx: Any, g: np.ndarray) -> Any:
    """Add: ``grad_a = g``, ``grad_b = alpha * g``."""
    n = ctx.needs_input_grad
    alpha = ctx.alpha
    gb = None
    if n[1]:
        if alpha == 1:
            gb = g
        elif type(alpha) in _NUMBERS:
            gb = g * alpha
        else:
            return NotImplemented
    return ((g if n[0] else None), gb) if len(n) == 2 else ((g if n[0] else None), gb, None)


def _sub(ctx: Any, g: np.ndarray) -> Any:
    """Sub: ``grad_a = g``, ``grad_b = -alpha * g``."""
    n = ctx.needs_input_grad
    alpha = ctx.alpha
    gb = None
    if n[1]:
        if alpha == 1:
            gb = -g
        elif type(alpha) in _NUMBERS:
            gb = g * (-alpha)
        else:
            return NotImplemented
    return ((g if n[0] else None), gb) if len(n) == 2 else ((g if n[0] else None), gb, None)


def _operand(x: Any, scalar: Any, g: np.ndarray) -> Any:
    """The other factor of a product: a saved array of the gradient's dtype, or a Python
    number; None when only the Tensor formula decides the result's dtype."""
    if x is not None:
        return x if x.dtype == g.dtype else None
    return scalar if type(scalar) in _NUMBERS else None


def _mul(ctx: Any, g: np.ndarray) -> Any:
    """Mul: ``grad_a = g * b``, ``grad_b = g * a`` (saved as ``(b, a)``, PyTorch's order)."""
    saved = saved_arrays(ctx)
    if saved is None:
        return NotImplemented
    b, a = saved
    n = ctx.needs_input_grad
    ga = gb = None
    if n[0]:
        f = _operand(b, ctx.b, g)
        if f is None:
            return NotImplemented
        ga = g * f
    if n[1]:
        f = _operand(a, ctx.a, g)
        if f is None:
            return NotImplemented
        gb = g * f
    return ga, gb


def _neg(ctx: Any, g: np.ndarray) -> Any:
    """Neg: ``grad_x = -g``."""
    return -g


def _saved_out(ctx: Any, g: np.ndarray) -> Any:
    saved = saved_arrays(ctx)
    if saved is None or saved[0].dtype != g.dtype:
        return None
    return saved[0]


def _tanh(ctx: Any, g: np.ndarray) -> Any:
    """Tanh: ``grad_x = g * (1 - out**2)``."""
    out = _saved_out(ctx, g)
    if out is None:
        return NotImplemented
    return g * (1 - out * out)


def _exp(ctx: Any, g: np.ndarray) -> Any:
    """Exp: ``grad_x = g * out``."""
    out = _saved_out(ctx, g)
    if out is None:
        return NotImplemented
    return g * out


def _relu(ctx: Any, g: np.ndarray) -> Any:
    """Relu: ``grad_x = g * (out != 0)`` (the gradient passes where the input is NaN, as
    PyTorch's ``threshold_backward``; ``out`` is never negative)."""
    out = _saved_out(ctx, g)
    if out is None:
        return NotImplemented
    return g * (out != 0)


def _sum(ctx: Any, g: np.ndarray) -> Any:
    """Sum: ``grad_x = expand(g, x.shape)`` after re-inserting the reduced dims."""
    shape = ctx.shape
    if not ctx.keepdim:
        g = g.reshape(_kept_shape(shape, ctx.dims))
    n = len(ctx.needs_input_grad)
    return (np.broadcast_to(g, shape),) + (None,) * (n - 1)


for _cls, _fn in ((Add, _add), (Sub, _sub), (Mul, _mul), (Neg, _neg), (Tanh, _tanh), (Exp, _exp),
                  (Relu, _relu), (Sum, _sum)):
    set_array_backward(_cls, _fn)
