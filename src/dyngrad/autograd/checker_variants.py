"""The checks of :func:`dyngrad.autograd.checker.check_function` that run the Function on
variants of its inputs (memory release, broadcasting, non-contiguous and zero-size
inputs), and the small helpers they share with it."""

from __future__ import annotations

import gc
import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .gradcheck import GradcheckError
from .. import _backend as B

if TYPE_CHECKING:
    from .checker import CheckReport

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"


def _copy(inputs: tuple, transform: Callable | None = None, dtype: Any = None) -> tuple:
    """Fresh leaf copies of the floating point Tensors in ``inputs`` (requiring grad), cast
    to ``dtype`` when given (else kept in their own dtype); other values passed as is."""
    out = []
    for x in inputs:
        if isinstance(x, Tensor) and B.kind(x._data) == "f":
            arr = x._data.astype(x._data.dtype if dtype is None else dtype)  # always a copy
            if transform is not None:
                arr = transform(arr)
            out.append(Tensor._make(arr).requires_grad_())
        else:
            out.append(x)
    return tuple(out)


def _f64(inputs: tuple, transform: Callable | None = None) -> tuple:
    """:func:`_copy` in float64 (for the numerical comparisons)."""
    return _copy(inputs, transform, np.float64)


def _dtype_label(inputs: tuple) -> str:
    """The floating dtypes of the Tensor inputs, e.g. ``"float32"`` or ``"float32/float64"``."""
    kinds = sorted({str(x._data.dtype) for x in inputs if isinstance(x, Tensor) and B.kind(x._data) == "f"})
    return "/".join(kinds) or "-"


# (rtol, atol) for comparing two gradients of the same function computed in this dtype
_TOL = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-5), "float16": (1e-2, 1e-2)}


def _tol(inputs: tuple) -> tuple[float, float]:
    tols = [_TOL.get(str(x._data.dtype), _TOL["float16"]) for x in inputs if isinstance(x, Tensor) and B.kind(x._data) == "f"]
    return max(tols) if tols else _TOL["float64"]


def _non_contiguous(a: np.ndarray) -> np.ndarray:
    if a.ndim >= 2:
        return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    big = np.repeat(a[..., None], 2, axis=-1)
    return big[..., 0]


def _short(e: BaseException, limit: int = 600) -> str:
    s = f"{type(e).__name__}: {e}" if not isinstance(e, GradcheckError) else str(e)
    return s if len(s) <= limit else s[:limit] + " ..."


def _outs(res: Any) -> tuple:
    return res if isinstance(res, tuple) else (res,)


def _check_memory(report: CheckReport, apply: Callable, ins: tuple, tensor_idx: list) -> None:
    gc_was = gc.isenabled()
    gc.disable()
    try:
        xs = tuple(Tensor._make(x._data.copy()).requires_grad_() if i in tensor_idx else x for i, x in enumerate(ins))
        with warnings.catch_warnings(), grad_mode.enable_grad():
            warnings.simplefilter("ignore")
            outs = _outs(apply(*xs))
        diff = [o for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
        node = diff[0].grad_fn
        ref = weakref.ref(node)
        loss = sum((o.sum() for o in diff[1:]), diff[0].sum())
        loss.backward()
        held = [
            f"ctx.{k} ({v._data.nbytes} bytes)" for k, v in vars(node).items() if isinstance(v, Tensor) and k != "_metadata"
        ]
        saved_left = node._saved not in (None, ())  # type: ignore[union-attr]  # (diff[0] has a grad_fn)
        del node, loss, diff, outs
        alive = ref() is not None
    except Exception as e:  # noqa: BLE001
        report.add("memory released", FAIL, f"forward/backward raised {_short(e)}")
        return
    finally:
        if gc_was:
            gc.enable()
    if held or saved_left or alive:
        why = []
        if held:
            why.append(f"{', '.join(held)} still held after backward")
        if saved_left:
            why.append("saved tensors not freed after backward")
        if alive:
            why.append("the node outlives its outputs (a reference cycle: is an output stored on ctx?)")
        report.add("memory released", FAIL, "; ".join(why) + ". Use ctx.save_for_backward() for tensors.")
    else:
        report.add("memory released", PASS, "saved tensors freed by backward; node freed by reference counting")


def _grads(fn: Callable, ins: tuple, tensor_idx: list, shapes: list | None = None) -> list:
    """Gradients of ``sum(out * w)`` (fixed pseudo-random ``w``) with respect to the tensor
    inputs, as float64 arrays (None where none arrived). ``shapes``, when given, receives
    the output shapes."""
    from .backprop import grad as autograd_grad

    with warnings.catch_warnings(), grad_mode.enable_grad():
        warnings.simplefilter("ignore")
        outs = [o for o in _outs(fn(*ins)) if isinstance(o, Tensor) and o.requires_grad]
        rng = np.random.default_rng(1)
        ws = [Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype)) for o in outs]
        gs = autograd_grad(outs, [ins[i] for i in tensor_idx], ws, allow_unused=True)
    if shapes is not None:
        shapes.extend(o._data.shape for o in outs)
    return [None if g is None else g._data.astype(np.float64) for g in gs]


