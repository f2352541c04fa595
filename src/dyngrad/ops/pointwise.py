"""Binary and ternary pointwise ops: ``maximum``, ``minimum``, ``fmax``, ``fmin``, ``where``,
``lerp``, ``addcmul``, ``addcdiv``, ``hypot``, ``atan2``, ``logaddexp``.

Operands broadcast (``a: (*A)``, ``b: (*B)`` -> ``out: broadcast(A, B)``) and follow
PyTorch's type promotion; Python numbers are accepted where a tensor operand is and act
as weakly typed constants. Backward returns gradients of the broadcast shape; the engine
sums them down. Derivatives follow PyTorch's ``tools/autograd/derivatives.yaml``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Elementwise, Linear
from ._batching import pointwise_promoting
from ._util import float_dtype, require_tensor, to_tensor, wrap

__all__ = [
    "maximum", "minimum", "fmax", "fmin", "where", "lerp", "addcmul", "addcdiv",
    "hypot", "atan2", "arctan2", "logaddexp",
]
TENSOR_METHODS = set(__all__) - {"where"}


def _operands(op: str, *xs: Any) -> tuple[list[Tensor], np.dtype]:
    """Tensors for all operands (numbers become constants of the promoted dtype)."""
    for x in xs:
        if not isinstance(x, (Tensor, bool, int, float)):
            raise TypeError(f"{op}(): expected Tensor or number operands, got {type(x).__name__}")
    rt = B.result_type(*xs)
    like = next(x for x in xs if isinstance(x, Tensor)) if any(isinstance(x, Tensor) for x in xs) else None
    if like is None:
        raise TypeError(f"{op}(): expected at least one Tensor operand")
    ld = like._data
    if type(ld) is np.ndarray:
        return [x if isinstance(x, Tensor) else Tensor._make(B.asarray_any(x, dtype=rt)) for x in xs], rt
    return [x if isinstance(x, Tensor) else Tensor._make(B.like(x, ld, rt)) for x in xs], rt


def _cast(d: np.ndarray, rt: np.dtype) -> np.ndarray:
    if type(d) is np.ndarray:
        return d if d.dtype == rt else d.astype(rt)
    return B.astype(d, rt, copy=False)


def _std_fmax(xp: Any, a: Any, b: Any, name: str) -> Any:
    """``fmax``/``fmin`` with the standard's functions (which have only ``maximum`` and
    ``minimum``, NaN-propagating): a NaN loses to a number."""
    m = (xp.maximum if name == "fmax" else xp.minimum)(a, b)
    if B.kind(m) != "f":
        return m
    return xp.where(xp.isnan(b), a, xp.where(xp.isnan(a), b, m))


def _binary_forward(ctx: Any, a: Tensor, b: Tensor, name: str) -> Tensor:
    rt = B.result_type(a, b)
    ctx.save_for_backward(a, b)
    ad, bd = _cast(a._data, rt), _cast(b._data, rt)
    xp = B.array_module(ad, bd)
    if xp is not np and name in ("fmax", "fmin"):
        return wrap(_std_fmax(xp, ad, bd, name))
    return wrap(getattr(xp, name)(ad, bd))


def _split_ties(ctx: Any, lt: Any) -> tuple:
    """max/min derivatives: 1 for the winner, 1/2 each on ties; ``lt(a, b)`` says where
    ``a`` loses."""
    a, b = ctx.saved_tensors
    ad, bd = a._data, b._data
    tie, dt = ad == bd, B.result_type(a, b)
    xp = B.array_module(ad, bd)
    if xp is np:
        return wrap(np.where(tie, 0.5, ~lt(ad, bd)).astype(dt)), wrap(np.where(tie, 0.5, ~lt(bd, ad)).astype(dt))
    ad, bd = _cast(ad, dt), _cast(bd, dt)
    return (wrap(xp.where(tie, 0.5, B.astype(~lt(ad, bd), dt))),
            wrap(xp.where(tie, 0.5, B.astype(~lt(bd, ad), dt))))


def _first_wins(ctx: Any, ge: Any) -> tuple:
    """fmax/fmin derivatives: ``[ge(a, b) or isnan(b)]`` for ``a``, the rest for ``b``."""
    a, b = ctx.saved_tensors
    ad, bd = a._data, b._data
    with np.errstate(invalid="ignore"):
        if type(ad) is np.ndarray and type(bd) is np.ndarray:
            to_a = ge(ad, bd) | np.isnan(bd)
        else:
            xp = B.array_module(ad, bd)
            dt = B.result_type(a, b)
            ad, bd = _cast(ad, dt), _cast(bd, dt)
            to_a = ge(ad, bd)
            if B.kind(bd) == "f":
                to_a = to_a | xp.isnan(bd)
    return wrap(to_a), wrap(~to_a)


class Maximum(Elementwise):
    """``out = max(a, b)`` (``nan`` propagates). ``grad_a = grad`` where ``a > b``,
    ``grad / 2`` on ties, 0 where ``a < b``; ``grad_b`` symmetric (PyTorch splits ties evenly)."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return _binary_forward(ctx, a, b, "maximum")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return _split_ties(ctx, operator.lt)


