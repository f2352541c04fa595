"""Basic layers: Identity, Linear, Bilinear, Flatten, Unflatten, Dropout, Embedding."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout", "Embedding"]


def _empty(shape: tuple, dtype: Any) -> Parameter:
    nd = B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np
    return Parameter(Tensor._make(np.zeros(shape, dtype=nd)))


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Linear(Module):
    """``y = x W^T + b``: ``(*, in_features) -> (*, out_features)``.

    ``weight (out, in)`` ~ kaiming_uniform_(a=sqrt(5)) = ``U(-1/sqrt(in), 1/sqrt(in))`` and
    ``bias (out)`` ~ ``U(-1/sqrt(in), 1/sqrt(in))``, PyTorch's defaults.

    Args:
        in_features (int): size of each input's last dimension.
        out_features (int): size of each output's last dimension.
        bias (bool): learn an additive bias (default True).
        device: only ``"cpu"`` (or None) is accepted.
        dtype: the parameters' dtype (default: the default float dtype).

    Shape:
        input ``(*, in_features)``, output ``(*, out_features)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> layer = nn.Linear(3, 2)
        >>> layer.weight.shape, layer.bias.shape
        (dyngrad.Size([2, 3]), dyngrad.Size([2]))
        >>> y = layer(dyngrad.randn(4, 3))
        >>> y.shape
        dyngrad.Size([4, 2])
        >>> y.sum().backward()
        >>> layer.bias.grad                       # d sum(y) / d b: one per sample
        tensor([4., 4.])
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _empty((out_features, in_features), dtype)
        if bias:
            self.bias = _empty((out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
        )


class Bilinear(Module):
    """``y = x1^T A x2 + b``: ``(*, in1), (*, in2) -> (*, out)``; weight and bias
    ``U(-1/sqrt(in1), 1/sqrt(in1))`` as PyTorch."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = _empty((out_features, in1_features, in2_features), dtype)
        if bias:
            self.bias = _empty((out_features,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class Flatten(Module):
    """Flatten dims ``start_dim..end_dim`` into one: ``(N, *) -> (N, prod(*))`` by default.

    Args:
        start_dim (int): the first dim to flatten (default 1: keep the batch dim).
        end_dim (int): the last dim to flatten (default -1).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Flatten()(dyngrad.zeros(2, 3, 4)).shape
        dyngrad.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim ``dim`` into ``unflattened_size``: ``(*, S, *) -> (*, s1, s2, ..., *)``."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        d = self.dim % input.ndim
        shape = tuple(input.shape[:d]) + self.unflattened_size + tuple(input.shape[d + 1 :])
        return input.reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """Zero elements with probability ``p`` in training (scaling the rest by
    ``1 / (1 - p)``); the identity in eval mode.

    Raises: ValueError for ``p`` outside [0, 1].

    Args:
        p (float): the probability of zeroing an element (default 0.5).
        inplace (bool): overwrite the input.

    Shape:
        input ``(*)``, output ``(*)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> drop = nn.Dropout(0.5)
        >>> y = drop(dyngrad.ones(8))
        >>> sorted(set(y.tolist())) in ([0.0, 2.0], [2.0], [0.0])
        True
        >>> drop.eval()(dyngrad.ones(3))             # identity in eval mode
        tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zero whole channels with probability ``p`` in training (scaling the rest by
    ``1 / (1 - p)``): input ``(N, C, L)`` or ``(C, L)``, one draw per ``(N, C)`` channel
    (:func:`dyngrad.nn.functional.dropout1d`); the identity in eval mode.

    Args:
        p: probability of zeroing a channel, in [0, 1].
        inplace: write the result into the input.
    Raises:
        ValueError: for ``p`` outside [0, 1].

    Example:
        >>> import dyngrad
        >>> m = dyngrad.nn.Dropout1d(0.5)
        >>> y = m(dyngrad.ones(4, 8, 3))
        >>> bool(((y == 0) | (y == 2)).all()), tuple(y.shape)
        (True, (4, 8, 3))
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """:class:`Dropout1d` for ``(N, C, H, W)`` or ``(C, H, W)`` inputs: one draw per channel
    (:func:`dyngrad.nn.functional.dropout2d`, with PyTorch's warning for 3-d inputs).

    Args:
        p: probability of zeroing a channel, in [0, 1].
        inplace: write the result into the input.

    Example:
        >>> import dyngrad
        >>> y = dyngrad.nn.Dropout2d(0.5)(dyngrad.ones(2, 4, 3, 3))
        >>> sorted({float(v) for v in y.flatten()} - {0.0, 2.0})
        []
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """:class:`Dropout1d` for ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs: one draw per
    channel (:func:`dyngrad.nn.functional.dropout3d`).

    Args:
        p: probability of zeroing a channel, in [0, 1].
        inplace: write the result into the input.

    Example:
        >>> import dyngrad
        >>> m = dyngrad.nn.Dropout3d(0.5).eval()  # the identity in eval mode
        >>> bool((m(dyngrad.ones(1, 2, 2, 2, 2)) == 1).all())
        True
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout that keeps a SELU network's mean and variance (Klambauer et al. 2017):
    dropped elements take SELU's negative saturation value and an affine map restores the
    moments (:func:`dyngrad.nn.functional.alpha_dropout`); the identity in eval mode.

    Args:
        p: probability of dropping an element, in [0, 1].
        inplace: write the result into the input.

    Example:
        >>> import dyngrad
        >>> dyngrad.manual_seed(0)  # doctest: +ELLIPSIS
        <...>
        >>> y = dyngrad.nn.AlphaDropout(0.2)(dyngrad.randn(20000))
        >>> abs(float(y.mean())) < 0.05 and abs(float(y.std()) - 1) < 0.05
        True
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    """:class:`AlphaDropout` of whole channels
    (:func:`dyngrad.nn.functional.feature_alpha_dropout`).

    Args:
        p: probability of dropping a channel, in [0, 1].
        inplace: write the result into the input.

    Example:
        >>> import dyngrad
        >>> y = dyngrad.nn.FeatureAlphaDropout(0.5)(dyngrad.ones(3, 4, 5))
        >>> all(len({float(v) for v in ch.flatten()}) == 1 for ch in y.reshape(12, 5))
        True
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)


class Embedding(Module):
    """A lookup table: int indices ``(*)`` -> ``(*, embedding_dim)``; weight ~ ``N(0, 1)``
    with the ``padding_idx`` row zeroed (PyTorch's default).

    Args:
        num_embeddings (int): the number of rows (the vocabulary size).
        embedding_dim (int): the size of each row.
        padding_idx (int, optional): a row that stays zero and gets no gradient.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the p of the norm for ``max_norm``.
        scale_grad_by_freq (bool): divide gradients by the indices' frequency in the batch.
        sparse (bool): accepted; gradients are dense.
        device: only ``"cpu"`` (or None) is accepted.
        dtype: the weight's dtype.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> emb = nn.Embedding(10, 3, padding_idx=0)
        >>> out = emb(dyngrad.tensor([[0, 2], [4, 0]]))
        >>> out.shape, out[0, 0].abs().sum().item()
        (dyngrad.Size([2, 2, 3]), 0.0)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = _empty((num_embeddings, embedding_dim), dtype)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None, **kw: Any
    ) -> Embedding:
        """An Embedding holding ``embeddings (num, dim)`` (frozen by default)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        n, d = embeddings.shape
        return cls(n, d, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze, **kw)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s
