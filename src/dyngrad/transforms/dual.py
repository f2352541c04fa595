"""Forward mode as an interpreter: :class:`DualInterpreter`, one dual level, and how one
``Function.apply`` inside it computes its outputs' tangents. The public face is
:mod:`dyngrad.autograd.forward_ad` (``dual_level``, ``make_dual``, ``unpack_dual``), whose
docstring tells the whole design.

One call ``cls.apply(*args)`` at dual level ``k`` (functorch's forward-mode interpreter)::

    primal   = cls.apply(*args)            at the levels below k (lowered)
    tangents = cls.jvp(ctx, *tangents_k)   written in dyngrad ops, also at the levels below k

Both steps are ordinary ``Function.apply`` calls for the levels below ``k`` (outer dual
levels, and reverse mode when something requires grad), so they differentiate the primal
*and* the tangent computation: forward over forward to any depth (``jvp`` of ``jvp`` of
``jvp``, ``jacfwd(jacfwd(jacfwd(f)))``), reverse over forward and forward over reverse fall
out, with no local leaves and no extra graph node. A Function without ``jvp`` gets its
tangents from the double-vjp construction (two ``autograd.grad`` calls of its backward),
run the same way, as ordinary ops at the levels below ``k``.

The ``ctx`` the rule reads is the one the op's own forward filled, at the bottom of the
stack (``_apply_ctx`` / ``_run_plain``): every level of one call shares it, and its
saved tensors are the real inputs and outputs, which carry the tangents of every level.

This module holds the level (:class:`DualInterpreter`, its tangent table, how tangents
follow in-place changes and views); ``transforms/dual_apply.py`` holds the call (how one
``Function.apply`` computes its outputs' tangents: the rule, the double-vjp construction).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd import grad_mode, profiler
from ..autograd._context import context
from ..autograd.function import Function
from ..tensor import Tensor
from .batched_autograd import _bottom
from .interpreter import Interpreter, active

__all__ = ["DualInterpreter", "current"]

_state = grad_mode.state
_prof = profiler.state


class DualInterpreter(Interpreter):
    """One dual level (an interpreter on the thread's stack): the tangent table ``id(data array) -> [weakref(array), tangent,
    owners, version]``. A tensor sees the tangent when it is one of the owners (the tensor it was
    set on, or one given it with ``share``) or when it shares the array *and* has history
    (a saved output that backward unpacks re-attached to its node). A history-less alias
    such as ``detach()`` does not see it: detaching stops tangents, as in PyTorch.

    A tangent at level ``idx`` is an ordinary tensor of the levels below (outer dual levels
    give it tangents of its own: the mixed derivatives of nested forward mode).

    Example:
        >>> import dyngrad
        >>> import dyngrad.autograd.forward_ad as fwAD
        >>> from dyngrad.transforms.dual import current
        >>> with fwAD.dual_level():
        ...     lv = current()
        ...     x = fwAD.make_dual(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 0.0]))
        ...     y = x * x
        ...     print(type(lv).__name__, lv.get(y))
        DualInterpreter tensor([2., 0.])
    """

    kind = "dual"
    below_batching = True  # tangents live on unbatched values (transforms/interpreter.py)

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.table: dict[int, list] = {}
        # leaves this level made to stand for inputs (the double-vjp construction): an
        # in-place change of one is the change of the real input (owns_leaf)
        self._leaves: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def process(self, cls: type[Function], args: tuple, kwargs: dict) -> Any:
        """Outputs and their tangents, when some argument has a tangent at this level."""
        for a in args:
            if isinstance(a, Tensor) and self.get(a) is not None:
                from . import dual_apply  # deferred: the call half is built on this module

                kw: dict = {}
                if kwargs:
                    args, kw = cls._bind(args, kwargs)
                if getattr(cls, "jvp", None) is None:
                    return dual_apply._double_vjp_apply(self, cls, args, kw)
                out, ctx = dual_apply._jvp_apply(self, cls, args, kw)
                ctx._dual_saved = ()  # every level's rule ran: a node holding its outputs is a cycle
                return out
        return NotImplemented

    def lowered(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """As :meth:`Interpreter.lowered`; when an inner dual level already lowered this
        same call, ``resume_stack`` stays that level's (with the dual levels lowered in
        between), so a Function that resumes the caller's levels (``custom_gradient``)
        runs at all of them."""
        ctx = context
        saved, resume = ctx.interpreters, ctx.resume_stack
        ctx.interpreters = tuple(i for i in saved if i is not self)
        if resume is not None and self in resume:
            ctx.resume_stack = tuple(i for i in resume if i in saved or isinstance(i, DualInterpreter))
        else:
            ctx.resume_stack = saved
        try:
            return fn(*args, **kwargs)
        finally:
            ctx.interpreters, ctx.resume_stack = saved, resume

    def after_inplace(self, src: Any, dst: Any) -> None:
        _transfer_tangent(self, src, dst)

    def owns_leaf(self, t: Any) -> bool:
        return self._leaves.get(id(t)) is t

    def get(self, t: Tensor) -> Tensor | None:
        e = self.table.get(id(t._data))
        if e is None or e[0]() is not t._data:
            return self._rederive(t) if t._base is not None else None
        if t._base is not None and e[3] != t._vc[0]:  # a view whose base changed in place
            r = self._rederive(t)
            if r is not None:
                return r  # (a base without a tangent leaves the view its own, as PyTorch)
        if t.grad_fn is not None:
            return e[1]
        for r in e[2]:
            if r() is t:
                return e[1]
        return None

    def _rederive(self, view: Tensor) -> Tensor | None:
        """The tangent of ``view`` read from its base's tangent (after an in-place change of
        the base or of another view of it, as PyTorch's tangent views would see it); an op
        at the levels below, so outer levels keep the tangent's own tangents."""
        base: Tensor = view._base  # type: ignore[assignment]  # (a view: its base is set)
        tb = self.get(base)
        if tb is None:
            return None
        from ..ops import index_select  # deferred: ops are built on this
        from ..ops._view_inplace import view_positions

        pos = view_positions(view._data, base._data)
        if pos is None:
            return None
        idx = Tensor._make(pos.reshape(-1).astype(np.int64))
        tv = _below(self, lambda: index_select(tb.reshape(-1), 0, idx).reshape(pos.shape))
        self.set(view, tv)
        return tv

    def set(self, owner: Tensor, tangent: Tensor) -> None:
        arr = owner._data
        key = id(arr)
        table = self.table

        def _drop(ref: Any, key: int = key) -> None:
            e = table.get(key)
            if e is not None and e[0] is ref:
                del table[key]

        table[key] = [weakref.ref(arr, _drop), tangent, [weakref.ref(owner)], owner._vc[0]]

    def share(self, src: Tensor, dst: Tensor) -> None:
        """Give ``dst`` the tangent of ``src`` (if any)."""
        t = self.get(src)
        if t is None:
            return
        if dst._data is src._data:
            self.table[id(dst._data)][2].append(weakref.ref(dst))
        else:
            self.set(dst, t)


