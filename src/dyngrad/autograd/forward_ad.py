"""Forward-mode automatic differentiation (PyTorch's ``torch.autograd.forward_ad``).

Inside a ``dual_level()`` a Tensor may carry a *tangent* (``make_dual``); every operation
on such tensors also computes the tangent of its outputs, the Jacobian-vector product
``J u``. ``unpack_dual`` reads it back::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, u)
        y = f(x)
        jvp = forward_ad.unpack_dual(y).tangent      # J_f(primal) @ u

How a tangent is computed for one ``Function.apply`` call (``_dual_apply.py``):

1. If the Function class defines ``jvp(ctx, *tangents)`` it is used (PyTorch's custom
   forward rule; tensors saved with ``ctx.save_for_forward`` come back from
   ``ctx.saved_tensors`` inside ``jvp``). Every built-in op has one, next to its backward
   (tests/autograd/test_rule_coverage.py).
2. Otherwise (custom Functions that define only ``backward``) the
   *double-vjp* construction, which needs only ``backward``: the vjp
   ``g(v) = J^T v`` is linear in ``v``, so ``J u = d/dv <g(v), u>``. It runs ``backward``
   with ``create_graph=True`` on a dummy ``v`` (ones) that requires grad, then differentiates
   ``g`` with respect to ``v`` with ``grad_outputs=u``. Cost: about two backward passes of
   the op per forward-mode call (plus a little bookkeeping), so forward mode is a constant
   factor slower than reverse mode here; but any Function with a twice-differentiable
   ``backward`` (every built-in op and any custom Function written with dyngrad ops)
   supports forward mode, including ``jacfwd`` and forward-over-reverse Hessians.

The op runs once, on fresh leaves that share the inputs' memory (so its graph is local and
small); when the caller records a graph (an input or a tangent requires grad), a
``DualBackward`` node connects the outputs and the tangents to the real inputs, so
reverse mode through forward mode (and forward over reverse) works. Inside a dual level
the outputs' ``grad_fn`` is therefore that node, not the op's own node.

Tangents live in a side table of the level keyed weakly by the tensor's data array (so
the shallow copies that saved tensors unpack to still find them; ``detach()`` drops it, as
in PyTorch); leaving the level drops them all. Only one level may be active (as in
PyTorch). In-place ops update the tangent through ``ops._util.inplace``.
"""

from __future__ import annotations

import weakref
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .batched_autograd import _bottom, _rewrap_like, batched_make_dual
from .batching import BatchedTensor
from .function import Function, _fwd_state
from .grad_mode import vmap_state

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level", "check_forward_ad"]

_state = grad_mode.state

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _Level:
    """One dual level: the tangent table ``id(data array) -> [weakref(array), tangent,
    owners]``. A tensor sees the tangent when it is one of the owners (the tensor it was
    set on, or one given it with ``share``) or when it shares the array *and* has history
    (a saved output that backward unpacks re-attached to its node). A history-less alias
    such as ``detach()`` does not see it: detaching stops tangents, as in PyTorch."""

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.table: dict[int, list] = {}

    def get(self, t: Tensor) -> Tensor | None:
        e = self.table.get(id(t.data))
        if e is None or e[0]() is not t.data:
            return self._rederive(t) if t._base is not None else None
        if t._base is not None and e[3] != t._vc[0]:  # a view whose base changed in place
            return self._rederive(t)
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


def enter_dual_level() -> int:
    """Start a dual level (prefer the ``dual_level()`` context manager).

    Raises:
        RuntimeError: when one is already active (nested forward AD is not supported).
    """
    if _fwd_state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _fwd_state.level = _Level(0)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """End the active dual level; every tangent made inside it is dropped."""
    lv = _fwd_state.level
    if lv is None:
        raise RuntimeError("exit_dual_level: no dual level is active")
    lv.table.clear()
    _fwd_state.level = None


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) for a forward-AD level: ``make_dual`` works inside
    it and all tangents are dropped when it exits. Not reentrant (one level at a time)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()

    def __call__(self, fn: Callable) -> Callable:
        def wrapper(*a: Any, **k: Any) -> Any:
            with dual_level():
                return fn(*a, **k)

        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper


class _Alias(Function):
    """``out = a`` as a new view object (memory shared); ``grad_a = grad``.
    ``make_dual``/``unpack_dual`` use it so that the dual tensor is distinct from its primal."""

    _builtin = True
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


