"""Normalisation layers: LayerNorm, BatchNorm1d, BatchNorm2d, GroupNorm."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import functional as F
from . import init
from .layers import _empty
from .module import Module

__all__ = ["LayerNorm", "BatchNorm1d", "BatchNorm2d", "GroupNorm"]


class LayerNorm(Module):
    """Layer normalisation over the last dims ``normalized_shape``: ``y = (x - mean) / sqrt(var + eps)
    * weight + bias``, the (biased) statistics per sample (Ba et al. 2016); ``weight`` ones,
    ``bias`` zeros. See :func:`dyngrad.nn.functional.layer_norm`.

    Derivative: ``grad_input = (w / sigma) * (g - mean(g) - x_hat * mean(g * x_hat))`` with ``g =
    grad_output``, the means over the normalised dims, ``x_hat`` the normalised input; ``grad_weight
    = sum(g * x_hat)``, ``grad_bias = sum(g)`` over the leading dims (PyTorch's
    ``native_layer_norm_backward``).

    Args:
        normalized_shape (int or tuple of int): the trailing shape to normalise over.
        eps (float): added to the variance. Default: ``1e-5``.
        elementwise_affine (bool): learn ``weight`` and ``bias`` of ``normalized_shape``. Default:
            ``True``.
        bias (bool): learn the bias (with ``elementwise_affine``). Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        RuntimeError: (at call time) when the input's trailing shape is not ``normalized_shape``.
    Shape:
        - Input: ``(*, *normalized_shape)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> y = nn.LayerNorm(4)(dyngrad.tensor([[1.0, 2.0, 3.0, 4.0]]))
        >>> round(y.mean().item(), 6), round(y.var(unbiased=False).item(), 3)
        (0.0, 1.0)
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, (int, np.integer)):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = _empty(self.normalized_shape, dtype)
            if bias:
                self.bias = _empty(self.normalized_shape, dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class _BatchNorm(Module):
    _dims: tuple = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        _bias: bool = True,  # (the ``bias=`` keyword of nn/norm_instance.py's _NormBase)
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = _empty((num_features,), dtype)
            if _bias:
                self.bias = _empty((num_features,), dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            nd = B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np
            self.register_buffer("running_mean", Tensor._make(np.zeros(num_features, nd)))
            self.register_buffer("running_var", Tensor._make(np.ones(num_features, nd)))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean._data[...] = 0
            self.running_var._data[...] = 1
            self.num_batches_tracked._data[...] = 0

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        """Batch statistics in training (or without running stats), running stats in eval."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        counting = self.training and self.track_running_stats
        if counting and self.momentum is None:  # a cumulative average: this batch included
            factor = 1.0 / (float(self.num_batches_tracked._data) + 1)
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        out = F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )
        if counting:  # counted once batch_norm has updated the running stats: an update it
            # refused (one value per example into a buffer, under vmap) changes no buffer
            self.num_batches_tracked._data[...] += 1
            self.num_batches_tracked._bump()
        return out

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L): ``y = (x - mean) / sqrt(var + eps) * weight +
    bias``, the statistics per channel ``C`` over the batch (and spatial) dims; in training the
    batch's (biased variance for normalising, unbiased for the running average), in eval the running
    ones (Ioffe & Szegedy 2015).

    Derivative: in training, through the batch statistics: ``grad_input = (w / sigma) * (g - mean(g)
    - x_hat * mean(g * x_hat))`` with ``g = grad_output``, the means over all but the channel dim,
    ``x_hat`` the normalised input and ``sigma = sqrt(var + eps)``; in eval (running stats) the map
    is affine, ``grad_input = w / sigma * g``. ``grad_weight = sum(g * x_hat)``, ``grad_bias =
    sum(g)`` (PyTorch's ``native_batch_norm_backward``).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        momentum (float or None): the running stats' update ``r = (1 - momentum) * r + momentum *
            batch``; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool): learn ``weight`` (ones) and ``bias`` (zeros) of shape ``(C,)``. Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``, ``running_var`` and
            ``num_batches_tracked`` buffers for eval mode (without them eval uses the batch
            statistics). Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, or a single value per channel in
            training.
        RuntimeError: (at call time) when the input's channel count is not ``num_features``.
    Shape:
        - Input: ``(N, C)`` or ``(N, C, L)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> bn = nn.BatchNorm1d(2)
        >>> y = bn(dyngrad.tensor([[1.0, 10.0], [3.0, 30.0]]))
        >>> y
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]], grad_fn=<...>)
        >>> bn.running_mean                          # 0.9 * 0 + 0.1 * batch mean
        tensor([0.2000, 2.0000])
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W): ``y = (x - mean) / sqrt(var + eps) * weight + bias``, the
    statistics per channel ``C`` over the batch (and spatial) dims; in training the batch's (biased
    variance for normalising, unbiased for the running average), in eval the running ones (Ioffe &
    Szegedy 2015).

    Derivative: in training, through the batch statistics: ``grad_input = (w / sigma) * (g - mean(g)
    - x_hat * mean(g * x_hat))`` with ``g = grad_output``, the means over all but the channel dim,
    ``x_hat`` the normalised input and ``sigma = sqrt(var + eps)``; in eval (running stats) the map
    is affine, ``grad_input = w / sigma * g``. ``grad_weight = sum(g * x_hat)``, ``grad_bias =
    sum(g)`` (PyTorch's ``native_batch_norm_backward``).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        momentum (float or None): the running stats' update ``r = (1 - momentum) * r + momentum *
            batch``; ``None`` for a cumulative average. Default: ``0.1``.
        affine (bool): learn ``weight`` (ones) and ``bias`` (zeros) of shape ``(C,)``. Default:
            ``True``.
        track_running_stats (bool): keep ``running_mean``, ``running_var`` and
            ``num_batches_tracked`` buffers for eval mode (without them eval uses the batch
            statistics). Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, or a single value per channel in
            training.
        RuntimeError: (at call time) when the input's channel count is not ``num_features``.
    Shape:
        - Input: ``(N, C, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> bn = nn.BatchNorm2d(2)
        >>> y = bn(dyngrad.tensor([[[[1.0]], [[2.0]]], [[[3.0]], [[6.0]]]]))
        >>> [round(v, 4) for v in y.flatten().tolist()]
        [-1.0, -1.0, 1.0, 1.0]
        >>> bn.running_var                           # 0.9 * 1 + 0.1 * unbiased batch variance
        tensor([1.1000, 1.7000])
    """

    _dims = (4,)


class GroupNorm(Module):
    """Group normalisation: the ``num_channels`` channels split into ``num_groups`` groups, each
    normalised per sample over its channels and spatial dims, then a per-channel affine map (Wu & He
    2018). See :func:`dyngrad.nn.functional.group_norm`.

    Derivative: the layer-norm derivative within each group (``grad_input = (w / sigma) * (g -
    mean(g) - x_hat * mean(g * x_hat))``, the means per sample and group; PyTorch's
    ``native_group_norm_backward``).

    Args:
        num_groups (int): the number of groups, dividing ``num_channels``.
        num_channels (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        affine (bool): learn per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: when ``num_channels`` is not divisible by ``num_groups`` (``ZeroDivisionError``
            for 0 groups, as PyTorch).
        RuntimeError: (at call time) when the input's channels are not divisible by ``num_groups``.
    Shape:
        - Input: ``(N, C, *)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> y = nn.GroupNorm(2, 4)(dyngrad.arange(8.0).reshape(1, 4, 2))
        >>> [round(v, 4) for v in y[0, :2].flatten().tolist()]
        [-1.3416, -0.4472, 0.4472, 1.3416]
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = _empty((num_channels,), dtype)
            self.bias = _empty((num_channels,), dtype)
            init.ones_(self.weight)
            init.zeros_(self.bias)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"
