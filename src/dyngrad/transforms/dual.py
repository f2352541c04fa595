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
stack (:func:`_apply_ctx` / :func:`_run_plain`): every level of one call shares it, and its
saved tensors are the real inputs and outputs, which carry the tangents of every level.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd import anomaly_mode, grad_mode, profiler
from ..autograd._context import context
from ..autograd.function import Function, _check_keyword_only, _check_nested, _record
from ..autograd.graph import _seq
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
                kw: dict = {}
                if kwargs:
                    args, kw = cls._bind(args, kwargs)
                if getattr(cls, "jvp", None) is None:
                    return _double_vjp_apply(self, cls, args, kw)
                out, ctx = _jvp_apply(self, cls, args, kw)
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
        e = self.table.get(id(t.data))
        if e is None or e[0]() is not t.data:
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

        pos = view_positions(view.data, base.data)
        if pos is None:
            return None
        idx = Tensor._make(pos.reshape(-1).astype(np.int64))
        tv = _below(self, lambda: index_select(tb.reshape(-1), 0, idx).reshape(pos.shape))
        self.set(view, tv)
        return tv

    def set(self, owner: Tensor, tangent: Tensor) -> None:
        arr = owner.data
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
        if dst.data is src.data:
            self.table[id(dst.data)][2].append(weakref.ref(dst))
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
        t = Tensor._make(a.data.view())
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
            if tb is not None and not np.shares_memory(tb.data, old.data):
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
        lv.table.pop(id(dst.data), None)  # an in-place op on x.detach() leaves x's tangent)


def _write_into(lv: DualInterpreter, old: Tensor, t: Tensor) -> None:
    """``old`` takes ``t``'s values in place: under outer dual levels as ``copy_`` at the
    levels below ``lv`` (they update ``old``'s own tangents), else directly."""
    if _outer(lv):
        with grad_mode.no_grad():
            _below(lv, old.copy_, t)
        return
    np.copyto(old.data, t.data)
    old._vc[0] += 1


def _own_tangent(lv: DualInterpreter, t: Tensor) -> Tensor | None:
    """``t``'s own tangent entry at ``lv`` (not re-derived from a base)."""
    e = lv.table.get(id(t.data))
    if e is None or e[0]() is not t.data:
        return None
    if t.grad_fn is not None or any(r() is t for r in e[2]):
        return e[1]
    return None