def _suspended(fn: Callable, *args: Any, **kw: Any) -> Any:
    lv = _fwd_state.level
    _fwd_state.level = None
    try:
        return fn(*args, **kw)
    finally:
        _fwd_state.level = lv


def _as_tensor(x: Any, name: str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, list, tuple, float, int, np.generic)):
        return Tensor._make(np.asarray(x))
    raise TypeError(f"{name} must be a Tensor or an array, got {type(x).__name__}")


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Tensor:
    """A new tensor with the values of ``tensor`` (differentiable view of it) and the
    tangent ``tangent``, for the active dual level.

    Args:
        tensor: floating Tensor ``(*)``, the primal.
        tangent: Tensor or array of the same shape ``(*)`` (cast to the primal's dtype).
    Returns:
        Tensor ``(*)`` whose operations propagate ``tangent``.
    Raises:
        RuntimeError: outside ``dual_level()``, or tangent shape differs from the primal's.
        TypeError: non-floating primal or tangent.
    """
    lv = _fwd_state.level
    if lv is None:
        raise RuntimeError(
            "make_dual: to create a dual Tensor, you must be inside a forward_ad.dual_level() context"
        )
    tensor = _as_tensor(tensor, "make_dual(): argument 'tensor'")
    tangent = _as_tensor(tangent, "make_dual(): argument 'tangent'")
    if vmap_state.depth and (isinstance(tensor, BatchedTensor) or isinstance(tangent, BatchedTensor)):
        return batched_make_dual(make_dual, tensor, tangent)  # inside vmap: on the values
    if tensor.data.dtype.kind != "f":
        raise TypeError(f"make_dual(): argument 'tensor' must be floating point, got {tensor.dtype.name}")
    if tangent.data.dtype.kind != "f":
        raise TypeError(f"make_dual(): argument 'tangent' must be floating point, got {tangent.dtype.name}")
    if tangent.data.shape != tensor.data.shape:
        raise RuntimeError(
            f"make_dual(): argument 'tangent' has shape {list(tangent.shape)} but the primal "
            f"'tensor' has shape {list(tensor.shape)}; they must be equal"
        )
    if tangent.data.dtype != tensor.data.dtype:
        tangent = _suspended(tangent.to, tensor.dtype)
    if lv.get(tensor) is not None:
        raise RuntimeError(
            "make_dual(): the tensor already has a tangent at this level (it is a dual tensor); "
            "use unpack_dual(tensor).primal as the primal, or a new dual level"
        )
    out = _suspended(_Alias.apply, tensor)
    # the dual is a view of the primal (as in PyTorch): in-place changes reach it, and are
    # refused when it is a leaf that requires grad
    out._base = tensor if tensor._base is None or (tensor._requires_grad and tensor.grad_fn is None) else tensor._base
    out._view_ver = out._vc[0]
    lv.set(out, tangent)
    return out


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a tensor: the primal is a differentiable view without the
    tangent; the tangent is None when the tensor has none (or no level is active)."""
    lv = _fwd_state.level
    if lv is None or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    if vmap_state.depth and isinstance(tensor, BatchedTensor):  # inside vmap: the values'
        p, t = unpack_dual(_bottom(tensor))  # tangent, batched like the tensor
        return UnpackedDualTensor(_rewrap_like(p, tensor), None if t is None else _rewrap_like(t, tensor))
    t = lv.get(tensor)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_suspended(_Alias.apply, tensor), t)


def _transfer_tangent(src: Tensor, dst: Tensor) -> None:
    """After an in-place op wrote ``src`` (the out-of-place result) into ``dst``, give
    ``dst`` the result's tangent (or none). Called by ``ops._util.inplace``."""
    lv = _fwd_state.level
    if lv is None:
        return
    t = lv.get(src)
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
    else:
        lv.table.pop(id(dst.data), None)


def _write_view_tangent(lv: _Level, view: Tensor, t: Tensor | None) -> bool:
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
    lv = _fwd_state.level
    if lv is not None:
        lv.share(_bottom(src), _bottom(dst))  # a batched tensor's tangent is its values'


def _tangent(t: Tensor) -> Tensor | None:
    lv = _fwd_state.level
    return None if lv is None else lv.get(t)


from ._forward_check import check_forward_ad  # noqa: E402 - it uses the machinery above
