"""Forward mode's apply hook: how one ``Function.apply`` inside a dual level computes its
outputs' tangents (see :mod:`dyngrad.autograd.forward_ad` for the whole design).

The op runs once on fresh local leaves sharing the inputs' memory, its tangents come from
the Function's ``jvp`` rule or the double-vjp construction, and a ``DualBackward`` node
(``_DualOp``) connects the local outputs and tangents to the real inputs, so that reverse
mode through forward mode (and forward over reverse) works.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .batched_autograd import _bottom
from .forward_ad import _Alias, _suspended
from .function import Function, _fwd_state

_state = grad_mode.state

class _JvpCtx:
    """What a ``jvp`` rule sees as ctx: the forward ctx, but ``saved_tensors`` returns the
    tensors given to ``save_for_forward`` (falling back to ``save_for_backward``'s), and
    ``_fwd_inputs`` holds forward's positional arguments (built-in rules use it)."""

    def __init__(self, ctx: Any, inputs: tuple) -> None:
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_fwd_inputs", inputs)

    @property
    def saved_tensors(self) -> tuple:
        fs = getattr(self._ctx, "_fwd_saved", None)
        return tuple(fs) if fs is not None else self._ctx.saved_tensors

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

    _builtin = True
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
        from .backprop import grad as _grad

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
        lv = _fwd_state.level
        aliases = []
        for r in real:
            al = _suspended(_Alias.apply, r)
            if lv is not None:
                lv.share(r, al)
            aliases.append(al)
        subst = {id(la): al for la, al in zip(box.ins, aliases)}
        _fwd_state.level = None
        try:
            outs2, touts2 = box.rerun(subst)
        finally:
            _fwd_state.level = lv
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


def _dual_apply(cls: type[Function], args: tuple, kwargs: dict) -> Any:
    """``cls.apply(*args, **kwargs)`` inside a dual level: outputs plus their tangents."""
    lv = _fwd_state.level
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
        ltans[k] = lt
    lv_saved = _fwd_state.level
    _fwd_state.level = None
    _fwd_state.paused = lv_saved  # custom_gradient's forward resumes it (see there)
    _state.enabled = True
    try:
        out = cls.apply(*largs, **kw)
        is_tuple = type(out) is tuple
        outs = out if is_tuple else (out,)
        diff = [isinstance(o, Tensor) and o._requires_grad for o in outs]
        if getattr(cls, "jvp", None) is not None:
            touts = _rule_jvp(cls, outs, diff, args, largs, ltans, need_graph)
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

        final = _connect(outs, diff, touts, orig_ins, local_ins, need_graph, enabled, rerun)
    finally:
        _state.enabled = enabled
        _fwd_state.level = lv_saved
        _fwd_state.paused = None
    prim, tout = final
    real_of = {id(la): args[k] for k, a in enumerate(args) if isinstance(a, Tensor)
               for la in (local.get(id(a)),) if la is not None}
    for lo, o, t in zip(outs, prim, tout):
        if isinstance(lo, Tensor) and isinstance(o, Tensor) and lo._base is not None:
            _keep_view(o, real_of.get(id(lo._base)))  # a view op: the output views the real input
        if t is not None:
            if id(o.data) in lv.table:  # an output sharing an input's array object
                o.data = o.data.view()
                if o._base is not None:
                    o._base = None  # (a fresh array object: positions no longer computable)
            lv.set(o, t)
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
        if cls is not None and not cls._builtin:
            raise RuntimeError(
                f"{cls.__name__}.jvp returned a tangent of shape {list(t.shape)} for output {i}, "
                f"whose shape is {list(o.shape)}; each tangent must have its output's shape"
            )
        t = t + Tensor._make(np.zeros(o.data.shape, dtype=o.data.dtype))
    if t.data.dtype != o.data.dtype:
        t = t.to(o.dtype)
    return t


def _rule_jvp(cls: type[Function], outs: tuple, diff: list, args: tuple, largs: list, ltans: dict, ng: bool) -> list:
    o0 = next((o for o, d in zip(outs, diff) if d), None)
    if o0 is None:
        return [None] * len(outs)
    builtin = cls._builtin
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
        r = cls.jvp(_JvpCtx(o0.grad_fn, tuple(largs)), *tin)  # type: ignore[attr-defined]  # (the caller checked)
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
    from .backprop import grad as _grad

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


