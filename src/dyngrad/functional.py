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
from . import _backend as B

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
    """Each tensor viewed with at least 1 dims: ``()`` becomes ``(1,)``; tensors with more dims are returned as they are.

    Derivative: gradients flow through the reshape (``grad_input = grad_output`` reshaped back).

    Args:
        *tensors (Tensor): any number of tensors, or one list or tuple of them.
    Returns:
        Tensor or tuple of Tensor: one tensor for a single tensor argument; otherwise a tuple
        (also for a single list or tuple argument).
    Raises:
        AttributeError: when an element is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.atleast_1d(dyngrad.tensor(1.0))
        tensor([1.])
        >>> dyngrad.atleast_1d(dyngrad.tensor(1.0), dyngrad.tensor([2.0, 3.0]))
        (tensor([1.]), tensor([2., 3.]))
    """
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor viewed with at least 2 dims: ``() -> (1, 1)``, ``(n,) -> (1, n)``; tensors with more dims are returned as they are.

    Derivative: gradients flow through the reshape (``grad_input = grad_output`` reshaped back).

    Args:
        *tensors (Tensor): any number of tensors, or one list or tuple of them.
    Returns:
        Tensor or tuple of Tensor: one tensor for a single tensor argument; otherwise a tuple
        (also for a single list or tuple argument).
    Raises:
        AttributeError: when an element is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.atleast_2d(dyngrad.tensor([1.0, 2.0])).shape
        dyngrad.Size([1, 2])
        >>> dyngrad.atleast_2d(dyngrad.tensor(1.0))
        tensor([[1.]])
    """
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor viewed with at least 3 dims: ``() -> (1, 1, 1)``, ``(n,) -> (1, n, 1)``, ``(m, n) -> (m, n, 1)``; tensors with more dims are returned as they are.

    Derivative: gradients flow through the reshape (``grad_input = grad_output`` reshaped back).

    Args:
        *tensors (Tensor): any number of tensors, or one list or tuple of them.
    Returns:
        Tensor or tuple of Tensor: one tensor for a single tensor argument; otherwise a tuple
        (also for a single list or tuple argument).
    Raises:
        AttributeError: when an element is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.atleast_3d(dyngrad.tensor([1.0, 2.0])).shape
        dyngrad.Size([1, 2, 1])
        >>> dyngrad.atleast_3d(dyngrad.ones(2, 3)).shape
        dyngrad.Size([2, 3, 1])
    """
    return _atleast(3, tensors)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of the given ``shapes`` broadcast to (NumPy/PyTorch rules).

    Not differentiable (it computes shapes only).

    Args:
        *shapes (int or tuple of ints or Size): the shapes; an int ``n`` is ``(n,)``.
    Returns:
        Size: the broadcast shape (``Size([])`` for no shapes).
    Raises:
        RuntimeError: when the shapes do not broadcast, or a size is negative (PyTorch raises
            ValueError for that).
        TypeError: when a shape is not an int or a sequence of ints (PyTorch: RuntimeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.broadcast_shapes((2, 1), (3,))
        dyngrad.Size([2, 3])
        >>> dyngrad.broadcast_shapes(2, (3, 1))
        dyngrad.Size([3, 2])
    """
    from ._tensor.metadata import Size

    norm_shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*norm_shapes))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape ({norm_shapes})") from None


def broadcast_tensors(*tensors: Any) -> tuple:
    """The tensors expanded to their common broadcast shape (read-only views, as ``expand``).

    Derivative: ``grad_input = grad_output`` summed over the dims that were broadcast, back to
    ``input``'s shape.

    Args:
        *tensors (Tensor): the tensors ``(*S_i)``, or one list or tuple of them (PyTorch takes
            only separate arguments).
    Returns:
        tuple of Tensor: each of shape ``broadcast_shapes(*S_i)``.
    Raises:
        RuntimeError: when the shapes do not broadcast.
        AttributeError: when an element is not a Tensor.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.ones(2, 1, requires_grad=True)
        >>> x, y = dyngrad.broadcast_tensors(a, dyngrad.zeros(3))
        >>> x.shape, y.shape
        (dyngrad.Size([2, 3]), dyngrad.Size([2, 3]))
        >>> x.sum().backward()
        >>> a.grad
        tensor([[3.],
                [3.]])
    """
    ts = _tensors(tensors)
    shape = broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(broadcast_to(t, shape) for t in ts)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix with the inputs on its diagonal, zeros elsewhere.

    A 0-d input is a ``(1, 1)`` block and a 1-d ``(n,)`` input a ``(1, n)`` block. The dtype is
    PyTorch's ``result_type`` of the inputs (a 0-d input does not widen the others').

    Derivative: each input's gradient is its block of ``grad_output`` (reshaped back).

    Args:
        *tensors (Tensor): inputs with at most 2 dims, ``(r_i, c_i)``.
    Returns:
        Tensor: ``(sum r_i, sum c_i)``; ``(1, 0)`` for no inputs.
    Raises:
        RuntimeError: when an input has more than 2 dims.

    Example:
        >>> import dyngrad
        >>> dyngrad.block_diag(dyngrad.tensor([[1, 2], [3, 4]]), dyngrad.tensor([5.0]), dyngrad.tensor(6))
        tensor([[1., 2., 0., 0.],
                [3., 4., 0., 0.],
                [0., 0., 5., 0.],
                [0., 0., 0., 6.]])
    """
    from .ops import cat, pad

    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    ts = [t.reshape(1, 1) if t.ndim == 0 else (t.reshape(1, -1) if t.ndim == 1 else t) for t in tensors]
    if not ts:
        from .creation import empty

        return empty(1, 0)

    # PyTorch's result_type of the inputs as given: a 0-d input does not widen the others' dtype
    common = B._FROM_NP[np.dtype(B.result_type(*tensors))]
    total = sum(t.shape[1] for t in ts)
    rows, left = [], 0
    for t in ts:
        c = t.shape[1]
        rows.append(pad(t.to(common), (left, total - left - c)))
        left += c
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The cartesian product of 1-d tensors, as rows in lexicographic order (``itertools.product``).

    Derivative: gradients flow through the indexing (``meshgrid`` and ``stack``): each input
    element gets the sum of ``grad_output`` over the rows it appears in.

    Args:
        *tensors (Tensor): ``(n_i,)`` each, all of one dtype.
    Returns:
        Tensor: ``(prod n_i, len(tensors))``; for a single tensor, the tensor itself ``(n_1,)``.
    Raises:
        RuntimeError: when an input is not 1-d, the dtypes differ, or there are no inputs.

    Example:
        >>> import dyngrad
        >>> dyngrad.cartesian_prod(dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4, 5]))
        tensor([[1, 3],
                [1, 4],
                [1, 5],
                [2, 3],
                [2, 4],
                [2, 5]])
    """
    from .ops import stack

    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], dim=1)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The matrix product ``matrices[0] @ matrices[1] @ ...``, left to right.

    Deprecated in PyTorch (it warns, and so does dyngrad): use ``linalg.multi_dot``. One matrix
    gives a copy of it.

    Derivative: that of the chain of ``mm`` calls: for ``A @ B``, ``grad_A = grad_output @ B^T``,
    ``grad_B = A^T @ grad_output``.

    Args:
        *matrices (Tensor): 2-d tensors ``(n_0, n_1), (n_1, n_2), ...`` (or one list of them).
    Returns:
        Tensor: ``(n_0, n_k)``.
    Raises:
        RuntimeError: when there are no matrices, one is not 2-d, or inner sizes differ.

    Example:
        >>> import dyngrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     dyngrad.chain_matmul(dyngrad.ones(2, 3), dyngrad.ones(3, 4), dyngrad.ones(4, 1))
        tensor([[12.],
                [12.]])
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


def _torch_scalar_name(x: Tensor) -> str:
    """PyTorch's C++ scalar-type name of ``x``'s dtype (``Long``, ``Int``, ``Bool``, ...)."""
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float64": "Double", "float32": "Float", "float16": "Half"}.get(x._data.dtype.name,
                                                                                       x._data.dtype.name)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Pairwise ``p``-norm distances between the rows of ``x1`` and the rows of ``x2`` (batched).

    ``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p``, computed directly (``compute_mode``
    is accepted and ignored: no matrix-product shortcut, so no cancellation error).

    Derivative: that of the norm of the differences; at a zero distance the gradient is 0
    (the norm's subgradient), as PyTorch's ``cdist_backward``.

    Args:
        x1 (Tensor): ``(*B, P, M)``, floating.
        x2 (Tensor): ``(*B, R, M)``, floating; the batch dims broadcast with ``x1``'s.
        p (float, optional): the norm's order, ``>= 0`` (``0`` counts non-zero differences,
            ``inf`` takes the largest). Default: ``2.0``.
        compute_mode (str, optional): accepted for compatibility. Default:
            ``'use_mm_for_euclid_dist_if_necessary'``.
    Returns:
        Tensor: ``(*B, P, R)``.
    Raises:
        RuntimeError: when either input has fewer than 2 dims, the last dims differ, ``p < 0``,
            the batch dims do not broadcast, or the inputs are not floating. (PyTorch also
            refuses mixed float dtypes; dyngrad promotes them.)

    Example:
        >>> import dyngrad
        >>> x1 = dyngrad.tensor([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
        >>> dyngrad.cdist(x1, dyngrad.tensor([[0.0, 0.0]]))
        tensor([[0.],
                [5.]], grad_fn=<LinalgVectorNormBackward0>)
        >>> dyngrad.cdist(x1, dyngrad.tensor([[0.0, 0.0]])).sum().backward()
        >>> x1.grad
        tensor([[0.0000, 0.0000],
                [0.6000, 0.8000]])
    """
    from .ops.statistics import vector_norm

    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    for name, x in (("X1", x1), ("X2", x2)):
        if B.kind(x._data) != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_torch_scalar_name(x)}")
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
    if B.kind(d) not in "iu":
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(d.dtype))
    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    n = int(np.prod(shp))
    if d.size and (d.min() < -n or d.max() >= n):
        raise RuntimeError("'indices' must be in range [-" + str(n) + ", " + str(n - 1) + "]")
    return tuple(tensor(a.astype(np.int64)) for a in np.unravel_index(np.where(d < 0, d + n, d), shp))
