"""Shape ops: views and rearrangements. Views share memory and the version counter with
their base."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import make_view, norm_dim, shape_arg, wrap

__all__ = [
    "reshape", "view", "view_as", "reshape_as", "t", "transpose", "swapaxes", "swapdims",
    "permute", "expand", "expand_as", "broadcast_to", "squeeze", "unsqueeze", "flatten",
    "unbind", "stack", "cat", "concat", "concatenate", "unflatten", "movedim", "moveaxis",
]
TENSOR_METHODS = set(__all__)


def _infer_shape(shape: tuple, numel: int, op: str, in_shape: tuple) -> tuple:
    if shape.count(-1) > 1:
        raise RuntimeError(f"{op}: only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1])) if shape else 1
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if int(np.prod(shape)) != numel or any(s < 0 for s in shape):
        raise RuntimeError(
            f"{op}: shape '{list(shape)}' is invalid for input of size {numel} (input shape {list(in_shape)})"
        )
    return shape


class Reshape(Function):
    """``out = x`` with a new shape (same elements, C order); ``grad_x = grad.reshape(x.shape)``."""

    _builtin = True
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple) -> Tensor:
        ctx.in_shape = x.data.shape
        return make_view(wrap(x.data.reshape(shape)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.reshape(ctx.in_shape), None


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """``input`` with shape ``shape`` (one entry may be -1); a view when possible.

    Raises:
        RuntimeError: when the number of elements does not match.
    """
    s = _infer_shape(shape_arg(shape), input.data.size, "reshape", input.data.shape)
    return Reshape.apply(input, s)


def view(input: Tensor, *shape: Any) -> Tensor:
    """Like :func:`reshape`; a view sharing memory (dtype views are not supported)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, np.integer)):
        raise TypeError("view(dtype) is not supported by dyngrad; use .to(dtype)")
    return reshape(input, *shape)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)``."""
    return reshape(input, other.data.shape)


reshape_as = view_as


class Permute(Function):
    """``out = x`` with dims permuted; ``grad_x = grad`` permuted by the inverse."""

    _builtin = True
    _node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple) -> Tensor:
        ctx.inv = tuple(np.argsort(dims))
        return make_view(wrap(x.data.transpose(dims)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.permute(ctx.inv), None


def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder dims (a view). Raises RuntimeError when ``dims`` is not a permutation."""
    dims = shape_arg(dims)
    nd = input.data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    dims = tuple(norm_dim(d, nd, "permute") for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}")
    return Permute.apply(input, dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dims ``dim0`` and ``dim1`` (a view)."""
    nd = input.data.ndim
    if nd == 0:
        return Permute.apply(input, ())
    d0, d1 = norm_dim(dim0, nd, "transpose"), norm_dim(dim1, nd, "transpose")
    dims = list(range(nd))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Permute.apply(input, tuple(dims))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dims.

    Raises:
        RuntimeError: for more than 2 dims.
    """
    if input.data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.data.ndim}D")
    return transpose(input, 0, 1) if input.data.ndim == 2 else Permute.apply(input, tuple(range(input.data.ndim)))


