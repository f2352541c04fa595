"""In-place operations on views while a graph is recorded (PyTorch's ``CopySlices``).

``v = y[0]; v.mul_(2)`` must change ``y``'s history too: afterwards ``y`` is
``y_old`` with the positions of ``v`` replaced by ``2 * v_old``. dyngrad finds the
positions of the view inside its base from the two arrays' addresses and strides, then
records ``base_new = index_put(base_old, positions, fn(base_old[positions]))``; the view
takes the history of ``fn(...)``. Both are ordinary differentiable ops, so gradients reach
the untouched part of the base, the view's old values and the op's other arguments.

The modified view itself then takes, as in PyTorch, the history of a view of the new base
(``view = base_new.flatten()[positions]``), not ``fn``'s: its gradient is the one reaching
it through the base (so ``retain_grad`` on it sees what flows through the view, and a
backward from the base alone leaves its ``.grad`` None, as PyTorch's does). A custom
Function that modifies a view input in place (``mark_dirty``) is rebased the same way
(``rebase_dirty_view``).

A view created under ``no_grad`` of a tensor that requires grad requires grad too but has
no history (PyTorch's ``CreationMeta::NO_GRAD_MODE``): modifying it in place with grad mode
on, modifying a view of it, or using it with grad mode on after its memory was modified in
place (even under no_grad), raises (``mark_nograd_view``): the change cannot be recorded
in the base's history.

Other views of the same base created *before* the in-place op are stale: their values are
current but their history is not. Like PyTorch, dyngrad regenerates such a view's history
from its base (``refresh_view``) the next time the view is used in a recorded op or
backward; a view remembers the version its history belongs to (``_view_ver``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..autograd.graph import rebase_retain_grad
from ..tensor import Tensor


def _slots(arr: np.ndarray, start: int, isz: int) -> np.ndarray | None:
    """Memory slot (in items, from address ``start``) of every element of ``arr``."""
    off = arr.__array_interface__["data"][0] - start
    if off % isz:
        return None
    idx = np.full(arr.shape, off // isz, dtype=np.intp)
    for k, (n, st) in enumerate(zip(arr.shape, arr.strides)):
        if st % isz:
            return None
        shape = [1] * arr.ndim
        shape[k] = n
        idx = idx + (np.arange(n, dtype=np.intp) * (st // isz)).reshape(shape)
    return idx


def view_positions(view: np.ndarray, base: np.ndarray) -> np.ndarray | None:
    """Flat C-order indices into ``base`` of every element of ``view`` (shape ``view.shape``),
    or None when they cannot be computed (mismatched dtype, strides that are not multiples
    of the item size, or an element of ``view`` that is not an element of ``base``).

    A C-contiguous base maps memory slots to indices directly; any other layout (a
    transposed or permuted result, say) goes through a table from each of the base's
    memory slots to its C-order index."""
    if view.dtype != base.dtype:
        return None
    isz = base.itemsize
    if base.flags.c_contiguous:
        flat = _slots(view, base.__array_interface__["data"][0], isz)
        if flat is None or (flat.size and (flat.min() < 0 or flat.max() >= base.size)):
            return None
        return flat
    if base.size == 0:
        return None
    start = base.__array_interface__["data"][0] + sum(min(0, (n - 1) * st) for n, st in zip(base.shape, base.strides))
    bslots = _slots(base, start, isz)
    vslots = _slots(view, start, isz)
    if bslots is None or vslots is None:
        return None
    span = int(bslots.max()) + 1
    if span > 4 * base.size + 64:  # a sparse layout (a strided slice of something larger)
        return None
    table = np.full(span, -1, dtype=np.intp)
    table[bslots.reshape(-1)] = np.arange(base.size, dtype=np.intp)
    if vslots.size and (vslots.min() < 0 or vslots.max() >= span):
        return None
    out = table[vslots]
    return None if (out < 0).any() else out


def _alias(t: Tensor) -> Tensor:
    """A copy of ``t``'s values that carries ``t``'s current history."""
    a = Tensor._make(t._data.copy())
    a.grad_fn = t.grad_fn
    a._output_nr = t._output_nr
    a._requires_grad = t._requires_grad
    a._acc = t._acc
    return a


_NOGRAD_VIEW_OF_VIEW = (
    "{name}_: output of a view of a view which was created in no_grad mode is being modified "
    "inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it "
    "is forbidden. You can clarify your code by moving both the view and the inplace either "
    "both inside the no_grad block (if you don't want the inplace to be tracked) or both "
    "outside (if you want the inplace to be tracked)."
)
_NOGRAD_VIEW_BASE_CHANGED = (
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
    "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked)."
)


def mark_nograd_view(view: Tensor, base: Tensor) -> None:
    """``view`` was taken of ``base``, which requires grad (called inside the view op's
    forward, where grad mode is always off). It requires grad, as in PyTorch, and is marked
    ``_nograd_view = 1``; recording the op (grad mode on) then gives it a ``grad_fn``, so a
    marked view without ``grad_fn`` is one made under ``no_grad``: it has no history, a
    gradient reaching it is dropped, and using it with grad mode on after an in-place
    change of its memory (even under no_grad) raises (``refresh_view``), as PyTorch does.

    Not matched: a view made under no_grad of a base that does not require grad, used after
    the base got a history through an in-place op, takes the base's history (PyTorch
    raises); the view op cannot tell no_grad from grad mode here."""
    view._requires_grad = True
    view._nograd_view = 1


def _is_nograd_view(t: Tensor) -> bool:
    """A view made under no_grad of a base that required grad (see mark_nograd_view)."""
    return t.grad_fn is None and t._base is not None and getattr(t, "_nograd_view", None) == 1


def _rebase_view(view: Tensor, base: Tensor, pos: np.ndarray) -> None:
    """Give ``view`` the history of a view of ``base``'s current history (PyTorch regenerates
    a modified view's grad_fn from its base the same way) and mark it current."""
    from .indexing import Index

    with grad_mode.enable_grad():
        new = Index.apply(base.reshape(-1), (None, (pos,)), False)
    old_fn, old_nr = view.grad_fn, view._output_nr
    view.grad_fn, view._output_nr, view._requires_grad = new.grad_fn, new._output_nr, new._requires_grad
    view._view_ver = view._vc[0]
    rebase_retain_grad(view, old_fn, old_nr, through_view=True)


