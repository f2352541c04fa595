"""NumPy's ufuncs on Tensors (``Tensor.__array_ufunc__``, NEP 13): ``np.exp(t)``,
``np.add(a, t, out=t)``, ``np.add.reduce(t, axis=1)``, ``np.multiply.outer(t, u)``,
``np.add.at(t, idx, v)`` and the operators of an ndarray or NumPy scalar with a Tensor
(``arr + t`` is ``np.add(arr, t)``) run dyngrad ops, so they are differentiable, batch under
vmap and carry tangents in forward mode.

One table, :data:`UFUNCS`, maps each ufunc to the dyngrad op that computes it (an op of
:mod:`dyngrad.ops` by name, or a short composition of ops written below), with what its
``reduce`` and ``accumulate`` methods are. docs/numpy.md's coverage table is generated from
it (``python docs/make_numpy_table.py``).

Dtypes (docs/numpy.md, "Dtypes"): operands promote as in PyTorch, so ``arr * t``,
``np.multiply(arr, t)`` and ``t * arr`` agree, and a Python or NumPy scalar does not upcast a
tensor (``np.float64(2) * t`` stays float32, as in PyTorch). One exception keeps NumPy's
numbers: a ufunc that makes floats of integers (``np.exp``, ``np.sqrt``, ``np.true_divide``,
the trigonometric functions, ...) computes integer and bool tensors in float64, as NumPy
does, not in the default dtype. ``dtype=`` casts the tensor operands first (NumPy's rule).

A ufunc with no entry raises TypeError naming it when an operand requires grad, is batched
(vmap) or a transform is active; otherwise it runs on the arrays and returns ndarrays, as it
did before Tensors answered the protocol.

The ops are reached as ``_core._ops`` when a call runs (see dyngrad/_tensor/__init__.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

from .. import _backend as B
from .numpy_common import (
    _cast,
    _float_inputs,
    _operand,
    _to_arrays,
    _write_out,
    np_dtype,
    promote_tensors,
    refuse_or_run,
)

__all__ = ["UFUNCS", "UfuncRule", "array_ufunc", "tensor_array_ufunc"]


def _o() -> Any:
    return _core._ops


# ------------------------------------------------------------------ compositions of ops
def _positive(x: Any) -> Any:
    return _o().clone(x)


def _cbrt(x: Any) -> Any:
    o = _o()
    return o.sign(x) * o.abs(x) ** (1.0 / 3.0)


def _logaddexp2(x: Any, y: Any) -> Any:
    ln2 = math.log(2.0)
    return _o().logaddexp(x * ln2, y * ln2) / ln2


def _deg2rad(x: Any) -> Any:
    return x * (math.pi / 180.0)


def _rad2deg(x: Any) -> Any:
    return x * (180.0 / math.pi)


def _invert(x: Any) -> Any:
    o = _o()
    return o.logical_not(x) if x._data.dtype == np.bool_ else o.bitwise_not(x)


def _copysign(x: Any, y: Any) -> Any:
    o = _o()
    if not isinstance(y, _core.Tensor):
        return o.abs(x) * math.copysign(1.0, float(y))
    neg = o.logical_or(y < 0, o.logical_and(y == 0, o.reciprocal(y) < 0))  # -0.0 too
    return o.where(neg, -o.abs(x), o.abs(x))


def _vecdot(x: Any, y: Any) -> Any:
    return (x * y).sum(-1)


def _divmod(x: Any, y: Any) -> Any:
    o = _o()
    return o.floor_divide(x, y), o.remainder(x, y)


def _modf(x: Any) -> Any:
    whole = _o().trunc(x)
    return x - whole, whole


@dataclass(frozen=True)
class UfuncRule:
    """How one NumPy ufunc runs on Tensors.

    Attributes:
        op: the name of a :mod:`dyngrad.ops` function, or a function of ops.
        floats: integer/bool tensor operands compute in float64 (NumPy makes floats of them).
        reduce: the :mod:`dyngrad.ops` reduction that ``ufunc.reduce`` is (``add`` -> ``sum``).
        accumulate: the scan that ``ufunc.accumulate`` is (``add`` -> ``cumsum``).
        nout: the number of outputs.
        promote: the op takes operands of one dtype only (``matmul``, as in PyTorch): tensor
            operands are cast to their common type first, as NumPy's loop does.
    """

    op: str | Callable[..., Any]
    floats: bool = False
    reduce: str | None = None
    accumulate: str | None = None
    nout: int = 1
    promote: bool = False  # the op wants one dtype (matmul): cast the tensors to their result type

    @property
    def name(self) -> str:
        return self.op if isinstance(self.op, str) else self.op.__name__.lstrip("_")

    def fn(self) -> Callable[..., Any]:
        if not isinstance(self.op, str):
            return self.op
        op = getattr(_o(), self.op)

        def number_first(*args: Any) -> Any:
            # NumPy takes a number first (``np.maximum(0.0, t)``), the op (as PyTorch's)
            # a Tensor: the number becomes a 0-d tensor of the dtype it promotes to
            if args and type(args[0]) in (bool, int, float):
                t = next((a for a in args[1:] if isinstance(a, _core.Tensor)), None)
                if t is not None:
                    rt = B.result_type(args[0], t)
                    args = (_core.Tensor._make(np.asarray(args[0], dtype=rt)),) + args[1:]
            return op(*args)

        return number_first


_F = {"floats": True}
#: ufunc -> how it runs on Tensors (the one table; docs/numpy.md is generated from it).
UFUNCS: dict[np.ufunc, UfuncRule] = {
    # arithmetic
    np.add: UfuncRule("add", reduce="sum", accumulate="cumsum"),
    np.subtract: UfuncRule("sub"),
    np.multiply: UfuncRule("mul", reduce="prod", accumulate="cumprod"),
    np.true_divide: UfuncRule("div", **_F),
    np.floor_divide: UfuncRule("floor_divide"),
    np.remainder: UfuncRule("remainder"),
    np.fmod: UfuncRule("fmod"),
    np.divmod: UfuncRule(_divmod, nout=2),
    np.power: UfuncRule("pow"),
    np.float_power: UfuncRule("float_power"),
    np.negative: UfuncRule("neg"),
    np.positive: UfuncRule(_positive),
    np.absolute: UfuncRule("abs"),
    np.fabs: UfuncRule("abs", **_F),
    np.sign: UfuncRule("sign"),
    np.conjugate: UfuncRule(_positive),
    np.reciprocal: UfuncRule("reciprocal"),
    np.square: UfuncRule("square"),
    np.sqrt: UfuncRule("sqrt", **_F),
    np.cbrt: UfuncRule(_cbrt, **_F),
    np.matmul: UfuncRule("matmul", promote=True),
    # exponentials and logarithms
    np.exp: UfuncRule("exp", **_F),
    np.exp2: UfuncRule("exp2", **_F),
    np.expm1: UfuncRule("expm1", **_F),
    np.log: UfuncRule("log", **_F),
    np.log2: UfuncRule("log2", **_F),
    np.log10: UfuncRule("log10", **_F),
    np.log1p: UfuncRule("log1p", **_F),
    np.logaddexp: UfuncRule("logaddexp", reduce="logsumexp", **_F),
    np.logaddexp2: UfuncRule(_logaddexp2, **_F),
    # trigonometric and hyperbolic
    np.sin: UfuncRule("sin", **_F),
    np.cos: UfuncRule("cos", **_F),
    np.tan: UfuncRule("tan", **_F),
    np.arcsin: UfuncRule("asin", **_F),
    np.arccos: UfuncRule("acos", **_F),
    np.arctan: UfuncRule("atan", **_F),
    np.arctan2: UfuncRule("atan2", **_F),
    np.hypot: UfuncRule("hypot", **_F),
    np.sinh: UfuncRule("sinh", **_F),
    np.cosh: UfuncRule("cosh", **_F),
    np.tanh: UfuncRule("tanh", **_F),
    np.arcsinh: UfuncRule("asinh", **_F),
    np.arccosh: UfuncRule("acosh", **_F),
    np.arctanh: UfuncRule("atanh", **_F),
    np.deg2rad: UfuncRule(_deg2rad, **_F),
    np.rad2deg: UfuncRule(_rad2deg, **_F),
    np.copysign: UfuncRule(_copysign, **_F),
    # rounding
    np.floor: UfuncRule("floor"),
    np.ceil: UfuncRule("ceil"),
    np.rint: UfuncRule("round"),
    np.trunc: UfuncRule("trunc"),
    np.modf: UfuncRule(_modf, nout=2, **_F),
    # extrema
    np.maximum: UfuncRule("maximum", reduce="amax"),
    np.minimum: UfuncRule("minimum", reduce="amin"),
    np.fmax: UfuncRule("fmax"),
    np.fmin: UfuncRule("fmin"),
    # comparisons and tests
    np.equal: UfuncRule("eq"),
    np.not_equal: UfuncRule("ne"),
    np.less: UfuncRule("lt"),
    np.less_equal: UfuncRule("le"),
    np.greater: UfuncRule("gt"),
    np.greater_equal: UfuncRule("ge"),
    np.isnan: UfuncRule("isnan"),
    np.isinf: UfuncRule("isinf"),
    np.isfinite: UfuncRule("isfinite"),
    # logical and bitwise
    np.logical_and: UfuncRule("logical_and", reduce="all"),
    np.logical_or: UfuncRule("logical_or", reduce="any"),
    np.logical_xor: UfuncRule("logical_xor"),
    np.logical_not: UfuncRule("logical_not"),
    np.bitwise_and: UfuncRule("bitwise_and"),
    np.bitwise_or: UfuncRule("bitwise_or"),
    np.bitwise_xor: UfuncRule("bitwise_xor"),
    np.invert: UfuncRule(_invert),
    np.left_shift: UfuncRule("bitwise_left_shift"),
    np.right_shift: UfuncRule("bitwise_right_shift"),
}
if hasattr(np, "vecdot"):  # NumPy >= 2.0
    UFUNCS[np.vecdot] = UfuncRule(_vecdot, promote=True)


# ------------------------------------------------------------------ the methods
def _call(rule: UfuncRule, ufunc: np.ufunc, inputs: tuple, kw: dict) -> Any:
    out = kw.pop("out", None)
    where = kw.pop("where", True)
    dtype = kw.pop("dtype", None)
    kw.pop("casting", None), kw.pop("order", None), kw.pop("subok", None)
    if kw:
        raise TypeError(f"numpy.{ufunc.__name__} on dyngrad Tensors does not take {sorted(kw)}")
    args = [_operand(x) for x in inputs]
    if not any(isinstance(a, _core.Tensor) for a in args):  # only out= is a Tensor
        args[0] = _core.Tensor._make(np.asarray(args[0]))
    if dtype is not None:
        args = [_cast(a, np_dtype(dtype)) for a in args]
    elif rule.floats:
        args = _float_inputs(args)
    if rule.promote:
        args = promote_tensors(args)
    o = _o()
    first_out = out[0] if out else None
    if (first_out is not None and first_out is inputs[0] and rule.nout == 1 and where is True
            and isinstance(rule.op, str) and hasattr(o, rule.op + "_") and args[0] is inputs[0]):
        return getattr(o, rule.op + "_")(*args)  # np.add(x, y, out=x) is x.add_(y)
    res = rule.fn()(*args)
    results = res if rule.nout > 1 else (res,)
    if where is not True:
        mask = _operand(where)
        if out is None:
            out = (None,) * rule.nout
        results = tuple(
            o.where(mask, r, prev if prev is not None else 0)
            for r, prev in zip(results, out)
        )
    if out is None:
        return res if where is True else (results if rule.nout > 1 else results[0])
    return _write_out(out, results, inputs)


def _axes(axis: Any, ndim: int) -> Any:
    if axis is None:
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


def _reduce(rule: UfuncRule, ufunc: np.ufunc, inputs: tuple, kw: dict) -> Any:
    if rule.reduce is None:
        raise TypeError(f"numpy.{ufunc.__name__}.reduce is not supported on dyngrad Tensors")
    x = _operand(inputs[0])
    axis = kw.pop("axis", 0)
    keepdims = kw.pop("keepdims", False)
    dtype = kw.pop("dtype", None)
    out = kw.pop("out", None)
    where = kw.pop("where", True)
    initial = kw.pop("initial", np._NoValue)
    if kw:
        raise TypeError(f"numpy.{ufunc.__name__}.reduce on dyngrad Tensors does not take {sorted(kw)}")
    if dtype is not None:
        x = _cast(x, np_dtype(dtype))
    o = _o()
    if where is not True:
        fill = ufunc.identity if initial is np._NoValue else initial
        if fill is None:
            raise ValueError(f"reduction operation '{ufunc.__name__}' does not have an identity, so to use a where mask one has to specify 'initial'")
        x = o.where(_operand(where), x, fill)
    dims = _axes(axis, x.dim())
    if not dims:
        res = o.clone(x)
    elif rule.reduce in ("sum", "amax", "amin", "logsumexp"):  # these take a tuple of dims
        res = getattr(o, rule.reduce)(x, dims, keepdims)
    else:  # one dim at a time, the last first (the others keep their positions)
        res = x
        for d in sorted((d % max(x.dim(), 1) for d in dims), reverse=True):
            res = getattr(o, rule.reduce)(res, d, keepdims)
    if initial is not np._NoValue:
        res = rule.fn()(res, initial)
    return res if out is None else _write_out(out, (res,), inputs)


def _accumulate(rule: UfuncRule, ufunc: np.ufunc, inputs: tuple, kw: dict) -> Any:
    if rule.accumulate is None:
        raise TypeError(f"numpy.{ufunc.__name__}.accumulate is not supported on dyngrad Tensors")
    x = _operand(inputs[0])
    axis = kw.pop("axis", 0)
    dtype = kw.pop("dtype", None)
    out = kw.pop("out", None)
    if kw:
        raise TypeError(f"numpy.{ufunc.__name__}.accumulate on dyngrad Tensors does not take {sorted(kw)}")
    if dtype is not None:
        x = _cast(x, np_dtype(dtype))
    res = getattr(_o(), rule.accumulate)(x, axis)
    return res if out is None else _write_out(out, (res,), inputs)


def _outer(rule: UfuncRule, ufunc: np.ufunc, inputs: tuple, kw: dict) -> Any:
    a, b = (_operand(x) for x in inputs)
    nb = b.dim() if isinstance(b, _core.Tensor) else 0
    if isinstance(a, _core.Tensor):
        a = a.reshape(tuple(a.shape) + (1,) * nb)
    return _call(rule, ufunc, (a, b), kw)


def _at(rule: UfuncRule, ufunc: np.ufunc, inputs: tuple, kw: dict) -> None:
    a, idx = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    if ufunc not in (np.add, np.subtract) or b is None or not isinstance(a, _core.Tensor):
        raise TypeError(f"numpy.{ufunc.__name__}.at is not supported on dyngrad Tensors (add.at and subtract.at are)")
    o = _o()
    idx = _to_arrays(idx)
    b = _operand(b)
    if ufunc is np.subtract:
        b = -b
    shape = tuple(a.shape)
    sel = o.getitem(a, idx).shape
    bb = o.broadcast_to(b if isinstance(b, _core.Tensor) else _core.Tensor._make(np.asarray(b, a._data.dtype)), sel)
    o.add_(a, o.index_put_add(bb, shape, idx))
    return None


#: ufunc -> (the op, floats, promote) for the plain call path, filled on first use (the ops
#: exist only once dyngrad/tensor.py has run); op None for ufuncs without a one-op rule.
_FAST: dict[np.ufunc, tuple[Any, bool, bool]] = {}


def _fast(ufunc: np.ufunc) -> tuple[Any, bool, bool]:
    rule = UFUNCS.get(ufunc)
    if rule is None or rule.nout != 1:
        _FAST[ufunc] = (None, False, False)
    else:
        _FAST[ufunc] = (rule.fn(), rule.floats, rule.promote)
    return _FAST[ufunc]


def tensor_array_ufunc(self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__`` (NEP 13): ``np.exp(t)``, ``arr + t``, ``np.add.reduce(t)``...
    run dyngrad ops (see :func:`array_ufunc`). The plain call (no keywords; Tensor, ndarray
    and Python-number operands, no cast needed) goes straight to the op: it is what
    operators and most NumPy code make, and the protocol should cost next to nothing."""
    if method == "__call__" and not kwargs:
        fn, floats, promote = _FAST.get(ufunc) or _fast(ufunc)
        if fn is not None:
            wrap = False
            dt = None
            for x in inputs:
                if isinstance(x, _core.Tensor):
                    d = x._data.dtype
                elif type(x) is np.ndarray:
                    d, wrap = x.dtype, True
                elif isinstance(x, (float, int)):  # (np.float64 is a float; other NumPy scalars: the general path)
                    continue
                else:
                    break
                if (floats and d.kind in "biu") or (promote and dt is not None and d != dt):
                    break  # a cast first: the general path
                dt = d
            else:
                if wrap:
                    return fn(*[_core.Tensor._make(x) if type(x) is np.ndarray else x for x in inputs])
                return fn(*inputs)
    return array_ufunc(ufunc, method, inputs, kwargs)


_METHODS = {"__call__": _call, "reduce": _reduce, "accumulate": _accumulate, "outer": _outer, "at": _at}


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``Tensor.__array_ufunc__``: run ``ufunc.method(*inputs, **kwargs)`` with dyngrad ops.

    Args:
        ufunc: the NumPy ufunc called.
        method: ``"__call__"``, ``"reduce"``, ``"accumulate"``, ``"outer"``, ``"at"``,
            ``"reduceat"``.
        inputs: its operands (Tensors, ndarrays, scalars).
        kwargs: NumPy's keyword arguments (``out`` is a tuple).

    Returns:
        Tensors (or what ``out=`` named).

    Raises:
        TypeError: a ufunc or method dyngrad has no rule for, when an input requires grad
            or is transformed (otherwise it runs on the arrays, returning ndarrays).
    """
    rule = UFUNCS.get(ufunc)
    handler = _METHODS.get(method)
    if rule is None or handler is None:
        what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        return refuse_or_run(what, getattr(ufunc, method), inputs, kwargs)
    return handler(rule, ufunc, inputs, dict(kwargs))
