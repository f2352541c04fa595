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
    """Returns its input unchanged (any constructor arguments are accepted and ignored, as PyTorch's).

    Gradient flows through unchanged.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> x = dyngrad.ones(2)
        >>> nn.Identity(54, unused="x")(x) is x
        True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Linear(Module):
    """Affine map ``y = x W^T + b`` over the last dimension.

    ``weight (out, in)`` ~ kaiming_uniform_(a=sqrt(5)) = ``U(-1/sqrt(in), 1/sqrt(in))`` and
    ``bias (out)`` ~ ``U(-1/sqrt(in), 1/sqrt(in))``, PyTorch's defaults.

    Derivative: ``grad_input = grad_output @ W``, ``grad_weight = grad_output^T @ input``
    (summed over the leading dims), ``grad_bias = grad_output.sum`` over all but the last dim
    (PyTorch's ``addmm``/``linear`` entries).

    Args:
        in_features (int): size of each input's last dimension.
        out_features (int): size of each output's last dimension.
        bias (bool): learn an additive bias. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: when a feature count is negative (PyTorch: RuntimeError).
        RuntimeError: (at call time) when the input's last dim is not ``in_features``.
    Shape:
        - Input: ``(*, in_features)``.
        - Output: ``(*, out_features)``.
        - weight: ``(out_features, in_features)``; bias: ``(out_features,)``.

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
    """Bilinear map ``y_k = x1^T A_k x2 + b_k`` for each output feature ``k``.

    Weight and bias start ``U(-1/sqrt(in1), 1/sqrt(in1))`` as PyTorch's. See
    :func:`dyngrad.nn.functional.bilinear`.

    Derivative: ``grad_x1 = sum_k grad_k * A_k @ x2``, ``grad_x2 = sum_k grad_k * A_k^T @ x1``,
    ``grad_A_k = sum grad_k * x1 x2^T``, ``grad_b = grad_output.sum`` (the product rule).

    Args:
        in1_features (int): size of ``input1``'s last dimension.
        in2_features (int): size of ``input2``'s last dimension.
        out_features (int): size of the output's last dimension.
        bias (bool): learn an additive bias. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        RuntimeError: (at call time) when the inputs' feature sizes or leading dims do not fit.
    Shape:
        - Input1: ``(*, in1_features)``; Input2: ``(*, in2_features)``, the same ``*``.
        - Output: ``(*, out_features)``.
        - weight: ``(out_features, in1_features, in2_features)``; bias: ``(out_features,)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.Bilinear(2, 3, 4)
        >>> m(dyngrad.randn(5, 2), dyngrad.randn(5, 3)).shape
        dyngrad.Size([5, 4])
    """

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
    """Flatten dims ``start_dim..end_dim`` into one (a view when possible): ``(N, *) -> (N, prod(*))``
    by default.

    Gradient flows through (a reshape back to the input's shape).

    Args:
        start_dim (int): the first dim to flatten. Default: ``1`` (keep the batch dim).
        end_dim (int): the last dim to flatten. Default: ``-1``.
    Raises:
        IndexError: (at call time) when a dim is out of range for the input.
        RuntimeError: (at call time) when ``start_dim`` comes after ``end_dim``.
    Shape:
        - Input: ``(*, S_start, ..., S_end, *)``.
        - Output: ``(*, S_start * ... * S_end, *)``.

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
    """Expand dim ``dim`` into the sizes ``unflattened_size`` (:meth:`Tensor.unflatten`; one size may
    be -1).

    Gradient flows through (a reshape back to the input's shape).

    Args:
        dim (int): the dim to expand.
        unflattened_size (tuple of int): the new sizes, whose product is ``input.shape[dim]``.
    Raises:
        TypeError: when ``unflattened_size`` is not a tuple or list.
        IndexError: (at call time) when ``dim`` is out of range for the input.
        RuntimeError: (at call time) when the sizes do not multiply up to ``input.shape[dim]``.
    Shape:
        - Input: ``(*, S_dim, *)``.
        - Output: ``(*, U_1, ..., U_n, *)`` with ``U = unflattened_size``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Unflatten(1, (2, -1))(dyngrad.zeros(4, 6)).shape
        dyngrad.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"Unflatten: unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}"
            )
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    """Zero elements with probability ``p`` in training (scaling the rest by
    ``1 / (1 - p)``, so the expectation is unchanged); the identity in eval mode. The mask
    comes from the default Generator (``dyngrad.manual_seed``).

    Derivative: ``grad_input = grad_output * mask / (1 - p)`` (the same mask; PyTorch's
    ``native_dropout_backward``).

    Args:
        p (float): the probability of zeroing an element. Default: ``0.5``.
        inplace (bool): overwrite the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
    Shape:
        - Input: ``(*)``.
        - Output: ``(*)``, the input's shape.

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
    ``1 / (1 - p)``): one draw per ``(N, C)`` channel (:func:`dyngrad.nn.functional.dropout1d`);
    the identity in eval mode.

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``L``.

    Args:
        p (float): probability of zeroing a channel, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
        RuntimeError: (at call time) for an input that is not 2-d or 3-d.
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: the input's shape.

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
    """:class:`Dropout1d` for 2-D feature maps: one draw per channel
    (:func:`dyngrad.nn.functional.dropout2d`, with PyTorch's warning for 3-d inputs, which it
    treats as unbatched ``(C, H, W)``).

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``H, W``.

    Args:
        p (float): probability of zeroing a channel, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
        RuntimeError: (at call time) for an input with fewer than 2 dims.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> y = dyngrad.nn.Dropout2d(0.5)(dyngrad.ones(2, 4, 3, 3))
        >>> sorted({float(v) for v in y.flatten()} - {0.0, 2.0})
        []
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """:class:`Dropout1d` for 3-D feature maps: one draw per channel
    (:func:`dyngrad.nn.functional.dropout3d`).

    Derivative: ``grad_input = grad_output * mask / (1 - p)``, the mask broadcast over ``D, H, W``.

    Args:
        p (float): probability of zeroing a channel, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: the input's shape.

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
    dropped elements take SELU's negative saturation value ``-scale * alpha`` and an affine
    map ``a * x + b`` restores the moments (:func:`dyngrad.nn.functional.alpha_dropout`); the
    identity in eval mode.

    Derivative: ``grad_input = grad_output * a * keep_mask`` (PyTorch composes it the same way).

    Args:
        p (float): probability of dropping an element, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
    Shape:
        - Input: ``(*)``.
        - Output: ``(*)``, the input's shape.

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
    """:class:`AlphaDropout` of whole channels: one draw per ``(N, C)``
    (:func:`dyngrad.nn.functional.feature_alpha_dropout`).

    Derivative: ``grad_input = grad_output * a * keep_mask``, the mask broadcast over the
    spatial dims.

    Args:
        p (float): probability of dropping a channel, in [0, 1]. Default: ``0.5``.
        inplace (bool): write the result into the input. Default: ``False``.
    Raises:
        ValueError: when ``p`` is outside [0, 1].
        RuntimeError: (at call time) for an input with fewer than 2 dims.
    Shape:
        - Input: ``(N, C, *)`` or ``(C, *)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> y = dyngrad.nn.FeatureAlphaDropout(0.5)(dyngrad.ones(3, 4, 5))
        >>> all(len({float(v) for v in ch.flatten()}) == 1 for ch in y.reshape(12, 5))
        True
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)