class Expand(Function):
    """``out = broadcast_to(x, shape)`` (a read-only view); ``grad_x = sum_to_size(grad, x.shape)``."""

    _builtin = True
    _node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple) -> Tensor:
        ctx.in_shape = x.data.shape
        return make_view(wrap(np.broadcast_to(x.data, shape)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.sum_to_size(ctx.in_shape), None


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """Broadcast to ``sizes`` (-1 keeps a dim); a read-only view.

    Raises:
        RuntimeError: when a non-singleton dim would change.
    """
    sizes = shape_arg(sizes)
    shape = input.data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        if s == -1:
            if i < lead:
                raise RuntimeError("expand: -1 is not allowed in a leading, non-existing dimension")
            s = shape[i - lead]
        elif i >= lead and shape[i - lead] != 1 and shape[i - lead] != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size "
                f"({shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shape)}"
            )
        target.append(s)
    target = tuple(target)
    return Expand.apply(input, target)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.shape)``."""
    return expand(input, other.data.shape)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """``input.expand(size)``."""
    return expand(input, size)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dims of size 1 (all, or those in ``dim``); a view."""
    shape = input.data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = {norm_dim(d, len(shape), "squeeze") for d in dims}
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return Reshape.apply(input, new)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim`` (``-ndim-1 <= dim <= ndim``); a view."""
    shape = input.data.shape
    d = norm_dim(dim, len(shape) + 1, "unsqueeze")
    return Reshape.apply(input, shape[:d] + (1,) + shape[d:])


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one."""
    shape = input.data.shape
    if not shape:
        return Reshape.apply(input, (1,))
    s = norm_dim(start_dim, len(shape), "flatten")
    e = norm_dim(end_dim, len(shape), "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    new = shape[:s] + (int(np.prod(shape[s : e + 1])),) + shape[e + 1 :]
    return Reshape.apply(input, new)


class Unbind(Function):
    """Split along ``dim`` into views, one per index; ``grad_x = stack(grads, dim)`` (zeros
    for outputs without gradient)."""

    _builtin = True
    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> tuple:
        ctx.dim = dim
        ctx.set_materialize_grads(True)
        d = np.moveaxis(x.data, dim, 0)
        return tuple(make_view(wrap(d[i]), x) for i in range(d.shape[0]))

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        from .. import ops

        return ops.stack(grads, ctx.dim), None


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """Tuple of slices along ``dim`` (each without that dim)."""
    return Unbind.apply(input, norm_dim(dim, input.data.ndim, "unbind"))


class Cat(Function):
    """``out = concatenate(xs, dim)``; ``grad_xs[i]`` = the slice of ``grad`` that came from
    ``xs[i]``."""

    _builtin = True
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx: Any, dim: int, *xs: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.sizes = [x.data.shape[dim] for x in xs]
        from .. import _backend as B

        rt = B.result_type(*xs)
        return wrap(np.concatenate([x.data.astype(rt, copy=False) for x in xs], axis=dim))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        out: list = [None]
        start = 0
        for n, s in zip(ctx.needs_input_grad[1:], ctx.sizes):
            out.append(g.narrow(ctx.dim, start, s) if n else None)
            start += s
        return tuple(out)


def _seq_check(tensors: Any, op: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{op}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Concatenate tensors along an existing ``dim``; other dims must match.

    Raises:
        RuntimeError: mismatched shapes (naming the tensor index and sizes).
    """
    ts = _seq_check(tensors, "cat")
    for i, t in enumerate(ts):
        if t.data.ndim == 0:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
    ts = [t for t in ts if not (t.data.ndim == 1 and t.data.shape[0] == 0)] or ts[:1]
    nd = ts[0].data.ndim
    d = norm_dim(dim, nd, "cat")
    ref = ts[0].data.shape
    for i, t in enumerate(ts):
        s = t.data.shape
        if len(s) != nd or any(a != b for j, (a, b) in enumerate(zip(s, ref)) if j != d):
            raise RuntimeError(
                f"cat(): Sizes of tensors must match except in dimension {d}. Expected size "
                f"{list(ref)} but got size {list(s)} for tensor number {i} in the list."
            )
    return Cat.apply(d, *ts)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Stack equally shaped tensors along a new ``dim``.

    Raises:
        RuntimeError: when shapes differ (naming the first mismatch).
    """
    ts = _seq_check(tensors, "stack")
    ref = ts[0].data.shape
    for i, t in enumerate(ts):
        if t.data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(t.data.shape)} at entry {i}"
            )
    d = norm_dim(dim, len(ref) + 1, "stack")
    return cat([unsqueeze(t, d) for t in ts], d)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one entry may be -1); a view.

    Raises:
        RuntimeError: empty ``sizes``, more than one -1, or a product that is not ``input.size(dim)``.
    """
    sizes = tuple(int(z) for z in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = input.data.shape
    if not shape:
        raise RuntimeError(f"unflatten: Dimension specified as {dim} but tensor has no dimensions")
    d = norm_dim(dim, len(shape), "unflatten")
    n = shape[d] if shape else 1
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    known = int(np.prod([z for z in sizes if z != -1]))
    if -1 in sizes and known and n % known == 0:
        sizes = tuple(n // known if z == -1 else z for z in sizes)
    if int(np.prod(sizes)) != n or any(z < 0 for z in sizes):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({n}) in the input tensor"
        )
    return Reshape.apply(input, shape[:d] + sizes + shape[d + 1 :])


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dims ``source`` (int or sequence) to positions ``destination``; a view.

    Raises:
        RuntimeError: lengths differ or a dim repeats. IndexError: dim out of range.
    """
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    nd = input.data.ndim
    src = tuple(norm_dim(x, nd, "movedim") for x in src)
    dst = tuple(norm_dim(x, nd, "movedim") for x in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    if nd == 0:
        return Permute.apply(input, ())
    order = [i for i in range(nd) if i not in src]
    for d, s_ in sorted(zip(dst, src)):
        order.insert(d, s_)
    return Permute.apply(input, tuple(order))


moveaxis = movedim


# The family continues in two more files (kept under ~400 lines each); their names are
# re-exported here so ops/__init__.py picks them up with this module.
from . import rearrange as _rearrange  # noqa: E402
from . import splitting as _splitting  # noqa: E402
from .rearrange import *  # noqa: E402,F403
from .splitting import *  # noqa: E402,F403

__all__ += _rearrange.__all__ + _splitting.__all__
TENSOR_METHODS |= _rearrange.TENSOR_METHODS | _splitting.TENSOR_METHODS
