"""More normalisation layers: InstanceNorm1d/2d/3d, BatchNorm3d, RMSNorm and
LocalResponseNorm, with PyTorch 2.13's constructors, parameters, buffers and reprs."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import functional as F
from . import init
from .layers import _empty
from .module import Module
from .norm import _BatchNorm

__all__ = ["BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm", "LocalResponseNorm"]


class _NormBase(_BatchNorm):
    """PyTorch 2.13's ``_NormBase``: ``weight``/``bias`` ``(C)`` (ones, zeros) when
    ``affine`` (``bias=False`` leaves the bias out), ``running_mean`` (zeros),
    ``running_var`` (ones) and ``num_batches_tracked`` buffers when
    ``track_running_stats``; the repr shows ``bias=`` as PyTorch's."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, _bias=bias)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm3d(_NormBase):
    """Batch norm over ``(N, C, D, H, W)`` (statistics per channel C), as BatchNorm2d.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.BatchNorm3d(4)
        BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    _dims = (5,)


class _InstanceNorm(_NormBase):
    """Instance norm: each channel of each sample normalised over its spatial dims
    (:func:`dyngrad.nn.functional.instance_norm`); batch statistics in training or without
    running stats, the running stats in eval. Unbatched input (one dim fewer) is accepted.

    Raises:
        ValueError: a wrong input rank, or (with ``affine``) a channel count that is not
            ``num_features``.
    """

    _no_batch_dim = 0

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0, self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.ndim - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                "warning by not passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        if input.ndim == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over ``(N, C, L)`` or ``(C, L)``; PyTorch's defaults
    (``affine=False``, ``track_running_stats=False``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.InstanceNorm1d(2, affine=True)
        >>> m, list(m(dyngrad.randn(3, 2, 5)).shape)
        (InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False), [3, 2, 5])
    """

    _dims, _no_batch_dim = (2, 3), 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over ``(N, C, H, W)`` or ``(C, H, W)`` (see :class:`InstanceNorm1d`)."""

    _dims, _no_batch_dim = (3, 4), 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (see
    :class:`InstanceNorm1d`)."""

    _dims, _no_batch_dim = (4, 5), 4


class RMSNorm(Module):
    """Root-mean-square norm over the last dims ``normalized_shape``
    (:func:`dyngrad.nn.functional.rms_norm`); ``weight`` (ones) when
    ``elementwise_affine``. ``eps=None`` means ``finfo(input.dtype).eps`` at call time.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.RMSNorm([2, 3])
        RMSNorm((2, 3), eps=None, elementwise_affine=True)
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float | None = None,
        elementwise_affine: bool = True,
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
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Local response normalisation across channels
    (:func:`dyngrad.nn.functional.local_response_norm`); no parameters.

    Example:
        >>> from dyngrad import nn
        >>> nn.LocalResponseNorm(3)
        LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
