"""dyngrad.nn.functional: neural-network functions, PyTorch's names, argument order and
defaults. Fused ops (softmax, log_softmax, nll, norms, conv, pooling) have their own
numerically stable Functions in :mod:`dyngrad.ops.fused` and :mod:`dyngrad.ops.conv`; the
rest are compositions of differentiable ops. Every activation of
:mod:`dyngrad.ops.activation` is re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.function import Function
from ..creation import Generator, _gen
from ..ops import activation as _activation
from ..ops import fused as _fused
from ..ops import relu, relu_, sigmoid, tanh
from ..ops._util import binary_operands, norm_dim, wrap
from ..ops.activation import *  # noqa: F403
from ..ops.fused import log_softmax, softmax
from ..tensor import Tensor
from . import _functional_conv, _functional_loss
from ._functional_conv import *  # noqa: F403
from ._functional_loss import *  # noqa: F403

__all__ = [
    "linear",
    "bilinear",
    "relu",
    "relu_",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "softmin",
    "logsigmoid",
    "dropout",
    "layer_norm",
    "batch_norm",
    "group_norm",
    "embedding",
    "one_hot",
    "cosine_similarity",
    "normalize",
    "pad",
    "pairwise_distance",
]
__all__ += [n for n in _activation.__all__ if n not in __all__]
__all__ += list(_functional_conv.__all__) + list(_functional_loss.__all__)


class Linear(Function):
    """``out = x @ W^T + b`` for ``x (*, in)``, ``W (out, in)``, ``b (out)``.

    ``grad_x = grad @ W``; ``grad_W = grad^T @ x`` (batch dims flattened);
    ``grad_b = sum(grad over batch dims)``.
    """

    _builtin = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, b: Tensor | None = None) -> Tensor:
        xd, wd, _ = binary_operands(x, w)
        if w.data.ndim not in (1, 2):
            raise RuntimeError(f"linear: weight must be 1-D or 2-D, got shape {list(w.shape)}")
        in_f = wd.shape[-1]
        if xd.ndim == 0 or xd.shape[-1] != in_f:
            raise RuntimeError(
                f"linear: mat1 and mat2 shapes cannot be multiplied "
                f"({'x'.join(map(str, xd.shape[:-1] and (int(np.prod(xd.shape[:-1])),) or (1,)))}x{xd.shape[-1] if xd.ndim else 0} "
                f"and {in_f}x{wd.shape[0] if wd.ndim == 2 else 1}); input {list(x.shape)}, weight {list(w.shape)}"
            )
        out = xd @ wd.T
        if b is not None:
            out = out + b.data
        n = ctx.needs_input_grad
        ctx.save_for_backward(x if n[1] else None, w)
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = gw = gb = None
        if n[0]:
            gx = g @ w if w.ndim == 2 else g.unsqueeze(-1) * w
        if n[1]:
            if w.ndim == 2:
                g2 = g.reshape(-1, g.shape[-1]) if g.ndim != 2 else g
                x2 = x.reshape(-1, x.shape[-1]) if x.ndim != 2 else x
                gw = g2.t() @ x2
            else:
                gw = (g.unsqueeze(-1) * x).reshape(-1, x.shape[-1]).sum(0)
        if len(n) > 2 and n[2]:
            gb = g.reshape(-1, g.shape[-1]).sum(0) if g.ndim > 1 else g
        return gx, gw, gb


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Affine map ``input @ weight.T + bias``.

    Args:
        input: ``(*, in_features)``.
        weight: ``(out_features, in_features)``.
        bias: ``(out_features)`` or None.
    Returns:
        ``(*, out_features)``.
    Raises:
        RuntimeError: when ``in_features`` of input and weight differ (both shapes named).
    """
    if bias is None:
        return Linear.apply(input, weight)
    return Linear.apply(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``out[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]``.

    Args:
        input1: ``(*, in1)``; input2: ``(*, in2)`` (same leading dims); weight ``(out, in1,
        in2)``; bias ``(out)``.
    Returns:
        ``(*, out)``.
    Raises:
        RuntimeError: mismatched feature or batch sizes (all shapes named).
    """
    if (
        weight.ndim != 3
        or input1.shape[-1:] != weight.shape[1:2]
        or input2.shape[-1:] != weight.shape[2:3]
        or input1.shape[:-1] != input2.shape[:-1]
    ):
        raise RuntimeError(
            f"bilinear: shapes do not fit: input1 {list(input1.shape)}, input2 {list(input2.shape)}, "
            f"weight {list(weight.shape)} (expected (*, in1), (*, in2), (out, in1, in2))"
        )
    o, i1, i2 = weight.shape
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, i1)
    x2 = input2.reshape(-1, i2)
    tmp = (x1 @ weight.permute(1, 0, 2).reshape(i1, o * i2)).reshape(-1, o, i2)
    out = (tmp * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(lead + (o,))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-input, dim)``."""
    return softmax(-input, dim, dtype=dtype)


def _logsigmoid(input: Tensor) -> Tensor:
    """Stable ``log(sigmoid(input))``; ``(*) -> (*)`` (used when the op library has none)."""
    return _fused.log_sigmoid(input)


logsigmoid = getattr(_activation, "logsigmoid", _logsigmoid)


def dropout(
    input: Tensor,
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
    generator: Generator | None = None,
) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (inverted dropout); the identity when not ``training``.

    The mask is drawn from dyngrad's Generator (``generator`` or the default one), so
    ``dyngrad.manual_seed`` makes it reproducible (the values differ from PyTorch's).
    Raises:
        ValueError: ``p`` outside ``[0, 1]``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    dt = input.data.dtype
    if p == 1.0:
        scale = np.zeros(input.shape, dt)
    else:
        scale = (_gen(generator).random(input.shape) >= p).astype(dt) / np.asarray(1 - p, dt)
    if inplace:
        return input.mul_(Tensor._make(scale))
    return input * Tensor._make(scale)


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


def _vnorm(x: Tensor, p: float, dim: int) -> Tensor:
    if p == 2:
        return (x * x).sum(dim, keepdim=True).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=True)
    return (x.abs() ** p).sum(dim, keepdim=True) ** (1.0 / p)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``.

    Raises: IndexError: ``dim`` out of range.
    """
    dim = norm_dim(dim, input.ndim, "normalize")
    return input / _vnorm(input, p, dim).clamp(min=eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1/||x1|| * x2/||x2||, dim)`` with each norm clamped to ``>= eps`` (PyTorch's
    formulation, stable for large inputs). Inputs broadcast.

    Raises: RuntimeError when the shapes do not broadcast; IndexError for a bad ``dim``.
    """
    shape = B.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    dim = norm_dim(dim, len(shape), "cosine_similarity")
    if tuple(x1.shape) != shape:
        x1 = x1.expand(shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(shape)
    n1 = _vnorm(x1, 2, dim).clamp(min=eps)
    n2 = _vnorm(x2, 2, dim).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim."""
    d = _vnorm(x1 - x2 + eps, p, -1)
    return d if keepdim else d.squeeze(-1)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or crop, with negative values) the last ``len(pad) // 2`` dims:
    ``pad = (last_left, last_right, 2nd_last_left, ...)``.

    Uses ``dyngrad.ops.pad`` when the op library provides one (other modes); else constant
    mode here. Raises: ValueError for an odd-length ``pad`` or too many dims;
    NotImplementedError for other modes without ``ops.pad``.
    """
    from .. import ops as _ops

    if hasattr(_ops, "pad") and _ops.pad is not pad:
        return _ops.pad(input, pad, mode=mode, value=value)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(
            f"pad: Padding length must be divisible by 2 and at most twice the number of dims ({input.ndim}), got {len(pad)}"
        )
    if mode != "constant":
        raise NotImplementedError(f"pad: mode '{mode}' is not implemented (only 'constant')")
    from ..ops.conv import ConstantPad

    return ConstantPad.apply(input, pad, 0.0 if value is None else float(value))
