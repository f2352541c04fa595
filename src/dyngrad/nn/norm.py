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
    """Normalise the last dims ``normalized_shape``; ``weight`` ones, ``bias`` zeros.

    Args:
        normalized_shape (int or tuple of int): the trailing shape to normalise over.
        eps (float): added to the variance.
        elementwise_affine (bool): learn ``weight`` and ``bias`` of ``normalized_shape``.
        bias (bool): learn the bias (with ``elementwise_affine``).
        device: only ``"cpu"`` (or None) is accepted.
        dtype: the parameters' dtype.

    Shape:
        input ``(*, *normalized_shape)``, output the same.

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
    """Batch norm over ``(N, C)`` or ``(N, C, L)`` (statistics per channel C).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance.
        momentum (float or None): the running stats' update factor (None: a cumulative average).
        affine (bool): learn ``weight`` and ``bias`` of shape ``(C,)``.
        track_running_stats (bool): keep running mean and variance for eval mode.
        device: only ``"cpu"`` (or None) is accepted.
        dtype: the parameters' dtype.

    Shape:
        input ``(N, C)`` or ``(N, C, L)``, output the same.

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
    """Batch norm over ``(N, C, H, W)`` (statistics per channel C)."""

    _dims = (4,)


class GroupNorm(Module):
    """Group norm: ``num_channels`` split into ``num_groups`` normalised per sample.

    Raises: ValueError when ``num_channels`` is not divisible by ``num_groups``."""

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