def inplace_on_view(fn: Any, view: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Apply out-of-place ``fn(view, *args)`` in place on ``view`` and rebase the history of
    ``view._base`` (see the module docstring).

    Raises:
        RuntimeError: the base is a leaf that requires grad; the view's position in the
            base cannot be computed; the result cannot be cast to the view's dtype; the
            view is read-only (expanded).
    """
    from ._util import _retarget_saved_output, _write
    from .indexing import Index, IndexPut

    name = getattr(fn, "__name__", "op")
    base = view._base
    if not view._requires_grad and view.grad_fn is None and base._requires_grad:
        # made (with grad on) of a base that requires grad only since: PyTorch refuses this
        raise RuntimeError(
            f"{name}_: in-place operation on a view whose base started to require grad (through "
            "an in-place operation) after the view was created; create the view again first"
        )
    if grad_mode.state.enabled and _is_nograd_view(base):  # a view of a no_grad view
        raise RuntimeError(_NOGRAD_VIEW_OF_VIEW.format(name=name))
    if grad_mode.state.enabled and base._requires_grad and base.grad_fn is None:
        raise RuntimeError(
            f"{name}_: a view of a leaf Variable that requires grad is being used in an in-place "
            "operation. Do it under dyngrad.no_grad(), or clone the leaf first."
        )
    if not view._data.flags.writeable:
        raise RuntimeError(f"{name}_: the tensor's memory is read-only (an expanded view); clone() it first")
    pos = view_positions(view._data, base._data)
    if pos is None:
        raise RuntimeError(
            f"{name}_: in-place modification of this view while recording a graph is not supported "
            "(its position in the base tensor cannot be computed); apply the op out of place"
        )
    plan = (None, (pos,))
    stack = grad_mode.state.interpreters
    old = _alias(base)
    for interp in stack:  # (forward mode: the copy carries the base's tangent)
        interp.share(base, old)
    old = old.reshape(-1)
    result = fn(Index.apply(old, plan[1], False), *args, **kwargs)
    new_base = IndexPut.apply(old, result, plan).reshape(base._data.shape)
    _write(view, result._data, fn)  # writes into the base's memory; bumps the shared version
    old_fn, old_nr = base.grad_fn, base._output_nr
    base.grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, new_base._output_nr, new_base._requires_grad
    rebase_retain_grad(base, old_fn, old_nr, through_view=True)  # retain_grad follows the tensor's new value
    if result.grad_fn is not None:
        _retarget_saved_output(result.grad_fn, result, view)
    _rebase_view(view, base, pos)  # the view's history: a view of the new base (current)
    for interp in stack:  # (forward mode: the base's tangent takes the result's at the view's positions)
        interp.after_inplace(result, view)
    return view


def refresh_view(view: Tensor) -> None:
    """Regenerate the history of ``view`` from its base after the base (or another view of
    it) was modified in place: ``view = base.flatten()[positions]``, so gradients reach the
    base's current history (PyTorch regenerates stale views' grad_fn the same way).

    Raises:
        RuntimeError: when the view's position in its base cannot be computed.
    """
    base = view._base
    if view.grad_fn is None and _is_nograd_view(view):  # created under no_grad: no history
        root = base
        while root.grad_fn is None and _is_nograd_view(root):  # a view of a no_grad view
            root = root._base
        if root._requires_grad:  # PyTorch's rule: any in-place change since, even under no_grad
            raise RuntimeError(_NOGRAD_VIEW_BASE_CHANGED)
        view._requires_grad = False  # the base was detached: the view does not require grad
        view._view_ver = view._vc[0]
        return
    pos = view_positions(view._data, base._data)
    if pos is None:
        raise RuntimeError(
            "a view whose base was modified in place is used, and its position in the base "
            "cannot be computed to regenerate its history; create the view again after the "
            "in-place operation"
        )
    _rebase_view(view, base, pos)


def rebase_dirty_view(view: Tensor, fn_name: str) -> None:
    """A custom Function modified the view ``view`` in place (``mark_dirty``) and ``view``
    now has the Function's node as history: record the change in the base too,
    ``base_new = index_put(base_old, positions, view)`` (PyTorch's ``CopySlices`` around the
    Function), and give ``view`` the history of a view of the new base.

    Raises:
        RuntimeError: the base is a leaf that requires grad, or the view's position in the
            base cannot be computed.
    """
    from .indexing import IndexPut

    base = view._base
    if _is_nograd_view(base):
        raise RuntimeError(_NOGRAD_VIEW_OF_VIEW.format(name=fn_name))
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError(
            f"{fn_name}: a view of a leaf Variable that requires grad is being used in an in-place "
            "operation (mark_dirty). Clone the leaf first, or do this under no_grad()."
        )
    pos = view_positions(view._data, base._data)
    if pos is None:
        raise RuntimeError(
            f"{fn_name}: in-place modification (mark_dirty) of this view while recording a graph "
            "is not supported (its position in the base tensor cannot be computed)"
        )
    view._view_ver = view._vc[0]  # its history (the Function's node) is current
    with grad_mode.enable_grad():
        old = _alias(base).reshape(-1)
        new_base = IndexPut.apply(old, view.reshape(-1), (None, (pos.reshape(-1),))).reshape(base._data.shape)
    old_fn, old_nr = base.grad_fn, base._output_nr
    base.grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, new_base._output_nr, new_base._requires_grad
    rebase_retain_grad(base, old_fn, old_nr, through_view=True)
    _rebase_view(view, base, pos)