def current() -> DualInterpreter | None:
    """The innermost active dual level, or None (see :class:`DualInterpreter`'s example).

    Example:
        >>> from dyngrad.transforms.dual import current
        >>> current() is None
        True
    """
    levels = active(DualInterpreter)
    return levels[-1] if levels else None


def _suspended(fn: Callable, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` with forward mode off (no tangents propagate)."""
    ctx = context
    saved = ctx.interpreters
    ctx.interpreters = tuple(i for i in saved if not isinstance(i, DualInterpreter))
    try:
        return fn(*args, **kw)
    finally:
        ctx.interpreters = saved


def _below(lv: DualInterpreter, fn: Callable, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` at the levels below ``lv``: ``lv`` and the dual levels inside it
    are off, the outer ones (and vmap levels) stay, so they differentiate what ``fn`` does
    (how a level's tangents are computed: they are values of the levels below)."""
    ctx = context
    saved = ctx.interpreters
    ctx.interpreters = tuple(i for i in saved if not (isinstance(i, DualInterpreter) and i.idx >= lv.idx))
    try:
        return fn(*args, **kw)
    finally:
        ctx.interpreters = saved


def _outer(lv: DualInterpreter) -> list[DualInterpreter]:
    """The active dual levels outside ``lv`` (outermost first)."""
    return [j for j in active(DualInterpreter) if j.idx < lv.idx]


class _Alias(Function):
    """``out = a`` as a new view object (memory shared); ``grad_a = grad``.
    ``make_dual``/``unpack_dual`` use it so that the dual tensor is distinct from its primal."""

    trusted = True
    _node_name = "AliasBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        t = Tensor._make(a._data.view())
        t._vc = a._vc
        return t

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        return g

    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Tensor:
        return u

    @staticmethod
    def vmap(info: Any, in_dims: tuple, a: Tensor) -> tuple:  # batching rule: the same alias
        return _Alias.apply(a), in_dims[0]


# ---------------------------------------------------------------- in-place ops
def _transfer_tangent(lv: DualInterpreter, src: Tensor, dst: Tensor) -> None:
    """After an in-place op wrote ``src`` (the out-of-place result) into ``dst``, give
    ``dst`` the result's tangent (or none). Called by ``ops._util.inplace`` through
    :meth:`DualInterpreter.after_inplace`. A tangent updated in place is updated by an
    in-place op at the levels below (``copy_``), so outer levels update its own tangents."""
    t = lv.get(src)
    old = _own_tangent(lv, dst)
    if old is not None and t is old:  # the op kept the tangent (adding a constant, say)
        lv.set(dst, old)
        return
    if old is not None and t is not None and _can_write_into(old, t):
        # the tangent is updated in place, as PyTorch's: the object the caller passed to
        # make_dual (and the tangents of views that share its memory) see the change
        _write_into(lv, old, t)
        lv.set(dst, old)
        if dst._base is not None:
            tb = _own_tangent(lv, dst._base)
            if tb is not None and not np.shares_memory(tb._data, old._data):
                _write_view_tangent(lv, dst, old)  # the base's tangent at the view's positions
        return
    if dst._base is not None:
        if _write_view_tangent(lv, dst, t):
            return
        raise RuntimeError(
            "forward-mode AD: an in-place operation changed a view whose position in its base "
            "cannot be computed, so the base's tangent cannot be updated; apply the operation "
            "out of place (or to a clone)"
        )
    if t is not None:
        lv.set(dst, t)
    elif old is not None:  # dst had a tangent and the result has none (only dst's entry goes:
        lv.table.pop(id(dst._data), None)  # an in-place op on x.detach() leaves x's tangent)


def _write_into(lv: DualInterpreter, old: Tensor, t: Tensor) -> None:
    """``old`` takes ``t``'s values in place: under outer dual levels as ``copy_`` at the
    levels below ``lv`` (they update ``old``'s own tangents), else directly."""
    if _outer(lv):
        with grad_mode.no_grad():
            _below(lv, old.copy_, t)
        return
    np.copyto(old._data, t._data)
    old._vc[0] += 1


def _own_tangent(lv: DualInterpreter, t: Tensor) -> Tensor | None:
    """``t``'s own tangent entry at ``lv`` (not re-derived from a base)."""
    e = lv.table.get(id(t._data))
    if e is None or e[0]() is not t._data:
        return None
    if t.grad_fn is not None or any(r() is t for r in e[2]):
        return e[1]
    return None


def _can_write_into(old: Tensor, new: Tensor) -> bool:
    """Whether tangent ``old`` can take ``new``'s values in place: same shape and dtype,
    writeable memory, and neither part of a recorded graph (forward-over-reverse keeps
    its tangents immutable, so their history stays valid)."""
    return (type(old) is Tensor and type(new) is Tensor and old._data.shape == new._data.shape
            and old._data.dtype == new._data.dtype and old._data.flags.writeable
            and not old._requires_grad and not new._requires_grad)


def _write_view_tangent(lv: DualInterpreter, view: Tensor, t: Tensor | None) -> bool:
    """After an in-place op on ``view``, its base's tangent takes ``t`` at the view's
    positions (zeros where the base had none), and the view's tangent is ``t``; other views
    of the base re-derive theirs (``DualInterpreter.get``). False when the positions are
    unknown. The new base tangent is an op at the levels below (outer levels follow)."""
    from ..ops import index_copy  # deferred: ops are built on this
    from ..ops._view_inplace import view_positions

    base: Tensor = view._base  # type: ignore[assignment]  # (a view: its base is set)
    tb = lv.get(base)
    if t is None and tb is None:
        lv.table.pop(id(view._data), None)
        return True
    pos = view_positions(view._data, base._data)
    if pos is None:
        return False
    dt = (t if t is not None else tb)._data.dtype  # type: ignore[union-attr]  # (not both None)
    if tb is None:
        tb = Tensor._make(np.zeros(base._data.shape, dt))
    if t is None:
        t = Tensor._make(np.zeros(view._data.shape, dt))
    idx = Tensor._make(pos.reshape(-1).astype(np.int64))
    new_tb = _below(lv, lambda: index_copy(tb.reshape(-1), 0, idx, t.reshape(-1)).reshape(base._data.shape))
    lv.set(base, new_tb)
    lv.set(view, t)
    return True


def _share_tangent(src: Tensor, dst: Tensor) -> None:
    """Let ``dst`` (a leaf standing for ``src``, say) carry ``src``'s tangents, at every
    active dual level."""
    s, d = _bottom(src), _bottom(dst)  # a batched tensor's tangent is its values'
    for lv in active(DualInterpreter):
        lv.share(s, d)


# ---------------------------------------------------------------- one op at one level
