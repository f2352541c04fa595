"""PyTorch-style printing of tensors (``tensor([1., 2.], requires_grad=True)``)."""

from __future__ import annotations

import numpy as np

from . import _backend as B


def _float_formatter(arr: np.ndarray) -> dict:
    """PyTorch's ``_Formatter`` rules: integral values print as ``1.``; scientific notation
    when the nonzero finite magnitudes span more than 1000x, exceed 1e8 or (non-integral)
    go below 1e-4; every element is padded to the widest nonzero finite one."""
    finite = arr[np.isfinite(arr)] if arr.size else arr
    if finite.size == 0:  # nothing finite: no padding
        return {"formatter": {"float_kind": lambda v: _special(v)}}
    integral = bool(np.all(finite == np.round(finite)))
    snz = finite[finite != 0]
    nz = np.abs(snz)
    fmt = _int_like if integral else _fixed
    if nz.size:
        nzmax, nzmin = float(nz.max()), float(nz.min())
        if nzmax / nzmin > 1000.0 or nzmax > 1e8 or (not integral and nzmin < 1e-4):
            fmt = _sci
    # measure the printed elements only (the edges of a summarized tensor)
    flat = snz if snz.size <= 2000 else np.concatenate([snz[:1000], snz[-1000:]])
    width = max([1] + [len(fmt(float(v))) for v in flat])
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
    data = t._data  # type: ignore[attr-defined]
    if not isinstance(data, np.ndarray):  # a CuPy, Dask (computed here) or Array API array
        data = B.to_host(data)
    kw = {}
    if data.dtype.kind == "f":
        kw = _float_formatter(data)
    elif data.dtype == np.bool_:  # padded to the widest element, as PyTorch (NumPy always pads True)
        width = 5 if data.size and not data.all() else 4
        kw = {"formatter": {"bool": lambda v: str(bool(v)).rjust(width)}}
    body = np.array2string(
        data, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3, max_line_width=80, **kw
    )
    if data.size == 0 and data.ndim == 1:
        body = "[]"
    body = body.replace(", ...,", ",  ...,")  # PyTorch's summarization marker is " ..."
    extras = []
    dt = data.dtype
    if data.size == 0 and data.ndim != 1:
        extras.append(f"size={tuple(data.shape)}")
    default_float = B.get_default_dtype().np
    # an empty tensor has no elements to tell int64 or bool by: PyTorch names every non-default dtype
    if not (dt == default_float or (data.size and (dt == np.int64 or dt == np.bool_))):
        extras.append(f"dtype={B.from_np_dtype(dt)!r}")
    if getattr(t, "is_cuda", False):
        extras.append(f"device='{t.device}'")  # type: ignore[attr-defined]
    if t.grad_fn is not None:  # type: ignore[attr-defined]
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")  # type: ignore[attr-defined]
    elif t.requires_grad:  # type: ignore[attr-defined]
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + extras) + ")"