def _can_write_into(old: Tensor, new: Tensor) -> bool:
    """Whether tangent ``old`` can take ``new``'s values in place: same shape and dtype,
    writeable memory, and neither part of a recorded graph (forward-over-reverse keeps
    its tangents immutable, so their history stays valid)."""
    return (type(old) is Tensor and type(new) is Tensor and old.data.shape == new.data.shape
            and old.data.dtype == new.data.dtype and old.data.flags.writeable
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
        lv.table.pop(id(view.data), None)
        return True
    pos = view_positions(view.data, base.data)
    if pos is None:
        return False
    dt = (t if t is not None else tb).data.dtype  # type: ignore[union-attr]  # (not both None)
    if tb is None:
        tb = Tensor._make(np.zeros(base.data.shape, dt))
    if t is None:
        t = Tensor._make(np.zeros(view.data.shape, dt))
    idx = Tensor._make(pos.reshape(-1).astype(np.int64))
    new_tb = _below(lv, lambda: index_copy(tb.reshape(-1), 0, idx, t.reshape(-1)).reshape(base.data.shape))
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
def _jvp_apply(lv: DualInterpreter, cls: type[Function], args: tuple, kw: dict) -> tuple:
    """``cls.apply(*args, **kw)`` at level ``lv`` for a Function with a ``jvp`` rule:
    ``(output, ctx)``, the output carrying its tangent at ``lv`` (and, from the levels
    below, at theirs)."""
    tans: dict[int, Tensor] = {}
    for a in args:
        if isinstance(a, Tensor):
            t = lv.get(a)
            if t is not None:
                tans[id(a)] = t
    out, ctx = lv.lowered(_apply_ctx, cls, args, kw)
    outs = out if type(out) is tuple else (out,)
    touts = _below(lv, _rule_jvp, cls, ctx, outs, args, tans)
    _give_tangents(lv, outs, touts, tans)
    return out, ctx


def _apply_ctx(cls: type[Function], args: tuple, kw: dict) -> tuple:
    """``Function.apply`` at the current stack, returning ``(output, ctx)``: the dual
    levels that have a tangent here process it (each passing the same output objects and
    ctx up), and the op's own forward runs at the bottom (:func:`_run_plain`)."""
    for interp in reversed(context.interpreters):
        if isinstance(interp, DualInterpreter):
            for a in args:
                if isinstance(a, Tensor) and interp.get(a) is not None:
                    return _jvp_apply(interp, cls, args, kw)
        elif interp.process(cls, args, kw) is not NotImplemented:  # pragma: no cover - (see below)
            # a level above forward mode declined these very arguments before lowering to it
            raise RuntimeError(f"forward mode: {type(interp).__name__} took a call of {cls.__name__} "
                               "that it had declined (internal error)")
    return _run_plain(cls, args, kw)


def _run_plain(cls: type[Function], args: tuple, kw: dict) -> tuple:
    """The plain path of ``Function.apply`` (autograd/function.py: run ``forward``, record
    the node when an input requires grad) that also returns the ctx, which a ``jvp`` rule
    reads even when no graph is recorded. Same steps and checks as ``apply``'s; runs only
    inside a dual level, so the plain path outside one is untouched.

    An output holding an input's array object gets a view of it (same memory), because
    tangent tables are keyed by array."""
    bcls = cls._backward_cls
    ctx = bcls.__new__(bcls)
    enabled = _state.enabled
    needs = []
    if enabled:
        for a in args:
            if isinstance(a, Tensor):
                if a._base is not None and a._vc[0] != a._view_ver:
                    a._refresh_view()  # a view whose base changed in place since
                needs.append(a._requires_grad)
            else:
                if type(a) in (list, tuple) and not cls.trusted:
                    _check_nested(cls, a)
                needs.append(False)
        if kw:
            _check_keyword_only(cls, kw)
    requires = True in needs
    if requires:
        ctx._seq = next(_seq)
    # forward saves what backward (and so the jvp rule) needs for the inputs it is told
    # need a gradient: here every floating input may have a tangent at some level
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.data.dtype.kind in "fc" for a in args)
    _state.enabled = False
    try:
        if _prof.active:
            out = profiler.run_forward(cls, ctx, args, kw)
        elif cls._has_setup_context:
            out = cls._forward_impl(*args, **kw)
            cls.setup_context(ctx, args, out)
        else:
            out = cls._forward_impl(ctx, *args, **kw)
    finally:
        _state.enabled = enabled
    is_tuple = type(out) is tuple
    outs = out if is_tuple else (out,)
    # the rule reads the saved tensors themselves: not through saved-tensor hooks (which may
    # pack a detached copy: no tangents, no history) or the node's output re-attachment
    ctx._dual_saved = ctx._to_save  # type: ignore[attr-defined]  # (a node has a __dict__)
    dirty = ctx._dirty
    arrays = [a.data for a in args if isinstance(a, Tensor)]
    for o in outs:
        if isinstance(o, Tensor) and not any(o is a for a in args):
            if any(o.data is d for d in arrays):
                o.data = o.data.view()
    non_diff = ctx._non_diff
    diff = [isinstance(o, Tensor) and o.data.dtype.kind in "fc" and not any(o is n for n in non_diff) for o in outs]
    ctx._dual_diff = diff  # type: ignore[attr-defined]  # (a node has a __dict__)
    if not requires:
        if not dirty and not cls.trusted and any(o is a for o in outs for a in args if isinstance(o, Tensor)):
            outs = tuple(_fresh_alias(o) if any(o is a for a in args) else o for o in outs)
            out = outs if is_tuple else outs[0]
        return out, ctx
    ctx.needs_input_grad = tuple(needs)
    if anomaly_mode.any_on.count and anomaly_mode.state.anomaly:
        anomaly_mode.record_site(ctx)
    out = _record(cls, ctx, args, outs, is_tuple, dirty)
    for o in (out if is_tuple else (out,)):  # (an input returned as is: _record's alias of it)
        if isinstance(o, Tensor) and any(o.data is d for d in arrays) and not any(o is a for a in args):
            o.data = o.data.view()
    return out, ctx


