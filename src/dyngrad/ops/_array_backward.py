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

from .. import _backend as B
from ..autograd.function import saved_arrays, set_array_backward
from .arithmetic import Add, Div, Mul, Neg, Pow, Sub
from .elementwise import Exp, Log, Relu, Sigmoid, Sqrt, Tanh
from .fused import LogSoftmax, NllLoss, Softmax
from .indexing import Index, _index_backward_kernel
from .linalg import Matmul, _matmul_np
from .reduction import Mean, Sum, _kept_shape
from .shape import Expand, Permute, Reshape

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


def _div(ctx: Any, g: np.ndarray) -> Any:
    """Div: ``grad_a = g / b``, ``grad_b = -g * a / (b * b)`` (true division only)."""
    if ctx.rounding is not None:
        return NotImplemented
    saved = saved_arrays(ctx)
    if saved is None:
        return NotImplemented
    a, b = saved
    n = ctx.needs_input_grad
    bb = _operand(b, ctx.b, g)
    if bb is None:
        return NotImplemented
    ga = gb = None
    if n[0]:
        ga = g / bb
    if n[1]:
        aa = _operand(a, ctx.a, g)
        if aa is None:
            return NotImplemented
        gb = -g * aa / (b * b)
    return ga, gb, None


def _pow(ctx: Any, g: np.ndarray) -> Any:
    """Pow with a Python-number exponent ``e``: ``grad_a = g * (e * a**(e-1))`` (``g * 0.0``
    when ``e == 0``); a Python-number base ``c != 0``: ``grad_b = g * out * log(c)``. A
    Tensor exponent and base (the masked rules) take the Tensor formula."""
    saved = saved_arrays(ctx)
    if saved is None:
        return NotImplemented
    a, b, out = saved
    n = ctx.needs_input_grad
    if b is None:  # a number exponent
        e = ctx.b_scalar
        if type(e) not in _NUMBERS or a is None or a.dtype != g.dtype or not n[0]:
            return NotImplemented
        if e == 0:
            return g * 0.0, None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (as Pow.forward)
            p = np.power(a, e - 1)
        return g * (e * p), None
    c = ctx.a_scalar
    if a is None and type(c) in _NUMBERS and c != 0 and out is not None and out.dtype == g.dtype:
        return None, g * out * float(np.log(c))
    return NotImplemented


def _log(ctx: Any, g: np.ndarray) -> Any:
    """Log: ``grad_x = g * (1 / x)``."""
    x = _saved_out(ctx, g)
    if x is None:
        return NotImplemented
    return g * (1 / x)


def _sigmoid(ctx: Any, g: np.ndarray) -> Any:
    """Sigmoid: ``grad_x = g * (out * (1 - out))``."""
    out = _saved_out(ctx, g)
    if out is None:
        return NotImplemented
    return g * (out * (1 - out))


def _sqrt(ctx: Any, g: np.ndarray) -> Any:
    """Sqrt: ``grad_x = g * (1 / (2 * out))``."""
    out = _saved_out(ctx, g)
    if out is None:
        return NotImplemented
    return g * (1 / (2 * out))


def _mean(ctx: Any, g: np.ndarray) -> Any:
    """Mean: ``grad_x = expand(g, x.shape) / n`` after re-inserting the reduced dims."""
    shape = ctx.shape
    if not ctx.keepdim:
        g = g.reshape(_kept_shape(shape, ctx.dims))
    return np.broadcast_to(g, shape) / ctx.n, None, None


def _reshape(ctx: Any, g: np.ndarray) -> Any:
    """Reshape/view/squeeze/unsqueeze: ``grad_x = g.reshape(x.shape)``."""
    return g.reshape(ctx.in_shape), None


def _permute(ctx: Any, g: np.ndarray) -> Any:
    """Permute/transpose/t: ``grad_x = g`` permuted by the inverse permutation."""
    return g.transpose(ctx.inv), None


def _expand(ctx: Any, g: np.ndarray) -> Any:
    """Expand: ``grad_x = sum_to_size(g, x.shape)``."""
    return B.sum_to_size(g, ctx.in_shape), None


_BASIC_ITEMS = (int, slice, type(None), type(Ellipsis), bool)


def _index(ctx: Any, g: np.ndarray) -> Any:
    """Index (slice, select, advanced): ``grad_x = zeros(x.shape)`` with ``g`` put (basic)
    or added (advanced) at the index; an index holding anything but Python items and NumPy
    arrays takes the Tensor formula."""
    idx = ctx.idx
    for i in (idx if type(idx) is tuple else (idx,)):
        if type(i) not in _BASIC_ITEMS and type(i) is not np.ndarray:
            return NotImplemented
    return _index_backward_kernel(g, ctx.shape, idx, ctx.basic), None, None


def _matmul(ctx: Any, g: np.ndarray) -> Any:
    """Matmul/mm/bmm of operands with at least 2 dims: ``grad_a = g @ b^T``,
    ``grad_b = a^T @ g`` (the engine sums broadcast batch dims); vector operands take the
    Tensor formula."""
    na, nb = ctx.nd
    if na < 2 or nb < 2:
        return NotImplemented
    saved = saved_arrays(ctx)
    if saved is None:
        return NotImplemented
    a, b = saved
    n = ctx.needs_input_grad
    ga = gb = None
    if n[0]:
        if b.dtype != g.dtype:
            return NotImplemented
        ga = _matmul_np(g, np.swapaxes(b, -1, -2))
    if n[1]:
        if a.dtype != g.dtype:
            return NotImplemented
        gb = _matmul_np(np.swapaxes(a, -1, -2), g)
    return ga, gb


def _softmax(ctx: Any, g: np.ndarray) -> Any:
    """Softmax: ``grad_x = out * (g - sum(g * out, dim))``."""
    out = _saved_out(ctx, g)
    if out is None or out.ndim == 0:
        return NotImplemented
    return out * (g - np.sum(g * out, axis=(ctx.dim,), keepdims=True)), None, None


def _log_softmax(ctx: Any, g: np.ndarray) -> Any:
    """LogSoftmax: ``grad_x = g - exp(out) * sum(g, dim)``."""
    out = _saved_out(ctx, g)
    if out is None or out.ndim == 0:
        return NotImplemented
    return g - np.exp(out) * np.sum(g, axis=(ctx.dim,), keepdims=True), None, None


def _nll_loss(ctx: Any, g: np.ndarray) -> Any:
    """NllLoss: ``grad_x = g * M`` (``g`` unsqueezed along the class dim for 'none'); a
    weight that requires grad takes the Tensor formula (which raises, as PyTorch)."""
    if ctx.needs_input_grad[2]:
        return NotImplemented
    m = _saved_out(ctx, g)
    if m is None:
        return NotImplemented
    if ctx.none and m.ndim > 1:
        g = np.expand_dims(g, ctx.cdim)
    return g * m, None, None, None, None


for _cls, _fn in ((Add, _add), (Sub, _sub), (Mul, _mul), (Neg, _neg), (Tanh, _tanh), (Exp, _exp),
                  (Relu, _relu), (Sum, _sum), (Div, _div), (Pow, _pow), (Log, _log), (Sigmoid, _sigmoid),
                  (Sqrt, _sqrt), (Mean, _mean), (Reshape, _reshape), (Permute, _permute), (Expand, _expand),
                  (Index, _index), (Matmul, _matmul), (Softmax, _softmax), (LogSoftmax, _log_softmax),
                  (NllLoss, _nll_loss)):
    set_array_backward(_cls, _fn)