class Minimum(Elementwise):
    """``out = min(a, b)`` (``nan`` propagates). ``grad_a = grad`` where ``a < b``,
    ``grad / 2`` on ties, 0 where ``a > b``; ``grad_b`` symmetric."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return _binary_forward(ctx, a, b, "minimum")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return _split_ties(ctx, operator.gt)


class Fmax(Elementwise):
    """``out = fmax(a, b)`` (a ``nan`` loses to a number). ``grad_a = grad`` where
    ``a >= b or isnan(b)``, else 0; ``grad_b = grad`` elsewhere (ties go to ``a``)."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return _binary_forward(ctx, a, b, "fmax")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return _first_wins(ctx, operator.ge)


class Fmin(Elementwise):
    """``out = fmin(a, b)``. ``grad_a = grad`` where ``a <= b or isnan(b)``, else 0;
    ``grad_b = grad`` elsewhere."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        return _binary_forward(ctx, a, b, "fmin")

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return _first_wins(ctx, operator.le)


class Where(Linear):
    """``out = x if cond else y``. ``grad_x = where(cond, grad, 0)``,
    ``grad_y = where(cond, 0, grad)`` (written with ``where``, so differentiable again)."""

    vmap = pointwise_promoting(0)  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, cond: Tensor, x: Tensor, y: Tensor) -> Tensor:
        rt = B.result_type(x, y)
        ctx.save_for_backward(cond)
        cd, xd, yd = cond._data, x._data, y._data
        xp = np if type(cd) is np.ndarray and type(xd) is np.ndarray and type(yd) is np.ndarray else \
            B.array_module(cd, xd, yd)  # (a TypeError naming both libraries when they mix)
        if xp is np:
            return wrap(np.where(cd, _cast(xd, rt), _cast(yd, rt)))
        return wrap(xp.where(cd, B.std_operand(xd, rt, cd), B.std_operand(yd, rt, cd)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        (cond,) = ctx.saved_tensors
        n = ctx.needs_input_grad
        gd = g._data
        zero = Tensor._make(np.zeros((), dtype=gd.dtype) if type(gd) is np.ndarray else
                            B.zeros((), B.np_dtype_of(gd), like=gd))
        gx = Where.apply(cond, g, zero) if n[1] else None
        gy = Where.apply(cond, zero, g) if n[2] else None
        return None, gx, gy


class Lerp(Elementwise):
    """``out = start + weight * (end - start)`` (PyTorch's two-sided formula for accuracy).
    ``grad_start = grad * (1 - weight)``, ``grad_end = grad * weight``,
    ``grad_weight = grad * (end - start)``."""

    _node_name = "LerpBackward1"

    @staticmethod
    def forward(ctx: Any, start: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        rt = B.result_type(start, end, weight)
        s, e, w = (_cast(t._data, rt) for t in (start, end, weight))
        ctx.save_for_backward(start, end, weight)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, silently as PyTorch
            xp = B.array_module(s, e, w)
            return wrap(_cast(xp.where(w < 0.5, s + w * (e - s), e - (e - s) * (1 - w)), rt))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        s, e, w = ctx.saved_tensors
        return 1 - w, w, e - s


class LerpScalar(Lerp):
    """:class:`Lerp` with a number weight (PyTorch's node name)."""

    _node_name = "LerpBackward0"


class Addcmul(Elementwise):
    """``out = input + value * t1 * t2``. ``grad_input = grad``,
    ``grad_t1 = grad * value * t2``, ``grad_t2 = grad * value * t1``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> Tensor:
        rt = B.result_type(x, t1, t2)
        if rt.kind in "iu":  # PyTorch casts value to the integer dtype (truncating, wrapping)
            value = np.array(int(value)).astype(rt)[()]
            if type(x._data) is not np.ndarray:
                value = int(value)  # (an Array API array takes a Python scalar, not a NumPy one)
        elif rt.kind == "b":
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        B.check_same_backend("addcmul", x._data, t1._data, t2._data)
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            out = _cast(x._data, rt) + value * (_cast(t1._data, rt) * _cast(t2._data, rt))
        return wrap(_cast(B.asarray_any(out), rt))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        return 1, t2 * v, t1 * v, None


class Addcdiv(Elementwise):
    """``out = input + value * t1 / t2``. ``grad_input = grad``,
    ``grad_t1 = grad * value / t2``, ``grad_t2 = -grad * value * t1 / t2**2``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, t1: Tensor, t2: Tensor, value: Any = 1) -> Tensor:
        rt = B.result_type(x, t1, t2)
        B.check_same_backend("addcdiv", x._data, t1._data, t2._data)
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        with np.errstate(divide="ignore", invalid="ignore"):
            out = _cast(x._data, rt) + value * (_cast(t1._data, rt) / _cast(t2._data, rt))
        return wrap(_cast(B.asarray_any(out), rt))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        return 1, v / t2, -(v * t1) / (t2 * t2), None


class Hypot(Elementwise):
    """``out = sqrt(a**2 + b**2)`` (no overflow); ``grad_a = grad * a / out``,
    ``grad_b = grad * b / out``."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        rt = float_dtype(B.result_type(a, b))
        ad, bd = _cast(a._data, rt), _cast(b._data, rt)
        out = wrap(B.array_module(ad, bd).hypot(ad, bd))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def derivative(ctx: Any) -> Any:
        a, b, out = ctx.saved_tensors
        return a / out, b / out


class Atan2(Elementwise):
    """``out = atan2(a, b)`` (angle of the point ``(b, a)``);
    ``grad_a = grad * b / (a**2 + b**2)``, ``grad_b = -grad * a / (a**2 + b**2)``; both 0
    at ``a = b = 0`` (PyTorch, atan2_backward in FunctionsManual.cpp)."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        rt = float_dtype(B.result_type(a, b))
        ctx.save_for_backward(a, b)
        ad, bd = _cast(a._data, rt), _cast(b._data, rt)
        return wrap(B.array_module(ad, bd).atan2(ad, bd))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        a, b = ctx.saved_tensors
        r2 = a * a + b * b
        if bool(B.array_module(r2._data).any(r2._data == 0)):  # at the origin PyTorch's gradient is 0 (not 0/0)
            r2 = where(wrap(r2._data == 0), 1.0, r2)
        return b / r2, -a / r2


class Logaddexp(Elementwise):
    """``out = log(exp(a) + exp(b))`` (stable); ``grad_a = grad * sigmoid(a - b)``,
    ``grad_b = grad * sigmoid(b - a)``."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        rt = float_dtype(B.result_type(a, b))
        ctx.save_for_backward(a, b)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            ad, bd = _cast(a._data, rt), _cast(b._data, rt)
            return wrap(B.array_module(ad, bd).logaddexp(ad, bd))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        a, b = ctx.saved_tensors
        return (a - b).sigmoid(), (b - a).sigmoid()


# ---------------------------------------------------------------- public functions
def maximum(input: Any, other: Any) -> Tensor:
    """Elementwise maximum of two broadcastable operands (``nan`` if either is ``nan``).

    Derivative: ``grad_input = grad_output`` where ``input > other``, ``grad_other =
    grad_output`` where ``other > input``; ties split it evenly, half each (derivatives.yaml
    ``maximum``: ``masked_fill`` of ``grad / 2`` at ties).

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): broadcastable with ``input``; promoted with it. (PyTorch requires a
            Tensor; dyngrad also takes a number.)
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> b = dyngrad.tensor([2.0, 2.0, 1.0], requires_grad=True)
        >>> y = dyngrad.maximum(a, b)
        >>> y.detach()
        tensor([2., 2., 3.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([0.0000, 0.5000, 1.0000]), tensor([1.0000, 0.5000, 0.0000]))
    """
    require_tensor("maximum", input)
    return Maximum.apply(*_operands("maximum", input, other)[0])


def minimum(input: Any, other: Any) -> Tensor:
    """Elementwise minimum of two broadcastable operands (``nan`` if either is ``nan``).

    Derivative: ``grad_input = grad_output`` where ``input < other``, ``grad_other =
    grad_output`` where ``other < input``; ties split it evenly, half each (derivatives.yaml
    ``minimum``).

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): broadcastable with ``input``; promoted with it. (PyTorch requires a
            Tensor; dyngrad also takes a number.)
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> b = dyngrad.tensor([2.0, 2.0, 1.0], requires_grad=True)
        >>> y = dyngrad.minimum(a, b)
        >>> y.detach()
        tensor([1., 2., 1.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([1.0000, 0.5000, 0.0000]), tensor([0.0000, 0.5000, 1.0000]))
    """
    require_tensor("minimum", input)
    return Minimum.apply(*_operands("minimum", input, other)[0])


def fmax(input: Any, other: Any) -> Tensor:
    """Elementwise maximum that ignores ``nan``: ``nan`` only where both operands are ``nan``.

    Compare :func:`maximum`, which propagates ``nan``.

    Derivative: ``grad_input = grad_output`` where ``input >= other`` or ``other`` is ``nan``, else
    0; ``grad_other = grad_output`` elsewhere (a tie sends the whole gradient to ``input``, as
    PyTorch's derivatives.yaml ``fmax``).

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``; promoted together. (PyTorch
            requires both to be Tensors; dyngrad also takes one number.)
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        TypeError: when an operand is neither a Tensor nor a number, or neither is a Tensor.
        RuntimeError: when the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> nan = float("nan")
        >>> dyngrad.fmax(dyngrad.tensor([1.0, nan, 3.0, nan]), dyngrad.tensor([2.0, 1.0, nan, nan]))
        tensor([2., 1., 3., nan])
        >>> a = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> b = dyngrad.tensor([2.0, 2.0, 1.0], requires_grad=True)
        >>> dyngrad.fmax(a, b).sum().backward()
        >>> a.grad, b.grad
        (tensor([0., 1., 1.]), tensor([1., 0., 0.]))
    """
    require_tensor("fmax", input)
    return Fmax.apply(*_operands("fmax", input, other)[0])


def fmin(input: Any, other: Any) -> Tensor:
    """Elementwise minimum that ignores ``nan``: ``nan`` only where both operands are ``nan``.

    Compare :func:`minimum`, which propagates ``nan``.

    Derivative: ``grad_input = grad_output`` where ``input <= other`` or ``other`` is ``nan``, else
    0; ``grad_other = grad_output`` elsewhere (a tie sends the whole gradient to ``input``, as
    PyTorch's derivatives.yaml ``fmin``).

    Args:
        input (Tensor or number): ``(*)``.
        other (Tensor or number): broadcastable with ``input``; promoted together. (PyTorch
            requires both to be Tensors; dyngrad also takes one number.)
    Returns:
        Tensor: the broadcast shape, the promoted dtype.
    Raises:
        TypeError: when an operand is neither a Tensor nor a number, or neither is a Tensor.
        RuntimeError: when the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> nan = float("nan")
        >>> dyngrad.fmin(dyngrad.tensor([1.0, nan, 3.0]), dyngrad.tensor([2.0, 1.0, nan]))
        tensor([1., 1., 3.])
        >>> a = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> b = dyngrad.tensor([2.0, 2.0, 1.0], requires_grad=True)
        >>> dyngrad.fmin(a, b).sum().backward()
        >>> a.grad, b.grad
        (tensor([1., 1., 0.]), tensor([0., 0., 1.]))
    """
    require_tensor("fmin", input)
    return Fmin.apply(*_operands("fmin", input, other)[0])


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    """``input`` where ``condition`` else ``other``, broadcast together.

    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``: a tuple of int64
    index tensors, one per dim.

    Args:
        condition: bool tensor ``(*C)``.
        input, other: tensors or numbers ``(*X)``, ``(*Y)``; promoted together.
    Returns:
        Tensor of shape ``broadcast(C, X, Y)``.
    Raises:
        RuntimeError: when ``condition`` is not bool or the shapes do not broadcast.
        TypeError: when ``condition`` is a Python number, bool or list (not a Tensor), as
            PyTorch.

    Derivative: ``grad_input = where(condition, grad_output, 0)``,
    ``grad_other = where(condition, 0, grad_output)``, each summed to its input's shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([-1.0, 2.0])
        >>> dyngrad.where(x > 0, x, dyngrad.zeros(2))
        tensor([0., 2.])
    """
    if isinstance(condition, (bool, int, float, complex, list, tuple)):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    c = condition if isinstance(condition, Tensor) else to_tensor(condition)
    if B.kind(c._data) != "b":
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {c.dtype.name.capitalize()}"
        )
    if input is None and other is None:
        cd = c._data
        return tuple(Tensor._make(B.astype(i, np.int64)) for i in B.array_module(cd).nonzero(cd))
    if input is None or other is None:
        raise TypeError("where() takes a condition and both input and other (or the condition alone)")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor) and all(
            type(v) in (bool, int, float) for v in (input, other)):
        # two Python scalars (``where(c, 1.0, 0)``): PyTorch's scalar promotion (the default
        # float dtype for a float, int64 for an int, bool for two bools)
        input = Tensor._make(np.asarray(input, dtype=B.result_type(input, other)))
    (x, y), _ = _operands("where", input, other)
    B.broadcast_shapes(c.shape, x.shape, y.shape)
    return Where.apply(c, x, y)


def lerp(input: Any, end: Any, weight: Any) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` is a number or a
    broadcastable tensor (differentiable).

    Derivative: ``grad_input = grad_output * (1 - weight)``, ``grad_end = grad_output *
    weight``, ``grad_weight = grad_output * (end - input)`` (derivatives.yaml ``lerp``), each
    summed to its operand's shape.

    Args:
        input (Tensor): ``(*)``, the start points.
        end (Tensor): broadcastable with ``input``, the end points.
        weight (float or Tensor): broadcastable with both. (PyTorch requires floating operands
            of one dtype; dyngrad promotes them, integers to the default float dtype.)
    Returns:
        Tensor: the broadcast shape, the promoted float dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([0.0, 1.0], requires_grad=True)
        >>> b = dyngrad.tensor([4.0, 3.0], requires_grad=True)
        >>> y = dyngrad.lerp(a, b, 0.25)
        >>> y.detach()
        tensor([1.0000, 1.5000])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([0.7500, 0.7500]), tensor([0.2500, 0.2500]))
    """
    require_tensor("lerp", input)
    (s, e, w), _ = _operands("lerp", input, end, weight)
    B.broadcast_shapes(s.shape, e.shape, w.shape)
    return (Lerp if isinstance(weight, Tensor) else LerpScalar).apply(s, e, w)


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``, all three broadcast together.

    With an integer result dtype, ``value`` is first cast to it (``0.5`` becomes ``0``), as
    PyTorch.

    Derivative: ``grad_input = grad_output``, ``grad_tensor1 = grad_output * value * tensor2``,
    ``grad_tensor2 = grad_output * value * tensor1``, each summed to its operand's shape
    (source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor or number): ``(*)``.
        tensor1 (Tensor or number): broadcastable with ``input``.
        tensor2 (Tensor or number): broadcastable with ``input``.
        value (number, optional): keyword-only multiplier. Default: ``1``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype of the three.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        NotImplementedError: when the promoted dtype is bool (as PyTorch).
        TypeError: for an operand that is neither a Tensor nor a number, or ``value`` given
            positionally.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> t1 = dyngrad.tensor([2.0], requires_grad=True)
        >>> t2 = dyngrad.tensor([3.0, 4.0])
        >>> dyngrad.addcmul(x, t1, t2, value=0.5)
        tensor([4., 6.], grad_fn=<AddcmulBackward0>)
        >>> dyngrad.addcmul(x, t1, t2, value=0.5).sum().backward()
        >>> x.grad, t1.grad
        (tensor([1., 1.]), tensor([3.5000]))
    """
    require_tensor("addcmul", input)
    (x, t1, t2), _ = _operands("addcmul", input, tensor1, tensor2)
    return Addcmul.apply(x, t1, t2, value)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (true division), all three broadcast together.

    Derivative: ``grad_input = grad_output``, ``grad_tensor1 = grad_output * value / tensor2``,
    ``grad_tensor2 = -grad_output * value * tensor1 / tensor2**2``, each summed to its operand's
    shape (source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor or number): ``(*)``.
        tensor1 (Tensor or number): broadcastable with ``input``.
        tensor2 (Tensor or number): broadcastable with ``input`` (``x / 0`` gives ``inf``/``nan``).
        value (number, optional): keyword-only multiplier. Default: ``1``.
    Returns:
        Tensor: the broadcast shape, the promoted dtype of the three.
    Raises:
        RuntimeError: when ``tensor1`` and ``tensor2`` are both integer or bool (as PyTorch), or
            the shapes do not broadcast.
        TypeError: for an operand that is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0])
        >>> t1 = dyngrad.tensor([2.0], requires_grad=True)
        >>> t2 = dyngrad.tensor([4.0, 8.0], requires_grad=True)
        >>> dyngrad.addcdiv(x, t1, t2, value=0.5)
        tensor([1.2500, 2.1250], grad_fn=<AddcdivBackward0>)
        >>> dyngrad.addcdiv(x, t1, t2, value=0.5).sum().backward()
        >>> t1.grad, t2.grad
        (tensor([0.1875]), tensor([-0.0625, -0.0156]))
    """
    require_tensor("addcdiv", input)
    (x, t1, t2), _ = _operands("addcdiv", input, tensor1, tensor2)
    if B.kind(t1._data) in "biu" and B.kind(t2._data) in "biu":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
            "will perform a true division of tensor1 and tensor2. Cast the tensors to a floating dtype."
        )
    return Addcdiv.apply(x, t1, t2, value)


def hypot(input: Any, other: Any) -> Tensor:
    """Elementwise ``sqrt(input**2 + other**2)`` without intermediate overflow.

    Derivative: ``grad_input = grad_output * input / output``, ``grad_other = grad_output *
    other / output`` (derivatives.yaml ``hypot``).

    Args:
        input (Tensor): ``(*)``, floating.
        other (Tensor): broadcastable with ``input``. (PyTorch refuses integer tensors and
            numbers; dyngrad promotes them, integers to the default float dtype.)
    Returns:
        Tensor: the broadcast shape, the promoted float dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([3.0, 0.0], requires_grad=True)
        >>> b = dyngrad.tensor([4.0, 2.0], requires_grad=True)
        >>> y = dyngrad.hypot(a, b)
        >>> y.detach()
        tensor([5., 2.])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([0.6000, 0.0000]), tensor([0.8000, 1.0000]))
    """
    require_tensor("hypot", input)
    return Hypot.apply(*_operands("hypot", input, other)[0])


def atan2(input: Any, other: Any) -> Tensor:
    """Elementwise ``atan2(input, other)``: the angle of the point ``(other, input)``, in ``[-pi, pi]``.

    ``arctan2`` is the same function. Integer inputs compute in the default float dtype.

    Derivative: ``grad_input = grad_output * other / (input**2 + other**2)``, ``grad_other =
    -grad_output * input / (input**2 + other**2)``; both 0 at the origin (source: PyTorch's
    ``atan2_backward`` in FunctionsManual.cpp).

    Args:
        input (Tensor or number): ``(*)``, the y coordinate.
        other (Tensor or number): the x coordinate, broadcastable with ``input`` (PyTorch
            requires a Tensor; dyngrad also takes a number).
    Returns:
        Tensor: the broadcast shape, the promoted floating dtype.
    Raises:
        TypeError: when an operand is neither a Tensor nor a number, or neither is a Tensor.
        RuntimeError: when the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.atan2(dyngrad.tensor([1.0, -1.0, 0.0]), dyngrad.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854, -2.3562,  3.1416])
        >>> y = dyngrad.tensor([1.0], requires_grad=True)
        >>> x = dyngrad.tensor([1.0], requires_grad=True)
        >>> dyngrad.atan2(y, x).backward()
        >>> y.grad, x.grad
        (tensor([0.5000]), tensor([-0.5000]))
    """
    require_tensor("atan2", input)
    return Atan2.apply(*_operands("atan2", input, other)[0])


arctan2 = atan2


def logaddexp(input: Any, other: Any) -> Tensor:
    """Elementwise ``log(exp(input) + exp(other))`` without overflow.

    Derivative: ``grad_input = grad_output * sigmoid(input - other)``, ``grad_other =
    grad_output * sigmoid(other - input)`` (derivatives.yaml ``logaddexp``:
    ``grad / (1 + exp(other - input))``).

    Args:
        input (Tensor): ``(*)``, floating.
        other (Tensor): broadcastable with ``input``. (PyTorch refuses integer tensors;
            dyngrad computes them in the default float dtype.)
    Returns:
        Tensor: the broadcast shape, the promoted float dtype.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([0.0, 1.0], requires_grad=True)
        >>> b = dyngrad.tensor([0.0, -1.0], requires_grad=True)
        >>> y = dyngrad.logaddexp(a, b)
        >>> y.detach()
        tensor([0.6931, 1.1269])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([0.5000, 0.8808]), tensor([0.5000, 0.1192]))
    """
    require_tensor("logaddexp", input)
    return Logaddexp.apply(*_operands("logaddexp", input, other)[0])