def _fresh_alias(t: Tensor) -> Tensor:
    """A history-less alias of ``t`` on its own array object (same memory and version)."""
    a = Tensor._make(t.data.view())
    a._vc = t._vc
    return a


def _rule_jvp(cls: type[Function], ctx: Any, outs: tuple, args: tuple, tans: dict) -> list:
    """The output tangents from ``cls.jvp`` (run by the caller at the levels below)."""
    diff = ctx._dual_diff
    if not any(diff):
        return [None] * len(outs)
    builtin = cls.trusted
    tin: list[Tensor | None] = []
    for a in args:
        if not isinstance(a, Tensor):
            tin.append(None)
        elif id(a) in tans:
            tin.append(tans[id(a)])
        elif builtin or a.data.dtype.kind != "f":
            tin.append(None)
        else:
            tin.append(Tensor._make(np.zeros_like(a.data)))
    r = cls.jvp(_JvpCtx(ctx, args, tin), *tin)  # type: ignore[attr-defined]  # (the caller checked)
    rs = r if isinstance(r, tuple) else (r,)
    if len(rs) != len(outs):
        raise RuntimeError(
            f"{cls.__name__}.jvp returned {len(rs)} tangents but forward returned {len(outs)} outputs"
        )
    return [None if not d or t is None else _fit(t, o, cls, i) for i, (o, d, t) in enumerate(zip(outs, diff, rs))]


def _give_tangents(lv: DualInterpreter, outs: tuple, touts: list, tans: dict) -> None:
    """Set the outputs' tangents at ``lv``. A rule that passed an input's tangent through
    (clone, adding a constant) gives a non-view output a copy of it (``clone`` at the levels
    below), so that an in-place op on the output later (which updates its tangent in place,
    as PyTorch) cannot reach the input's; a view's tangent stays a view."""
    in_tans = [u.data for u in tans.values() if type(u) is Tensor]
    for o, t in zip(outs, touts):
        if t is None or not isinstance(o, Tensor):
            continue
        if o._base is None and type(t) is Tensor and any(np.may_share_memory(t.data, u) for u in in_tans):
            t = _below(lv, t.clone)
        lv.set(o, t)


def _fit(t: Any, o: Tensor, cls: Any = None, i: int = 0) -> Tensor:
    """A tangent shaped and typed like output ``o`` (built-in rules may return
    broadcastable ones; a custom ``jvp`` must return the output's shape, as in PyTorch).

    Raises:
        RuntimeError: a custom Function's jvp tangent whose shape differs from its output's."""
    if not isinstance(t, Tensor):
        t = Tensor._make(np.asarray(t, dtype=o.data.dtype))
    if t.data.shape != o.data.shape:
        if cls is not None and not cls.trusted:
            raise RuntimeError(
                f"{cls.__name__}.jvp returned a tangent of shape {list(t.shape)} for output {i}, "
                f"whose shape is {list(o.shape)}; each tangent must have its output's shape"
            )
        t = t + Tensor._make(np.zeros(o.data.shape, dtype=o.data.dtype))
    if t.data.dtype != o.data.dtype:
        t = t.to(o.dtype)
    return t


