"""Matrix products and matrix structure ops: matmul/mm/bmm/mv/dot/outer, trace, diag,
diagonal, tril, triu. Batch dims broadcast; the engine sums broadcast batch gradients down.

einsum and tensordot live in :mod:`dyngrad.ops.contraction` (re-exported here); the
decompositions (inv, det, solve, cholesky, qr, eigh, svd) in :mod:`dyngrad.ops.decomp`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import dims_at, front, leading_batch, logical_ndim, only_first_batched, pad_to, shift_dim
from ._util import make_view, norm_dim, require_tensor, wrap

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "ger", "trace", "diag", "diagonal", "diag_embed", "tril", "triu"]
TENSOR_METHODS = set(__all__)


def _fmt(s: tuple) -> str:
    return "x".join(str(x) for x in s) or "scalar"


def _matmul_np(ad: np.ndarray, bd: np.ndarray) -> np.ndarray:
    """``np.matmul(ad, bd)``, with two layouts that NumPy's matmul runs without BLAS or as
    one small product per batch element handed to BLAS in the shape it is fastest in
    (both arise under vmap of grad, where unbatched weights are broadcast along the batch):

    * inner size 1, ``(*, n, 1) @ (*, 1, p)``: one product per output, so the broadcast
      multiply gives the same numbers (NumPy's matmul has no BLAS path for strided columns);
    * ``bd`` one matrix broadcast along its batch dims (all batch strides 0) and ``ad``
      holding the whole batch: one ``(prod(*) n, k) @ (k, p)`` product instead of a
      matrix-vector product per batch element (the same sums, possibly rounded differently).
    """
    if ad.ndim >= 2 and bd.ndim >= 2:
        if ad.shape[-1] == 1 and bd.shape[-2] == 1 and B.kind(ad) in "fiu" and B.kind(bd) in "fiu":
            return np.multiply(ad, bd)
        if bd.ndim > 2 and type(bd) is np.ndarray and not any(bd.strides[:-2]) and all(bd.shape[:-2]) and ad.ndim >= bd.ndim and ad.shape[-1] and \
                np.broadcast_shapes(ad.shape[:-2], bd.shape[:-2]) == ad.shape[:-2]:
            b2 = bd[(0,) * (bd.ndim - 2)]
            return np.matmul(ad.reshape(-1, ad.shape[-1]), b2).reshape(ad.shape[:-1] + b2.shape[-1:])
    return np.matmul(ad, bd)


class Matmul(Op):
    """``out = a @ b`` with PyTorch semantics: ``(*, n, m) @ (*, m, p) -> (*, n, p)`` with
    broadcast batch dims ``*``; a 1-D ``a`` is a row ``(1, m)``, a 1-D ``b`` a column
    ``(m, 1)``, and the added dim is removed from the result.

    ``grad_a = grad @ b^T``, ``grad_b = a^T @ grad`` (Giles 2008, "An extended collection
    of matrix derivative results for forward and reverse mode AD", sec. 3.2), with the 1-D
    promotions undone; broadcast batch dims are summed by the engine.
    """

    _node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ad, bd = a._data, b._data
        n = ctx.needs_input_grad
        ctx.save_for_backward(a if n[1] else None, b if n[0] else None)
        ctx.nd = (ad.ndim, bd.ndim)
        if type(ad) is np.ndarray or B.native(ad):
            return wrap(_matmul_np(ad, bd))
        return wrap(B.namespace(ad, bd).matmul(ad, bd))  # an Array API array (the standard's matmul)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        na, nb = ctx.nd
        n = ctx.needs_input_grad
        if na == 1 and nb == 1:
            return (g * b if n[0] else None), (g * a if n[1] else None)
        if na == 1:
            g = g.unsqueeze(-2)
        if nb == 1:
            g = g.unsqueeze(-1)
        ga = gb = None
        if n[0]:
            bm = b.unsqueeze(-1) if nb == 1 else b
            ga = matmul(g, bm.mT)
            if na == 1:
                ga = ga.squeeze(-2)
        if n[1]:
            am = a.unsqueeze(-2) if na == 1 else a
            gb = matmul(am.mT, g)
            if nb == 1:
                gb = gb.squeeze(-1)
        return ga, gb

    # hand-written: bilinear (product rule): neither linear nor elementwise
    @staticmethod
    def jvp(ctx: Any, ua: Any, ub: Any) -> Any:
        """Forward mode: ``t = ua @ b + a @ ub`` (product rule)."""
        a, b = ctx._fwd_inputs[:2]
        ta = None if ua is None else Matmul.apply(ua, b)
        tb = None if ub is None else Matmul.apply(a, ub)
        return tb if ta is None else (ta if tb is None else ta + tb)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, a: Tensor, b: Tensor) -> tuple:
        """Batching rule. Batched times an unbatched matrix or vector: the batch (and any
        other leading dims) folded into the rows of one 2-D product. Otherwise logical
        vectors become a row ``(1, m)`` / column ``(m, 1)``, batched operands get size-1
        dims after the batch dim up to the larger per-example rank (so the batch dim stays
        apart from matmul's own broadcast dims), one matmul, the vector dims squeezed."""
        da, db = in_dims
        la, lb = logical_ndim(a, da), logical_ndim(b, db)
        a, b, f = front(a, da), front(b, db), info.function
        if db is None and lb <= 2:
            a2 = a if a.ndim == 2 else a.reshape(-1, a.shape[-1])
            out = f.apply(a2, b)
            return (out if a.ndim == 2 else out.reshape(tuple(a.shape[:-1]) + tuple(b.shape[1:]))), 0
        if da is None and la == 2 and lb == 1:  # (n, m) @ (B, m)^T -> (n, B)
            return f.apply(a, b.mT), 1
        a = a.unsqueeze(-2) if la == 1 else a
        b = b.unsqueeze(-1) if lb == 1 else b
        r = max(la, lb, 2)
        out = f.apply(a if da is None else pad_to(a, r), b if db is None else pad_to(b, r))
        out = out.squeeze(-2) if la == 1 else out
        return (out.squeeze(-1) if lb == 1 else out), 0


class Mm(Matmul):
    """``(n, m) @ (m, p)`` (node ``MmBackward0``)."""



class Bmm(Matmul):
    """``(b, n, m) @ (b, m, p)`` (node ``BmmBackward0``)."""



class Mv(Matmul):
    """``(n, m) @ (m,)`` (node ``MvBackward0``)."""



class Dot(Matmul):
    """``(n,) . (n,)`` (node ``DotBackward0``): ``grad_a = grad * b``, ``grad_b = grad * a``."""



def _check_mm(op: str, a: Any, b: Any) -> None:
    require_tensor(op, a)
    require_tensor(op, b, "tensor" if op == "dot" else "mat2" if op in ("mm", "bmm") else "vec" if op == "mv" else "other", 2)
    if a._data.dtype != b._data.dtype and B.np_dtype_of(a._data) != B.np_dtype_of(b._data):
        raise RuntimeError(
            f"{op}: expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != {b.dtype.name}"
        )


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with broadcasting: ``(*, n, m) @ (*, m, p) -> (*, n, p)``; 1-D
    operands act as vectors (``(m,) @ (m,) -> ()``, ``(*, n, m) @ (m,) -> (*, n)``,
    ``(m,) @ (*, m, p) -> (*, p)``). Both operands must have the same dtype.

    Raises:
        RuntimeError: a 0-d operand, different dtypes, inner sizes that differ or batch
            dims that do not broadcast (both shapes named).

    Derivative (for 2-D operands; batched and vector cases follow by broadcasting):
    ``grad_input = grad_output @ other.T`` and ``grad_other = input.T @ grad_output``, the
    batch dims summed back to each operand's shape by the engine.

    Args:
        input (Tensor): ``(*, n, m)`` or ``(m,)``.
        other (Tensor): ``(*, m, p)`` or ``(m,)``, the same dtype.
    Returns:
        Tensor: ``(*, n, p)`` (the batch dims broadcast), fewer dims for vector operands.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.ones(2, 3, requires_grad=True)
        >>> b = dyngrad.arange(6.0).reshape(3, 2)
        >>> dyngrad.matmul(a, b)
        tensor([[6., 9.],
                [6., 9.]], grad_fn=<MmBackward0>)
        >>> dyngrad.matmul(a, b).sum().backward()
        >>> a.grad                                   # grad_output @ b.T
        tensor([[1., 5., 9.],
                [1., 5., 9.]])
    """
    _check_mm("matmul", input, other)
    sa, sb = input._data.shape, other._data.shape
    if not sa or not sb:
        raise RuntimeError(
            f"matmul: both arguments to matmul need to be at least 1D, but they are {len(sa)}D and {len(sb)}D"
        )
    k_a = sa[-1]
    k_b = sb[0] if len(sb) == 1 else sb[-2]
    if k_a != k_b:
        if len(sa) <= 2 and len(sb) <= 2 and (len(sa) == 2 or len(sb) == 2):
            ra = sa if len(sa) == 2 else (1,) + sa
            raise RuntimeError(f"matmul: mat1 and mat2 shapes cannot be multiplied ({_fmt(ra)} and {_fmt(sb)})")
        raise RuntimeError(
            f"matmul: inner dimensions differ: input {_fmt(sa)} has {k_a} columns but other {_fmt(sb)} "
            f"has {k_b} rows"
        )
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise RuntimeError(
            f"matmul: batch dimensions of shapes {_fmt(sa)} and {_fmt(sb)} are not broadcastable "
            f"({list(sa[:-2])} vs {list(sb[:-2])})"
        ) from None
    na, nb = len(sa), len(sb)
    if na == 1 and nb == 1:
        cls = Dot
    elif na == 2 and nb == 1:
        cls = Mv
    elif na == 2 and nb == 2:
        cls = Mm
    elif na == 3 and nb == 3 and sa[0] == sb[0]:
        cls = Bmm
    else:
        cls = Matmul
    return cls.apply(input, other)


def _need(op: str, t: Tensor, nd: int, name: str) -> None:
    if t._data.ndim != nd:
        raise RuntimeError(f"{op}: {name} must be a {nd}D tensor, got {t._data.ndim}D (shape {_fmt(t._data.shape)})")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """Matrix product ``(n, m) @ (m, p) -> (n, p)``; both must be 2-D (no broadcasting).

    Derivative: ``grad_input = grad_output @ mat2.T``, ``grad_mat2 = input.T @ grad_output``
    (derivatives.yaml ``mm``).

    Args:
        input (Tensor): ``(n, m)``.
        mat2 (Tensor): ``(m, p)``, ``input``'s dtype.
    Returns:
        Tensor: ``(n, p)``, ``input``'s dtype.
    Raises:
        RuntimeError: an operand that is not 2-D, inner sizes that differ (shapes named), or
            different dtypes.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> b = dyngrad.tensor([[1.0, 0.0], [1.0, 1.0]], requires_grad=True)
        >>> y = dyngrad.mm(a, b)
        >>> y.detach()
        tensor([[3., 2.],
                [7., 4.]])
        >>> y.sum().backward()
        >>> a.grad
        tensor([[1., 2.],
                [1., 2.]])
    """
    _check_mm("mm", input, mat2)
    _need("mm", input, 2, "self")
    _need("mm", mat2, 2, "mat2")
    return matmul(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product: ``out[b] = input[b] @ mat2[b]``, no broadcasting.

    Derivative: ``grad_input = grad_output @ mat2^T``, ``grad_mat2 = input^T @ grad_output``
    (per batch; source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor): ``(B, n, m)``.
        mat2 (Tensor): ``(B, m, p)``, ``input``'s dtype.
    Returns:
        Tensor: ``(B, n, p)``, ``input``'s dtype.
    Raises:
        RuntimeError: when an operand is not 3-d, the batch or inner sizes differ, or the dtypes
            differ (the shapes are named).

    Example:
        >>> import dyngrad
        >>> a = dyngrad.ones(1, 2, 2, requires_grad=True)
        >>> b = dyngrad.tensor([[[1.0, 2.0], [3.0, 4.0]]])
        >>> dyngrad.bmm(a, b)
        tensor([[[4., 6.],
                 [4., 6.]]], grad_fn=<BmmBackward0>)
        >>> dyngrad.bmm(a, b).sum().backward()
        >>> a.grad
        tensor([[[3., 7.],
                 [3., 7.]]])
    """
    _check_mm("bmm", input, mat2)
    _need("bmm", input, 3, "batch1")
    _need("bmm", mat2, 3, "batch2")
    sa, sb = input._data.shape, mat2._data.shape
    if sa[0] != sb[0] or sa[2] != sb[1]:
        raise RuntimeError(
            f"bmm: Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
            f"but got: [{sb[0]}, {sb[1]}] (shapes {_fmt(sa)} and {_fmt(sb)})"
        )
    return Bmm.apply(input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix-vector product ``(n, m) @ (m,) -> (n,)``.

    Derivative: ``grad_input = outer(grad_output, vec)``, ``grad_vec = input.T @
    grad_output`` (derivatives.yaml ``mv``).

    Args:
        input (Tensor): ``(n, m)``.
        vec (Tensor): ``(m)``, ``input``'s dtype.
    Returns:
        Tensor: ``(n)``, ``input``'s dtype.
    Raises:
        RuntimeError: wrong ranks or sizes (shapes named), or different dtypes.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> v = dyngrad.tensor([1.0, -1.0], requires_grad=True)
        >>> y = dyngrad.mv(a, v)
        >>> y.detach()
        tensor([-1., -1.])
        >>> y.sum().backward()
        >>> v.grad
        tensor([4., 6.])
    """
    _check_mm("mv", input, vec)
    _need("mv", input, 2, "self")
    _need("mv", vec, 1, "vec")
    return matmul(input, vec)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product ``sum(input * tensor)`` of two 1-d tensors (no broadcasting).

    Derivative: ``grad_input = grad_output * tensor``, ``grad_tensor = grad_output * input``
    (source: PyTorch's derivatives.yaml).

    Args:
        input (Tensor): ``(n,)``.
        tensor (Tensor): ``(n,)``, ``input``'s dtype.
    Returns:
        Tensor: ``()``, ``input``'s dtype.
    Raises:
        RuntimeError: when an operand is not 1-d, the sizes differ, or the dtypes differ.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> dyngrad.dot(x, dyngrad.tensor([3.0, 4.0]))
        tensor(11., grad_fn=<DotBackward0>)
        >>> dyngrad.dot(x, dyngrad.tensor([3.0, 4.0])).backward()
        >>> x.grad
        tensor([3., 4.])
    """
    _check_mm("dot", input, tensor)
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src [{tensor._data.shape[0]}] to have the same number of "
            f"elements, but got {input._data.shape[0]} and {tensor._data.shape[0]} elements respectively"
        )
    return Dot.apply(input, tensor)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Inner product over the last dims: ``(*a, k), (*b, k) -> (*a, *b)`` (0-d: product).

    Derivative: that of ``tensordot(input, other, dims=([-1], [-1]))`` (each gradient is
    ``grad_output`` contracted with the other operand over its remaining dims).

    Args:
        input (Tensor): ``(*a, k)``, or 0-d.
        other (Tensor): ``(*b, k)``, or 0-d.
    Returns:
        Tensor: ``(*a, *b)`` (``input * other`` when either is 0-d).
    Raises:
        RuntimeError: when the last dims differ in size.

    Example:
        >>> import dyngrad
        >>> dyngrad.inner(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([3.0, 4.0]))
        tensor(11.)
        >>> dyngrad.inner(dyngrad.ones(2, 3), dyngrad.ones(4, 3)).shape
        dyngrad.Size([2, 4])
    """
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    from .contraction import tensordot

    return tensordot(input, other, dims=([-1], [-1]))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product ``(n,), (m,) -> (n, m)``, ``out_ij = a_i b_j`` (``a.unsqueeze(1) * b``,
    as PyTorch). ``dyngrad.ger`` is this function.

    Derivative: ``grad_input = grad_output @ vec2``, ``grad_vec2 = grad_output.T @ input``
    (the product rule on ``input.unsqueeze(1) * vec2``).

    Args:
        input (Tensor): ``(n)``.
        vec2 (Tensor): ``(m)``; promoted with ``input``.
    Returns:
        Tensor: ``(n, m)``, the promoted dtype.
    Raises:
        RuntimeError: a non-1-D operand.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> b = dyngrad.tensor([3.0, 4.0, 5.0], requires_grad=True)
        >>> y = dyngrad.outer(a, b)
        >>> y.detach()
        tensor([[ 3.,  4.,  5.],
                [ 6.,  8., 10.]])
        >>> y.sum().backward()
        >>> a.grad, b.grad
        (tensor([12., 12.]), tensor([3., 3., 3.]))
    """
    require_tensor("outer", input)
    require_tensor("outer", vec2, "vec2", 2)
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: expected 1D tensors, but got {input._data.ndim}D and {vec2._data.ndim}D")
    return input.unsqueeze(1) * vec2


ger = outer


class Trace(Linear):
    """``out = sum_i x_ii`` for ``x: (n, m)``; ``grad_x = grad * eye(n, m)``. Leading dims
    ``(*, n, m) -> (*)`` are batch dims (used by the batching rule only)."""

    vmap = leading_batch  # batching rule: the batch dim is one more leading dim

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.shape = x._data.shape
        d = x._data
        if B.native(d):
            return wrap(np.trace(d, axis1=-2, axis2=-1))
        xp = B.namespace(d)  # NumPy's trace sums bool and small ints in int64, as here
        return wrap(xp.linalg.trace(d, dtype=xp.int64 if B.kind(d) in "biu" else None))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        eye = wrap(B.eye(*ctx.shape[-2:], dtype=B.np_dtype_of(g._data), like=g._data))
        return g * eye if g.ndim == 0 else g.reshape(tuple(g.shape) + (1, 1)) * eye


def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-D ``input`` (also of a non-square one).

    Derivative: ``grad_input = grad_output * eye(n, m)`` (derivatives.yaml ``trace_backward``).

    Args:
        input (Tensor): ``(n, m)``.
    Returns:
        Tensor: ``()``, ``input``'s dtype (PyTorch refuses bool; dyngrad counts it in int64).
    Raises:
        RuntimeError: if not 2-D.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = dyngrad.trace(x)
        >>> y.backward()
        >>> y.detach(), x.grad
        (tensor(5.), tensor([[1., 0.],
                [0., 1.]]))
    """
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return Trace.apply(input)


class Diagonal(Linear):
    """``out = diagonal(x, offset, dim1, dim2)``: a view, the two dims removed and the
    diagonal appended last; ``grad_x = diag_embed(grad, offset, dim1, dim2)`` into zeros
    of ``x``'s shape."""

    vmap = dims_at(2, 3)  # batching rule: batch dim to the front, dim1/dim2 shifted

    @staticmethod
    def forward(ctx: Any, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (x._data.shape, offset, dim1, dim2)
        d = B.diagonal(x._data, offset, dim1, dim2)
        if isinstance(d, np.ndarray) and B.writeable(x._data):  # NumPy marks it read-only; PyTorch's diagonal is a
            d.flags.writeable = True  # writable view (o.diagonal().add_(1) changes o)
        return make_view(wrap(d), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return DiagonalScatter.apply(g, *ctx.args), None, None, None


class _DiagonalCopy(Diagonal):
    """``diag`` of a matrix: :class:`Diagonal`'s values as a new tensor, not a view (PyTorch's
    ``diag`` copies; its node is ``DiagonalBackward0_copy``)."""

    _node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx: Any, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (x._data.shape, offset, dim1, dim2)
        return wrap(B.copy(B.diagonal(x._data, offset, dim1, dim2)))


class DiagonalScatter(Linear):
    """Zeros of ``shape`` with ``g`` written on the ``(offset, dim1, dim2)`` diagonal (the
    adjoint of :class:`Diagonal`); ``grad_g = diagonal(grad, offset, dim1, dim2)``."""

    _node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple, offset: int, dim1: int, dim2: int) -> Tensor:
        ctx.args = (offset, dim1, dim2)
        gd = g._data
        if not B.native(gd):
            return wrap(_diagonal_scatter_xp(gd, shape, offset, dim1, dim2))
        z = np.zeros(shape, dtype=gd.dtype)
        zm = np.moveaxis(z, (dim1, dim2), (-2, -1))
        k = gd.shape[-1] if gd.ndim else 0
        r = np.arange(k) + max(-offset, 0)
        zm[..., r, r + offset] = gd
        return wrap(z)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return Diagonal.apply(gg, *ctx.args), None, None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, g: Tensor, shape: tuple, offset: int, dim1: int, dim2: int) -> Any:
        """Batching rule: batch dim to the front, ``shape`` gets it too, dims shifted."""
        if not only_first_batched(in_dims):
            return NotImplemented
        shape = (info.batch_size,) + tuple(shape)
        return info.function.apply(front(g, in_dims[0]), shape, offset, shift_dim(dim1), shift_dim(dim2)), 0


def _diagonal_scatter_xp(gd: Any, shape: tuple, offset: int, dim1: int, dim2: int) -> Any:
    """:class:`DiagonalScatter`'s forward with the standard's functions only (no index
    assignment): the diagonal values padded to a column of row values, then selected by
    ``where`` on the ``offset`` diagonal of an identity mask (exact: no product with 0, so
    an inf or NaN stays on the diagonal)."""
    xp = B.namespace(gd)
    n, m = shape[dim1], shape[dim2]
    k = gd.shape[-1] if gd.ndim else 0
    r0 = max(-offset, 0)
    lead = tuple(gd.shape[:-1])
    parts = [xp.zeros(lead + (r0,), dtype=gd.dtype), gd, xp.zeros(lead + (n - r0 - k,), dtype=gd.dtype)]
    rows = xp.concat(parts, axis=-1)  # rows[..., i] = the value on row i's diagonal entry
    mask = xp.eye(n, m, k=offset, dtype=xp.bool)
    zm = xp.where(mask, rows[..., :, None], xp.zeros((), dtype=gd.dtype))
    return xp.moveaxis(zm, (-2, -1), (dim1, dim2))


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset`` diagonal of ``input`` over dims ``dim1`` and ``dim2``, as a view.

    Those two dims are removed and a last dim holding the diagonal is appended; ``offset > 0``
    is above the main diagonal, ``< 0`` below (an offset beyond the matrix gives length 0).

    Derivative: ``grad_input`` is ``grad_output`` placed on that diagonal, zeros elsewhere
    (``diagonal_backward`` in PyTorch's derivatives.yaml).

    Args:
        input (Tensor): ``(*)``, at least 2-d.
        offset (int, optional): which diagonal. Default: ``0``.
        dim1 (int, optional): the first dim. Default: ``0``.
        dim2 (int, optional): the second dim. Default: ``1``.
    Returns:
        Tensor: ``input``'s shape without ``dim1`` and ``dim2``, plus the diagonal's length last.
    Raises:
        RuntimeError: when ``dim1 == dim2``.
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(9.0).reshape(3, 3).requires_grad_()
        >>> dyngrad.diagonal(x, 1)
        tensor([1., 5.], grad_fn=<DiagonalBackward0>)
        >>> dyngrad.diagonal(x).sum().backward()
        >>> x.grad
        tensor([[1., 0., 0.],
                [0., 1., 0.],
                [0., 0., 1.]])
    """
    nd = input._data.ndim
    d1, d2 = norm_dim(dim1, nd, "diagonal"), norm_dim(dim2, nd, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, int(offset), d1, d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Tensors whose ``offset`` diagonals (over dims ``dim1``, ``dim2``) hold the last dim of ``input``.

    The inverse of ``diagonal``: ``diagonal(diag_embed(x, o, d1, d2), o, d1, d2) == x``; the
    other entries are zero.

    Derivative: ``grad_input = diagonal(grad_output, offset, dim1, dim2)``.

    Args:
        input (Tensor): ``(*, n)``, at least 1-d.
        offset (int, optional): which diagonal (``> 0`` above the main one). Default: ``0``.
        dim1 (int, optional): the first dim of the new matrices, in the output's dims.
            Default: ``-2``.
        dim2 (int, optional): the second dim. Default: ``-1``.
    Returns:
        Tensor: ``input.ndim + 1`` dims: ``(*)`` with two dims of size ``n + |offset|`` at
        ``dim1`` and ``dim2``.
    Raises:
        RuntimeError: when ``dim1 == dim2``.
        IndexError: when a dim is out of range (also for a 0-d input with the default dims).

    Example:
        >>> import dyngrad
        >>> dyngrad.diag_embed(dyngrad.tensor([[1, 2], [3, 4]]))
        tensor([[[1, 0],
                 [0, 2]],
        <BLANKLINE>
                [[3, 0],
                 [0, 4]]])
        >>> dyngrad.diag_embed(dyngrad.tensor([1, 2]), offset=1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
    """
    shape = input._data.shape
    nd = len(shape) + 1
    d1, d2 = norm_dim(dim1, nd, "diag_embed"), norm_dim(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (shape[-1] if shape else 1) + abs(offset)
    rest = list(shape[:-1])
    out = []
    for i in range(nd):
        out.append(n if i in (d1, d2) else rest.pop(0))
    return _DiagEmbed.apply(input if shape else input.reshape(1), tuple(out), int(offset), d1, d2)


class _DiagEmbed(DiagonalScatter):
    """``diag_embed``/``diag`` of a vector (node ``DiagEmbedBackward0``)."""

    _node_name = "DiagEmbedBackward0"


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-d ``input`` as the ``diagonal``-th diagonal of a square matrix; a 2-d ``input``'s diagonal.

    ``diagonal = 0`` is the main diagonal, ``> 0`` above it, ``< 0`` below. For a 2-d input
    the result is a new tensor (``diagonal`` gives a view); an offset beyond the matrix gives
    ``(0,)``.

    Derivative: for a 1-d input, ``grad_input = diagonal(grad_output, diagonal)``; for a 2-d
    input, ``grad_input`` is ``grad_output`` placed on that diagonal, zeros elsewhere.

    Args:
        input (Tensor): ``(n,)`` or ``(m, n)``.
        diagonal (int, optional): which diagonal. Default: ``0``.
    Returns:
        Tensor: ``(n + |diagonal|, n + |diagonal|)`` for a 1-d input; the diagonal ``(k,)`` for a
        2-d input.
    Raises:
        RuntimeError: when ``input`` is not 1-d or 2-d.

    Example:
        >>> import dyngrad
        >>> dyngrad.diag(dyngrad.tensor([1, 2]), 1)
        tensor([[0, 1, 0],
                [0, 0, 2],
                [0, 0, 0]])
        >>> dyngrad.diag(dyngrad.tensor([[1, 2], [3, 4]]))
        tensor([1, 4])
    """
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal, 0, 1)
    if nd == 2:
        return _DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


class Tril(Linear):
    """``out = tril(x, k)`` on the last two dims; ``grad_x = tril(grad, k)``."""

    _fn = staticmethod(np.tril)
    vmap = leading_batch  # batching rule: works on the last two dims, the batch dim leads

    @staticmethod
    def forward(ctx: Any, x: Tensor, k: int) -> Tensor:
        ctx.k = k
        fn = type(ctx)._forward_cls._fn
        if B.native(x._data):
            return wrap(fn(x._data, k))
        return wrap(getattr(B.namespace(x._data), fn.__name__)(x._data, k=k))  # the standard's tril/triu

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return type(ctx)._forward_cls.apply(g, ctx.k), None


class Triu(Tril):
    """``out = triu(x, k)``; ``grad_x = triu(grad, k)``."""

    _fn = staticmethod(np.triu)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """Lower triangle (on and below diagonal ``diagonal``) of the last two dims ``(*, m, n)``;
    the rest is zeroed.

    Derivative: ``grad_input = grad_output.tril(diagonal)`` (derivatives.yaml ``tril``).

    Args:
        input (Tensor): ``(*, m, n)``.
        diagonal (int): which diagonal bounds the triangle: 0 the main one, positive above
            it, negative below. Default: ``0``.
    Returns:
        Tensor: ``(*, m, n)``, ``input``'s dtype.
    Raises:
        RuntimeError: for inputs with fewer than 2 dims.

    Example:
        >>> import dyngrad
        >>> dyngrad.tril(dyngrad.ones(3, 3), -1)
        tensor([[0., 0., 0.],
                [1., 0., 0.],
                [1., 1., 0.]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return Tril.apply(input, int(diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """Upper triangle (on and above diagonal ``diagonal``) of the last two dims ``(*, m, n)``;
    the rest is zeroed.

    Derivative: ``grad_input = grad_output.triu(diagonal)`` (derivatives.yaml ``triu``).

    Args:
        input (Tensor): ``(*, m, n)``.
        diagonal (int): which diagonal bounds the triangle: 0 the main one, positive above
            it, negative below. Default: ``0``.
    Returns:
        Tensor: ``(*, m, n)``, ``input``'s dtype.
    Raises:
        RuntimeError: for inputs with fewer than 2 dims.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        >>> y = dyngrad.triu(x, 1)
        >>> y.detach()
        tensor([[0., 2., 3.],
                [0., 0., 6.]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[0., 1., 1.],
                [0., 0., 1.]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return Triu.apply(input, int(diagonal))
