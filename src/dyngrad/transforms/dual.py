"""Forward mode as an interpreter: :class:`DualInterpreter`, one dual level, and how one
``Function.apply`` inside it computes its outputs' tangents. The public face is
:mod:`dyngrad.autograd.forward_ad` (``dual_level``, ``make_dual``, ``unpack_dual``), whose
docstring tells the whole design.

The op runs once on fresh local leaves sharing the inputs' memory, its tangents come from
the Function's ``jvp`` rule or the double-vjp construction, and a ``DualBackward`` node
(``_DualOp``) connects the local outputs and tangents to the real inputs, so that reverse
mode through forward mode (and forward over reverse) works.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..autograd._context import context
from ..autograd.function import Function
from ..tensor import Tensor
from .batched_autograd import _bottom
from .interpreter import Interpreter, active

__all__ = ["DualInterpreter", "current"]

_state = grad_mode.state


class DualInterpreter(Interpreter):
    """One dual level (an interpreter on the thread's stack): the tangent table ``id(data array) -> [weakref(array), tangent,
    owners]``. A tensor sees the tangent when it is one of the owners (the tensor it was
    set on, or one given it with ``share``) or when it shares the array *and* has history
    (a saved output that backward unpacks re-attached to its node). A history-less alias
    such as ``detach()`` does not see it: detaching stops tangents, as in PyTorch."""

    kind = "dual"
    below_batching = True  # tangents live on unbatched values (transforms/interpreter.py)

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.table: dict[int, list] = {}

    def process(self, cls: type[Function], args: tuple, kwargs: dict) -> Any:
        """Outputs and their tangents, when some argument has a tangent at this level."""
        for a in args:
            if isinstance(a, Tensor) and self.get(a) is not None:
                return _dual_apply(self, cls, args, kwargs)
        return NotImplemented

    def after_inplace(self, src: Any, dst: Any) -> None:
        if len(active(DualInterpreter)) > 1:
            raise NotImplementedError(_NESTED_UNSUPPORTED.format(what="an in-place operation"))
        _transfer_tangent(self, src, dst)

    def owns_leaf(self, t: Any) -> bool:
        return _TRANSFORM_LEAVES.get(id(t)) is t

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
        the base or of another view of it, as PyTorch's tangent views would see it)."""
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
        tv = _suspended(lambda: index_select(tb.reshape(-1), 0, idx).reshape(pos.shape))
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


# What nested forward mode (two dual levels) does not support yet: each raises this instead
# of giving a silently wrong number (the outer level's derivative of the inner tangent
# would miss the term these paths compute outside the outer level's view).
MAX_NESTED_LEVELS = 2
_NESTED_UNSUPPORTED = (
    "forward mode: {what} under nested forward-mode levels (jacfwd(jacfwd(f)), jvp of jvp) is "
    "not supported yet (it would lose second-order terms); use func.hessian (reverse over "
    "reverse) or jacfwd(jacrev(f)) (one forward level), or compute it out of place"
)


def current() -> DualInterpreter | None:
    """The innermost active dual level, or None."""
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


def _transfer_tangent(lv: DualInterpreter, src: Tensor, dst: Tensor) -> None:
    """After an in-place op wrote ``src`` (the out-of-place result) into ``dst``, give
    ``dst`` the result's tangent (or none). Called by ``ops._util.inplace`` through
    :meth:`DualInterpreter.after_inplace`."""
    t = lv.get(src)
    old = _own_tangent(lv, dst)
    if old is not None and t is old:  # the op kept the tangent (adding a constant, say)
        lv.set(dst, old)
        return
    if old is not None and t is not None and _can_write_into(old, t):
        # the tangent is updated in place, as PyTorch's: the object the caller passed to
        # make_dual (and the tangents of views that share its memory) see the change
        np.copyto(old.data, t.data)
        old._vc[0] += 1
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
    of the base re-derive theirs (``_Level.get``). False when the positions are unknown."""
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
    new_tb = _suspended(lambda: index_copy(tb.reshape(-1), 0, idx, t.reshape(-1)).reshape(base.data.shape))
    lv.set(base, new_tb)
    lv.set(view, t)
    return True


def _share_tangent(src: Tensor, dst: Tensor) -> None:
    """Let ``dst`` (a leaf standing for ``src``, say) carry ``src``'s tangent."""
    lv = current()
    if lv is not None:
        lv.share(_bottom(src), _bottom(dst))  # a batched tensor's tangent is its values'


