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
from ..autograd.function import Function, set_array_backward
from ..creation import Generator
from ..ops import _array_backward, relu, relu_, sigmoid, tanh
from ..ops import activation as _activation
from ..ops import fused as _fused
from ..ops import random as _random
from ..ops._util import binary_operands, norm_dim, wrap
from ..ops.activation import *  # noqa: F403
from ..ops.fused import log_softmax, softmax
from ..tensor import Tensor
from . import (
    _functional_conv,
    _functional_conv_transpose,
    _functional_fold,
    _functional_grid,
    _functional_loss,
    _functional_loss_extra,
    _functional_norm,
    _functional_norm_extra,
    _functional_pool,
    _functional_resample,
)
from ._functional_conv import *  # noqa: F403
from ._functional_conv_transpose import *  # noqa: F403
from ._functional_fold import *  # noqa: F403
from ._functional_grid import *  # noqa: F403
from ._functional_loss import *  # noqa: F403
from ._functional_loss_extra import *  # noqa: F403
from ._functional_norm import *  # noqa: F403
from ._functional_norm_extra import *  # noqa: F403
from ._functional_pool import *  # noqa: F403
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
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
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
__all__ += list(_functional_grid.__all__) + list(_functional_pool.__all__)


class Linear(Function):
    """``out = x @ W^T + b`` for ``x (*, in)``, ``W (out, in)``, ``b (out)``.

    ``grad_x = grad @ W``; ``grad_W = grad^T @ x`` (batch dims flattened);
    ``grad_b = sum(grad over batch dims)``.
    """

    trusted = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, b: Tensor | None = None) -> Tensor:
        if isinstance(x, Tensor) and isinstance(w, Tensor) and x.dtype != w.dtype:
            raise RuntimeError(f"linear: expected input and weight to have the same dtype, but got "
                               f"input {x.dtype} and weight {w.dtype} (PyTorch: 'mat1 and mat2 must have "
                               "the same dtype')")
        if isinstance(b, Tensor) and isinstance(w, Tensor) and b.dtype != w.dtype:
            raise RuntimeError(f"linear: expected bias and weight to have the same dtype, but got "
                               f"bias {b.dtype} and weight {w.dtype}")
        xd, wd, _ = binary_operands(x, w)
        if w._data.ndim not in (1, 2):
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
            bd = b._data
            if bd.ndim <= 1 and bd.dtype == out.dtype and out.ndim:
                out += bd  # into the fresh product: no second output array
            else:
                out = out + bd
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