class _JvpCtx:
    """What a ``jvp`` rule sees as ctx: the forward ctx, but ``saved_tensors`` returns the
    tensors given to ``save_for_forward`` (falling back to ``save_for_backward``'s, as
    given, not through the node), ``needs_input_grad`` is True for the inputs with a
    tangent, and ``_fwd_inputs`` holds forward's positional arguments (built-in rules use
    it)."""

    def __init__(self, ctx: Any, inputs: tuple, tangents: list) -> None:
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_fwd_inputs", inputs)
        object.__setattr__(self, "needs_input_grad", tuple(u is not None for u in tangents))

    @property
    def saved_tensors(self) -> tuple:
        ctx = self._ctx
        fs = getattr(ctx, "_fwd_saved", None)
        if fs is not None:
            return tuple(fs)
        return tuple(ctx._dual_saved)  # (saved by _run_plain before any node packed them)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._ctx, name, value)


# ---------------------------------------------------------------- Functions without jvp
def _double_vjp_apply(lv: DualInterpreter, cls: type[Function], args: tuple, kw: dict) -> Any:
    """``cls.apply(*args, **kw)`` at level ``lv`` for a Function that defines only
    ``backward``: the double-vjp construction. ``g(v) = J^T v`` is linear in ``v``, so
    ``J u = d/dv <g(v), u>``: the op runs (at the levels below) on inputs that require grad,
    ``g`` is its backward at a dummy ``v`` (``create_graph=True``), and the tangent is the
    gradient of ``g`` w.r.t. ``v`` with ``grad_outputs=u``, all ordinary ops and
    ``autograd.grad`` calls at the levels below, so outer levels differentiate it too.
    Inputs with a tangent that do not require grad are stood for by leaves sharing their
    memory and tangents; without a graph to record, the results are detached from that
    internal graph (keeping their tangents at the outer levels)."""
    from ..autograd.backprop import grad as _grad  # deferred: backprop is built on function

    tans: dict[int, Tensor] = {}
    for a in args:
        if isinstance(a, Tensor):
            t = lv.get(a)
            if t is not None:
                tans[id(a)] = t
    enabled = _state.enabled
    ng = enabled and (any(isinstance(a, Tensor) and a._requires_grad for a in args)
                      or any(t._requires_grad for t in tans.values()))
    levels = active(DualInterpreter)
    outer = [j for j in levels if j.idx < lv.idx]
    local: dict[int, Tensor] = {}
    keys: list[int] = []
    xs: list[Tensor] = []
    made: list[Tensor] = []
    largs = []
    for a in args:
        if not isinstance(a, Tensor):
            largs.append(a)
            continue
        la = local.get(id(a))
        if la is None:
            la = a
            if id(a) in tans and not (ng and a._requires_grad):
                la = Tensor._make(a.data)
                la._vc = a._vc
                la._requires_grad = True
                lv._leaves[id(la)] = la
                made.append(la)
                for j in levels:  # (custom_gradient's body runs at the caller's levels: lv too)
                    j.share(a, la)
            local[id(a)] = la
            if id(a) in tans:
                keys.append(id(a))
                xs.append(la)
        largs.append(la)
    vs: list[Tensor] = []
    _state.enabled = True
    try:
        out = lv.lowered(cls.apply, *largs, **kw)
        is_tuple = type(out) is tuple
        outs = out if is_tuple else (out,)
        if any(o is x for o in outs for x in xs):  # (mark_dirty: the input became the output)
            raise NotImplementedError(
                f"You must implement the jvp function for custom autograd.Function to use it with "
                f"forward mode AD: {cls.__name__} modifies an input in place (mark_dirty) and has no "
                "jvp, so its tangent cannot come from its backward (the double-vjp construction "
                "would differentiate with respect to the input's new value). Define "
                f"{cls.__name__}.jvp(ctx, *tangents)."
            )
        douts = [o for o in outs if isinstance(o, Tensor) and o._requires_grad]
        ts: list[Any] = []
        if douts:
            vs = [Tensor._make(np.ones_like(o.data)) for o in douts]  # any v (linear); not 0, which backwards may shortcut
            for v in vs:
                v._requires_grad = True
            try:
                gs = _below(lv, _grad, douts, xs, vs, retain_graph=True, create_graph=True, allow_unused=True)
            except RuntimeError as e:
                raise RuntimeError(
                    f"forward-mode AD through {cls.__name__} (no jvp rule, so its backward is "
                    f"differentiated twice) failed: {e}. Define {cls.__name__}.jvp(ctx, *tangents)."
                ) from e
            if any(g is not None and not g._requires_grad for g in gs):
                # the vjp does not depend on v as far as autograd can see: backward left dyngrad ops
                raise RuntimeError(
                    f"forward-mode AD through {cls.__name__}: it has no jvp rule, and its backward is not "
                    "differentiable (it computes outside dyngrad's ops, e.g. with NumPy on .data), so the "
                    f"double-vjp construction cannot give its tangent. Define {cls.__name__}.jvp(ctx, "
                    "*tangents), or write backward with dyngrad operations."
                )
            pairs = [(g, tans[k]) for g, k in zip(gs, keys) if g is not None]
            if pairs:
                # (the engine keeps outer levels' tangents only while recording: create_graph)
                ts = list(_below(lv, _grad, [g for g, _ in pairs], vs,
                                 [u.to(g.dtype) if u.dtype != g.dtype else u for g, u in pairs],
                                 retain_graph=True, create_graph=ng or bool(outer), allow_unused=True))
            else:
                ts = [None] * len(vs)
    finally:
        _state.enabled = enabled
    it = iter(ts)
    touts: list[Tensor | None] = []
    for o in outs:
        if not (isinstance(o, Tensor) and o._requires_grad):
            touts.append(None)
            continue
        t = next(it)
        touts.append(Tensor._make(np.zeros_like(o.data)) if t is None else _below(lv, _fit, t, o))
    if not ng:  # nothing to record: cut the internal graph, keep the outer levels' tangents
        outs = tuple(_detach_keep(o, outer) if isinstance(o, Tensor) and o._requires_grad else o for o in outs)
        touts = [None if t is None else _detach_keep(t, outer) for t in touts]
    for o, t in zip(outs, touts):
        if t is not None:
            lv.set(o, t)
    _retire(made + vs)  # internal leaves: an outer transform must not count them as its inputs'
    return outs if is_tuple else outs[0]