class _JvpCtx:
    """What a ``jvp`` rule sees as ctx: the forward ctx, but ``saved_tensors`` returns the
    tensors given to ``save_for_forward`` (falling back to ``save_for_backward``'s), and
    ``_fwd_inputs`` holds forward's positional arguments (built-in rules use it)."""

    def __init__(self, ctx: Any, inputs: tuple, subst: dict | None = None) -> None:
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_fwd_inputs", inputs)
        object.__setattr__(self, "_subst", subst)

    @property
    def saved_tensors(self) -> tuple:
        fs = getattr(self._ctx, "_fwd_saved", None)
        saved = tuple(fs) if fs is not None else self._ctx.saved_tensors
        subst = self._subst
        if subst:  # nested levels: the stand-ins that carry the outer levels' tangents
            saved = tuple(subst.get(id(t.data), t) if isinstance(t, Tensor) else t for t in saved)
        return saved

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._ctx, name, value)


class _Box:
    __slots__ = ("outs", "ins", "rerun", "diff", "tidx")
    outs: tuple
    ins: tuple
    rerun: Any
    diff: list
    tidx: list

    def __init__(self) -> None:
        self.rerun = None


class _DualOp(Function):
    """Connects a forward-mode computation done on local leaves to the real inputs:
    ``outputs = local outputs`` (primals and tangents); backward is the vjp of that local
    graph, ``autograd.grad(local_outs, local_ins, grads)``."""

    trusted = True
    _node_name = "DualBackward"

    @staticmethod
    def forward(ctx: Any, box: _Box, *ins: Tensor) -> tuple:
        ctx.box = box
        ctx.real = ins  # (kept without a version check: a changed input just skips the rerun)
        ctx.real_versions = tuple(t._vc[0] for t in ins)
        return tuple(Tensor._make(o.data) for o in box.outs)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        """The vjp of the local graph. With ``create_graph`` the gradients must stay
        differentiable w.r.t. the real inputs (a third derivative through forward-over-
        reverse, say), but the local graph ends in local leaves: the op (and its tangents)
        is then run again on aliases of the real inputs, and differentiated there."""
        from ..autograd.backprop import grad as _grad

        box = ctx.box
        pairs = [(o, g) for o, g in zip(box.outs, grads) if g is not None]
        if not pairs:
            return (None,) * (len(box.ins) + 1)
        real = ctx.real
        fresh = all(t._vc[0] == v for t, v in zip(real, ctx.real_versions))
        if not _state.enabled or box.rerun is None or not fresh:
            res = _grad([o for o, _ in pairs], list(box.ins), [g for _, g in pairs],
                        retain_graph=True, create_graph=_state.enabled, allow_unused=True)
            return (None, *res)
        lv = current()
        aliases = []
        for r in real:
            al = _suspended(_Alias.apply, r)
            if lv is not None:
                lv.share(r, al)
            aliases.append(al)
        subst = {id(la): al for la, al in zip(box.ins, aliases)}
        outs2, touts2 = _suspended(box.rerun, subst)
        if lv is not None:  # backward formulas that saved an output find its tangent
            for o, t in zip(outs2, touts2):
                if t is not None and isinstance(o, Tensor):
                    lv.set(o, t)
        flat = [o for o, d in zip(outs2, box.diff) if d]
        flat += [t for t, i in zip(touts2, box.tidx) if i is not None]
        pairs = [(o, g) for o, g in zip(flat, grads) if g is not None]
        res = _grad([o for o, _ in pairs], aliases, [g for _, g in pairs],
                    retain_graph=True, create_graph=True, allow_unused=True)
        return (None, *res)


# Leaves that finished transforms created to differentiate with respect to (never the
# user's): a later graph may still reach them (recorded derivatives), which must not count
# as reaching an outer tensor. While a transform runs, its leaves are not here, so that a
# transform nested inside it does count them as outer.
_TRANSFORM_LEAVES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> leaf