set_array_backward(Linear, _array_backward.linear)  # first-order backward on ndarrays (engine invariant 6)


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

    Derivative: ``grad_input = grad_output @ weight``, ``grad_weight = grad_output.T @ input``
    (the leading dims flattened), ``grad_bias = grad_output`` summed over the leading dims.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> x = dyngrad.ones(4, 3)
        >>> w = dyngrad.ones(2, 3, requires_grad=True)
        >>> F.linear(x, w, dyngrad.zeros(2))
        tensor([[3., 3.],
                [3., 3.],
                [3., 3.],
                [3., 3.]], grad_fn=<AddmmBackward0>)
    """
    if bias is None:
        return Linear.apply(input, weight)
    return Linear.apply(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Bilinear map: ``out[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]``.

    Derivative: ``grad_x1 = sum_o g_o W[o] @ x2``, ``grad_x2 = sum_o g_o W[o]^T @ x1``, ``grad_W[o]
    = sum g_o x1 x2^T``, ``grad_b = sum g`` (the product rule; PyTorch's ``bilinear`` composite).

    Args:
        input1 (Tensor): ``(*, in1)``.
        input2 (Tensor): ``(*, in2)``, the same leading dims.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``. Default: ``None``.
    Returns:
        Tensor: ``(*, out)``.
    Raises:
        RuntimeError: mismatched feature or batch sizes (all shapes named).

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.bilinear(dyngrad.ones(1, 2), dyngrad.ones(1, 3), dyngrad.ones(4, 2, 3), dyngrad.zeros(4))
        tensor([[6., 6., 6., 6.]])
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
    """Softmin along ``dim``: ``softmax(-input, dim)``, so small values get the large weights.

    Derivative: the softmax derivative applied to ``-input``: ``grad_input = -y * (g - (g *
    y).sum(dim, keepdim=True))``.

    Args:
        input (Tensor): ``(*)``.
        dim (int, optional): the dimension that sums to 1; ``None`` picks one by PyTorch's legacy
            rule, with a warning. Default: ``None``.
        dtype (dyngrad.dtype, optional): cast the input to this dtype first. Default: ``None``.
    Returns:
        Tensor: ``(*)``, the input's shape.
    Raises:
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.softmin(dyngrad.tensor([[0.0, 1.0]]), dim=1)
        tensor([[0.7311, 0.2689]])
    """
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

    The result is ``input * mask`` with ``mask`` a random draw (``ops.random.dropout_mask``),
    so the gradient is ``grad * mask / (1 - p)`` and the node is ``MulBackward0`` (as in
    PyTorch 2.13 on CPU). Inside vmap the mask follows ``randomness`` (one mask per example
    with 'different', one shared by the batch with 'same'). The mask is drawn from dyngrad's
    Generator (``generator``, a dyngrad extension, or the default one), so
    ``dyngrad.manual_seed`` makes it reproducible (the values differ from PyTorch's).
    Raises:
        ValueError: ``p`` outside ``[0, 1]``.

    Args:
        input (Tensor): ``(*)``.
        p (float): the probability of zeroing an element, in ``[0, 1]``.
        training (bool): apply dropout (False: return ``input`` unchanged).
        inplace (bool): overwrite ``input``.
        generator (Generator, optional): draw the mask from this Generator.
    Returns:
        Tensor: ``(*)``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> y = F.dropout(dyngrad.ones(1000), p=0.25)
        >>> sorted(set(y.tolist()))                  # dropped, or scaled by 1 / (1 - p)
        [0.0, 1.3333333730697632]
        >>> F.dropout(dyngrad.ones(3), training=False)
        tensor([1., 1., 1.])
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    mask = _random.dropout_mask(input, p, generator)
    if inplace:
        return input.mul_(mask)
    return input * mask


def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_shape(input: Tensor) -> Tensor:
    """A view of ``input`` of shape ``(N, C, 1, ..., 1)``: the shape of a feature-dropout
    mask (one draw per channel of each sample), as PyTorch's ``make_feature_noise``."""
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    view = input
    for d in range(2, input.ndim):
        view = view.narrow(d, 0, 1)
    return view