def _detach_keep(t: Tensor, levels: list) -> Tensor:
    """``t`` without history (on its own array object), keeping its tangents at ``levels``
    (dual levels, outermost first), each detached the same way at the levels below its own."""
    d = _fresh_alias(t)
    for k, j in enumerate(levels):
        tj = j.get(t)
        if tj is not None:
            j.set(d, _detach_keep(tj, levels[:k]))
    return d


def _retire(leaves: Any) -> None:
    """A transform is done with its own ``leaves`` (tensors it made to differentiate with
    respect to, never the user's): a graph recorded through them (kept derivatives) may
    still reach them, and must not count as reaching an outer tensor. Their AccumulateGrad
    nodes say so (``autograd.functional._reaches_outer`` reads the mark); while a transform
    runs its leaves are unmarked, so that a transform nested inside it counts them."""
    for t in leaves:
        t = _bottom(t)  # (inside vmap: the graph holds the unwrapped leaf)
        if isinstance(t, Tensor) and t.grad_fn is None and t._requires_grad and t._acc is not None:
            acc = t._acc()
            if acc is not None:
                acc._transform_done = True  # type: ignore[attr-defined]  # (a node has a __dict__)


def is_retired(node: Any) -> bool:
    """True for the AccumulateGrad node of a leaf a finished transform made (``_retire``)."""
    return getattr(node, "_transform_done", False)
