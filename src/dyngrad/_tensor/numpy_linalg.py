"""``np.linalg`` on Tensors (part of ``Tensor.__array_function__``; numpy_function.py holds the
table): the decompositions and solvers dyngrad has, with NumPy's meaning where it differs
from ``torch.linalg`` (``solve``'s ``b`` is a vector only when it is 1-d, as in NumPy 2;
``svd(compute_uv=False)``; ``norm``'s ``ord``/``axis`` rules; ``lstsq`` returns NumPy's four
results; ``pinv`` cuts singular values below ``rcond * max(s)``). Integer inputs compute in
float64, as NumPy does."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

from .numpy_common import _floats, promote_tensors

_NoValue = np._NoValue


def _o() -> Any:
    return _core._ops


def _f2(a: Any, b: Any) -> list:
    return promote_tensors([_floats(a), _floats(b)])


def det(a):  # noqa: ANN001, ANN201
    return _o().decomp.det(_floats(a))


def slogdet(a):  # noqa: ANN001, ANN201
    return _o().decomp.slogdet(_floats(a))


def inv(a):  # noqa: ANN001, ANN201
    return _o().decomp.inv(_floats(a))


def solve(a, b):  # noqa: ANN001, ANN201
    A, B = _f2(a, b)
    if B.dim() == 1:  # NumPy 2: a vector only when b is 1-d
        return _o().decomp.solve(A, B.unsqueeze(-1)).squeeze(-1)
    if B.dim() == A.dim() - 1:  # (torch would read b as a batch of vectors): a matrix, broadcast
        B = B.unsqueeze(0)
    return _o().decomp.solve(A, B)


def cholesky(a, /, *, upper=False):  # noqa: ANN001, ANN201
    return _o().decomp.cholesky(_floats(a), upper=upper)


def qr(a, mode="reduced"):  # noqa: ANN001, ANN201
    if mode not in ("reduced", "complete", "r"):
        raise TypeError(f"numpy.linalg.qr(mode={mode!r}) is not supported on dyngrad Tensors")
    q, r = _o().decomp.qr(_floats(a), "reduced" if mode == "r" else mode)
    return r if mode == "r" else (q, r)


def eigh(a, UPLO="L"):  # noqa: ANN001, ANN201, N803
    return _o().spectral.eigh(_floats(a), UPLO)


def eigvalsh(a, UPLO="L"):  # noqa: ANN001, ANN201, N803
    return _o().spectral.eigvalsh(_floats(a), UPLO)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):  # noqa: ANN001, ANN201
    x = _floats(a)
    if not compute_uv:
        return _o().spectral.svdvals(x)
    return _o().spectral.svd(x, full_matrices)


def svdvals(x, /):  # noqa: ANN001, ANN201
    return _o().spectral.svdvals(_floats(x))


def _default_rtol(x: Any) -> float:
    return builtins.max(x.shape[-2:]) * float(np.finfo(x._data.dtype).eps)


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):  # noqa: ANN001, ANN201
    x = _floats(a)
    cut = rcond if rcond is not None else (rtol if rtol is not _NoValue and rtol is not None else _default_rtol(x))
    u, s, vh = _o().spectral.svd(x, False)
    big = s > s.amax(-1, keepdim=True) * cut
    s_inv = _o().where(big, 1.0 / _o().where(big, s, 1.0), 0.0)
    return _o().matmul(vh.transpose(-2, -1) * s_inv.unsqueeze(-2), u.transpose(-2, -1))


def lstsq(a, b, rcond=None):  # noqa: ANN001, ANN201
    A, B = _f2(a, b)
    m, n = A.shape[-2:]
    cut = _default_rtol(A) if rcond is None else rcond
    s = _o().spectral.svdvals(A)
    rank = int((s._data > s._data.max(initial=0.0) * cut).sum()) if not A._is_wrapper else builtins.min(m, n)
    x = _o().matmul(pinv(A, cut), B if B.dim() > 1 else B.unsqueeze(-1))
    if B.dim() == 1:
        x = x.squeeze(-1)
    if rank == n and m > n:
        r = _o().matmul(A, x if B.dim() > 1 else x.unsqueeze(-1)) - (B if B.dim() > 1 else B.unsqueeze(-1))
        residuals = (r * r).sum(0)
    else:
        residuals = _core.Tensor._make(np.empty((0,), dtype=A._data.dtype))
    return x, residuals, rank, s


def matrix_power(a, n):  # noqa: ANN001, ANN201
    x = _core.Tensor._make(np.asarray(a)) if not isinstance(a, _core.Tensor) else a
    n = int(n)
    if n == 0:
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x._data.dtype), tuple(x.shape))
        return _core.Tensor._make(eye.copy())
    if n < 0:
        x, n = _o().decomp.inv(_floats(x)), -n
    result = None
    while n:  # binary powering
        if n & 1:
            result = x if result is None else _o().matmul(result, x)
        n >>= 1
        if n:
            x = _o().matmul(x, x)
    return result


def _matrix_norm(x: Any, ord: Any, axes: tuple, keepdims: bool) -> Any:
    o = _o()
    d0, d1 = (d % x.dim() for d in axes)
    if ord in (None, "fro"):
        return o.statistics.vector_norm(x, 2, (d0, d1), keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        first, second = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = o.abs(x).sum(first, keepdim=True)
        r = sums.amax(second, keepdim=True) if ord > 0 else sums.amin(second, keepdim=True)
        return r if keepdims else r.squeeze((d0, d1))
    if ord in ("nuc", 2, -2):
        rest = [i for i in range(x.dim()) if i not in (d0, d1)]
        s = o.spectral.svdvals(o.permute(x, rest + [d0, d1]))
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        for d in sorted((d0, d1)) if keepdims else ():
            r = r.unsqueeze(d)
        return r
    raise ValueError("Invalid norm order for matrices.")


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002, ANN001, ANN201
    t = _floats(x)
    o = _o()
    if axis is None:
        if ord is None:  # the 2-norm of the flattened array
            r = o.statistics.vector_norm(t.reshape(-1), 2, 0)
            return r.reshape([1] * t.dim()) if keepdims else r
        if t.dim() == 2:
            return _matrix_norm(t, ord, (0, 1), keepdims)
        if t.dim() == 1:
            axis = 0
        else:
            raise ValueError("Improper number of dimensions to norm.")
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        return _matrix_norm(t, ord, tuple(axis), keepdims)
    ax = axis[0] if isinstance(axis, (tuple, list)) else axis
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    return o.statistics.vector_norm(t, 2 if ord is None else ord, ax, keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: ANN001, ANN201
    t = _floats(x)
    return _o().statistics.vector_norm(t, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: ANN001, ANN201
    return _matrix_norm(_floats(x), ord, (-2, -1), keepdims)
