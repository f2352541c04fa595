"""PyTorch-style printing of tensors (``tensor([1., 2.], requires_grad=True)``)."""

from __future__ import annotations

import numpy as np

from . import _backend as B


def _float_formatter(arr: np.ndarray) -> dict:
    finite = arr[np.isfinite(arr)] if arr.size else arr
    if finite.size == 0:
        return {"floatmode": "maxprec", "precision": 4}
    absf = np.abs(finite)
    integral = bool(np.all(finite == np.round(finite)))
    amax, amin = float(absf.max()), float(absf.min()) if absf.size else 0.0
    nz = absf[absf > 0]
    nzmin = float(nz.min()) if nz.size else 0.0
    if integral and amax < 1e8:
        fmt = _int_like
    elif amax >= 1e8 or (nz.size and (amax / nzmin > 1000.0 or nzmin < 1e-4)):
        fmt = _sci
    else:
        fmt = _fixed
    del amin
    # PyTorch pads every element to the widest one (its _Formatter.max_width); measure the
    # elements that are printed (the edges of a summarized tensor).
    flat = arr.ravel()
    sample = flat if flat.size <= 1000 else np.concatenate([flat[:1000], flat[-1000:]])
    width = max(len(fmt(float(v))) for v in sample)
    return {"formatter": {"float_kind": lambda v: fmt(v).rjust(width)}}


def _int_like(v: float) -> str:
    if not np.isfinite(v):
        return _special(v)
    return f"{v:.0f}."


def _fixed(v: float) -> str:
    if not np.isfinite(v):
        return _special(v)
    return f"{v:.4f}"


def _sci(v: float) -> str:
    if not np.isfinite(v):
        return _special(v)
    return f"{v:.4e}"


def _special(v: float) -> str:
    return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")


def format_tensor(t: object) -> str:
    """``repr`` of a Tensor in PyTorch's layout; non-default dtypes are named
    ``dtype=dyngrad.<name>`` (dyngrad prints its own module name, not ``torch``)."""
    data = t.data  # type: ignore[attr-defined]
    kw = {}
    if data.dtype.kind == "f":
        kw = _float_formatter(data)
    body = np.array2string(
        data, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3, max_line_width=80, **kw
    )
    if data.size == 0 and data.ndim == 1:
        body = "[]"
    extras = []
    dt = data.dtype
    if data.size == 0 and data.ndim != 1:
        extras.append(f"size={tuple(data.shape)}")
    default_float = B.get_default_dtype().np
    if not (dt == default_float or dt == np.int64 or dt == np.bool_):
        extras.append(f"dtype={B.from_np_dtype(dt)!r}")
    if t.grad_fn is not None:  # type: ignore[attr-defined]
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")  # type: ignore[attr-defined]
    elif t.requires_grad:  # type: ignore[attr-defined]
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + extras) + ")"
