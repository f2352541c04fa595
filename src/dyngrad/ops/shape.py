"""Shape ops: views and rearrangements. Views share memory and the version counter with
their base."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear
from ._batching import front, pad_to
from ._util import make_view, norm_dim, shape_arg, wrap

__all__ = [
    "reshape", "view", "view_as", "reshape_as", "t", "transpose", "swapaxes", "swapdims",
    "permute", "expand", "expand_as", "broadcast_to", "squeeze", "unsqueeze", "flatten",
    "unflatten", "movedim", "moveaxis",
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


class Reshape(Linear):
    """``out = x`` with a new shape (same elements, C order); ``grad_x = grad.reshape(x.shape)``."""

    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple) -> Tensor:
        d = x._data
        ctx.in_shape = d.shape
        return make_view(wrap(d.reshape(shape) if type(d) is np.ndarray else B.reshape(d, shape)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.reshape(ctx.in_shape), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, shape: tuple) -> tuple:
        """Batching rule: ``shape`` is logical, so batch dim to the front and prepend the
        batch size (the squeeze/unsqueeze subclasses pass a full shape too)."""
        out = info.function.apply(front(x, in_dims[0]), (info.batch_size,) + tuple(shape))
        return out, 0


class Squeeze(Reshape):
    """``squeeze()``: :class:`Reshape` named as PyTorch's node."""



class SqueezeDim(Reshape):
    """``squeeze(dim)``: :class:`Reshape` named as PyTorch's node."""

    _node_name = "SqueezeBackward1"


class SqueezeDims(Reshape):
    """``squeeze(dims)``: :class:`Reshape` named as PyTorch's node."""

    _node_name = "SqueezeBackward2"


class Unsqueeze(Reshape):
    """``unsqueeze(dim)``: :class:`Reshape` named as PyTorch's node."""



def reshape(input: Tensor, *shape: Any) -> Tensor:
    """``input`` with shape ``shape`` (one entry may be -1); a view when possible.

    Derivative: ``grad_input = grad_output.reshape(input.shape)`` (derivatives.yaml
    ``_reshape_alias`` / ``view``).

    Args:
        input (Tensor): ``(*)``.
        *shape (int or sequence of int): the new shape, as separate ints or one tuple; one
            entry may be ``-1`` (inferred).
    Returns:
        Tensor: ``shape``, the same elements in row-major order (a view of ``input`` when its
        strides allow, else a copy).
    Raises:
        RuntimeError: when the number of elements does not match, or more than one entry is -1.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(6.0, requires_grad=True)
        >>> y = dyngrad.reshape(x, (2, -1))
        >>> y.shape
        dyngrad.Size([2, 3])
        >>> (y * dyngrad.tensor([1.0, 2.0, 3.0])).sum().backward()
        >>> x.grad
        tensor([1., 2., 3., 1., 2., 3.])
    """
    s = _infer_shape(shape_arg(shape), input._data.size, "reshape", input._data.shape)
    return Reshape.apply(input, s)


def view(input: Tensor, *shape: Any) -> Tensor:
    """Like :func:`reshape`, but always a view sharing memory (dtype views are not supported).

    ``Tensor.view`` in PyTorch (there is no ``torch.view``); dyngrad also has the function.

    Derivative: ``grad_input = grad_output.reshape(input.shape)`` (derivatives.yaml ``view``).

    Args:
        input (Tensor): ``(*)``.
        *shape (int or sequence of int): the new shape; one entry may be ``-1``.
    Returns:
        Tensor: ``shape``, a view sharing ``input``'s memory and version counter.
    Raises:
        RuntimeError: when the number of elements does not match, or when the new shape
            cannot be expressed with strides over ``input``'s memory (e.g. ``x.t().view(-1)``),
            as PyTorch; use :func:`reshape` there.
        TypeError: when given a dtype (``view(dtype)`` is not supported).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(6)
        >>> v = dyngrad.view(x, 3, 2)
        >>> v.shape
        dyngrad.Size([3, 2])
        >>> v[0, 0] = 9
        >>> x
        tensor([9, 1, 2, 3, 4, 5])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, np.integer)):
        raise TypeError("view(dtype) is not supported by dyngrad; use .to(dtype)")
    d = input._data
    s = _infer_shape(shape_arg(shape), d.size, "view", d.shape)
    if not B.c_contiguous(d):  # NumPy's no-copy reshape test is PyTorch's computeStride
        try:
            np.reshape(d, s, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
    return Reshape.apply(input, s)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)``; raises as :func:`view` when no view is possible.

    ``dyngrad.reshape_as`` is this function (so it too returns a view or raises).

    Derivative: ``grad_input = grad_output.reshape(input.shape)``.

    Args:
        input (Tensor): ``(*)``.
        other (Tensor): any tensor with ``input.numel()`` elements; only its shape is used.
    Returns:
        Tensor: ``other.shape``, a view of ``input``.
    Raises:
        RuntimeError: as :func:`view`: the element counts differ, or no view is possible.

    Example:
        >>> import dyngrad
        >>> dyngrad.view_as(dyngrad.arange(6), dyngrad.zeros(2, 3)).shape
        dyngrad.Size([2, 3])
    """
    return view(input, other._data.shape)


