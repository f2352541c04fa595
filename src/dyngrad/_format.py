"""PyTorch-style printing of tensors (``tensor([1., 2.], requires_grad=True)``)."""

from __future__ import annotations

from typing import Any

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


_LINEWIDTH, _THRESHOLD, _EDGE = 80, 1000, 3


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements PyTorch prints of a summarized tensor (the first and last ``_EDGE``
    along each dim), which its formatter measures."""
    if a.ndim == 0:
        return a
    n = a.shape[0]
    rows = [a[i] for i in (list(range(_EDGE)) + list(range(n - _EDGE, n)))] if n > 2 * _EDGE else list(a)
    if a.ndim == 1:
        return np.asarray(rows, dtype=a.dtype)
    return np.stack([_summarized(r) for r in rows])


def _element_format(data: np.ndarray, measured: np.ndarray) -> tuple[Any, int]:
    """``(format one element, its width)`` by PyTorch's ``_Formatter`` over ``measured``."""
    if B.kind(data) == "f":
        fmt = _float_formatter(measured)["formatter"]["float_kind"]
        width = max([1] + [len(fmt(float(v))) for v in measured.ravel()[:1]]) if measured.size else 1
        return (lambda v: fmt(float(v))), width
    if data.dtype == np.bool_:
        strs = [str(bool(v)) for v in measured.ravel()]
    else:
        strs = [str(int(v)) for v in measured.ravel()]
    width = max([1] + [len(x) for x in strs])
    conv = bool if data.dtype == np.bool_ else int
    return (lambda v: str(conv(v)).rjust(width)), width


def _layout(a: np.ndarray, indent: int, summarize: bool, fmt: Any, width: int) -> str:
    """PyTorch's ``_tensor_str_with_formatter``: rows of ``floor((80 - indent) / (width +
    2))`` elements, nested dims joined by ``,`` and ``dim - 1`` newlines, ``...`` where
    summarized."""
    if a.ndim == 0:
        return fmt(a[()])
    n = a.shape[0]
    if a.ndim == 1:
        per_line = max(1, (_LINEWIDTH - indent) // (width + 2))
        if summarize and n > 2 * _EDGE:
            items = [fmt(v) for v in a[:_EDGE]] + [" ..."] + [fmt(v) for v in a[-_EDGE:]]
        else:
            items = [fmt(v) for v in a]
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and n > 2 * _EDGE:
        parts = ([_layout(a[i], indent + 1, summarize, fmt, width) for i in range(_EDGE)] + ["..."]
                 + [_layout(a[i], indent + 1, summarize, fmt, width) for i in range(n - _EDGE, n)])
    else:
        parts = [_layout(a[i], indent + 1, summarize, fmt, width) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_tensor(t: object) -> str:
    """``repr`` of a Tensor in PyTorch's layout (its ``_tensor_str``: line width 80, rows of
    as many elements as fit after the indent, summarized past 1000 elements with 3 at each
    edge, and the ``dtype=``/``grad_fn=`` suffixes moved to a line of their own when they
    would pass column 80); non-default dtypes are named ``dtype=dyngrad.<name>`` (dyngrad
    prints its own module name, not ``torch``)."""
    data = t._data  # type: ignore[attr-defined]
    if not isinstance(data, np.ndarray):  # a CuPy, Dask (computed here) or Array API array
        data = B.to_host(data)
    prefix = "tensor("
    indent = len(prefix)
    if data.size == 0:
        body = "[]"
    else:
        summarize = data.size > _THRESHOLD
        measured = _summarized(data) if summarize else data
        fmt, width = _element_format(data, measured)
        body = _layout(data, indent, summarize, fmt, width)
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
    # PyTorch's _add_suffixes: a suffix that would pass the line width starts a new line
    out = prefix + body
    last = len(out) - out.rfind("\n") + 1
    for suffix in extras:
        if last + len(suffix) + 2 > _LINEWIDTH:
            out += ",\n" + " " * indent + suffix
            last = indent + len(suffix)
        else:
            out += ", " + suffix
            last += len(suffix) + 2
    return out + ")"