def _same(a: list, b: list, tol: tuple[float, float] = _TOL["float64"]) -> bool:
    rtol, atol = tol
    return all((x is None) == (y is None) and (x is None or (x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=atol)))
               for x, y in zip(a, b))


def _variants(report: CheckReport, fn: Callable, inputs: tuple, tensor_idx: list, names: tuple = ()) -> None:
    """Input variants, each compared with the plain run (so they test the Function's
    handling of the layout, independently of whether its formula is right). They run in
    the dtype of the example inputs (float32 stays float32) and compare gradients with a
    tolerance for that dtype."""
    tol = _tol(inputs)
    base_ins = _copy(inputs)
    try:
        base = _grads(fn, base_ins, tensor_idx)
    except Exception as e:  # noqa: BLE001
        for name in ("broadcasting", "non-contiguous"):
            report.add(name, SKIP, f"plain backward fails: {_short(e, 200)}")
        base = None
    if base is not None:
        _broadcast_variant(report, fn, inputs, tensor_idx, tol)
        try:
            nc = _grads(fn, _copy(inputs, _non_contiguous), tensor_idx)
            ok = _same(base, nc, tol)
            report.add("non-contiguous", PASS if ok else FAIL,
                       "transposed/strided inputs give the same gradients" if ok else
                       "gradients differ for non-contiguous inputs (same values, other strides): does "
                       "forward or backward use ._data.reshape / raw buffers assuming C order?")
        except Exception as e:  # noqa: BLE001
            report.add("non-contiguous", FAIL, f"with transposed/strided inputs: {_short(e)}")
    _zero_size_variant(report, fn, inputs, tensor_idx, names)


