"""``dyngrad.functional``: PyTorch's ``torch.functional`` module (also reached as ``torch.*``).

It re-exports ``einsum``, ``meshgrid``, ``norm``, ``split``, ``tensordot``, ``unique`` and
``unique_consecutive`` from the ops, and defines the compositions PyTorch keeps here:
``atleast_1d/2d/3d``, ``broadcast_shapes``, ``broadcast_tensors``, ``block_diag``,
``cartesian_prod``, ``chain_matmul``, ``cdist``, ``unravel_index``. Each is written with
differentiable dyngrad ops, so gradients, forward mode and vmap come from those ops.
Not provided: ``stft``/``istft``, ``lu``, ``pca_lowrank``, ``svd_lowrank``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .ops import einsum, meshgrid, norm, split, tensordot, unique, unique_consecutive
from .ops.shape import broadcast_to
from .tensor import Tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "block_diag",
           "cartesian_prod", "cdist", "chain_matmul", "einsum", "meshgrid", "norm", "split", "tensordot", "unique",
           "unique_consecutive", "unravel_index"]


def _tensors(args: tuple) -> tuple:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args


def _atleast(nd: int, tensors: tuple) -> Any:
    ts = _tensors(tensors)
    out = []
    for t in ts:
        shape = tuple(t.shape)
        if len(shape) < nd:
            # PyTorch: 1-d (n,) -> (1, n) -> (1, n, 1); 0-d -> (1,), (1, 1), (1, 1, 1)
            new = {0: (1,) * nd, 1: (1,) + shape + (1,) * (nd - 2), 2: shape + (1,)}[len(shape)]
            t = t.reshape(new)
        out.append(t)
    return out[0] if len(out) == 1 and not (len(tensors) == 1 and isinstance(tensors[0], (list, tuple))) else tuple(out)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor viewed with at least 1 dim (a 0-d tensor becomes ``(1,)``).

    Returns:
        a tensor for one tensor argument, else a tuple.
    """
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims: ``() -> (1, 1)``, ``(n,) -> (1, n)``."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims: ``() -> (1, 1, 1)``, ``(n,) -> (1, n, 1)``,
    ``(m, n) -> (m, n, 1)``."""
    return _atleast(3, tensors)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of ``shapes`` broadcast to.

    Raises:
        RuntimeError: shapes that do not broadcast.
    """
    from ._tensor.metadata import Size

    norm_shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*norm_shapes))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape ({norm_shapes})") from None


def broadcast_tensors(*tensors: Any) -> tuple:
    """The tensors expanded to their common broadcast shape (views).

    Raises:
        RuntimeError: shapes that do not broadcast.
    """
    ts = _tensors(tensors)
    shape = broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(broadcast_to(t, shape) for t in ts)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d is ``(1, 1)``, 1-d ``(n,)`` is ``(1, n)``).

    Returns:
        ``(sum rows, sum cols)`` tensor of the promoted dtype, zeros off the blocks.
    """
    from .ops import cat, pad

    ts = [t.reshape(1, 1) if t.ndim == 0 else (t.reshape(1, -1) if t.ndim == 1 else t) for t in tensors]
    if any(t.ndim != 2 for t in ts):
        raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions.")
    if not ts:
        from .creation import empty

        return empty(1, 0)
    from . import _backend as B

    common = B._FROM_NP[np.result_type(*(t._data.dtype for t in ts))]
    total = sum(t.shape[1] for t in ts)
    rows, left = [], 0
    for t in ts:
        c = t.shape[1]
        rows.append(pad(t.to(common), (left, total - left - c)))
        left += c
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The cartesian product of 1-d tensors: ``(prod of lengths, len(tensors))`` rows in
    lexicographic order (one tensor: the tensor itself)."""
    from .ops import stack

    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """``matrices[0] @ matrices[1] @ ...`` (deprecated in PyTorch for ``linalg.multi_dot``).

    Raises:
        RuntimeError: no matrices, or a non-2-d one.
    """
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    ms = _tensors(matrices)
    if not ms:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if any(m.ndim != 2 for m in ms):
        raise RuntimeError("chain_matmul(): Expected 2D tensors")
    out = ms[0]
    for m in ms[1:]:
        out = out.mm(m)
    return out if len(ms) > 1 else out.clone()


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Pairwise ``p``-norm distances between the rows of ``x1: (*, P, M)`` and ``x2: (*, R, M)``.

    Returns:
        ``(*, P, R)``. The gradient at a zero distance is 0 (the norm's subgradient), as PyTorch.
    Raises:
        RuntimeError: mismatched last dims, fewer than 2 dims, or ``p < 0``.
    """
    from .ops.statistics import vector_norm

    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return vector_norm(diff, p, -1)


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The multi-index of each flat index into a tensor of ``shape`` (C order).

    Negative indices count from the end. Not differentiable (integer results).

    Args:
        indices (Tensor or array-like): integer flat indices, any shape ``(*)``, in
            ``[-numel, numel)``.
        shape (int or sequence of int): the shape they index into.
    Returns:
        tuple of Tensor: int64 tensors, one per dim of ``shape``, each ``(*)``.
    Raises:
        RuntimeError: an index out of range for ``shape`` (PyTorch 2.13 does not check and
            wraps it).
        TypeError: a non-integer index.

    Example:
        >>> import dyngrad
        >>> dyngrad.unravel_index(dyngrad.tensor([5, -1, 1]), (2, 3))
        (tensor([1, 1, 0]), tensor([2, 2, 1]))
    """
    from .creation import tensor

    d = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if d.dtype.kind not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(d.dtype))
    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    n = int(np.prod(shp))
    if d.size and (d.min() < -n or d.max() >= n):
        raise RuntimeError("'indices' must be in range [-" + str(n) + ", " + str(n - 1) + "]")
    return tuple(tensor(a.astype(np.int64)) for a in np.unravel_index(np.where(d < 0, d + n, d), shp))
