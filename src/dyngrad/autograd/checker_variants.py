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

if TYPE_CHECKING:
    from .checker import CheckReport

PASS, FAIL, WARN, SKIP = "pass", "FAIL", "warn", "skip"


def _f64(inputs: tuple, transform: Callable | None = None) -> tuple:
    out = []
    for x in inputs:
        if isinstance(x, Tensor) and x.data.dtype.kind == "f":
            arr = x.data.astype(np.float64)
            if transform is not None:
                arr = transform(arr)
            out.append(Tensor._make(arr).requires_grad_())
        else:
            out.append(x)
    return tuple(out)


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
        xs = tuple(Tensor._make(x.data.copy()).requires_grad_() if i in tensor_idx else x for i, x in enumerate(ins))
        with warnings.catch_warnings(), grad_mode.enable_grad():
            warnings.simplefilter("ignore")
            outs = _outs(apply(*xs))
        diff = [o for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
        node = diff[0].grad_fn
        ref = weakref.ref(node)
        loss = sum((o.sum() for o in diff[1:]), diff[0].sum())
        loss.backward()
        held = [
            f"ctx.{k} ({v.data.nbytes} bytes)" for k, v in vars(node).items() if isinstance(v, Tensor) and k != "_metadata"
        ]
        saved_left = node._saved not in (None, ())
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
        ws = [Tensor._make(rng.standard_normal(o.data.shape).astype(o.data.dtype)) for o in outs]
        gs = autograd_grad(outs, [ins[i] for i in tensor_idx], ws, allow_unused=True)
    if shapes is not None:
        shapes.extend(o.data.shape for o in outs)
    return [None if g is None else g.data.astype(np.float64) for g in gs]


def _same(a: list, b: list) -> bool:
    return all((x is None) == (y is None) and (x is None or (x.shape == y.shape and np.allclose(x, y, rtol=1e-7, atol=1e-10)))
               for x, y in zip(a, b))


def _variants(report: CheckReport, fn: Callable, inputs: tuple, tensor_idx: list) -> None:
    """Input variants, each compared with the plain run (so they test the Function's
    handling of the layout, independently of whether its formula is right)."""
    base_ins = _f64(inputs)
    try:
        base = _grads(fn, base_ins, tensor_idx)
    except Exception as e:  # noqa: BLE001
        for name in ("broadcasting", "non-contiguous"):
            report.add(name, SKIP, f"plain backward fails: {_short(e, 200)}")
        base = None
    if base is not None:
        _broadcast_variant(report, fn, inputs, tensor_idx)
        try:
            nc = _grads(fn, _f64(inputs, _non_contiguous), tensor_idx)
            ok = _same(base, nc)
            report.add("non-contiguous", PASS if ok else FAIL,
                       "transposed/strided inputs give the same gradients" if ok else
                       "gradients differ for non-contiguous inputs (same values, other strides): does "
                       "forward or backward use .data.reshape / raw buffers assuming C order?")
        except Exception as e:  # noqa: BLE001
            report.add("non-contiguous", FAIL, f"with transposed/strided inputs: {_short(e)}")
    # zero-size: leading dim 0 for the inputs of largest rank
    rank = max(inputs[i].data.ndim for i in tensor_idx)
    if rank == 0:
        report.add("zero-size", SKIP, "scalar inputs")
        return
    z = _f64(tuple(
        Tensor._make(np.zeros((0,) + x.data.shape[1:], x.data.dtype)) if i in tensor_idx and x.data.ndim == rank else x
        for i, x in enumerate(inputs)
    ))
    try:
        gs = _grads(fn, z, tensor_idx)
        bad = [f"#{tensor_idx[k]}" for k, g in enumerate(gs) if g is not None and g.shape != z[tensor_idx[k]].data.shape]
        report.add("zero-size", FAIL if bad else PASS,
                   f"wrong gradient shapes for {bad}" if bad else "forward and backward work on empty inputs")
    except Exception as e:  # noqa: BLE001
        report.add("zero-size", FAIL, f"with empty inputs (leading dim 0): {_short(e)}")


def _broadcast_variant(report: CheckReport, fn: Callable, inputs: tuple, tensor_idx: list) -> None:
    """Shrink one input's leading dim to 1 (if forward accepts it): its gradient must equal
    the gradient of the explicitly expanded input summed over that dim."""
    if len(tensor_idx) < 2:
        report.add("broadcasting", SKIP, "one tensor input")
        return
    tried = 0
    for pos, i in enumerate(tensor_idx):
        x = inputs[i]
        if x.data.ndim == 0 or x.data.shape[0] == 1:
            continue
        small = list(inputs)
        small[i] = Tensor._make(np.ascontiguousarray(x.data[:1]))
        big = list(inputs)
        big[i] = Tensor._make(np.ascontiguousarray(np.broadcast_to(x.data[:1], x.data.shape)))
        s_small: list = []
        s_big: list = []
        try:
            g_small = _grads(fn, _f64(tuple(small)), tensor_idx, s_small)
        except Exception:  # noqa: BLE001
            continue  # forward does not accept this shape
        try:
            g_big = _grads(fn, _f64(tuple(big)), tensor_idx, s_big)
            if s_small != s_big:
                continue  # the output shape follows this input: nothing is broadcast
            tried += 1
            g_big[pos] = None if g_big[pos] is None else g_big[pos].sum(axis=0, keepdims=True)
        except Exception as e:  # noqa: BLE001
            report.add("broadcasting", FAIL, f"input {i} expanded: {_short(e)}")
            return
        if not _same(g_small, g_big):
            report.add("broadcasting", FAIL,
                       f"input {i} of shape {list(small[i].shape)} broadcast against the others: its gradient "
                       "differs from the summed gradient of the explicitly expanded input; return gradients "
                       "of the broadcast shape (the engine sums them down) or reduce them correctly")
            return
    if tried:
        report.add("broadcasting", PASS, f"{tried} broadcast variant(s) agree with explicitly expanded inputs")
    else:
        report.add("broadcasting", SKIP, "forward accepts no broadcast variant of the inputs")
