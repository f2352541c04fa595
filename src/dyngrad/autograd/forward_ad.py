"""Forward-mode automatic differentiation (PyTorch's ``torch.autograd.forward_ad``).

Inside a ``dual_level()`` a Tensor may carry a *tangent* (``make_dual``); every operation
on such tensors also computes the tangent of its outputs, the Jacobian-vector product
``J u``. ``unpack_dual`` reads it back::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, u)
        y = f(x)
        jvp = forward_ad.unpack_dual(y).tangent      # J_f(primal) @ u

How a tangent is computed for one ``Function.apply`` call (``transforms/dual_apply.py``):

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
   (A dyngrad extension: PyTorch 2.13 raises NotImplementedError for such a Function.)

Levels nest to any depth (functorch's interpreters): an op at level ``k`` runs its primal
and its tangent rule as ordinary ops at the levels below ``k``, so the outer levels and
reverse mode differentiate the tangent computation as well (``jacfwd(jacfwd(jacfwd(f)))``,
``jvp`` of ``jvp``, reverse mode over forward mode: the outputs' ``grad_fn`` is the op's own
node, and the tangent's history is the rule's ops). PyTorch 2.13's ``forward_ad`` allows
one level; its ``torch.func`` nests.

Tangents live in a side table of the level keyed weakly by the tensor's data array (so
the shallow copies that saved tensors unpack to still find them; ``detach()`` drops it, as
in PyTorch); leaving the level drops them all. In-place ops update the tangent in place
(``ops._util.inplace``), through an in-place op of the levels below when there are some.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ..transforms import interpreter
from ..transforms.batched_autograd import _bottom, _rewrap_like, batched_make_dual
from ..transforms.batching import BatchedTensor
from ..transforms.dual import DualInterpreter, _Alias, _share_tangent, _suspended, current  # noqa: F401 (func uses)
from .. import _backend as B

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level",
           "exit_dual_level", "check_forward_ad"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def _level(level: int | None, who: str) -> DualInterpreter | None:
    """The dual level numbered ``level`` (None: the innermost); None when none is active."""
    if level is None:
        return current()
    for lv in interpreter.active(DualInterpreter):
        if lv.idx == level:
            return lv
    raise RuntimeError(f"{who}: dual level {level} is not active (active levels: "
                       f"{[lv.idx for lv in interpreter.active(DualInterpreter)]})")


def _outer_share(lv: DualInterpreter, src: Tensor, dst: Tensor) -> None:
    """``dst`` (an alias of ``src``) keeps ``src``'s tangents at the levels other than ``lv``."""
    for other in interpreter.active(DualInterpreter):
        if other is not lv:
            other.share(src, dst)


def enter_dual_level() -> int:
    """Start a dual level (prefer the ``dual_level()`` context manager). Levels nest: the
    new level is the innermost, numbered one more than the one around it (0 when none),
    and an operation's tangent at an inner level is itself differentiated by the outer
    ones (``jacfwd(jacfwd(f))``, forward-over-forward Hessians, third derivatives), to
    any depth.

    Returns:
        int: the new level's number (pass it as ``level=`` to make_dual/unpack_dual).
    """
    idx = len(interpreter.active(DualInterpreter))
    interpreter.push(DualInterpreter(idx))
    return idx


def exit_dual_level(*, level: int | None = None) -> None:
    """End the innermost dual level (or ``level``, which must be the innermost); every
    tangent made at it is dropped.

    Raises:
        RuntimeError: no dual level is active, or ``level`` is not the innermost one.
    """
    lv = current()
    if lv is None:
        raise RuntimeError("exit_dual_level: no dual level is active")
    if level is not None and level != lv.idx:
        raise RuntimeError(f"exit_dual_level: level {level} is not the innermost dual level ({lv.idx}); "
                           "exit the inner levels first")
    lv.table.clear()
    interpreter.pop(lv)


class dual_level:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) for a forward-AD level: ``make_dual`` works inside
    it and all tangents are dropped when it exits. Levels nest (``as level`` gives the
    new level's number)."""

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
        tensor: floating Tensor ``(*)``, the primal (it may be a dual tensor of an outer
            level: the result keeps that tangent too).
        tangent: Tensor or array of the same shape ``(*)`` (cast to the primal's dtype).
        level: the dual level (``enter_dual_level``'s number); default the innermost.
    Returns:
        Tensor ``(*)`` whose operations propagate ``tangent``.
    Raises:
        RuntimeError: outside ``dual_level()``, or tangent shape differs from the primal's,
            or the tensor already has a tangent at that level.
        TypeError: non-floating primal or tangent.
    """
    lv = _level(level, "make_dual")
    if lv is None:
        raise RuntimeError(
            "make_dual: to create a dual Tensor, you must be inside a forward_ad.dual_level() context"
        )
    tensor = _as_tensor(tensor, "make_dual(): argument 'tensor'")
    tangent = _as_tensor(tangent, "make_dual(): argument 'tangent'")
    if (isinstance(tensor, BatchedTensor) or isinstance(tangent, BatchedTensor)):
        return batched_make_dual(lambda p, u: make_dual(p, u, level=lv.idx), tensor, tangent)  # on the values
    if B.kind(tensor._data) != "f":
        raise TypeError(f"make_dual(): argument 'tensor' must be floating point, got {tensor.dtype.name}")
    if B.kind(tangent._data) != "f":
        raise TypeError(f"make_dual(): argument 'tangent' must be floating point, got {tangent.dtype.name}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"make_dual(): argument 'tangent' has shape {list(tangent.shape)} but the primal "
            f"'tensor' has shape {list(tensor.shape)}; they must be equal"
        )
    if tangent._data.dtype != tensor._data.dtype:
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
    _outer_share(lv, tensor, out)
    lv.set(out, tangent)
    return out


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a tensor: the primal is a differentiable view without the
    tangent; the tangent is None when the tensor has none (or no level is active)."""
    lv = _level(level, "unpack_dual")
    if lv is None or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    if isinstance(tensor, BatchedTensor):  # inside vmap: the values'
        p, t = unpack_dual(_bottom(tensor), level=lv.idx)  # tangent, batched like the tensor
        return UnpackedDualTensor(_rewrap_like(p, tensor), None if t is None else _rewrap_like(t, tensor))
    t = lv.get(tensor)
    if t is None:
        return UnpackedDualTensor(tensor, None)
    primal = _suspended(_Alias.apply, tensor)
    _outer_share(lv, tensor, primal)  # the primal keeps its tangents at the other levels
    return UnpackedDualTensor(primal, t)


from ._forward_check import check_forward_ad  # noqa: E402 - it uses the machinery above