def _apply_mask(input: Tensor, mask: Tensor, inplace: bool) -> Tensor:
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, alpha: Any = False) -> Tensor:
    """PyTorch's ``_dropout_impl`` for feature (channel-wise) dropout (``alpha`` False), alpha
    dropout (True) and feature alpha dropout (``"feature"``)."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    like = _feature_shape(input) if not alpha or alpha == "feature" else input
    if not alpha:
        return _apply_mask(input, _random.dropout_mask(like, p), inplace)
    keep = _random.keep_mask(like, p)
    k = 1.7580993408473766  # SELU's alpha * scale: the value a dropped unit takes is -k
    a = 1.0 / float(np.sqrt((k * k * p + 1) * (1 - p)))
    b = (keep - 1) * (k * a) + k * a * p
    out = _apply_mask(input, keep * a, inplace)
    return out.add_(b) if inplace else out + b


def _unbatched(input: Tensor, inplace: bool, fn: Any) -> Tensor:
    """``fn`` on ``input`` with a batch dim of 1 added in front (removed after)."""
    if inplace:
        fn(input.unsqueeze(0))  # a view: the in-place op writes into input
        return input
    return fn(input.unsqueeze(0)).squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels: each channel of each sample with probability ``p``, the rest scaled by ``1
    / (1 - p)``; the identity unless ``training``.

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``L``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        p (float): the probability of dropping, in [0, 1]. Default: ``0.5``.
        training (bool): apply it. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.
    Returns:
        Tensor: the input's shape.
    Raises:
        RuntimeError: another number of dims.
        ValueError: ``p`` outside ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> y = F.dropout1d(dyngrad.ones(4, 8, 3), 0.5)
        >>> bool(((y == 0) | (y == 2)).all())
        True
    """
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
            "dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    if input.ndim == 2:
        return _unbatched(input, inplace, lambda x: _feature_dropout(x, p, training, inplace))
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` input (see :func:`dropout1d`). As PyTorch 2.13, a 3-D
    input is read as ``(N, C, L)`` (with a warning) and other ranks are deprecated (a warning): the
    mask is drawn per entry of the first two dims.

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``H, W``.

    Args:
        input (Tensor): ``(N, C, H, W)`` (or ``(C, H, W)``, read as above).
        p (float): the probability of dropping, in [0, 1]. Default: ``0.5``.
        training (bool): apply it. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.
    Returns:
        Tensor: the input's shape.
    Raises:
        ValueError: ``p`` outside ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.dropout2d(dyngrad.ones(2, 3, 4, 5), 1.0).sum()
        tensor(0.)
    """
    import warnings

    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, please use "
            "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
            "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
            "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
            "will change in a future release to interpret the input as one without a batch dimension, i.e. "
            "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
            "dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input (see :func:`dropout1d`);
    other ranks are deprecated (a warning, as PyTorch 2.13), and read as unbatched unless 5-D.

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``D, H, W``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        p (float): the probability of dropping, in [0, 1]. Default: ``0.5``.
        training (bool): apply it. Default: ``True``.
        inplace (bool): write the result into ``input``. Default: ``False``.
    Returns:
        Tensor: the input's shape.
    Raises:
        ValueError: ``p`` outside ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.dropout3d(dyngrad.ones(1, 2, 2, 2, 2), 0.5, training=False).sum()
        tensor(16.)
    """
    import warnings

    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result "
            "in an error in a future release. To retain the behavior and silence this warning, please use "
            "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
            "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.ndim != 5:
        return _unbatched(input, inplace, lambda x: _feature_dropout(x, p, training, inplace))
    return _feature_dropout(input, p, training, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: a dropped unit takes SELU's negative saturation value and the result
    is rescaled so that mean and variance are kept (PyTorch's formula: ``a * (x * keep - k * (1 -
    keep)) + k * a * p`` with ``k = 1.7580993408473766`` and ``a = 1 / sqrt((k^2 p + 1)(1 - p))``;
    Klambauer et al. 2017). The identity unless ``training`` (default False, as PyTorch); zeros for
    ``p = 1``.

    Derivative: ``grad_input = a * keep * grad_output`` (the same mask).

    Args:
        input (Tensor): ``(*)``.
        p (float): the probability of dropping, in [0, 1]. Default: ``0.5``.
        training (bool): apply it (else the identity). Default: ``False``.
        inplace (bool): write the result into ``input``. Default: ``False``.
    Returns:
        Tensor: ``(*)``, the input's shape.
    Raises:
        ValueError: ``p`` outside ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.alpha_dropout(dyngrad.ones(3), 0.5)          # training=False: the identity
        tensor([1., 1., 1.])
        >>> F.alpha_dropout(dyngrad.randn(4, 5), 0.2, training=True).shape
        dyngrad.Size([4, 5])
    """
    return _feature_dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` with one draw per channel of each sample (whole channels take the
    saturation value).

    Derivative: ``grad_input = a * keep * grad_output``, the mask broadcast over the spatial dims.

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of dropping, in [0, 1]. Default: ``0.5``.
        training (bool): apply it (else the identity). Default: ``False``.
        inplace (bool): write the result into ``input``. Default: ``False``.
    Returns:
        Tensor: ``(N, C, *)``, the input's shape.
    Raises:
        RuntimeError: fewer than 2 dims (in training).
        ValueError: ``p`` outside ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> y = F.feature_alpha_dropout(dyngrad.ones(3, 4, 5), 0.5, training=True)
        >>> all(len({float(v) for v in ch.flatten()}) == 1 for ch in y.reshape(12, 5))
        True
    """
    return _feature_dropout(input, p, training, inplace, alpha="feature")


def _vnorm(x: Tensor, p: float, dim: int) -> Tensor:
    if p == 1:
        return x.abs().sum(dim, keepdim=True)
    from ..linalg import vector_norm  # deferred: linalg imports the op library

    return vector_norm(x, p, dim, keepdim=True)  # p = 0, +-inf and the rest, as PyTorch's


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim`` (any ``p``, including ``inf``, ``-inf`` and 0,
    as PyTorch).

    Derivative: the quotient rule through :func:`dyngrad.linalg.vector_norm` (2 and 1 are composed
    directly); where the norm is clamped, ``input / eps`` is linear.

    Args:
        input (Tensor): ``(*)``, floating.
        p (float): the norm's exponent. Default: ``2.0``.
        dim (int): the dimension normalised over. Default: ``1``.
        eps (float): the lower bound of the norm. Default: ``1e-12``.
        out (Tensor, optional): not supported (must be ``None``). Default: ``None``.
    Returns:
        Tensor: ``(*)``, the input's shape.
    Raises:
        IndexError: ``dim`` out of range.
        NotImplementedError: an ``out`` tensor.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.normalize(dyngrad.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
        >>> F.normalize(dyngrad.tensor([[3.0, 4.0]]), p=1)
        tensor([[0.4286, 0.5714]])
    """
    dim = norm_dim(dim, input.ndim, "normalize")
    if out is not None:  # was silently ignored
        raise NotImplementedError("normalize: out= is not supported by dyngrad (use the returned tensor)")
    return input / _vnorm(input, p, dim).clamp(min=eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine similarity along ``dim``: ``sum(x1/||x1|| * x2/||x2||, dim)`` with each norm clamped to
    ``>= eps`` (PyTorch's formulation, stable for large inputs). Inputs broadcast.

    Derivative: the quotient rule through the normalised inputs (composed of ``norm``,
    ``clamp_min``, ``div`` and ``sum``, as PyTorch's).

    Args:
        x1 (Tensor): ``(*1, D, *2)``.
        x2 (Tensor): broadcastable with ``x1``.
        dim (int): the dimension reduced. Default: ``1``.
        eps (float): the lower bound of each norm. Default: ``1e-8``.
    Returns:
        Tensor: the broadcast shape without ``dim``, ``(*1, *2)``.
    Raises:
        RuntimeError: shapes that do not broadcast.
        IndexError: a bad ``dim``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.cosine_similarity(dyngrad.tensor([1.0, 0.0]), dyngrad.tensor([1.0, 1.0]), dim=0)
        tensor(0.7071)
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
    """The p-norm distance of rows: ``||x1 - x2 + eps||_p`` over the last dim (any ``p``, including
    ``inf``, ``-inf`` and 0).

    Derivative: through ``sub`` and :func:`dyngrad.linalg.vector_norm`: ``grad_x1 = sign(d)
    |d|**(p-1) / ||d||_p**(p-1) * grad_output``, ``grad_x2`` its negative.

    Args:
        x1 (Tensor): ``(N, D)`` or ``(D,)``.
        x2 (Tensor): broadcastable with ``x1``.
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the difference (avoids a zero norm). Default: ``1e-6``.
        keepdim (bool): keep the reduced dim. Default: ``False``.
    Returns:
        Tensor: ``(N,)`` or ``()`` (``(N, 1)``/``(1,)`` with ``keepdim``).
    Raises:
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.pairwise_distance(dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[3.0, 4.0]]))
        tensor([5.0000])
        >>> F.pairwise_distance(dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[3.0, 4.0]]), p=float('inf'))
        tensor([4.0000])
    """
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
    """A float mask to add to the scores: bool masks become 0 / -inf.

    Raises:
        RuntimeError / AssertionError: an integer mask (PyTorch's types: SDPA / MHA)."""
    if mask.dtype.is_floating_point:
        return mask.to(dtype)
    if mask.dtype.name != "bool":
        if allowed_when_true:
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {mask.dtype.name} and query.dtype: {dtype.name} instead."
            )
        raise AssertionError("only bool and floating types of masks are supported")
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
    blocked = None
    if is_causal:
        scores = scores.masked_fill(~_causal(L, S), float("-inf"))
    elif attn_mask is not None:
        scores = scores + _additive_mask(attn_mask, scores.dtype, allowed_when_true=True)
        # a query whose every key is masked gets zeros (and zero gradients), as PyTorch 2.13's
        # safe softmax: not NaN, which would reach every gradient of the step
        blocked = _ops.isneginf(scores).all(-1, keepdim=True)
        scores = scores.masked_fill(blocked, 0.0)
    attn = softmax(scores, -1)
    if blocked is not None:
        attn = attn.masked_fill(blocked, 0.0)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _ops.matmul(attn, value)