class Embedding(Module):
    """A lookup table: row ``i`` of ``weight`` for each int index ``i``; weight ~ ``N(0, 1)``
    with the ``padding_idx`` row zeroed (PyTorch's default). See
    :func:`dyngrad.nn.functional.embedding`.

    Derivative: ``grad_weight[i] = sum of grad_output over the positions holding index i``
    (none for ``padding_idx``; PyTorch's ``embedding_dense_backward``). Indices get no gradient.

    Args:
        num_embeddings (int): the number of rows (the vocabulary size).
        embedding_dim (int): the size of each row.
        padding_idx (int, optional): a row that stays zero and gets no gradient; negative counts
            from the end. Default: ``None``.
        max_norm (float, optional): renormalise looked-up rows (in place) to at most this norm.
            Default: ``None``.
        norm_type (float): the p of the norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq (bool): PyTorch divides gradients by the indices' frequency in the batch;
            not supported here (``True`` raises at call time). Default: ``False``.
        sparse (bool): PyTorch's sparse gradients; not supported here (``True`` raises at call
            time). Default: ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the weight's dtype. Default: the default float dtype.
    Raises:
        AssertionError: when ``padding_idx`` is outside ``[-num_embeddings, num_embeddings)`` (as
            PyTorch).
        IndexError: (at call time) for an index outside ``[0, num_embeddings)``.
        RuntimeError: (at call time) for indices that are not integers.
        NotImplementedError: (at call time) with ``scale_grad_by_freq=True`` or ``sparse=True``.
    Shape:
        - Input: ``(*)``, int64 or int32 indices.
        - Output: ``(*, embedding_dim)``.
        - weight: ``(num_embeddings, embedding_dim)``.

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
