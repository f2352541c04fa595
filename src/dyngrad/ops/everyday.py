"""Everyday torch functions that tutorials reach for, each a composition of dyngrad ops (so
gradients, forward mode and vmap come from those ops): statistics (``cov``, ``corrcoef``,
``aminmax``, ``dist``), index generators (``tril_indices``, ``triu_indices``,
``combinations``, ``cartesian_prod``), elementwise math (``sinc``, ``deg2rad``, ``rad2deg``,
``logaddexp2``, ``copysign``, ``heaviside``, ``signbit``), rearrangements (``rot90``,
``diagflat``, ``ravel``, ``tensor_split``, ``hsplit``/``vsplit``/``dsplit``,
``column_stack``, ``row_stack``, ``dstack``), ``vdot`` and ``isin``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._util import norm_dim, require_tensor, to_tensor, wrap

__all__ = ["cov", "corrcoef", "aminmax", "dist", "tril_indices", "triu_indices", "combinations", "cartesian_prod",
           "sinc", "deg2rad", "rad2deg", "logaddexp2", "copysign", "heaviside", "signbit", "rot90", "diagflat",
           "ravel", "tensor_split", "hsplit", "vsplit", "dsplit", "column_stack", "row_stack", "dstack", "vdot",
           "isin"]
TENSOR_METHODS = {"cov", "corrcoef", "aminmax", "dist", "sinc", "deg2rad", "rad2deg", "logaddexp2", "copysign",
                  "heaviside", "signbit", "rot90", "diagflat", "tensor_split", "hsplit", "vsplit", "dsplit", "vdot"}

AminmaxResult = namedtuple("aminmax", ["min", "max"])


def _floating(x: Tensor) -> Tensor:
    """``x``, integers and bools cast to the default float dtype (PyTorch's rule for these)."""
    return x if B.kind(x._data) in "fc" else x.to(B.get_default_dtype())


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in columns).

    With weights ``w = fweights * aweights`` (each optional), ``mean = sum(w x) / sum(w)`` and
    ``C = (x - mean) diag(w) (x - mean)^T / (sum(w) - correction * sum(w aweights) /
    sum(w))`` (``sum(w) - correction`` without ``aweights``), as NumPy's and PyTorch's ``cov``.

    Derivative: through the mean, the product and the division (dyngrad ops); the
    weights take no gradient here (PyTorch differentiates ``aweights`` too).

    Args:
        input (Tensor): ``(N, M)`` (``N`` variables, ``M`` observations) or ``(M,)``;
            integers are cast to the default float dtype.
        correction (int): ``1`` for the unbiased estimate, ``0`` for the biased. Default: ``1``.
        fweights (Tensor, optional): ``(M,)`` integer repeat counts.
        aweights (Tensor, optional): ``(M,)`` floating observation weights.
    Returns:
        Tensor: ``(N, N)``, or a 0-d tensor for one variable.
    Raises:
        RuntimeError: ``input`` of more than 2 dims, weights of the wrong shape or dtype, or
            negative weights.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]])
        >>> [[round(v, 4) for v in row] for row in dyngrad.cov(x).tolist()]
        [[2.3333, -0.5], [-0.5, 1.0]]
    """
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    x = _floating(input)
    x = x.reshape(1, -1) if x._data.ndim < 2 else x
    m = x.shape[1]
    w = None
    for name, wt, kinds in (("fweights", fweights, "iu"), ("aweights", aweights, "f")):
        if wt is None:
            continue
        if wt._data.ndim > 1 or wt._data.size != m:
            raise RuntimeError(f"cov(): expected {name} to have one dimension and {m} elements but got "
                               f"{list(wt.shape)}")
        if B.kind(wt._data) not in kinds:
            raise RuntimeError(f"cov(): expected {name} to have {'integral' if kinds == 'iu' else 'floating point'} "
                               f"dtype but got {wt.dtype}")
        if (wt._data < 0).any():
            raise RuntimeError(f"cov(): {name} cannot be negative")
        wd = wt._data.astype(x._data.dtype)
        w = wd if w is None else w * wd
    if w is None:
        w_sum = float(m)
        mean = x.mean(1, keepdim=True)
        xm = x - mean
        prod = xm @ xm.mT
    else:
        wt_ = wrap(w)
        w_sum = float(w.sum())
        mean = (x * wt_).sum(1, keepdim=True) / w_sum
        xm = x - mean
        prod = (xm * wt_) @ xm.mT
    if aweights is None or correction == 0:
        fact = w_sum - correction
    else:
        fact = w_sum - correction * float((w * aweights._data).sum()) / w_sum
    if fact <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        fact = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = prod / fact if fact else prod * math.inf
    return out.reshape(()) if out.shape == (1, 1) else out


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in ``input``'s rows:
    ``cov(x)_ij / sqrt(cov(x)_ii cov(x)_jj)``, clipped to ``[-1, 1]`` as PyTorch.

    Derivative: through :func:`cov`, the square roots and the division (dyngrad ops).

    Args:
        input (Tensor): ``(N, M)`` or ``(M,)``.
    Returns:
        Tensor: ``(N, N)``, or a 0-d tensor for one variable (``1``, or NaN for a constant).
    Raises:
        RuntimeError: ``input`` of more than 2 dims.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]])
        >>> round(dyngrad.corrcoef(x)[0, 1].item(), 4)
        -0.3273
    """
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    d = c.diagonal()
    with np.errstate(divide="ignore", invalid="ignore"):
        out = c / d.sqrt().unsqueeze(1) / d.sqrt().unsqueeze(0)
    return out.clamp(-1, 1)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """The minimum and maximum of ``input`` (over ``dim``, or all elements), as
    ``(min, max)``.

    Derivative: :func:`amin`'s and :func:`amax`'s (the gradient shared evenly among tied
    extremes).

    Args:
        input (Tensor): ``(*)``, non-empty.
        dim (int, optional): the dim to reduce. Default: ``None`` (all elements).
        keepdim (bool): keep the reduced dim as size 1. Default: ``False``.
    Returns:
        (Tensor, Tensor): ``(min, max)``, a namedtuple, of ``input``'s dtype.
    Raises:
        RuntimeError: an empty input; IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.aminmax(dyngrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]]), dim=1)
        aminmax(min=tensor([1., 0.]), max=tensor([4., 2.]))
    """
    if input._data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None:
        lo, hi = input.amin(), input.amax()
        if keepdim:
            shape = (1,) * input._data.ndim
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        return AminmaxResult(lo, hi)
    return AminmaxResult(input.amin(dim, keepdim), input.amax(dim, keepdim))


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), over all elements.

    Derivative: :func:`linalg.vector_norm`'s of the difference.

    Args:
        input (Tensor): ``(*)``, floating.
        other (Tensor): broadcastable with ``input``.
        p (float): the norm's order. Default: ``2``.
    Returns:
        Tensor: 0-d.
    Raises:
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.dist(dyngrad.tensor([3.0, 4.0]), dyngrad.zeros(2)).item()
        5.0
    """
    require_tensor("dist", input)
    from .statistics import vector_norm

    return vector_norm(input - other, p)


def _index_pairs(rows: np.ndarray, cols: np.ndarray, dtype: Any) -> Tensor:
    return wrap(np.stack([rows, cols]).astype(B.to_np_dtype(dtype) if dtype is not None else np.int64))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The coordinates of the lower triangle of a ``row x col`` matrix (on and below the
    ``offset``-th diagonal), row by row.

    Not differentiable (integer output).

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal (``> 0`` above the main one). Default: ``0``.
        dtype (dtype, optional): integer dtype of the result. Default: int64.
        device, layout: accepted for compatibility (the CPU, strided).
    Returns:
        Tensor: ``(2, N)``: row indices, then column indices.
    Raises:
        RuntimeError: a negative ``row`` or ``col``.

    Example:
        >>> import dyngrad
        >>> dyngrad.tril_indices(3, 3).tolist()
        [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    if row < 0 or col < 0:
        raise RuntimeError(f"tril_indices: row and col must be non-negative, got {row} and {col}")
    r, c = np.tril_indices(row, offset, col)
    return _index_pairs(r, c, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The coordinates of the upper triangle of a ``row x col`` matrix (on and above the
    ``offset``-th diagonal), row by row.

    Not differentiable (integer output).

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal (``< 0`` below the main one). Default: ``0``.
        dtype (dtype, optional): integer dtype of the result. Default: int64.
        device, layout: accepted for compatibility (the CPU, strided).
    Returns:
        Tensor: ``(2, N)``: row indices, then column indices.
    Raises:
        RuntimeError: a negative ``row`` or ``col``.

    Example:
        >>> import dyngrad
        >>> dyngrad.triu_indices(2, 3, 1).tolist()
        [[0, 0, 1], [1, 2, 2]]
    """
    if row < 0 or col < 0:
        raise RuntimeError(f"triu_indices: row and col must be non-negative, got {row} and {col}")
    r, c = np.triu_indices(row, offset, col)
    return _index_pairs(r, c, dtype)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of 1-d ``input`` (as
    ``itertools.combinations``, or ``combinations_with_replacement``), in lexicographic
    order of positions.

    Derivative: the rows are gathered from ``input`` (``index_select``), so each element's
    gradient is the sum over the places it appears.

    Args:
        input (Tensor): ``(n,)``.
        r (int): the combination length. Default: ``2``.
        with_replacement (bool): allow an element to repeat. Default: ``False``.
    Returns:
        Tensor: ``(C, r)`` (``C`` the number of combinations: ``(0, r)`` for ``r > n``);
        ``r = 0`` gives an empty ``(0,)`` tensor, as PyTorch.
    Raises:
        TypeError: ``input`` not 1-d (PyTorch: "Expect a 1D vector").

    Example:
        >>> import dyngrad
        >>> dyngrad.combinations(dyngrad.tensor([1, 2, 3])).tolist()
        [[1, 2], [1, 3], [2, 3]]
    """
    if input._data.ndim != 1:
        raise TypeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    n = input.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    if r == 0:
        return input[0:0]
    idx = np.array(list(gen(range(n), r)), dtype=np.int64).reshape(-1)
    return input.index_select(0, wrap(idx)).reshape(-1, r)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The Cartesian product of 1-d tensors (as ``itertools.product``): one row per
    combination, the last tensor varying fastest.

    Derivative: through :func:`meshgrid` and :func:`stack` (each element's gradient sums the
    rows it appears in).

    Args:
        *tensors (Tensor): one or more ``(n_i,)`` tensors of one dtype.
    Returns:
        Tensor: ``(prod(n_i), len(tensors))``; one tensor is returned as is, ``(n_1,)``.
    Raises:
        RuntimeError: a tensor that is not 1-d.

    Example:
        >>> import dyngrad
        >>> dyngrad.cartesian_prod(dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4])).tolist()
        [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    from .composite import meshgrid
    from .splitting import stack

    if any(t._data.ndim != 1 for t in tensors):
        raise RuntimeError("cartesian_prod(): expect one dimensional input tensors")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def sinc(input: Tensor) -> Tensor:
    """The normalized sinc, ``sin(pi x) / (pi x)`` (``1`` at ``x = 0``); integers give the
    default float dtype.

    Derivative: ``(cos(pi x) - sinc(x)) / x`` (``0`` at ``x = 0``), through the ops written
    on a safe input so that ``x = 0`` gives no NaN.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, floating.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> [round(v, 4) for v in dyngrad.sinc(dyngrad.tensor([0.0, 0.5])).tolist()]
        [1.0, 0.6366]
    """
    from .pointwise import where

    x = _floating(input)
    zero = x == 0
    safe = where(zero, x.detach() * 0 + 1, x) * math.pi
    return where(zero, x * 0 + 1, safe.sin() / safe)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians, ``x * pi / 180``; integers give the default float dtype.

    Derivative: ``grad * pi / 180``.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, floating.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> round(dyngrad.deg2rad(dyngrad.tensor([180.0])).item(), 5)
        3.14159
    """
    return _floating(input) * (math.pi / 180)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees, ``x * 180 / pi``; integers give the default float dtype.

    Derivative: ``grad * 180 / pi``.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, floating.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> round(dyngrad.rad2deg(dyngrad.tensor([3.141592653589793])).item(), 3)
        180.0
    """
    return _floating(input) * (180 / math.pi)


def logaddexp2(input: Tensor, other: Any) -> Tensor:
    """``log2(2**input + 2**other)``, computed stably (as ``logaddexp`` in base 2).

    Derivative: ``grad_input = grad * 2**input / (2**input + 2**other)`` and symmetrically,
    through :func:`logaddexp` of the inputs scaled by ``ln 2``.

    Args:
        input (Tensor): ``(*)``, floating.
        other (Tensor or number): broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape.
    Raises:
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.logaddexp2(dyngrad.tensor([1.0]), dyngrad.tensor([1.0])).item()
        2.0
    """
    require_tensor("logaddexp2", input)
    from .pointwise import logaddexp

    ln2 = math.log(2)
    return logaddexp(_floating(input) * ln2, _floating(to_tensor(other)) * ln2) / ln2


def copysign(input: Any, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (its sign bit: ``-0.0`` counts as negative);
    integers give the default float dtype.

    Derivative: ``grad_input = grad * sign(input) * (-1 if signbit(other) else 1)`` (``0`` at
    ``input = 0``, as PyTorch); ``other`` gets ``0``.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor or number): broadcastable with ``input``.
    Returns:
        Tensor: the broadcast shape, floating.
    Raises:
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> dyngrad.copysign(dyngrad.tensor([1.0, -2.0]), -0.0).tolist()
        [-1.0, -2.0]
    """
    require_tensor("copysign", input)
    from .pointwise import where

    x, y = _floating(to_tensor(input)), to_tensor(other)
    yd = y._data
    if B.is_api_array(yd):
        neg = wrap(B.array_module(yd).signbit(B.astype(yd, np.float64, copy=False)))
    else:
        neg = wrap(np.signbit(B.asarray_any(yd, dtype=np.float64)))
    a = x.abs()
    return where(neg, -a, a)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The Heaviside step: ``0`` where ``input < 0``, ``values`` where ``input == 0``, ``1``
    where ``input > 0``.

    Not differentiable (PyTorch has no derivative for it; dyngrad's result does not
    require grad).

    Args:
        input (Tensor): ``(*)``.
        values (Tensor): broadcastable with ``input``, of ``input``'s dtype.
    Returns:
        Tensor: the broadcast shape, ``input``'s dtype.
    Raises:
        RuntimeError: dtypes that differ (PyTorch's rule).

    Example:
        >>> import dyngrad
        >>> dyngrad.heaviside(dyngrad.tensor([-1.0, 0.0, 2.0]), dyngrad.tensor(0.5)).tolist()
        [0.0, 0.5, 1.0]
    """
    require_tensor("heaviside", input)
    v = to_tensor(values)
    if v._data.dtype != input._data.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes, got "
                           f"{input.dtype} and {v.dtype}")
    x, vd = input._data, v._data
    if B.is_api_array(x) or B.is_api_array(vd):
        xp = B.array_module(x, vd)
        return wrap(xp.where(x == 0, vd, B.astype(x > 0, B.np_dtype_of(x))))
    with np.errstate(invalid="ignore"):
        out = np.where(x == 0, vd, (x > 0).astype(x.dtype))
    return wrap(B.asarray_any(out, dtype=x.dtype))


def signbit(input: Tensor) -> Tensor:
    """Whether each element's sign bit is set (``True`` for negatives and ``-0.0``).

    Not differentiable (bool output).

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(*)``, bool.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.signbit(dyngrad.tensor([-0.0, 0.0, -2.0])).tolist()
        [True, False, True]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): argument 'input' must be Tensor, not {type(input).__name__}")
    d = input._data
    if B.is_api_array(d):
        k = B.kind(d)  # (the standard's signbit takes floats only: integers by their sign)
        return wrap(B.array_module(d).signbit(d) if k == "f" else (d < 0 if k == "i" else B.zeros_like(d, np.bool_)))
    return wrap(np.signbit(d))


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotate ``input`` by 90 degrees ``k`` times in the plane of ``dims``, from the first
    towards the second (as PyTorch and ``numpy.rot90``).

    Derivative: through :func:`flip` and :func:`transpose` (a permutation of the elements).

    Args:
        input (Tensor): ``(N, M, *)``, at least 2 dims.
        k (int): quarter turns (negative: the other way). Default: ``1``.
        dims (Sequence[int]): two distinct dims. Default: ``(0, 1)``.
    Returns:
        Tensor: ``input``'s elements, ``dims``' sizes swapped for odd ``k``.
    Raises:
        RuntimeError: ``dims`` not two distinct dims, or fewer than 2 dims.

    Example:
        >>> import dyngrad
        >>> dyngrad.rot90(dyngrad.tensor([[1, 2], [3, 4]])).tolist()
        [[2, 4], [1, 3]]
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input._data.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input._data.ndim}")
    d0, d1 = (norm_dim(d, input._data.ndim, "rot90") for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip(d0, d1)
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with ``input``'s elements (flattened) on its ``offset``-th diagonal.

    Derivative: ``grad_input`` is the gradient's diagonal (through :func:`diag`).

    Args:
        input (Tensor): ``(*)``.
        offset (int): the diagonal (``> 0`` above the main one). Default: ``0``.
    Returns:
        Tensor: ``(n + |offset|, n + |offset|)`` with ``n = input.numel()``.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.diagflat(dyngrad.tensor([[1, 2]])).tolist()
        [[1, 0], [0, 2]]
    """
    from .linalg import diag

    return diag(input.reshape(-1), offset)


def ravel(input: Tensor) -> Tensor:
    """``input`` flattened to 1-d (a view when possible), as ``input.reshape(-1)``.

    Derivative: the gradient reshaped back.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``(input.numel(),)``.
    Raises:
        TypeError: ``input`` not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.ravel(dyngrad.tensor([[1, 2], [3, 4]])).tolist()
        [1, 2, 3, 4]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"ravel(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.reshape(-1)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Split ``input`` along ``dim`` into ``n`` nearly equal parts (the first ``size % n``
    one longer), or at the given indices, as ``numpy.array_split``.

    Derivative: each part is a slice (:func:`narrow`); the gradient is scattered back.

    Args:
        input (Tensor): ``(*)``, at least 1 dim.
        indices_or_sections (int or Sequence[int] or Tensor): the number of parts, or the
            split points (a 0-d integer tensor is a count, a 1-d one the points).
        dim (int): the dim to split. Default: ``0``.
    Returns:
        tuple[Tensor, ...]: views of ``input``.
    Raises:
        RuntimeError: ``sections <= 0``, a 0-d input, or a floating tensor of indices.

    Example:
        >>> import dyngrad
        >>> [t.tolist() for t in dyngrad.tensor_split(dyngrad.arange(7), 3)]
        [[0, 1, 2], [3, 4], [5, 6]]
    """
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = norm_dim(dim, input._data.ndim, "tensor_split")
    size = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if B.kind(ios._data) not in "iu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have a Long dtype, but got "
                               f"{ios.dtype}")
        ios = int(ios._data) if ios._data.ndim == 0 else [int(i) for i in ios._data.reshape(-1)]
    if isinstance(ios, (int, np.integer)):
        n = int(ios)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [i * q + min(i, r) for i in range(n + 1)]
    else:
        points = [min(max(int(i) + (size if int(i) < 0 else 0), 0), size) for i in ios]
        bounds = [0] + points + [size]
    return tuple(input.narrow(d, a, max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:]))


def _split_dir(input: Tensor, ios: Any, dim: int, op: str, min_dims: int) -> tuple:
    if input._data.ndim < min_dims:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{input._data.ndim} dimensions!")
    if isinstance(ios, (int, np.integer)):
        size = input._data.shape[dim]
        if ios == 0 or size % ios:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split horizontally: along dim 1 (dim 0 for a 1-d input) into equal parts or at indices.

    Derivative: each part is a slice; the gradient is scattered back.

    Args:
        input (Tensor): ``(*)``, at least 1 dim.
        indices_or_sections (int or Sequence[int]): a count that divides the size, or the
            split points.
    Returns:
        tuple[Tensor, ...]: views of ``input``.
    Raises:
        RuntimeError: a count that does not divide the size, or a 0-d input.

    Example:
        >>> import dyngrad
        >>> [t.shape for t in dyngrad.hsplit(dyngrad.zeros(2, 4), 2)]
        [dyngrad.Size([2, 2]), dyngrad.Size([2, 2])]
    """
    return _split_dir(input, indices_or_sections, 1 if input._data.ndim > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split vertically: along dim 0 into equal parts or at indices.

    Derivative: each part is a slice; the gradient is scattered back.

    Args:
        input (Tensor): ``(N, M, *)``, at least 2 dims.
        indices_or_sections (int or Sequence[int]): a count that divides the size, or the
            split points.
    Returns:
        tuple[Tensor, ...]: views of ``input``.
    Raises:
        RuntimeError: a count that does not divide the size, or fewer than 2 dims.

    Example:
        >>> import dyngrad
        >>> [t.shape for t in dyngrad.vsplit(dyngrad.zeros(4, 2), [1])]
        [dyngrad.Size([1, 2]), dyngrad.Size([3, 2])]
    """
    return _split_dir(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """Split depth-wise: along dim 2 into equal parts or at indices.

    Derivative: each part is a slice; the gradient is scattered back.

    Args:
        input (Tensor): ``(N, M, K, *)``, at least 3 dims.
        indices_or_sections (int or Sequence[int]): a count that divides the size, or the
            split points.
    Returns:
        tuple[Tensor, ...]: views of ``input``.
    Raises:
        RuntimeError: a count that does not divide the size, or fewer than 3 dims.

    Example:
        >>> import dyngrad
        >>> len(dyngrad.dsplit(dyngrad.zeros(1, 1, 6), 3))
        3
    """
    return _split_dir(input, indices_or_sections, 2, "dsplit", 3)


def column_stack(tensors: Any) -> Tensor:
    """Stack tensors as the columns of a matrix: 0-d and 1-d ones become ``(n, 1)`` columns,
    then everything is concatenated along dim 1.

    Derivative: through :func:`cat` (each input gets its slice of the gradient).

    Args:
        tensors (Sequence[Tensor]): with the same number of rows.
    Returns:
        Tensor: ``(n, sum of columns)``.
    Raises:
        RuntimeError: no tensors, or row counts that differ.

    Example:
        >>> import dyngrad
        >>> dyngrad.column_stack([dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4])]).tolist()
        [[1, 3], [2, 4]]
    """
    from .splitting import cat

    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    cols = [t.reshape(-1, 1) if t._data.ndim <= 1 else t for t in tensors]
    return cat(cols, 1)


def row_stack(tensors: Any) -> Tensor:
    """Alias of :func:`vstack`: stack tensors as rows (1-d ones become ``(1, n)``).

    Derivative: through :func:`cat`.

    Args:
        tensors (Sequence[Tensor]): ``(M_i, *)`` each (a 1-d ``(K,)`` counts as ``(1, K)``), with the same trailing shape.
    Returns:
        Tensor: ``(sum M_i, *)``, the rows stacked.
    Raises:
        RuntimeError: no tensors, or shapes that differ.

    Example:
        >>> import dyngrad
        >>> dyngrad.row_stack([dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4])]).tolist()
        [[1, 2], [3, 4]]
    """
    from .splitting import vstack

    return vstack(tensors)


def dstack(tensors: Any) -> Tensor:
    """Stack tensors depth-wise (along dim 2, after :func:`atleast_3d`).

    Derivative: through :func:`cat`.

    Args:
        tensors (Sequence[Tensor]): with the same first two dims once 3-d.
    Returns:
        Tensor: ``(*, *, sum of depths)``.
    Raises:
        RuntimeError: no tensors, or shapes that differ.

    Example:
        >>> import dyngrad
        >>> dyngrad.dstack([dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4])]).shape
        dyngrad.Size([1, 2, 2])
    """
    from .splitting import cat

    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    as3 = {0: lambda t: t.reshape(1, 1, 1), 1: lambda t: t.reshape(1, -1, 1), 2: lambda t: t.unsqueeze(2)}
    return cat([as3.get(t._data.ndim, lambda t: t)(t) for t in tensors], 2)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-d tensors (for real tensors, ``(input * other).sum()``).

    Derivative: ``grad_input = grad * other``, ``grad_other = grad * input``.

    Args:
        input (Tensor): ``(n,)``.
        other (Tensor): ``(n,)``, ``input``'s dtype.
    Returns:
        Tensor: 0-d.
    Raises:
        RuntimeError: not 1-d, sizes or dtypes that differ.

    Example:
        >>> import dyngrad
        >>> dyngrad.vdot(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([3.0, 4.0])).item()
        11.0
    """
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found {input.dtype} and "
                           f"{other.dtype}")
    if input._data.shape != other._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src "
                           f"[{other._data.shape[0]}] to have the same number of elements, but got "
                           f"{input._data.shape[0]} and {other._data.shape[0]} elements respectively")
    return (input * other).sum()


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` occurs in ``test_elements`` (``invert``: does
    not).

    Not differentiable (bool output).

    Args:
        elements (Tensor or number): ``(*)``.
        test_elements (Tensor or number): the values to look for.
        assume_unique (bool): both hold unique values (a speed hint). Default: ``False``.
        invert (bool): the opposite answer. Default: ``False``.
    Returns:
        Tensor: ``elements``' shape, bool.
    Raises:
        TypeError: neither argument a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.isin(dyngrad.tensor([1, 2, 3]), dyngrad.tensor([2, 5])).tolist()
        [False, True, False]
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments: at least one of elements and "
                        "test_elements must be a Tensor")
    e = B.asarray_any(elements._data if isinstance(elements, Tensor) else elements)
    t = B.asarray_any(test_elements._data if isinstance(test_elements, Tensor) else test_elements)
    return wrap(B.asarray_any(np.isin(e, t, assume_unique=assume_unique, invert=invert)))