def _leaf(a: Tensor) -> Tensor:
    """A local leaf standing for ``a`` in one op's own small graph (internal: registered
    in ``_TRANSFORM_LEAVES`` so that an outer transform never takes it for a user leaf)."""
    t = Tensor._make(a.data)
    t._vc = a._vc
    t._requires_grad = True
    _TRANSFORM_LEAVES[id(t)] = t
    return t


def _dual_apply(lv: DualInterpreter, cls: type[Function], args: tuple, kwargs: dict) -> Any:
    """``cls.apply(*args, **kwargs)`` at dual level ``lv``: outputs plus their tangents."""
    tans: dict[int, Tensor] = {}
    for a in args:
        if isinstance(a, Tensor):
            t = lv.get(a)
            if t is not None:
                tans[id(a)] = t
    if not tans:
        return _suspended(cls.apply, *args, **kwargs)
    kw: dict = {}
    if kwargs:
        args, kw = cls._bind(args, kwargs)
    enabled = _state.enabled
    need_graph = enabled and any(
        isinstance(a, Tensor) and a._requires_grad for a in args
    ) or enabled and any(t._requires_grad for t in tans.values())
    # outer dual levels (nested forward mode): they see the op run on the local leaves and
    # its tangent computed there, so each local stand-in carries their tangents too
    outer = [i for i in context.interpreters if isinstance(i, DualInterpreter) and i is not lv]
    if outer:
        if need_graph:
            raise NotImplementedError(_NESTED_UNSUPPORTED.format(
                what=f"{cls.__name__} recording a graph (reverse mode through it, or an input that requires grad)"))
        if getattr(cls, "jvp", None) is None:
            raise NotImplementedError(_NESTED_UNSUPPORTED.format(
                what=f"{cls.__name__}, which has no jvp rule (its double-vjp construction),"))
    # fresh local leaves (deduplicated by object) so the op's graph is small and local
    local: dict[int, Tensor] = {}
    orig_ins: list[Tensor] = []
    local_ins: list[Tensor] = []
    largs = []
    for a in args:
        if not isinstance(a, Tensor):
            largs.append(a)
            continue
        la = local.get(id(a))
        if la is None:
            if id(a) in tans or (need_graph and a._requires_grad):
                la = _leaf(a)
                lv.share(a, la)  # a later backward through the local graph needs it
                if need_graph and a._requires_grad:
                    orig_ins.append(a)
                    local_ins.append(la)
            else:
                la = a.detach() if a._requires_grad else a
            for j in outer:
                j.share(a, la)
            local[id(a)] = la
        largs.append(la)
    ltans: dict[int, Tensor] = {}
    for k, t in tans.items():
        if need_graph and t._requires_grad:
            lt = _leaf(t)
            orig_ins.append(t)
            local_ins.append(lt)
        else:
            lt = t.detach() if t._requires_grad else t
        for j in outer:
            j.share(t, lt)
        ltans[k] = lt
    def run() -> tuple:  # at the levels below lv (custom_gradient resumes lv: see there)
        out = cls.apply(*largs, **kw)
        is_tuple = type(out) is tuple
        outs = out if is_tuple else (out,)
        diff = [isinstance(o, Tensor) and o._requires_grad for o in outs]
        if getattr(cls, "jvp", None) is not None:
            ctx_of = None
            if outer:  # the outer levels processed the op: its own ctx comes from a plain run
                ctx_of = _plain_ctx(cls, largs, kw, outs)
            touts = _rule_jvp(cls, outs, diff, args, largs, ltans, need_graph, ctx_of)
        else:
            touts = _double_vjp(cls, outs, diff, args, largs, local, ltans, need_graph)
        def rerun(subst: dict) -> tuple:  # the op and its tangents again, on other inputs
            largs2 = [subst.get(id(x), x) if isinstance(x, Tensor) else x for x in largs]
            ltans2 = {k: subst.get(id(v), v) for k, v in ltans.items()}
            out2 = cls.apply(*largs2, **kw)
            outs2 = out2 if type(out2) is tuple else (out2,)
            if getattr(cls, "jvp", None) is not None:
                return outs2, _rule_jvp(cls, outs2, diff, args, largs2, ltans2, True)
            local2 = {k: subst.get(id(v), v) for k, v in local.items()}
            return outs2, _double_vjp(cls, outs2, diff, args, largs2, local2, ltans2, True)

        # (outer levels' tangents are handed over below, not recomputed through DualBackward)
        return outs, is_tuple, touts, _suspended(_connect, outs, diff, touts, orig_ins, local_ins, need_graph, enabled, rerun)

    _state.enabled = True
    try:
        outs, is_tuple, touts, final = lv.lowered(run)
    finally:
        _state.enabled = enabled
    prim, tout = final
    real_of = {id(la): args[k] for k, a in enumerate(args) if isinstance(a, Tensor)
               for la in (local.get(id(a)),) if la is not None}
    in_tans = [u.data for u in tans.values()]
    for k, (lo, o, t) in enumerate(zip(outs, prim, tout)):
        is_view = isinstance(lo, Tensor) and isinstance(o, Tensor) and lo._base is not None
        if is_view:
            _keep_view(o, real_of.get(id(lo._base)))  # a view op: the output views the real input
        elif t is not None and not t._requires_grad and any(np.may_share_memory(t.data, u) for u in in_tans):
            # a rule that passed an input's tangent through (clone, adding a constant): the
            # output gets its own, so an in-place op on it later (which updates its tangent
            # in place, as PyTorch) cannot reach the input's. A view's tangent is a view.
            t = tout[k] = Tensor._make(t.data.copy())
        if t is not None:
            if id(o.data) in lv.table:  # an output sharing an input's array object
                o.data = o.data.view()
                if o._base is not None:
                    o._base = None  # (a fresh array object: positions no longer computable)
            lv.set(o, t)
    for j in outer:  # nested forward mode: the outer levels' tangents of outputs and tangents
        for lo, o, lt_, t in zip(outs, prim, touts, tout):
            if isinstance(lo, Tensor) and isinstance(o, Tensor):
                j.share(lo, o)
            if lt_ is not None and t is not None and t is not lt_:
                j.share(lt_, t)
    return tuple(prim) if is_tuple else prim[0]