reshape_as = view_as


class Permute(Linear):
    """``out = x`` with dims permuted; ``grad_x = grad`` permuted by the inverse."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple) -> Tensor:
        ctx.inv = tuple(np.argsort(dims))
        d = x._data
        return make_view(wrap(d.transpose(dims) if type(d) is np.ndarray else B.transpose(d, dims)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.permute(ctx.inv), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, dims: tuple) -> tuple:
        """Batching rule: one permute that puts the batch dim (at ``d``) first and the
        logical dims (each ``p`` at ``p + (p >= d)``) in the requested order."""
        d = in_dims[0]
        out = info.function.apply(x, (d,) + tuple(p + (p >= d) for p in dims))
        return out, 0


class Transpose(Permute):
    """``transpose``/``mT``: :class:`Permute` named as PyTorch's node."""



class T(Permute):
    """``t()``: :class:`Permute` named as PyTorch's node."""



def permute(input: Tensor, *dims: Any) -> Tensor:
    """Reorder dims: output dim ``i`` is input dim ``dims[i]`` (a view).

    Derivative: ``grad_input = grad_output.permute(argsort(dims))`` (the inverse permutation).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        *dims (int or sequence of int): a permutation of ``0..n-1`` (negative dims count from
            the end), as separate ints or one tuple.
    Returns:
        Tensor: ``input``'s sizes reordered, a view.
    Raises:
        RuntimeError: when ``len(dims) != n`` or a dim repeats.
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.permute(dyngrad.zeros(2, 3, 4), (2, 0, 1)).shape
        dyngrad.Size([4, 2, 3])
    """
    dims = shape_arg(dims)
    nd = input._data.ndim
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
    """Swap dims ``dim0`` and ``dim1`` (a view). ``swapaxes`` and ``swapdims`` are this function.

    Derivative: ``grad_input = grad_output.transpose(dim0, dim1)``.

    Args:
        input (Tensor): ``(*)``.
        dim0 (int): a dim (negative counts from the end).
        dim1 (int): the dim to swap it with.
    Returns:
        Tensor: ``input``'s shape with sizes ``dim0`` and ``dim1`` swapped, a view.
    Raises:
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(2, 3, 4)
        >>> dyngrad.transpose(x, 0, -1).shape
        dyngrad.Size([4, 3, 2])
    """
    nd = input._data.ndim
    if nd == 0:
        return Permute.apply(input, ())
    d0, d1 = norm_dim(dim0, nd, "transpose"), norm_dim(dim1, nd, "transpose")
    dims = list(range(nd))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return Transpose.apply(input, tuple(dims))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dims (0-d and 1-d tensors come back as they are); a view.

    Derivative: ``grad_input = grad_output.t()``.

    Args:
        input (Tensor): ``(n, m)``, ``(n)`` or ``()``.
    Returns:
        Tensor: ``(m, n)`` (``(n)`` or ``()`` unchanged), a view.
    Raises:
        RuntimeError: for more than 2 dims.

    Example:
        >>> import dyngrad
        >>> dyngrad.t(dyngrad.tensor([[1, 2, 3]]))
        tensor([[1],
                [2],
                [3]])
    """
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return T.apply(input, (1, 0) if input._data.ndim == 2 else tuple(range(input._data.ndim)))


class Expand(Linear):
    """``out = broadcast_to(x, shape)`` (a read-only view); ``grad_x = sum_to_size(grad, x.shape)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple) -> Tensor:
        d = x._data
        ctx.in_shape = d.shape
        return make_view(wrap(np.broadcast_to(d, shape) if type(d) is np.ndarray else B.broadcast_to(d, shape)), x)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return g.sum_to_size(ctx.in_shape), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, shape: tuple) -> tuple:
        """Batching rule: batch dim to the front, size-1 dims inserted after it up to
        ``len(shape)`` logical dims (expand adds dims on the left), then the batch size
        prepended to the target shape."""
        x = pad_to(front(x, in_dims[0]), len(shape))
        return info.function.apply(x, (info.batch_size,) + tuple(shape)), 0


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """``input`` broadcast to ``sizes``: size-1 dims repeat and new dims are added on the left.

    A read-only view, no copy (an in-place write to it raises; ``clone()`` it first). ``-1``
    keeps a dim's size. (PyTorch has only the method ``Tensor.expand``; ``dyngrad.expand`` is
    the same function.)

    Derivative: ``grad_input = grad_output`` summed over the expanded dims
    (``sum_to_size(input.shape)``).

    Args:
        input (Tensor): ``(*S)``.
        *sizes (int or tuple of ints): the target shape, ``len(sizes) >= input.ndim``.
    Returns:
        Tensor: ``(*sizes)``, a view of ``input``.
    Raises:
        RuntimeError: when a non-singleton dim would change size, there are fewer sizes than
            ``input`` has dims, ``-1`` is given for a new leading dim, or a size is negative.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0], [2.0]], requires_grad=True)
        >>> dyngrad.expand(x, 2, 3)
        tensor([[1., 1., 1.],
                [2., 2., 2.]], grad_fn=<ExpandBackward0>)
        >>> dyngrad.expand(x, -1, 3).sum().backward()
        >>> x.grad
        tensor([[3.],
                [3.]])
    """
    sizes = shape_arg(sizes)
    shape = input._data.shape
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
        elif s < 0:  # PyTorch: RuntimeError (NumPy would raise ValueError)
            raise RuntimeError(f"expand: the size {s} at dimension {i} is negative (only -1, keep the size, is "
                               f"allowed).  Target sizes: {list(sizes)}")
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
    """``input`` expanded to ``other``'s shape: ``expand(input, other.shape)``.

    A read-only view (see :func:`expand`). (PyTorch has only the method ``Tensor.expand_as``.)

    Derivative: ``grad_input = grad_output`` summed over the expanded dims.

    Args:
        input (Tensor): ``(*S)``, broadcastable to ``other``'s shape.
        other (Tensor): any tensor ``(*T)``; only its shape is used.
    Returns:
        Tensor: ``(*T)``, a view of ``input``.
    Raises:
        RuntimeError: when a non-singleton dim would change size, there are fewer sizes than
            ``input`` has dims, ``-1`` is given for a new leading dim, or a size is negative.
        AttributeError: when ``other`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.expand_as(dyngrad.tensor([[1], [2]]), dyngrad.ones(2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """
    return expand(input, other._data.shape)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """``input`` broadcast to the shape ``size``: ``expand(input, size)``.

    A read-only view (see :func:`expand`); ``-1`` keeps a dim's size.

    Derivative: ``grad_input = grad_output`` summed over the broadcast dims.

    Args:
        input (Tensor): ``(*S)``.
        size (tuple of ints): the target shape (an int is taken as ``(size,)``; PyTorch
            requires a tuple).
    Returns:
        Tensor: ``(*size)``, a view of ``input``.
    Raises:
        RuntimeError: when a non-singleton dim would change size, there are fewer sizes than
            ``input`` has dims, ``-1`` is given for a new leading dim, or a size is negative.

    Example:
        >>> import dyngrad
        >>> dyngrad.broadcast_to(dyngrad.tensor([1, 2]), (2, 2))
        tensor([[1, 2],
                [1, 2]])
        >>> dyngrad.broadcast_to(dyngrad.tensor([1, 2]), (3, -1)).shape
        dyngrad.Size([3, 2])
    """
    return expand(input, size)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dims of size 1 (all, or those in ``dim``); a view.

    A dim in ``dim`` whose size is not 1 is kept, as PyTorch does.

    Derivative: ``grad_input = grad_output.reshape(input.shape)`` (the removed dims put back).

    Args:
        input (Tensor): ``(*)``.
        dim (int or tuple of int, optional): the dims to remove if of size 1. Default:
            ``None`` (every size-1 dim).
    Returns:
        Tensor: ``input``'s shape without those size-1 dims, a view.
    Raises:
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(1, 2, 1)
        >>> dyngrad.squeeze(x).shape, dyngrad.squeeze(x, 2).shape, dyngrad.squeeze(x, 1).shape
        (dyngrad.Size([2]), dyngrad.Size([1, 2]), dyngrad.Size([1, 2, 1]))
    """
    shape = input._data.shape
    cls = Squeeze if dim is None else SqueezeDim if isinstance(dim, int) else SqueezeDims
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = {norm_dim(d, len(shape), "squeeze") for d in dims}
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return cls.apply(input, new)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at ``dim`` (``-ndim-1 <= dim <= ndim``); a view.

    Derivative: ``grad_input = grad_output.squeeze(dim)``.

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        dim (int): where the new dim goes, in ``[-n-1, n]`` (negative counts from the end of
            the result).
    Returns:
        Tensor: ``n + 1`` dims, a view.
    Raises:
        IndexError: when ``dim`` is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(2, 3)
        >>> dyngrad.unsqueeze(x, 1).shape, dyngrad.unsqueeze(x, -1).shape
        (dyngrad.Size([2, 1, 3]), dyngrad.Size([2, 3, 1]))
    """
    shape = input._data.shape
    d = norm_dim(dim, len(shape) + 1, "unsqueeze")
    return Unsqueeze.apply(input, shape[:d] + (1,) + shape[d:])


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """``input`` with dims ``start_dim`` to ``end_dim`` merged into one (a 0-d input becomes ``(1,)``).

    A view when the memory allows it (as ``reshape``), else a copy.

    Derivative: ``grad_input = grad_output.reshape(input.shape)``.

    Args:
        input (Tensor): ``(*)``.
        start_dim (int, optional): the first dim to merge. Default: ``0``.
        end_dim (int, optional): the last dim to merge. Default: ``-1``.
    Returns:
        Tensor: ``(*before, prod(merged sizes), *after)``.
    Raises:
        IndexError: when a dim is out of range.
        RuntimeError: when ``start_dim`` comes after ``end_dim``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, 3, 4)
        >>> dyngrad.flatten(x).shape, dyngrad.flatten(x, 1).shape, dyngrad.flatten(x, 0, 1).shape
        (dyngrad.Size([24]), dyngrad.Size([2, 12]), dyngrad.Size([6, 4]))
    """
    shape = input._data.shape
    if not shape:
        return Reshape.apply(input, (1,))
    s = norm_dim(start_dim, len(shape), "flatten")
    e = norm_dim(end_dim, len(shape), "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    new = shape[:s] + (int(np.prod(shape[s : e + 1])),) + shape[e + 1 :]
    return Reshape.apply(input, new)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one entry may be -1); a view.

    Derivative: ``grad_input = grad_output.reshape(input.shape)``.

    Args:
        input (Tensor): ``(*)``, at least 1 dim.
        dim (int): the dim to split (negative counts from the end).
        sizes (sequence of int): its new sizes, whose product is ``input.size(dim)``; one may
            be ``-1`` (inferred).
    Returns:
        Tensor: ``input``'s shape with size ``dim`` replaced by ``sizes``, a view.
    Raises:
        RuntimeError: empty ``sizes``, more than one -1, a 0-d input, or a product that is not
            ``input.size(dim)``.
        IndexError: when ``dim`` is out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.unflatten(dyngrad.zeros(2, 6), 1, (3, -1)).shape
        dyngrad.Size([2, 3, 2])
    """
    sizes = tuple(int(z) for z in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = input._data.shape
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

    The other dims keep their order. ``dyngrad.moveaxis`` is this function.

    Derivative: ``grad_input = grad_output.movedim(destination, source)``.

    Args:
        input (Tensor): ``(*)``.
        source (int or sequence of int): the dims to move.
        destination (int or sequence of int): their positions in the result, as many as
            ``source``.
    Returns:
        Tensor: ``input``'s sizes reordered, a view.
    Raises:
        RuntimeError: lengths differ or a dim repeats.
        IndexError: dim out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.movedim(dyngrad.zeros(2, 3, 4), 0, -1).shape
        dyngrad.Size([3, 4, 2])
    """
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    nd = input._data.ndim
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
