"""How one ``Function.apply`` computes its outputs' tangents at a dual level (the call
half of forward mode; the level, :class:`~dyngrad.transforms.dual.DualInterpreter`, and its
tangent table are in ``transforms/dual.py``, whose docstring tells the design).

* :func:`_jvp_apply`: the primal at the levels below (``_apply_ctx`` / ``_run_plain``, one
  forward and one ctx shared by every level), then the Function's ``jvp`` rule, also at
  the levels below, and the tangents handed to the outputs;
* :func:`_double_vjp_apply`: for a Function without ``jvp``, the tangents from two
  ``autograd.grad`` calls of its backward, run the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import anomaly_mode, grad_mode, profiler
from ..autograd._context import context
from ..autograd.function import Function, _check_keyword_only, _check_nested, _record
from ..autograd.graph import _seq
from ..tensor import Tensor
from .batched_autograd import _bottom
from .dual import DualInterpreter, _below
from .interpreter import active
from .. import _backend as B

_state = grad_mode.state
_prof = profiler.state


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
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and B.kind(a._data) in "fc" for a in args)
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
    arrays = [a._data for a in args if isinstance(a, Tensor)]
    for o in outs:
        if isinstance(o, Tensor) and not any(o is a for a in args):
            if any(o._data is d for d in arrays):
                o._data = o._data.view()
    non_diff = ctx._non_diff
    diff = [isinstance(o, Tensor) and B.kind(o._data) in "fc" and not any(o is n for n in non_diff) for o in outs]
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
        if isinstance(o, Tensor) and any(o._data is d for d in arrays) and not any(o is a for a in args):
            o._data = o._data.view()
    return out, ctx


def _fresh_alias(t: Tensor) -> Tensor:
    """A history-less alias of ``t`` on its own array object (same memory and version)."""
    a = Tensor._make(t._data.view())
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
        elif builtin or B.kind(a._data) != "f":
            tin.append(None)
        else:
            tin.append(Tensor._make(np.zeros_like(a._data)))
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
    in_tans = [u._data for u in tans.values() if type(u) is Tensor]
    for o, t in zip(outs, touts):
        if t is None or not isinstance(o, Tensor):
            continue
        if o._base is None and type(t) is Tensor and any(np.may_share_memory(t._data, u) for u in in_tans):
            t = _below(lv, t.clone)
        lv.set(o, t)


def _fit(t: Any, o: Tensor, cls: Any = None, i: int = 0) -> Tensor:
    """A tangent shaped and typed like output ``o`` (built-in rules may return
    broadcastable ones; a custom ``jvp`` must return the output's shape, as in PyTorch).

    Raises:
        RuntimeError: a custom Function's jvp tangent whose shape differs from its output's."""
    if not isinstance(t, Tensor):
        t = Tensor._make(np.asarray(t, dtype=o._data.dtype))
    if t._data.shape != o._data.shape:
        if cls is not None and not cls.trusted:
            raise RuntimeError(
                f"{cls.__name__}.jvp returned a tangent of shape {list(t.shape)} for output {i}, "
                f"whose shape is {list(o.shape)}; each tangent must have its output's shape"
            )
        t = t + Tensor._make(np.zeros(o._data.shape, dtype=o._data.dtype))
    if t._data.dtype != o._data.dtype:
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

    def __delattr__(self, name: str) -> None:  # ``del ctx.result`` in a jvp (PyTorch's tutorial)
        delattr(self._ctx, name)


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
                la = Tensor._make(a._data)
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
            vs = [Tensor._make(np.ones_like(o._data)) for o in douts]  # any v (linear); not 0, which backwards may shortcut
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
                    "differentiable (it computes outside dyngrad's ops, e.g. with NumPy on ._data), so the "
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
        touts.append(Tensor._make(np.zeros_like(o._data)) if t is None else _below(lv, _fit, t, o))
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