def _keep_view(out: Tensor, real: Tensor | None) -> None:
    """The op ran on a local leaf standing for ``real`` and returned a view of it: make
    ``out`` a view of ``real``'s root (shared version counter), as outside a dual level, so
    that in-place changes through it reach the base's value, history and tangent."""
    if real is None:
        return
    root = real if real._base is None or (real._requires_grad and real.grad_fn is None) else real._base
    out._base = root
    out._vc = real._vc
    out._view_ver = out._vc[0]


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


def _plain_ctx(cls: type[Function], largs: list, kw: dict, outs: tuple) -> Any:
    """Nested forward mode: ``cls`` run again with every dual level off, for its ctx (the
    outer levels turned the first run's grad_fn into theirs); the ctx's saved tensors are
    mapped back to the stand-ins that carry the outer levels' tangents. Costs one more
    forward of the op, only under nested levels."""
    out2 = _suspended(cls.apply, *largs, **kw)
    outs2 = out2 if type(out2) is tuple else (out2,)
    subst = {id(a.data): a for a in largs if isinstance(a, Tensor)}
    for o2, o in zip(outs2, outs):
        if isinstance(o2, Tensor) and isinstance(o, Tensor):
            subst[id(o2.data)] = o
    o0 = next((o for o in outs2 if isinstance(o, Tensor) and o.grad_fn is not None), None)
    return None if o0 is None else (o0.grad_fn, subst)


def _rule_jvp(cls: type[Function], outs: tuple, diff: list, args: tuple, largs: list, ltans: dict, ng: bool,
              ctx_of: Any = None) -> list:
    o0 = next((o for o, d in zip(outs, diff) if d), None)
    if o0 is None:
        return [None] * len(outs)
    builtin = cls.trusted
    tin: list[Tensor | None] = []
    for a in args:
        if not isinstance(a, Tensor):
            tin.append(None)
        elif id(a) in ltans:
            tin.append(ltans[id(a)])
        elif builtin or a.data.dtype.kind != "f":
            tin.append(None)
        else:
            tin.append(Tensor._make(np.zeros_like(a.data)))
    with grad_mode.set_grad_enabled(ng):
        jctx = _JvpCtx(o0.grad_fn, tuple(largs)) if ctx_of is None else _JvpCtx(ctx_of[0], tuple(largs), ctx_of[1])
        r = cls.jvp(jctx, *tin)  # type: ignore[attr-defined]  # (the caller checked)
    rs = r if isinstance(r, tuple) else (r,)
    if len(rs) != len(outs):
        raise RuntimeError(
            f"{cls.__name__}.jvp returned {len(rs)} tangents but forward returned {len(outs)} outputs"
        )
    return [None if not d or t is None else _fit(t, o, cls, i) for i, (o, d, t) in enumerate(zip(outs, diff, rs))]


