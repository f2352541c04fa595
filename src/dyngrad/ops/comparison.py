"""Comparisons, logical and bitwise ops: no gradient (their results are bool or integer).

Operands follow PyTorch's type promotion and broadcasting; a Python int outside an integer
tensor's range wraps into its dtype, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd import grad_mode, profiler
from ..autograd.function import _broadcast_error
from ..tensor import Tensor
from ._bases import Op
from ._batching import pointwise_promoting, unary
from ._util import binary_operands, data_of, inplace, require_tensor
from .arithmetic import _wrap_ints

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "equal",
    "allclose",
    "isclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_and_",
    "bitwise_or_",
    "bitwise_xor_",
    "bitwise_left_shift_",
    "bitwise_right_shift_",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "not_equal",
]
TENSOR_METHODS = set(__all__)
_state = grad_mode.state
_prof = profiler.state


class _DirectCtx:
    """The ctx of a direct forward call (see ``_apply``): the class, and nothing to mark."""

    __slots__ = ("_forward_cls",)

    def __init__(self, cls: type) -> None:
        self._forward_cls = cls

    def mark_non_differentiable(self, *tensors: Any) -> None:
        pass


# ------------------------------------------------------- the ops: Functions without gradient
class _NoGrad(Op):
    """Base of comparison, logical and bitwise ops: ``out = kernel(a, b)`` (or ``kernel(a)``),
    a bool or integer tensor of the broadcast shape.

    Its output is marked non-differentiable: it never requires grad, backward is never
    called, and forward mode gives it no tangent. vmap applies it to the batched values
    (the elementwise rule with per-example type promotion, as for ``add``)."""

    kernel: Any = None  # the NumPy ufunc (or function of arrays) computing the op
    vmap = pointwise_promoting()  # batching rule, see ops/_batching.py
    _direct_ctx: _DirectCtx  # the ctx of a direct forward call (see _apply)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._direct_ctx = _DirectCtx(cls)

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if type(ad) is np.ndarray and (type(bd) is np.ndarray or type(bd) in _PY_SCALARS):
            out = Tensor._make(B.asarray_any(ctx._forward_cls.kernel(ad, bd)))
        else:
            out = Tensor._make(B.asarray_any(_std_kernel(ctx._forward_cls, ad, bd, rt)))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:  # pragma: no cover - output not differentiable
        return (None,) * len(ctx.needs_input_grad)

    # hand-written: bool/integer output, no tangent (nothing to derive)
    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> Any:
        """Forward mode: no tangent (the output is not differentiable)."""
        return None


_PY_SCALARS = (bool, int, float)


def _std_kernel(cls: Any, ad: Any, bd: Any, rt: np.dtype) -> Any:
    """``cls.kernel(ad, bd)`` for operands that are not both NumPy: NumPy's ufunc for CuPy
    and Dask (it dispatches), the standard's function of the same name for an Array API
    library, on operands of the promoted dtype (its logical functions take bools only:
    nonzero is true, as NumPy's)."""
    xp, ad, bd = B.std_operands(ad, bd, rt)
    if xp is np:
        return cls.kernel(ad, bd)
    name = cls.kernel.__name__
    if name.startswith("logical_"):
        ad, bd = (B.std_operand(v, np.dtype(np.bool_), ad if hasattr(ad, "shape") else bd) for v in (ad, bd))
    return getattr(xp, _STD_NAMES.get(name, name))(ad, bd)


#: NumPy ufunc names whose Array API standard name differs
_STD_NAMES = {"invert": "bitwise_invert", "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift"}


def _apply(cls: type[_NoGrad], *args: Any) -> Tensor:
    """``cls.apply(*args)`` with grad mode off: the output never requires grad, so there is
    nothing to record, and apply takes its short path (transforms still see the call).
    With no interpreter active and the profiler off, nothing could record or rewrite the
    call, so forward runs directly (what apply's short path would do, less its bookkeeping:
    a comparison costs about a third of going through apply)."""
    if not _state.interpreters and not _prof.active:
        try:
            return cls._forward_impl(cls._direct_ctx, *args)
        except ValueError as e:  # shapes that do not broadcast: PyTorch's RuntimeError
            _broadcast_error(cls, args, e)
    with grad_mode.no_grad():
        return cls.apply(*args)


def _compare(ufunc: Any, name: str) -> Any:
    """A :class:`_NoGrad` Function computing ``ufunc`` and its public function."""
    cls = type(name.title().replace("_", ""), (_NoGrad,), {
        "__doc__": f"``out = {name}(a, b)`` elementwise (broadcast, promoted); bool, no gradient.",
        "__module__": __name__, "kernel": staticmethod(ufunc),
    })

    def op(input: Any, other: Any) -> Tensor:
        require_tensor(name, input)
        return _apply(cls, *_wrap_ints(input, other))

    op.__name__ = name
    op.__doc__ = _compare_doc(name)
    op.function = cls
    return op


#: per comparison: what it computes, its aliases, and its example's output for the operands
#: ``[1, 2, 3]`` and ``[2, 2, 2]`` (logical ops: ``[0, 1, 2]`` and ``[1.0, 1.0, 0.0]``)
_COMPARE_DOCS = {
    "eq": ("``input == other``", "", "tensor([False,  True, False])"),
    "ne": ("``input != other``", " ``not_equal`` is the same function.", "tensor([ True, False,  True])"),
    "lt": ("``input < other``", " ``less`` is the same function.", "tensor([ True, False, False])"),
    "le": ("``input <= other``", " ``less_equal`` is the same function.", "tensor([ True,  True, False])"),
    "gt": ("``input > other``", " ``greater`` is the same function.", "tensor([False, False,  True])"),
    "ge": ("``input >= other``", " ``greater_equal`` is the same function.", "tensor([False,  True,  True])"),
    "logical_and": ("``bool(input) and bool(other)``", "", "tensor([False,  True, False])"),
    "logical_or": ("``bool(input) or bool(other)``", "", "tensor([True, True, True])"),
    "logical_xor": ("``bool(input) != bool(other)``", "", "tensor([ True, False,  True])"),
}


def _compare_doc(name: str) -> str:
    what, alias, shown = _COMPARE_DOCS[name]
    logical = name.startswith("logical")
    a, b = ("[0, 1, 2]", "[1.0, 1.0, 0.0]") if logical else ("[1, 2, 3]", "[2, 2, 2]")
    rule = ("Each operand is true where non-zero; any dtypes." if logical else
            "The operands are compared in their promoted dtype; ``nan`` is unequal to everything.")
    return f"""Elementwise {what}, broadcast; a bool tensor.

    {rule}{alias}
    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor or number): broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape, dtype bool.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when ``input`` is not a Tensor (PyTorch's check).

    Example:
        >>> import dyngrad
        >>> dyngrad.{name}(dyngrad.tensor({a}), dyngrad.tensor({b}))
        {shown}
    """


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")
greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne
logical_and = _compare(np.logical_and, "logical_and")
logical_or = _compare(np.logical_or, "logical_or")
logical_xor = _compare(np.logical_xor, "logical_xor")


class LogicalNot(_NoGrad):
    """``out = not x`` elementwise; bool, no gradient."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = data_of(x)
        if not B.is_api_array(d):
            out = Tensor._make(np.logical_not(d))
        else:
            out = Tensor._make(B.array_module(d).logical_not(B.astype(d, np.bool_, copy=False)))
        ctx.mark_non_differentiable(out)
        return out


def logical_not(input: Tensor) -> Tensor:
    """Elementwise logical not: ``input == 0``; a bool tensor.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, any dtype (nonzero is true).
    Returns:
        Tensor: bool, ``(*)``, ``input``'s shape.
    Raises:
        TypeError: when ``input`` is a str or another object that is not array-like.

    Example:
        >>> import dyngrad
        >>> dyngrad.logical_not(dyngrad.tensor([0.0, 2.0, -1.0]))
        tensor([ True, False, False])
    """
    return _apply(LogicalNot, input)


class BitwiseNot(_NoGrad):
    """``out = ~x`` of an integer or bool tensor; no gradient."""

    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        d = data_of(x)
        if B.kind(d) == "f":  # PyTorch's error (the type dyngrad raised before was TypeError)
            dn = B.np_dtype_of(d).name
            tname = _TORCH_TYPE_NAMES.get(dn, dn)
            raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{tname}'")
        out = Tensor._make(np.invert(d) if type(d) is np.ndarray else B.array_module(d).bitwise_invert(d))
        ctx.mark_non_differentiable(out)
        return out


def bitwise_not(input: Tensor) -> Tensor:
    """Elementwise bitwise not ``~input`` of an integer tensor; logical not of a bool tensor.

    Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``, integer or bool.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        NotImplementedError: when ``input`` is floating (as PyTorch).

    Example:
        >>> import dyngrad
        >>> dyngrad.bitwise_not(dyngrad.tensor([0, -1, 5]))
        tensor([-1,  0, -6])
        >>> dyngrad.bitwise_not(dyngrad.tensor([True, False]))
        tensor([False,  True])
    """
    return _apply(BitwiseNot, input)


_TORCH_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


class _Bitwise(_NoGrad):
    """Base of the binary bitwise ops: integer or bool operands of the promoted dtype."""

    name = ""  # PyTorch's kernel name, for the error on floating operands

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        cls = ctx._forward_cls
        ad, bd, rt = binary_operands(a, b)
        if rt.kind not in "biu":
            tname = _TORCH_TYPE_NAMES.get(rt.name, rt.name)
            raise NotImplementedError(f"\"{cls.name}_cpu\" not implemented for '{tname}'")
        xp = B.array_module(ad, bd)
        if xp is np:
            ad = ad if isinstance(ad, np.ndarray) and ad.dtype == rt else B.asarray_any(ad).astype(rt)
            bd = bd if isinstance(bd, np.ndarray) and bd.dtype == rt else B.asarray_any(bd).astype(rt)
        else:  # both arrays of the library, of the promoted dtype
            ref = ad if hasattr(ad, "shape") else bd
            ad, bd = (B.astype(v, rt, copy=False) if hasattr(v, "shape") else B.like(v, ref, rt) for v in (ad, bd))
            if isinstance(cls.kernel, np.ufunc):  # (bitwise_and/or/xor: the standard's names)
                out = Tensor._make(getattr(xp, cls.kernel.__name__)(ad, bd))
                ctx.mark_non_differentiable(out)
                return out
        out = Tensor._make(B.asarray_any(cls.kernel(ad, bd)))
        ctx.mark_non_differentiable(out)
        return out


def _bitwise(ufunc: Any, name: str, kernel: str) -> Any:
    cls = type(name.title().replace("_", ""), (_Bitwise,), {
        "__doc__": f"``out = {name}(a, b)`` of integer/bool tensors (broadcast, promoted); no gradient.",
        "__module__": __name__, "kernel": staticmethod(ufunc), "name": kernel,
    })

    def op(input: Any, other: Any) -> Tensor:
        return _apply(cls, *_wrap_ints(input, other))

    op.__name__ = name
    what, note, (a, b, shown) = _BITWISE_DOCS[name]
    op.__doc__ = f"""Elementwise {what} of integer or bool tensors, broadcast and promoted.

    {note}Not differentiable: the result never requires grad.

    Args:
        input (Tensor or int or bool): ``(*)``, integer or bool.
        other (Tensor or int or bool): broadcastable with ``input``, integer or bool.
    Returns:
        Tensor: the broadcast shape, the promoted dtype (bool only when both are bool).
    Raises:
        NotImplementedError: when the promoted dtype is floating (a RuntimeError subclass, as
            PyTorch's).
        RuntimeError: when the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.{name}(dyngrad.tensor({a}), dyngrad.tensor({b}))
        {shown}
    """
    op.function = cls
    return op


#: per bitwise op: what it computes, a note, and its example (input, other, the output)
_BITWISE_DOCS = {
    "bitwise_and": ("``input & other``", "", ("[12, 10]", "[10]", "tensor([ 8, 10])")),
    "bitwise_or": ("``input | other``", "", ("[12, 10]", "[10]", "tensor([14, 10])")),
    "bitwise_xor": ("``input ^ other``", "", ("[12, 10]", "[10]", "tensor([6, 0])")),
    "bitwise_left_shift": ("``input << other``", "A shift by a negative amount or by the bit width or more "
                           "gives 0, as\n    PyTorch.\n    ", ("[1, 3]", "[2, 70]", "tensor([4, 0])")),
    "bitwise_right_shift": ("``input >> other``", "An arithmetic shift (the sign bit fills); a shift by a "
                            "negative amount or by the\n    bit width or more gives 0, or -1 for a negative "
                            "``input``, as PyTorch.\n    ", ("[-8, 8]", "[1, 70]", "tensor([-4,  0])")),
}


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and", "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor", "bitwise_xor")


def _shift(left: bool) -> Any:
    """Shift kernel with PyTorch's results for shifts outside ``[0, bits)``: a left shift
    gives 0, a right shift fills with the sign bit (0 or -1)."""

    def kernel(a: np.ndarray, s: np.ndarray) -> np.ndarray:  # both of the promoted dtype
        xp = B.array_module(a, s)
        if xp is not np:
            return _std_shift(xp, a, s, left)
        dt = a.dtype
        if dt == np.bool_:
            a, s = a.astype(np.uint8), s.astype(np.uint8)
        bits = a.dtype.itemsize * 8
        bad = (s < 0) | (s >= bits)
        safe = np.where(bad, 0, s).astype(a.dtype)
        if left:
            out = np.where(bad, 0, np.left_shift(a, safe))
        else:
            out = np.where(bad, np.where(a < 0, -1, 0), np.right_shift(a, safe))
        return out.astype(a.dtype)

    return kernel


def _std_shift(xp: Any, a: Any, s: Any, left: bool) -> Any:
    """The shift kernel with the standard's functions (both arrays of one dtype)."""
    nd = B.np_dtype_of(a)
    if nd == np.bool_:
        a, s = B.astype(a, np.uint8), B.astype(s, np.uint8)
        nd = np.dtype(np.uint8)
    bits = nd.itemsize * 8
    bad = (s < 0) | (s >= bits)
    safe = xp.where(bad, 0, s)
    if left:
        return xp.where(bad, 0, xp.bitwise_left_shift(a, safe))
    fill = -B.astype(a < 0, nd) if nd.kind == "i" else xp.zeros_like(a)
    return xp.where(bad, fill, xp.bitwise_right_shift(a, safe))


bitwise_left_shift = _bitwise(_shift(True), "bitwise_left_shift", "lshift")
bitwise_right_shift = _bitwise(_shift(False), "bitwise_right_shift", "rshift")


def bitwise_and_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_and`: ``self &= other``; bumps ``self``'s version and returns ``self``.

    Not differentiable (integer and bool tensors carry no gradient).

    Args:
        self (Tensor): ``(*)``, integer or bool, written in place.
        other (Tensor or int or bool): broadcastable to ``self``'s shape, integer or bool.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        NotImplementedError: when the promoted dtype is floating.
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (a bool ``self`` with
            an int ``other``), or ``other`` would broadcast ``self`` to a larger shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([12, 10])
        >>> x.bitwise_and_(dyngrad.tensor([10])) is x
        True
        >>> x
        tensor([ 8, 10])
    """
    return inplace(bitwise_and, self, other)


def bitwise_or_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_or`: ``self |= other``; bumps ``self``'s version and returns ``self``.

    Not differentiable (integer and bool tensors carry no gradient).

    Args:
        self (Tensor): ``(*)``, integer or bool, written in place.
        other (Tensor or int or bool): broadcastable to ``self``'s shape, integer or bool.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        NotImplementedError: when the promoted dtype is floating.
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (a bool ``self`` with
            an int ``other``), or ``other`` would broadcast ``self`` to a larger shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([12, 10])
        >>> x.bitwise_or_(dyngrad.tensor([10])) is x
        True
        >>> x
        tensor([14, 10])
    """
    return inplace(bitwise_or, self, other)


def bitwise_xor_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_xor`: ``self ^= other``; bumps ``self``'s version and returns ``self``.

    Not differentiable (integer and bool tensors carry no gradient).

    Args:
        self (Tensor): ``(*)``, integer or bool, written in place.
        other (Tensor or int or bool): broadcastable to ``self``'s shape, integer or bool.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        NotImplementedError: when the promoted dtype is floating.
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (a bool ``self`` with
            an int ``other``), or ``other`` would broadcast ``self`` to a larger shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([12, 10])
        >>> x.bitwise_xor_(dyngrad.tensor([10])) is x
        True
        >>> x
        tensor([6, 0])
    """
    return inplace(bitwise_xor, self, other)


def bitwise_left_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_left_shift`: ``self <<= other``; bumps ``self``'s version and returns ``self``.

    Not differentiable (integer and bool tensors carry no gradient).

    Args:
        self (Tensor): ``(*)``, integer or bool, written in place.
        other (Tensor or int or bool): broadcastable to ``self``'s shape, integer or bool.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        NotImplementedError: when the promoted dtype is floating.
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (a bool ``self`` with
            an int ``other``), or ``other`` would broadcast ``self`` to a larger shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1, 2])
        >>> x.bitwise_left_shift_(dyngrad.tensor([2])) is x
        True
        >>> x
        tensor([4, 8])
    """
    return inplace(bitwise_left_shift, self, other)


def bitwise_right_shift_(self: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_right_shift`: ``self >>= other``; bumps ``self``'s version and returns ``self``.

    Not differentiable (integer and bool tensors carry no gradient).

    Args:
        self (Tensor): ``(*)``, integer or bool, written in place.
        other (Tensor or int or bool): broadcastable to ``self``'s shape, integer or bool.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        NotImplementedError: when the promoted dtype is floating.
        RuntimeError: when the promoted dtype cannot be cast to ``self``'s (a bool ``self`` with
            an int ``other``), or ``other`` would broadcast ``self`` to a larger shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([8, -16])
        >>> x.bitwise_right_shift_(dyngrad.tensor([1])) is x
        True
        >>> x
        tensor([ 4, -8])
    """
    return inplace(bitwise_right_shift, self, other)


def equal(input: Tensor, other: Tensor) -> bool:
    """``True`` if both tensors have the same shape and the same elements (a Python bool).

    The dtypes may differ (values are compared, ``tensor([1]) == tensor([1.0])``); ``nan`` is
    never equal. Not differentiable.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): any shape (a different shape gives ``False``).
    Returns:
        bool: whether the shapes and all elements are equal.
    Raises:
        TypeError: when ``input`` or ``other`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.equal(dyngrad.tensor([1, 2]), dyngrad.tensor([1.0, 2.0]))
        True
        >>> dyngrad.equal(dyngrad.tensor([1, 2]), dyngrad.tensor([[1, 2]]))
        False
    """
    require_tensor("equal", input)
    require_tensor("equal", other, "other", 2)
    a, b = input._data, other._data
    if not B.is_api_array(a):
        return input.shape == other.shape and bool(np.array_equal(a, b))
    if input.shape != other.shape:
        return False
    rt = B.result_type(input, other)
    xp = B.array_module(a, b)
    return bool(xp.all(B.astype(a, rt, copy=False) == B.astype(b, rt, copy=False)))


class IsClose(_NoGrad):
    """``out = |a - b| <= atol + rtol * |b|`` elementwise (``nan`` equal with ``equal_nan``);
    bool, no gradient."""

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, rtol: float, atol: float, equal_nan: bool) -> Tensor:
        ad, bd = data_of(a), data_of(b)
        if not B.is_api_array(ad) and not B.is_api_array(bd):
            out = Tensor._make(B.asarray_any(np.isclose(ad, bd, rtol=rtol, atol=atol, equal_nan=equal_nan)))
        else:
            out = Tensor._make(_std_isclose(ad, bd, rtol, atol, equal_nan))
        ctx.mark_non_differentiable(out)
        return out


def _std_isclose(a: Any, b: Any, rtol: float, atol: float, equal_nan: bool) -> Any:
    """NumPy's ``isclose`` with the standard's functions: ``|a - b| <= atol + rtol * |b|``
    where both are finite, ``a == b`` elsewhere (infinities), and NaN close to NaN with
    ``equal_nan``; computed in the promoted floating dtype (as NumPy)."""
    nd = B.result_type(a, b)
    if nd.kind != "f":
        nd = np.dtype(np.float64)
    xp, a, b = B.std_operands(a, b, nd)
    ref = a if hasattr(a, "shape") else b
    a, b = (v if hasattr(v, "shape") else B.like(v, ref, nd) for v in (a, b))
    with np.errstate(invalid="ignore", over="ignore"):
        close = xp.abs(a - b) <= atol + rtol * xp.abs(b)
        out = xp.where(xp.isfinite(a) & xp.isfinite(b), close, a == b)
    if equal_nan:
        out = out | (xp.isnan(a) & xp.isnan(b))
    return out


def isclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|``; a bool tensor.

    Infinities are close only to an equal infinity; ``nan`` is close to nothing unless
    ``equal_nan``. Not differentiable: the result never requires grad.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): broadcastable with ``input``. (PyTorch requires a Tensor of
            ``input``'s dtype; dyngrad also accepts a number or another dtype.)
        rtol (float): relative tolerance, ``>= 0``. Default: ``1e-05``.
        atol (float): absolute tolerance, ``>= 0``. Default: ``1e-08``.
        equal_nan (bool): count ``nan`` as close to ``nan``. Default: ``False``.
    Returns:
        Tensor: bool, the broadcast shape of ``input`` and ``other``.
    Raises:
        RuntimeError: when ``rtol`` or ``atol`` is negative, or the shapes do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.isclose(dyngrad.tensor([1.0, 1.1]), dyngrad.tensor([1.0 + 1e-6, 1.0]))
        tensor([ True, False])
    """
    require_tensor("isclose", input)
    if rtol < 0:
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {atol}")
    return _apply(IsClose, input, other, rtol, atol, equal_nan)


def allclose(input: Tensor, other: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    """True when every element satisfies ``isclose``: ``|input - other| <= atol + rtol * |other|``.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): broadcastable with ``input``, of the same dtype.
        rtol (float): relative tolerance, ``>= 0``.
        atol (float): absolute tolerance, ``>= 0``.
        equal_nan (bool): count NaN as equal to NaN.
    Returns:
        bool: a Python bool (not a Tensor), as PyTorch's.
    Raises:
        RuntimeError: when the shapes do not broadcast, the dtypes differ (``Float did not
            match Double``) or a tolerance is negative, as PyTorch.
        TypeError: when ``other`` is not a Tensor (a number or a list), as PyTorch.

    Example:
        >>> import dyngrad
        >>> dyngrad.allclose(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 2.0 + 1e-7]))
        True
    """
    require_tensor("allclose", input)
    if not isinstance(other, Tensor):
        raise TypeError(f"allclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    for tol, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{tol} must be greater than or equal to zero, but got {v}")
    a, b = data_of(input), data_of(other)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{_scalar_name(a.dtype)} did not match {_scalar_name(b.dtype)}")
    try:
        if B.is_api_array(a) or B.is_api_array(b):
            B.broadcast_shapes(tuple(a.shape), tuple(b.shape))
            return bool(B.array_module(a, b).all(_std_isclose(a, b, rtol, atol, equal_nan)))
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    except ValueError as e:
        raise RuntimeError(f"allclose(): {e}") from None


_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}


def _scalar_name(dt: np.dtype) -> str:
    """PyTorch's name of a dtype in its messages (``Float``, ``Long``)."""
    return _SCALAR_NAMES.get(dt.name, dt.name)
