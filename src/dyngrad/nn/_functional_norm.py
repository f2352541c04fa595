"""Normalisation and embedding functions of :mod:`dyngrad.nn.functional` (re-exported
there): layer_norm, batch_norm, group_norm (all on the fused ``NormalizeStats`` Function),
embedding and one_hot."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..autograd.function import Function
from ..ops import fused as _fused
from ..ops._util import wrap
from ..tensor import Tensor
from .. import _backend as B

__all__ = ["layer_norm", "batch_norm", "group_norm", "embedding", "one_hot"]


def fused_bias_add(out: Tensor, bias: Tensor) -> Tensor:
    """``out + bias`` as the bias term of a fused op (convolution, layer/batch norm).

    PyTorch computes such an op's bias gradient in the same backward as its input and
    weight gradients, so under ``create_graph=True`` it requires grad whenever ``out``
    does, even where it is constant (a loss linear in the output): differentiating it
    again gives zeros, not an error. The add's node is marked so (``_link_zero_grads``,
    see autograd/engine.py)."""
    res = out + bias
    fn = res.grad_fn
    if fn is not None and type(res) is Tensor:
        fn._link_zero_grads = (0,)
    return res


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple, fused: bool = True) -> Tensor:
    if weight is not None:
        out = out * (weight.reshape(shape) if tuple(weight.shape) != shape else weight)
    if bias is not None:
        b = bias.reshape(shape) if tuple(bias.shape) != shape else bias
        out = fused_bias_add(out, b) if fused else out + b
    return out


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Layer normalisation: normalise over the last ``len(normalized_shape)`` dims with the (biased)
    mean and variance, then ``* weight + bias`` (Ba et al. 2016).

    Derivative: ``grad_input = (w / sigma) * (g - mean(g) - x_hat * mean(g * x_hat))`` with ``g =
    grad_output``, ``x_hat`` the normalised input, ``sigma = sqrt(var + eps)`` and the means over
    the normalised elements; ``grad_weight = sum(g * x_hat)``, ``grad_bias = sum(g)`` (PyTorch's
    ``native_layer_norm_backward``).

    Args:
        input (Tensor): ``(*, *normalized_shape)``, floating.
        normalized_shape (int or tuple of int): the trailing shape normalised over.
        weight (Tensor, optional): ``normalized_shape``. Default: ``None``.
        bias (Tensor, optional): ``normalized_shape``. Default: ``None``.
        eps (float): added to the variance. Default: ``1e-5``.
    Returns:
        Tensor: the input's shape.
    Raises:
        RuntimeError: when the trailing dims differ from ``normalized_shape``, or
            ``weight``/``bias`` have another shape.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.layer_norm(dyngrad.tensor([[1.0, 3.0]]), (2,), dyngrad.tensor([2.0, 1.0]), dyngrad.tensor([0.0, 1.0]))
        tensor([[-2.0000,  2.0000]])
    """
    ns = (
        (int(normalized_shape),)
        if isinstance(normalized_shape, (int, np.integer))
        else tuple(int(s) for s in normalized_shape)
    )
    if not ns or tuple(input.shape[input.ndim - len(ns) :]) != ns or input.ndim < len(ns):
        raise RuntimeError(
            f"layer_norm: Given normalized_shape={list(ns)}, expected input with shape [*, "
            f"{', '.join(map(str, ns))}], but got input of size {list(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(
                f"layer_norm: Expected {name} to be of same shape as normalized_shape, but got {name} of shape {list(t.shape)} and normalized_shape = {list(ns)}"
            )
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    return _affine(_fused.normalize_stats(input, dims, eps), weight, bias, ns)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalisation over all dims but the channel dim 1. In training, normalise with the batch's
    mean and biased variance and update the running stats in place: ``running = (1 - momentum) *
    running + momentum * batch`` (unbiased variance, as PyTorch). In eval, use the running stats
    (Ioffe & Szegedy 2015).

    Derivative: ``grad_input = (w / sigma) * (g - mean(g) - x_hat * mean(g * x_hat))`` with ``g =
    grad_output``, ``x_hat`` the normalised input, ``sigma = sqrt(var + eps)`` and the means over
    the normalised elements; ``grad_weight = sum(g * x_hat)``, ``grad_bias = sum(g)``, the means per
    channel over the batch and spatial dims, in training (PyTorch's ``native_batch_norm_backward``);
    in eval the map is affine, ``grad_input = w / sigma * g``.

    Args:
        input (Tensor): ``(N, C)`` or ``(N, C, *)``.
        running_mean (Tensor or None): ``(C,)``, updated in training.
        running_var (Tensor or None): ``(C,)``, updated in training.
        weight (Tensor, optional): ``(C,)``. Default: ``None``.
        bias (Tensor, optional): ``(C,)``. Default: ``None``.
        training (bool): use (and record) the batch statistics. Default: ``False``.
        momentum (float): the running stats' update factor. Default: ``0.1``.
        eps (float): added to the variance. Default: ``1e-5``.
    Returns:
        Tensor: the input's shape.
    Raises:
        ValueError: training with one value per channel.
        RuntimeError: wrong stat sizes, or eval without running stats.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> mean, var = dyngrad.zeros(1), dyngrad.ones(1)
        >>> F.batch_norm(dyngrad.tensor([[1.0], [3.0]]), mean, var, training=True, momentum=0.5).flatten().tolist()
        [-0.9999949932098389, 0.9999949932098389]
        >>> mean, var
        (tensor([1.]), tensor([1.5000]))
    """
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {input.ndim}D input)")
    c = input.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"batch_norm: {name} should contain {c} elements not {t.numel()}")
    shape = (1, c) + (1,) * (input.ndim - 2)
    dims = (0,) + tuple(range(2, input.ndim))
    if training:
        count = input.numel() // max(c, 1)
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {list(input.shape)}"
            )
        out = _fused.normalize_stats(input, dims, eps)
        if running_mean is not None or running_var is not None:
            _update_running(input, running_mean, running_var, dims, momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        out = (input - running_mean.reshape(shape)) * ((running_var.reshape(shape) + eps) ** -0.5)
    return _affine(out, weight, bias, shape)


def _update_running(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, dims: tuple,
                    momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch_stat`` in place (the variance
    unbiased). With no interpreter active this is NumPy on ``._data`` (the fast path, as the
    ops' own). Otherwise ops compute both new values before either buffer is written, so
    that a write the buffers cannot take raises before anything changes: under vmap a
    buffer that is not batched cannot hold one value per example, and the in-place op
    refuses (the interpreters check every in-place op; vmap then runs once per example).
    Both paths give the same bits."""
    if not grad_mode.state.interpreters:
        d = input._data
        if running_mean is not None:
            rm = running_mean._data
            rm *= 1 - momentum
            rm += momentum * d.mean(axis=dims).astype(rm.dtype)
            running_mean._bump()
        if running_var is not None:
            rv = running_var._data
            rv *= 1 - momentum
            rv += momentum * d.var(axis=dims, ddof=1).astype(rv.dtype)
            running_var._bump()
        return
    with grad_mode.no_grad():
        x = input.detach()
        new = []
        if running_mean is not None:
            m = x.mean(dims).to(running_mean.dtype)
            new.append((running_mean, running_mean * (1 - momentum) + m * momentum))
        if running_var is not None:
            v = x.var(dims, correction=1).to(running_var.dtype)
            new.append((running_var, running_var * (1 - momentum) + v * momentum))
        for buf, value in new:
            buf.copy_(value)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Group normalisation: normalise each of ``num_groups`` channel groups per sample (over its
    channels and spatial dims), then a per-channel affine map (Wu & He 2018).

    Derivative: ``grad_input = (w / sigma) * (g - mean(g) - x_hat * mean(g * x_hat))`` with ``g =
    grad_output``, ``x_hat`` the normalised input, ``sigma = sqrt(var + eps)`` and the means over
    the normalised elements; ``grad_weight = sum(g * x_hat)``, ``grad_bias = sum(g)``, the means per
    sample and group (PyTorch's ``native_group_norm_backward``).

    Args:
        input (Tensor): ``(N, C, *)``.
        num_groups (int): dividing ``C``.
        weight (Tensor, optional): ``(C,)``. Default: ``None``.
        bias (Tensor, optional): ``(C,)``. Default: ``None``.
        eps (float): added to the variance. Default: ``1e-5``.
    Returns:
        Tensor: the input's shape.
    Raises:
        RuntimeError: when ``C`` is not divisible by ``num_groups``, or ``weight``/``bias`` do not
            have ``C`` elements.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.group_norm(dyngrad.arange(4.0).reshape(1, 4), 2)
        tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"group_norm: Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    n, c = input.shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    x = input.reshape(n, num_groups, -1)
    out = _fused.normalize_stats(x, (2,), eps).reshape(input.shape)
    return _affine(out, weight, bias, (1, c) + (1,) * (input.ndim - 2), fused=False)  # as PyTorch's


def _embedding_xp(ctx: Any, weight: Tensor, idx: Any, padding_idx: int | None, per: int | None, num: int) -> Tensor:
    """The embedding lookup's forward with the standard's functions (an Array API array):
    the rows ``take`` picks (the range check reads the extreme indices only on failure)."""
    xp = B.namespace(weight._data, idx)
    if idx.size and bool(xp.any(idx < 0) or xp.any(idx >= num)):
        lo, hi = int(xp.min(idx)), int(xp.max(idx))
        raise IndexError(f"embedding: index out of range in self (indices must be in [0, {num}), got {lo}..{hi})")
    ctx.keep = None if padding_idx is None else (idx != padding_idx)
    if per is not None:  # example b's rows start at b * per
        offs = B.like((np.arange(idx.shape[0]) * per).reshape((-1,) + (1,) * (idx.ndim - 1)), idx,
                      dtype=B.np_dtype_of(idx))
        idx = idx + offs
    ctx.idx, ctx.shape = idx, weight._data.shape
    w = weight._data
    rows = xp.take(w, xp.reshape(idx, (-1,)), axis=0)
    return wrap(xp.reshape(rows, tuple(idx.shape) + tuple(w.shape[1:])))


class Embedding(Function):
    """``out = weight[idx]``: ``idx (*)`` int (a Tensor or an ndarray), ``weight (num, dim)``
    -> ``(*, dim)``. With ``per`` (batching rule only): ``weight`` is ``B`` tables of ``per``
    rows stacked and ``idx (B, *)`` indexes example ``b``'s table. Raises IndexError for
    indices outside ``[0, num)`` (``[0, per)``).

    ``grad_weight = zeros.index_add(idx, grad)`` with the ``padding_idx`` row left at zero."""

    trusted = True
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx: Any, weight: Tensor, idx: Any, padding_idx: int | None, per: int | None = None) -> Tensor:
        idx = idx._data if isinstance(idx, Tensor) else idx
        num = weight._data.shape[0] if per is None else per
        if type(idx) is not np.ndarray and not B.native(idx):
            return _embedding_xp(ctx, weight, idx, padding_idx, per, num)
        if idx.size and (idx.min() < 0 or idx.max() >= num):
            raise IndexError(
                f"embedding: index out of range in self (indices must be in [0, {num}), got {int(idx.min())}..{int(idx.max())})"
            )
        ctx.keep = None if padding_idx is None else (idx != padding_idx)
        if per is not None:  # example b's rows start at b * per
            idx = idx + (np.arange(idx.shape[0]) * per).reshape((-1,) + (1,) * (idx.ndim - 1))
        ctx.idx, ctx.shape = idx, weight._data.shape
        return wrap(weight._data[idx])

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from ..ops.indexing import index_put_add

        if not B.native(ctx.idx):  # an Array API array: no scatter-add; the one-hot adjoint
            from ..ops.scan import ScatterAlong

            xp = B.namespace(ctx.idx)
            if ctx.keep is not None:
                g = g * Tensor._make(B.astype(xp.expand_dims(ctx.keep, axis=-1), B.np_dtype_of(g._data)))
            width = ctx.shape[1:]
            g2 = g.reshape((-1,) + tuple(width))
            flat = xp.reshape(ctx.idx, (-1,) + (1,) * len(width))
            i2 = xp.broadcast_to(flat, tuple(g2.shape))
            return ScatterAlong.apply(g2, 0, i2, ctx.shape[0]), None, None, None
        if ctx.keep is not None:
            g = g * Tensor._make(ctx.keep[..., None].astype(g._data.dtype))
        return index_put_add(g, ctx.shape, Tensor._make(ctx.idx)), None, None, None

    @staticmethod
    def jvp(ctx: Any, u: Any, *_: Any) -> Any:
        """Forward mode: ``t = u[idx]`` (the lookup is linear in the table)."""
        return u[Tensor._make(ctx.idx)]

    @staticmethod
    def vmap(info: Any, in_dims: tuple, weight: Tensor, idx: Any, padding_idx: Any, per: Any = None) -> Any:
        """Batching rule. Batched indices, shared table: one lookup of the batch-first
        indices. Per-example tables, shared indices: the batch goes next to ``dim``,
        ``(num, B*dim)``, one lookup, split off again. Both batched: the tables stacked
        ``(B*num, dim)``, each example's indices into its own rows (``per``)."""
        from ..ops._batching import front

        dw, di = in_dims[:2]
        b = info.batch_size
        if per is not None:
            return NotImplemented
        if dw is None:
            return Embedding.apply(weight, front(idx, di), padding_idx), 0
        w = front(weight, dw)
        if di is None:
            w = w.transpose(0, 1)  # (num, B, dim)
            out = Embedding.apply(w.reshape(w.shape[0], -1), idx, padding_idx)
            return out.reshape(tuple(idx.shape) + (b, -1)), len(idx.shape)
        num = w.shape[1]
        return Embedding.apply(w.reshape((b * num,) + tuple(w.shape[2:])), front(idx, di), padding_idx, num), 0


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Look up rows of ``weight`` at the integer indices ``input``.

    Derivative: ``grad_weight[i] = sum of grad_output over the positions holding index i`` (none for
    ``padding_idx``; PyTorch's ``embedding_dense_backward``); indices get no gradient.

    Args:
        input (Tensor): ``(*)``, int64 or int32 indices in ``[0, num_embeddings)``.
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        padding_idx (int, optional): its row gets no gradient. Default: ``None``.
        max_norm (float, optional): renormalise the looked-up rows of ``weight`` in place (without
            gradient) to at most this norm. Default: ``None``.
        norm_type (float): the p of the norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq (bool): not supported (``True`` raises). Default: ``False``.
        sparse (bool): not supported (``True`` raises). Default: ``False``.
    Returns:
        Tensor: ``(*, embedding_dim)``.
    Raises:
        IndexError: out-of-range indices.
        RuntimeError: non-integer indices or a weight that is not 2-d.
        NotImplementedError: ``scale_grad_by_freq`` or ``sparse``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> w = dyngrad.arange(6.0).reshape(3, 2)
        >>> F.embedding(dyngrad.tensor([[2, 0]]), w)
        tensor([[[4., 5.],
                 [0., 1.]]])
    """
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported by dyngrad")
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if B.kind(idx) not in "iu":
        raise RuntimeError(
            f"embedding: Expected tensor for argument #1 'indices' to have an integer dtype, but got {idx.dtype}"
        )
    if weight.ndim != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D, got shape {list(weight.shape)}")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if max_norm is not None:
        rows = np.unique(idx)
        w = weight._data
        norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w[rows] *= scale[:, None].astype(w.dtype)
        weight._bump()
    return Embedding.apply(weight, input if isinstance(input, Tensor) else idx, padding_idx)


def _one_hot(d: np.ndarray, num_classes: int) -> np.ndarray:
    if B.np_dtype_of(d) != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if not B.native(d):  # an Array API array: the one-hot comparison (no put_along_axis)
        xp = B.namespace(d)
        if d.size and bool(xp.any(d < 0)):
            raise RuntimeError("one_hot: Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(xp.max(d)) + 1 if d.size else 0  # (the output's shape: read on the host)
        elif d.size and bool(xp.any(d >= num_classes)):
            raise RuntimeError("one_hot: Class values must be smaller than num_classes.")
        cls = xp.arange(num_classes, dtype=xp.int64)
        return xp.astype(xp.expand_dims(d, axis=-1) == cls, xp.int64)
    if d.size and d.min() < 0:
        raise RuntimeError("one_hot: Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(d.max()) + 1 if d.size else 0
    elif d.size and d.max() >= num_classes:
        raise RuntimeError("one_hot: Class values must be smaller than num_classes.")
    out = np.zeros(d.shape + (num_classes,), np.int64)
    np.put_along_axis(out, d[..., None], 1, axis=-1)
    return out


class OneHot(Function):
    """``out = one_hot(x, num_classes)``: int64 ``(*, num_classes)``, not differentiable.
    The wrapper functions take it only for a transform's wrapper tensor (``one_hot``)."""

    trusted = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, num_classes: int) -> Tensor:
        out = Tensor._make(_one_hot(x._data, num_classes))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Any) -> tuple:  # pragma: no cover - output not differentiable
        return None, None

    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> Any:
        """Forward mode: no tangent (an integer output)."""
        return None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, num_classes: int) -> tuple:
        """Batching rule: the class dim goes last, after the batch dim (which stays where
        it is). Without ``num_classes`` it depends on the values of every example, so vmap
        runs once per example."""
        if num_classes == -1:  # pragma: no cover - one_hot reads ._data first, which refuses
            return NotImplemented
        return info.function.apply(x, num_classes), in_dims[0]


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """One-hot encoding: an int64 tensor ``(*, num_classes)`` with a 1 at each index of ``tensor``.

    Not differentiable (an integer result).

    Args:
        tensor (Tensor): ``(*)``, int64 class indices.
        num_classes (int): the classes; -1 means ``tensor.max() + 1``. Default: ``-1``.
    Returns:
        Tensor: ``(*, num_classes)``, int64.
    Raises:
        RuntimeError: a non-int64 input, negative values or values ``>= num_classes``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.one_hot(dyngrad.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    if num_classes != -1 and tensor._is_wrapper:  # a transform's wrapper: through OneHot's rules
        with grad_mode.no_grad():
            return OneHot.apply(tensor, num_classes)
    return Tensor._make(_one_hot(tensor._data, num_classes))