def _retire(leaves: Any) -> None:
    """A transform is done with its own ``leaves`` (see ``_TRANSFORM_LEAVES``)."""
    for t in leaves:
        t = _bottom(t)  # (inside vmap: the graph holds the unwrapped leaf)
        if isinstance(t, Tensor) and t.grad_fn is None and t.requires_grad:
            _TRANSFORM_LEAVES[id(t)] = t


def _double_vjp(cls: type[Function], outs: tuple, diff: list, args: tuple, largs: list, local: dict, ltans: dict, ng: bool) -> list:
    from ..autograd.backprop import grad as _grad

    douts = [o for o, d in zip(outs, diff) if d]
    if not douts:
        return [None] * len(outs)
    keys = list(ltans)
    xs = [local[k] for k in keys]
    vs = [_leaf(Tensor._make(np.ones_like(o.data))) for o in douts]  # any v (linear); not 0, which backwards may shortcut
    try:
        gs = _grad(douts, xs, vs, retain_graph=True, create_graph=True, allow_unused=True)
    except RuntimeError as e:
        raise RuntimeError(
            f"forward-mode AD through {cls.__name__} (no jvp rule, so its backward is "
            f"differentiated twice) failed: {e}. Define {cls.__name__}.jvp(ctx, *tangents)."
        ) from e
    flat = [g for g in gs if g is not None and not g._requires_grad]
    if flat:  # the vjp does not depend on v as far as autograd can see: backward left dyngrad ops
        raise RuntimeError(
            f"forward-mode AD through {cls.__name__}: it has no jvp rule, and its backward is not "
            "differentiable (it computes outside dyngrad's ops, e.g. with NumPy on .data), so the "
            f"double-vjp construction cannot give its tangent. Define {cls.__name__}.jvp(ctx, "
            "*tangents), or write backward with dyngrad operations."
        )
    pairs = [(g, ltans[k]) for g, k in zip(gs, keys) if g is not None]
    if not pairs:
        ts: Sequence[Any] = [None] * len(vs)
    else:
        ts = _grad([g for g, _ in pairs], vs, [u.to(g.dtype) if u.dtype != g.dtype else u for g, u in pairs],
                   retain_graph=True, create_graph=ng, allow_unused=True)
    _retire(vs)  # internal leaves: an outer transform must not count them as its inputs'
    it = iter(ts)
    res: list[Tensor | None] = []
    for o, d in zip(outs, diff):
        if not d:
            res.append(None)
            continue
        t = next(it)
        res.append(Tensor._make(np.zeros_like(o.data)) if t is None else _fit(t, o))
    return res


def _connect(outs: tuple, diff: list, touts: list, orig_ins: list, local_ins: list, ng: bool, enabled: bool,
             rerun: Any = None) -> tuple:
    if not ng:
        prim = [o.detach() if isinstance(o, Tensor) else o for o in outs]
        tout = [None if t is None else (t.detach() if t._requires_grad else t) for t in touts]
        return prim, tout
    box = _Box()
    box.ins = tuple(local_ins)
    flat = []
    for o, d in zip(outs, diff):
        if d:
            flat.append(o)
    tidx: list[int | None] = []
    for t in touts:
        if t is not None and t._requires_grad:
            tidx.append(len(flat))
            flat.append(t)
        else:
            tidx.append(None)
    box.outs = tuple(flat)
    box.rerun, box.diff, box.tidx = rerun, diff, tidx
    _state.enabled = enabled
    new = _DualOp.apply(box, *orig_ins)
    new = new if type(new) is tuple else (new,)
    it = iter(new)
    prim = [next(it) if d else (o.detach() if isinstance(o, Tensor) else o) for o, d in zip(outs, diff)]
    tout = [None if t is None else (new[i] if i is not None else t) for t, i in zip(touts, tidx)]
    return prim, tout