def _zero_size_variant(report: CheckReport, fn: Callable, inputs: tuple, tensor_idx: list, names: tuple = ()) -> None:
    """Empty the leading dim of one tensor input at a time (the first one, usually the
    batch, is tried first), then of all inputs of the largest rank together. Every variant
    that forward accepts must also go through backward with gradients of the inputs'
    shapes. Forward refusing an empty weight (``x @ w`` with ``w`` of shape ``(0, n)``) is
    not an error; when forward refuses every variant the check does not apply (skip)."""

    def nm(i: int) -> str:
        return repr(names[i]) if i < len(names) else f"#{i}"

    def label(idx: tuple) -> str:
        return " and ".join(f"{nm(i)} {[0, *inputs[i]._data.shape[1:]]}" for i in idx)

    cands = [(i,) for i in tensor_idx if inputs[i]._data.ndim >= 1 and inputs[i]._data.shape[0] != 0]
    if not cands:
        report.add("zero-size", SKIP, "scalar inputs" if all(inputs[i]._data.ndim == 0 for i in tensor_idx)
                   else "the inputs are already empty")
        return
    rank = max(inputs[i]._data.ndim for i in tensor_idx)
    together = tuple(i for (i,) in cands if inputs[i]._data.ndim == rank)
    if len(together) > 1:
        cands.append(together)
    accepted, refused = [], []
    for idx in cands:
        z = _copy(tuple(
            Tensor._make(np.zeros((0,) + x._data.shape[1:], x._data.dtype)) if i in idx else x for i, x in enumerate(inputs)
        ))
        try:
            with warnings.catch_warnings(), grad_mode.enable_grad():
                warnings.simplefilter("ignore")
                fn(*z)
        except Exception as e:  # noqa: BLE001
            refused.append((idx, e))
            continue
        try:
            gs = _grads(fn, z, tensor_idx)
        except Exception as e:  # noqa: BLE001
            report.add("zero-size", FAIL, f"forward accepts {label(idx)} (empty leading dim) but backward raised {_short(e)}")
            return
        bad = [nm(tensor_idx[k]) for k, g in enumerate(gs)
               if g is not None and g.shape != z[tensor_idx[k]]._data.shape]
        if bad:
            report.add("zero-size", FAIL, f"with {label(idx)} empty: wrong gradient shapes for {', '.join(bad)}")
            return
        accepted.append(idx)
    if not accepted:
        tried = "; ".join(label(idx) for idx, _ in refused)
        report.add("zero-size", SKIP, "not applicable: forward does not accept zero-size versions of these inputs "
                   f"(tried {tried}; first error: {_short(refused[0][1], 160)})")
        return
    msg = "forward and backward work with empty " + "; ".join(label(idx) for idx in accepted)
    if refused:
        msg += " (forward does not accept " + "; ".join(label(idx) for idx, _ in refused) + ")"
    report.add("zero-size", PASS, msg)


def _broadcast_variant(report: CheckReport, fn: Callable, inputs: tuple, tensor_idx: list,
                       tol: tuple[float, float] = _TOL["float64"]) -> None:
    """Shrink one input's leading dim to 1 (if forward accepts it): its gradient must equal
    the gradient of the explicitly expanded input summed over that dim."""
    if len(tensor_idx) < 2:
        report.add("broadcasting", SKIP, "one tensor input")
        return
    tried = 0
    for pos, i in enumerate(tensor_idx):
        x = inputs[i]
        if x._data.ndim == 0 or x._data.shape[0] == 1:
            continue
        small = list(inputs)
        small[i] = Tensor._make(np.ascontiguousarray(x._data[:1]))
        big = list(inputs)
        big[i] = Tensor._make(np.ascontiguousarray(np.broadcast_to(x._data[:1], x._data.shape)))
        s_small: list = []
        s_big: list = []
        try:
            g_small = _grads(fn, _copy(tuple(small)), tensor_idx, s_small)
        except Exception:  # noqa: BLE001
            continue  # forward does not accept this shape
        try:
            g_big = _grads(fn, _copy(tuple(big)), tensor_idx, s_big)
            if s_small != s_big:
                continue  # the output shape follows this input: nothing is broadcast
            tried += 1
            g_big[pos] = None if g_big[pos] is None else g_big[pos].sum(axis=0, keepdims=True)
        except Exception as e:  # noqa: BLE001
            report.add("broadcasting", FAIL, f"input {i} expanded: {_short(e)}")
            return
        if not _same(g_small, g_big, tol):
            report.add("broadcasting", FAIL,
                       f"input {i} of shape {list(small[i].shape)} broadcast against the others: its gradient "
                       "differs from the summed gradient of the explicitly expanded input; return gradients "
                       "of the broadcast shape (the engine sums them down) or reduce them correctly")
            return
    if tried:
        report.add("broadcasting", PASS, f"{tried} broadcast variant(s) agree with explicitly expanded inputs")
    else:
        report.add("broadcasting", SKIP, "forward accepts no broadcast variant of the inputs")
