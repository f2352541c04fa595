"""Normalisation and embedding functions of :mod:`dyngrad.nn.functional` (re-exported
there): layer_norm, batch_norm, group_norm (all on the fused ``NormalizeStats`` Function),
embedding and one_hot."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..ops import fused as _fused
from ..ops._util import wrap
from ..tensor import Tensor

__all__ = ["layer_norm", "batch_norm", "group_norm", "embedding", "one_hot"]


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple) -> Tensor:
    if weight is not None:
        out = out * (weight.reshape(shape) if tuple(weight.shape) != shape else weight)
    if bias is not None:
        out = out + (bias.reshape(shape) if tuple(bias.shape) != shape else bias)
    return out


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims (biased variance), then
    ``* weight + bias``.

    Args: input ``(*, *normalized_shape)``; weight, bias ``normalized_shape``.
    Raises: RuntimeError when the trailing dims differ from ``normalized_shape``.
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
    """Batch normalisation over all dims but the channel dim 1.

    In training, normalise with the batch's mean and biased variance and update the running
    stats in place: ``running = (1 - momentum) * running + momentum * batch`` (unbiased
    variance, as PyTorch). In eval, use the running stats.
    Args: input ``(N, C)`` or ``(N, C, *)``; running_mean/var, weight, bias ``(C)``.
    Raises:
        ValueError: training with one value per channel. RuntimeError: wrong stat sizes or
        eval without running stats.
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
            d = input.data
            m = d.mean(axis=dims)
            if running_mean is not None:
                rm = running_mean.data
                rm *= 1 - momentum
                rm += momentum * m.astype(rm.dtype)
                running_mean._bump()
            if running_var is not None:
                rv = running_var.data
                var = d.var(axis=dims, ddof=1)
                rv *= 1 - momentum
                rv += momentum * var.astype(rv.dtype)
                running_var._bump()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in evaluation mode")
        out = (input - running_mean.reshape(shape)) * ((running_var.reshape(shape) + eps) ** -0.5)
    return _affine(out, weight, bias, shape)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each of ``num_groups`` channel groups per sample, then per-channel affine.

    Args: input ``(N, C, *)``; weight, bias ``(C)``.
    Raises: RuntimeError when ``C`` is not divisible by ``num_groups``.
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
    return _affine(out, weight, bias, (1, c) + (1,) * (input.ndim - 2))


class Embedding(Function):
    """``out = weight[idx]``: ``idx (*)`` int, ``weight (num, dim)`` -> ``(*, dim)``.

    ``grad_weight = zeros.index_add(idx, grad)`` with the ``padding_idx`` row left at zero."""

    _builtin = True
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx: Any, weight: Tensor, idx: np.ndarray, padding_idx: int | None) -> Tensor:
        ctx.idx, ctx.pad, ctx.shape = idx, padding_idx, weight.data.shape
        return wrap(weight.data[idx])

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from ..ops.indexing import index_put_add

        idx = ctx.idx
        if ctx.pad is not None:
            keep = (idx != ctx.pad)[..., None].astype(g.data.dtype)
            g = g * Tensor._make(keep)
        return index_put_add(g, ctx.shape, Tensor._make(idx)), None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, weight: Tensor, idx: np.ndarray, padding_idx: int | None) -> Any:
        """Batching rule (per-example tables; the indices are never batched here: a batched
        index tensor is read by the wrapper, so vmap loops over the whole function): the
        batch goes next to ``dim``, ``(num, B*dim)``, one lookup, then split off again."""
        from ..ops._batching import front

        if in_dims[0] is None:
            return NotImplemented
        w = front(weight, in_dims[0]).transpose(0, 1)  # (num, B, dim)
        out = Embedding.apply(w.reshape(w.shape[0], -1), idx, padding_idx)
        return out.reshape(tuple(idx.shape) + (info.batch_size, -1)), idx.ndim


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

    Args: input ``(*)`` int; weight ``(num_embeddings, embedding_dim)``; padding_idx: its row
    gets no gradient. ``max_norm`` renormalises the looked-up rows in place (no grad).
    Returns: ``(*, embedding_dim)``.
    Raises: IndexError out-of-range indices; RuntimeError non-integer indices or bad weight.
    NotImplementedError: ``scale_grad_by_freq`` or ``sparse``.
    """
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported by dyngrad")
    idx = input.data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            f"embedding: Expected tensor for argument #1 'indices' to have an integer dtype, but got {idx.dtype}"
        )
    if weight.ndim != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D, got shape {list(weight.shape)}")
    num = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError(
            f"embedding: index out of range in self (indices must be in [0, {num}), got {int(idx.min())}..{int(idx.max())})"
        )
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if max_norm is not None:
        rows = np.unique(idx)
        w = weight.data
        norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w[rows] *= scale[:, None].astype(w.dtype)
        weight._bump()
    return Embedding.apply(weight, idx, padding_idx)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 ``(*, num_classes)`` with a 1 at each index of ``tensor (*)`` (int64).

    Raises: RuntimeError for non-int64 input, negative values or values >= num_classes.
    """
    d = tensor.data
    if d.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if d.size and d.min() < 0:
        raise RuntimeError("one_hot: Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(d.max()) + 1 if d.size else 0
    elif d.size and d.max() >= num_classes:
        raise RuntimeError("one_hot: Class values must be smaller than num_classes.")
    out = np.zeros(d.shape + (num_classes,), np.int64)
    np.put_along_axis(out, d[..., None], 1, axis=-1)
    return Tensor._make(out)
