"""dyngrad.nn.functional: neural-network functions, PyTorch's names, argument order and
defaults. Fused ops (softmax, log_softmax, nll, norms, conv, pooling) have their own
numerically stable Functions in :mod:`dyngrad.ops.fused` and :mod:`dyngrad.ops.conv`; the
rest are compositions of differentiable ops. Every activation of
:mod:`dyngrad.ops.activation` is re-exported here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from .. import ops as _ops
from ..autograd.function import Function
from ..creation import Generator, _gen
from ..ops import activation as _activation
from ..ops import fused as _fused
from ..ops import relu, relu_, sigmoid, tanh
from ..ops._util import binary_operands, norm_dim, wrap
from ..ops.activation import *  # noqa: F403
from ..ops.fused import log_softmax, softmax
from ..tensor import Tensor
from . import (
    _functional_conv,
    _functional_conv_transpose,
    _functional_fold,
    _functional_loss,
    _functional_loss_extra,
    _functional_norm,
    _functional_norm_extra,
    _functional_resample,
)
from ._functional_conv import *  # noqa: F403
from ._functional_conv_transpose import *  # noqa: F403
from ._functional_fold import *  # noqa: F403
from ._functional_loss import *  # noqa: F403
from ._functional_loss_extra import *  # noqa: F403
from ._functional_norm import *  # noqa: F403
from ._functional_norm_extra import *  # noqa: F403
from ._functional_resample import *  # noqa: F403

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
    "cosine_similarity",
    "normalize",
    "pad",
    "pairwise_distance",
    "scaled_dot_product_attention",
]
__all__ += [n for n in _activation.__all__ if n not in __all__]
__all__ += list(_functional_conv.__all__) + list(_functional_conv_transpose.__all__) + list(_functional_resample.__all__)
__all__ += list(_functional_loss.__all__) + list(_functional_norm.__all__)
__all__ += list(_functional_norm_extra.__all__) + list(_functional_fold.__all__) + list(_functional_loss_extra.__all__)


class Linear(Function):
    """``out = x @ W^T + b`` for ``x (*, in)``, ``W (out, in)``, ``b (out)``.

    ``grad_x = grad @ W``; ``grad_W = grad^T @ x`` (batch dims flattened);
    ``grad_b = sum(grad over batch dims)``.
    """

    trusted = True
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

    @staticmethod
    def jvp(ctx: Any, ux: Any, uw: Any, ub: Any = None) -> Any:
        """Forward mode: ``t = ux @ W^T + x @ uW^T + ub`` (product rule; None tangents are 0)."""
        x, w = ctx._fwd_inputs[:2]
        ts = [t for t in (None if ux is None else Linear.apply(ux, w),
                          None if uw is None else Linear.apply(x, uw), ub) if t is not None]
        return sum(ts[1:], ts[0])

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, w: Tensor, b: Tensor | None = None) -> tuple:
        """Batching rule. Shared weight: the batch dim is one more leading dim of ``x``.
        Per-example weights (ensembles): one batched matmul ``(B, M, in) @ (B, in, out)``
        with ``x``'s leading dims flattened to ``M``. A per-example bias is added with size-1
        dims after its batch dim (right-aligned broadcasting)."""
        from ..ops._batching import front, logical_ndim, pad_to

        dx, dw = in_dims[:2]
        db = in_dims[2] if len(in_dims) > 2 else None
        x = front(x, dx)
        lead = tuple(x.shape[:-1] if dx is None else x.shape[1:-1])
        if dw is None:
            y = Linear.apply(x, w)
        else:
            w = front(w, dw)
            w2 = w.unsqueeze(-1) if w.ndim == 2 else w.mT  # (B, in, out) or (B, in, 1)
            xf = x.reshape((-1, x.shape[-1]) if dx is None else (x.shape[0], -1, x.shape[-1]))
            y = _ops.matmul(xf, w2)
            y = y.reshape((info.batch_size,) + lead + (() if w.ndim == 2 else (w.shape[1],)))
        if b is not None:
            y = y + (b if db is None else pad_to(front(b, db), len(lead) + (logical_ndim(w, dw) == 2)))
        return y, 0


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


def _constant_pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or crop, with negative values) the last ``len(pad) // 2`` dims:
    ``pad = (last_left, last_right, 2nd_last_left, ...)``.

    The fallback of ``pad`` when the op library has no ``dyngrad.ops.pad``. Raises:
    ValueError for an odd-length ``pad`` or too many dims; NotImplementedError for modes
    other than 'constant'.
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(
            f"pad: Padding length must be divisible by 2 and at most twice the number of dims ({input.ndim}), got {len(pad)}"
        )
    if mode != "constant":
        raise NotImplementedError(f"pad: mode '{mode}' is not implemented (only 'constant')")
    from ..ops.conv import ConstantPad

    return ConstantPad.apply(input, pad, 0.0 if value is None else float(value))


# The op library's pad (all modes) when it has one; else the constant pad above.
pad = getattr(_ops, "pad", _constant_pad)


# ------------------------------------------------------------------ attention
def _causal(L: int, S: int) -> Tensor:
    return Tensor._make(np.tril(np.ones((L, S), dtype=bool)))


def _additive_mask(mask: Tensor, dtype: Any, allowed_when_true: bool) -> Tensor:
    """A float mask to add to the scores: bool masks become 0 / -inf."""
    if mask.dtype.is_floating_point:
        return mask.to(dtype)
    m = mask.numpy().astype(bool)
    blocked = ~m if allowed_when_true else m
    return Tensor._make(np.where(blocked, -np.inf, 0.0).astype(B.to_np_dtype(dtype)))


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` with dropout on the attention weights.

    Args:
        query (Tensor): ``(N, ..., Hq, L, E)``.
        key (Tensor): ``(N, ..., H, S, E)``.
        value (Tensor): ``(N, ..., H, S, Ev)``.
        attn_mask (Tensor, optional): broadcastable to ``(N, ..., L, S)``; bool (True: may
            attend) or float (added to the scores).
        dropout_p (float): dropout probability on the weights (always applied when > 0, as
            PyTorch's; pass 0.0 in evaluation).
        is_causal (bool): attend only to keys at or before the query's position (the
            top-left aligned lower triangle); excludes ``attn_mask``.
        scale (float, optional): default ``1 / sqrt(E)``.
        enable_gqa (bool): grouped-query attention: ``Hq`` a multiple of ``H``; each key
            and value head serves ``Hq // H`` query heads.

    Returns:
        Tensor: ``(N, ..., Hq, L, Ev)``.

    Raises:
        RuntimeError: ``is_causal`` together with ``attn_mask``; head counts that do not
            match (without ``enable_gqa``, or not divisible); embedding sizes that differ.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> q = k = v = dyngrad.ones(1, 2, 3, 4)
        >>> list(F.scaled_dot_product_attention(q, k, v, is_causal=True).shape)
        [1, 2, 3, 4]
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query and key must have the same embedding size, got "
            f"{query.shape[-1]} and {key.shape[-1]}"
        )
    L, S = query.shape[-2], key.shape[-2]
    if query.dim() >= 3 and key.dim() >= 3 and query.shape[-3] != key.shape[-3]:
        hq, hk = query.shape[-3], key.shape[-3]
        if not enable_gqa or hq % hk:
            raise RuntimeError(
                f"scaled_dot_product_attention: query has {hq} heads and key/value {hk}; pass "
                "enable_gqa=True with a query head count that is a multiple of the key's"
                if not enable_gqa else
                f"scaled_dot_product_attention: with enable_gqa the number of query heads ({hq}) "
                f"must be a multiple of the key/value heads ({hk})"
            )
        g = hq // hk

        def rep(t: Tensor) -> Tensor:  # repeat_interleave(g, dim=-3)
            s = tuple(t.shape)
            return t.unsqueeze(-3).expand(*s[:-2], g, *s[-2:]).reshape(*s[:-3], s[-3] * g, *s[-2:])

        key, value = rep(key), rep(value)
    sc = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = _ops.matmul(query, key.transpose(-2, -1)) * sc
    if is_causal:
        scores = scores.masked_fill(~_causal(L, S), float("-inf"))
    elif attn_mask is not None:
        scores = scores + _additive_mask(attn_mask, scores.dtype, allowed_when_true=True)
    attn = softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _ops.matmul(attn, value)
