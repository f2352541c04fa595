"""Rearranging copies: ``repeat``, ``tile``, ``flip``, ``roll`` and ``pad``
(``nn.functional.pad``). Each output element is a copy of one input element, so each
backward sums the gradient back onto the elements it came from.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import dims_at, front, leading_batch, only_first_batched, pad_to
from ._util import norm_dim, norm_dims, shape_arg, wrap

__all__ = ["repeat", "tile", "flip", "fliplr", "flipud", "roll", "pad"]
TENSOR_METHODS = {"repeat", "tile", "flip", "fliplr", "flipud", "roll"}


class Repeat(Linear):
    """``out = tile(x, repeats)``; ``x: (*s)`` (left-padded with 1s to ``len(repeats)``),
    ``out: (r0*s0, r1*s1, ...)``. ``grad_x = grad.reshape(r0, s0, r1, s1, ...)`` summed
    over the ``r`` axes."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, repeats: tuple) -> Tensor:
        lead = (1,) * (len(repeats) - x._data.ndim) + x._data.shape
        ctx.in_shape, ctx.lead, ctx.repeats = x._data.shape, lead, repeats
        d = x._data
        if type(d) is np.ndarray:
            return wrap(np.tile(d.reshape(lead), repeats))
        return wrap(B.namespace(d).tile(B.reshape(d, lead), tuple(repeats)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        inter: list = []
        for r, s in zip(ctx.repeats, ctx.lead):
            inter += [r, s]
        axes = tuple(range(0, 2 * len(ctx.repeats), 2))
        gx = g.reshape(tuple(inter))
        if axes:
            gx = gx.sum(dim=axes)
        return gx.reshape(ctx.in_shape), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, repeats: tuple) -> Any:
        """Batching rule: batch dim to the front, size-1 dims after it up to
        ``len(repeats)`` logical dims (repeat pads on the left), the batch repeated once."""
        x = pad_to(front(x, in_dims[0]), len(repeats))
        return info.function.apply(x, (1,) + tuple(repeats)), 0


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """Repeat ``input`` ``sizes[i]`` times along dim ``i`` (a copy, as ``numpy.tile``).

    ``Tensor.repeat`` in PyTorch; dyngrad also has the function. Extra leading sizes add
    leading dims.

    Derivative: ``grad_input`` is the sum of ``grad_output``'s tiles (each copy's gradient
    added back; derivatives.yaml ``repeat_backward``).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        *sizes (int or sequence of int): at least ``n`` repeat counts, ``>= 0``.
    Returns:
        Tensor: ``(s_0 * d_0, s_1 * d_1, ...)`` with ``input``'s shape left-padded with 1s.
    Raises:
        RuntimeError: fewer sizes than dims, or a negative size.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = dyngrad.repeat(x, 2, 2)
        >>> y.detach()
        tensor([[1., 2., 1., 2.],
                [1., 2., 1., 2.]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([4., 4.])
    """
    reps = shape_arg(sizes)
    if len(reps) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat(): Trying to create tensor with negative dimension: {list(reps)}")
    return Repeat.apply(input, reps)


def tile(input: Tensor, dims: Any) -> Tensor:
    """Like :func:`repeat`, but ``dims`` shorter than ``input.ndim`` is left-padded with 1s.

    Derivative: as :func:`repeat`'s (the tiles' gradients summed).

    Args:
        input (Tensor): ``(*)``.
        dims (int or sequence of int): repeat counts for the last dims, ``>= 0``. (PyTorch
            wants a tuple; dyngrad also takes one int.)
    Returns:
        Tensor: each dim ``i`` of ``input`` (left-padded with 1s) times ``dims[i]``.
    Raises:
        RuntimeError: a negative count.

    Example:
        >>> import dyngrad
        >>> dyngrad.tile(dyngrad.tensor([[1, 2]]), (2,))
        tensor([[1, 2, 1, 2]])
        >>> dyngrad.tile(dyngrad.tensor([1, 2]), (2, 1)).shape
        dyngrad.Size([2, 2])
    """
    reps = shape_arg((dims,) if isinstance(dims, int) else tuple(dims))
    reps = (1,) * (input._data.ndim - len(reps)) + reps
    return repeat(input, reps)


class Flip(Linear):
    """``out = x`` reversed along ``dims`` (a copy); ``grad_x = flip(grad, dims)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple) -> Tensor:
        ctx.dims = dims
        d = x._data
        if type(d) is np.ndarray:
            return wrap(np.flip(d, dims).copy() if dims else d.copy())
        return wrap(B.namespace(d).flip(d, axis=dims) if dims else B.copy(d))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return Flip.apply(g, ctx.dims), None

    vmap = dims_at(1)  # batching rule: batch dim to the front, dims shifted


def flip(input: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """``input`` with the order of its elements reversed along ``dims`` (a copy, as PyTorch).

    ``dims`` may be given as separate ints, one sequence, or ``dims=`` (PyTorch's function
    takes only a sequence; ``Tensor.flip`` also separate ints). No dims gives a copy (PyTorch
    raises).

    Derivative: ``grad_input = flip(grad_output, dims)``.

    Args:
        input (Tensor): ``(*)``.
        *dims (int or sequence of ints): the dims to reverse.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype.
    Raises:
        IndexError: when a dim is out of range.
        RuntimeError: when a dim is given twice.
        TypeError: when ``dims`` is given both ways, or another keyword is passed.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(4).reshape(2, 2)
        >>> dyngrad.flip(x, [0, 1])
        tensor([[3, 2],
                [1, 0]])
        >>> dyngrad.flip(x, dims=(1,))
        tensor([[1, 0],
                [3, 2]])
    """
    if kwargs:
        if set(kwargs) != {"dims"} or dims:
            raise TypeError(f"flip() received an invalid combination of arguments: {sorted(kwargs)}")
        dims = (kwargs["dims"],)
    ds = shape_arg(dims)
    ds = norm_dims(ds, input._data.ndim, "flip") or ()
    return Flip.apply(input, ds if input._data.ndim else ())


def fliplr(input: Tensor) -> Tensor:
    """``input`` with its columns (dim 1) reversed: ``flip(input, [1])`` (a copy).

    Derivative: ``grad_input = fliplr(grad_output)``.

    Args:
        input (Tensor): ``(m, n, *)``, at least 2-d.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: when ``input`` has fewer than 2 dims.

    Example:
        >>> import dyngrad
        >>> dyngrad.fliplr(dyngrad.arange(4).reshape(2, 2))
        tensor([[1, 0],
                [3, 2]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """``input`` with its rows (dim 0) reversed: ``flip(input, [0])`` (a copy).

    Derivative: ``grad_input = flipud(grad_output)``.

    Args:
        input (Tensor): ``(m, *)``, at least 1-d.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: when ``input`` is 0-d.

    Example:
        >>> import dyngrad
        >>> dyngrad.flipud(dyngrad.arange(4).reshape(2, 2))
        tensor([[2, 3],
                [0, 1]])
    """
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Linear):
    """``out = numpy.roll(x, shifts, dims)``; ``grad_x = roll(grad, -shifts, dims)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, shifts: tuple, dims: tuple) -> Tensor:
        ctx.shifts, ctx.dims = shifts, dims
        d = x._data
        if type(d) is not np.ndarray and not B.is_dask(d) and not B.is_cupy(d):
            xp = B.namespace(d)
            if not dims:
                return wrap(xp.reshape(xp.roll(xp.reshape(d, (-1,)), shift=shifts[0]), d.shape))
            return wrap(xp.roll(d, shift=shifts, axis=dims))
        if not dims:
            return wrap(np.roll(d.reshape(-1), shifts[0]).reshape(d.shape))
        return wrap(np.roll(d, shifts, dims))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return Roll.apply(g, tuple(-s for s in ctx.shifts), ctx.dims), None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, shifts: tuple, dims: tuple) -> Any:
        """Batching rule: batch dim to the front, dims shifted; the flattened roll
        (``dims == ()``) rolls each example's flattened values along dim 1."""
        x = front(x, in_dims[0])
        if dims:
            return info.function.apply(x, shifts, tuple(d + 1 for d in dims)), 0
        shape = tuple(x.shape)
        flat = x.reshape(shape[0], -1)
        return info.function.apply(flat, shifts, (1,)).reshape(shape), 0


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Shift elements cyclically by ``shifts`` along ``dims`` (flattened when ``dims`` is None).

    Derivative: ``grad_input = roll(grad_output, -shifts, dims)`` (derivatives.yaml ``roll``).

    Args:
        input (Tensor): ``(*)``.
        shifts (int or sequence of int): how far to shift each dim (negative: backwards).
        dims (int or sequence of int, optional): the dims, as many as ``shifts``. Default:
            ``None`` (the flattened tensor, reshaped back).
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: ``shifts`` and ``dims`` of different lengths.
        IndexError: bad dim.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 2], [3, 4]])
        >>> dyngrad.roll(x, 1)
        tensor([[4, 1],
                [2, 3]])
        >>> dyngrad.roll(x, (1, 1), (0, 1))
        tensor([[4, 3],
                [2, 1]])
    """
    sh = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return Roll.apply(input, sh, ())
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if input._data.ndim == 0:
        raise IndexError(f"roll(): Dimension specified as {ds[0]} but tensor has no dimensions")
    ds = tuple(norm_dim(d, input._data.ndim, "roll") for d in ds)
    return Roll.apply(input, sh, ds)


class ConstantPad(Op):
    """``out = x`` padded with ``value`` (negative widths crop). ``pad = (left_last,
    right_last, left_2nd_last, ...)``. ``grad_x = pad(grad, -widths)`` (the crop of the
    padded gradient; cropping's adjoint is zero-padding)."""

    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, widths: tuple, value: Any) -> Tensor:
        ctx.widths = widths
        d = x._data
        nd = d.ndim
        crop = [slice(None)] * nd
        pw = [(0, 0)] * nd
        for k in range(len(widths) // 2):
            ax = nd - 1 - k
            lo, hi = widths[2 * k], widths[2 * k + 1]
            crop[ax] = slice(max(-lo, 0), d.shape[ax] - max(-hi, 0))
            pw[ax] = (max(lo, 0), max(hi, 0))
        if type(d) is not np.ndarray and not B.is_dask(d) and not B.is_cupy(d):
            return wrap(_constant_pad_xp(d[tuple(crop)], pw, value))
        if not any(lo or hi for lo, hi in pw):
            return wrap(d[tuple(crop)].copy())
        return wrap(np.pad(d[tuple(crop)], pw, mode="constant", constant_values=value))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return ConstantPad.apply(g, tuple(-w for w in ctx.widths), 0), None, None

    # hand-written: affine (the pad value is a constant), so not Linear
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = pad(u, widths, 0)`` (the pad value is a constant)."""
        return ConstantPad.apply(u, ctx.widths, 0)

    # batching rule: only the last len(widths) // 2 dims are padded, which the batch dim
    # (moved to the front) never is (the wrapper checks the logical rank)
    vmap = leading_batch


def _constant_pad_xp(d: Any, pw: list, value: Any) -> Any:
    """``numpy.pad(d, pw, constant_values=value)`` with the standard's functions (an Array
    API array: ``full`` of the padded shape, the input written into its middle)."""
    xp = B.namespace(d)
    if not any(lo or hi for lo, hi in pw):
        return B.copy(d)
    nd = B.np_dtype_of(d)
    fill = np.asarray(0 if value is None else value).astype(nd).item()  # numpy.pad's cast of the value
    out = xp.full(tuple(s + lo + hi for s, (lo, hi) in zip(d.shape, pw)), fill, dtype=d.dtype)
    out[tuple(slice(lo, lo + s) for s, (lo, _) in zip(d.shape, pw))] = d
    return out


_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


class IndexPad(Linear):
    """Reflect / replicate / circular padding: ``out = x[..., i_1, ..., i_k]`` for index
    maps ``i_j = numpy.pad(arange(n_j), widths_j, mode)``; ``grad_x`` adds ``grad`` back at
    those indices (border elements collect the gradient of all their copies)."""

    _node_name = "PadBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, idx: tuple) -> Tensor:
        ctx.idx, ctx.shape = idx, x._data.shape
        d = x._data
        if type(d) is not np.ndarray and not B.native(d):
            return wrap(_take_axes_xp(d, idx))
        return wrap(d[idx] if type(d) is np.ndarray else B.take(d, idx))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from .indexing import IndexPutAdd

        if not B.native(g._data):  # an Array API array: no scatter-add; the exact per-axis adjoint
            return IndexPadAdjoint.apply(g, ctx.shape, ctx.idx), None
        return IndexPutAdd.apply(g, ctx.shape, ctx.idx, False), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, idx: tuple) -> Any:
        """Batching rule: batch dim to the front, a full slice prepended to the index
        (its arrays index the last dims and stay contiguous, so the batch dim stays first)."""
        if not only_first_batched(in_dims):
            return NotImplemented
        return info.function.apply(front(x, in_dims[0]), (slice(None),) + tuple(idx)), 0


def _take_axes_xp(d: Any, idx: tuple) -> Any:
    """``d[idx]`` for :class:`IndexPad`'s index (full slices, then one index array per
    padded axis, shaped to broadcast as an outer product) with the standard's ``take``, one
    axis at a time (an Array API array takes one index array per indexing)."""
    xp = B.namespace(d)
    for ax, it in enumerate(idx):
        if isinstance(it, np.ndarray):
            d = xp.take(d, xp.asarray(it.reshape(-1).astype(np.int64)), axis=ax)
    return d


def _pad_adjoint_xp(g: Any, shape: tuple, idx: tuple) -> Any:
    """The adjoint of :func:`_take_axes_xp`: along each indexed axis, ``out[j] = sum of
    g[p] over the p with m[p] == j``, as gathers: the k-th copy of each source index (in
    index order, as ``np.add.at`` adds them) is one ``take`` of ``g`` with a host-computed
    inverse map, kept by ``where`` (exact: no multiplication by a 0/1 mask, so an inf or nan
    gradient stays where it belongs) and summed over k."""
    xp = B.namespace(g)
    for ax, it in enumerate(idx):
        if not isinstance(it, np.ndarray):
            continue
        m = it.reshape(-1).astype(np.int64)
        n = shape[ax]
        seen = np.zeros(n, dtype=np.int64)
        rank = np.empty(m.shape[0], dtype=np.int64)
        for p, j in enumerate(m):  # the k-th occurrence of each target (a host index map)
            rank[p] = seen[j]
            seen[j] += 1
        acc = None
        for k in range(int(rank.max()) + 1 if m.size else 0):
            sel = np.nonzero(rank == k)[0]
            src = np.zeros(n, dtype=np.int64)
            has = np.zeros(n, dtype=bool)
            src[m[sel]] = sel
            has[m[sel]] = True
            part = xp.take(g, xp.asarray(src), axis=ax)
            keep = xp.asarray(has.reshape((n,) + (1,) * (g.ndim - 1 - ax)))
            part = xp.where(keep, part, xp.zeros((), dtype=g.dtype))
            acc = part if acc is None else acc + part
        g = acc if acc is not None else xp.zeros(g.shape[:ax] + (n,) + g.shape[ax + 1:], dtype=g.dtype)
    return g


class IndexPadAdjoint(Linear):
    """The gradient of :class:`IndexPad` on an Array API array (no scatter-add there):
    ``out = _pad_adjoint_xp(g)``; its own gradient is :class:`IndexPad` again (the adjoint
    of the adjoint)."""

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple, idx: tuple) -> Tensor:
        ctx.idx = idx
        return wrap(_pad_adjoint_xp(g._data, shape, idx))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return IndexPad.apply(gg, ctx.idx), None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, g: Tensor, shape: tuple, idx: tuple) -> Any:
        """Batching rule: batch dim to the front, prepended to ``shape`` and to the index
        as a full slice (as :class:`IndexPad`'s rule)."""
        if not only_first_batched(in_dims):
            return NotImplemented
        return info.function.apply(front(g, in_dims[0]), (info.batch_size,) + tuple(shape),
                                   (slice(None),) + tuple(idx)), 0


class CircularPad(IndexPad):
    """Circular padding (wraps around); see :class:`IndexPad`."""



# Reflect / replicate padding of the last k = 1, 2, 3 dims, named as PyTorch's nodes
# (``ReflectionPad2DBackward0``...); each is an :class:`IndexPad`.
_PAD_CLS: dict = {}
for _mode, _name in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad")):
    for _k in (1, 2, 3):
        _PAD_CLS[_mode, _k] = type(
            f"{_name}{_k}d", (IndexPad,),
            {"_node_name": f"{_name}{_k}DBackward0", "__doc__": IndexPad.__doc__},
        )


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims of ``input`` (``torch.nn.functional.pad``).

    Derivative: constant mode: ``grad_input`` is ``grad_output`` cropped back (cropping's
    adjoint is zero-padding); reflect / replicate / circular: the gradient of each copied
    element is added to its source (derivatives.yaml ``reflection_pad*_backward`` etc.).

    Args:
        input (Tensor): ``(*)``; non-constant modes take ``(C, W)``/``(N, C, W)`` and up to 3
            padded dims, as PyTorch.
        pad (sequence of int): ``(left, right)`` for the last dim, then ``(top, bottom)`` for
            the one before, ... Negative widths crop (constant mode only).
        mode (str): ``'constant'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default:
            ``'constant'``.
        value (float, optional): fill value for constant mode. Default: ``None`` (0).
    Returns:
        Tensor: ``input``'s dtype, each padded dim grown by ``left + right``.
    Raises:
        RuntimeError: odd or too long ``pad``; reflect width >= dim size; circular width >
            dim size; a value with a non-constant mode; a dim cropped below size 0.
        NotImplementedError: unknown mode, unsupported input rank for non-constant modes,
            negative widths with non-constant modes.

    Example:
        >>> import dyngrad
        >>> dyngrad.pad(dyngrad.tensor([[1, 2]]), (1, 2))
        tensor([[0, 1, 2, 0, 0]])
        >>> dyngrad.pad(dyngrad.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
        >>> x = dyngrad.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        >>> dyngrad.pad(x, (-1, 1), value=9.0).sum().backward()
        >>> x.grad
        tensor([[0., 1., 1.]])
    """
    widths = tuple(int(w) for w in pad)
    if len(widths) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd, k = input._data.ndim, len(widths) // 2
    if k > nd:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(widths)} and input of dimension {nd}"
        )
    shape = input._data.shape
    if mode == "constant":
        for j in range(k):
            n = shape[nd - 1 - j] + widths[2 * j] + widths[2 * j + 1]
            if n < 0:
                raise RuntimeError(
                    f"pad(): the padded size {n} of dimension {nd - 1 - j} (input size "
                    f"{shape[nd - 1 - j]}, pad {widths[2 * j : 2 * j + 2]}) is negative"
                )
        return ConstantPad.apply(input, widths, 0 if value is None else value)
    if mode not in _NP_MODE:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(widths)} is not supported for {nd}D input tensor (non-constant "
            "padding of the last k dims needs a (k+1)-D or (k+2)-D input, k in 1..3)"
        )
    if any(w < 0 for w in widths):
        raise NotImplementedError(f"pad(): negative widths are only supported in constant mode, got {list(widths)}")
    idx: list = []
    for ax in range(nd - k, nd):
        j = nd - 1 - ax
        lo, hi = widths[2 * j], widths[2 * j + 1]
        n = shape[ax]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input dimension, "
                f"but got: padding ({lo}, {hi}) at dimension {ax} of input {list(shape)}"
            )
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and n == 0 and (lo or hi):
            raise RuntimeError(f"pad(): cannot replicate-pad dimension {ax} of size 0")
        m = np.pad(np.arange(n), (lo, hi), mode=_NP_MODE[mode])
        idx.append(m.reshape((-1,) + (1,) * (nd - 1 - ax)))
    full = (slice(None),) * (nd - k) + tuple(idx)
    return (CircularPad if mode == "circular" else _PAD_CLS[mode, k]).apply(input, full)
