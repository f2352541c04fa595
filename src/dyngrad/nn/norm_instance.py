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
    """Batch normalisation over (N, C, D, H, W): ``y = (x - mean) / sqrt(var + eps) * weight + bias``,
    the statistics per channel ``C`` over the batch (and spatial) dims; in training the batch's
    (biased variance for normalising, unbiased for the running average), in eval the running ones
    (Ioffe & Szegedy 2015).

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
        bias (bool): learn the bias (with ``affine``); keyword-only. Default: ``True``.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, or a single value per channel in
            training.
        RuntimeError: (at call time) when the input's channel count is not ``num_features``.
    Shape:
        - Input: ``(N, C, D, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.BatchNorm3d(4)
        >>> m
        BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> m(dyngrad.randn(2, 4, 2, 2, 2)).shape
        dyngrad.Size([2, 4, 2, 2, 2])
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
    """Instance normalisation over (N, C, L) or (C, L) (unbatched): each channel of each sample
    normalised over its spatial dims (Ulyanov et al. 2016); batch statistics in training or without
    running stats, the running stats in eval. PyTorch's defaults: ``affine=False``,
    ``track_running_stats=False``. See :func:`dyngrad.nn.functional.instance_norm`.

    Derivative: the layer-norm derivative per sample and channel (``grad_input = (w / sigma) * (g -
    mean(g) - x_hat * mean(g * x_hat))``, the means over the spatial dims; PyTorch computes it as a
    batch norm of the reshaped input).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        momentum (float or None): the running stats' update factor. Default: ``0.1``.
        affine (bool): learn per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``False``.
        track_running_stats (bool): keep running mean and variance for eval mode. Default:
            ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
        bias (bool): learn the bias (with ``affine``); keyword-only. Default: ``True``.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, a channel count other than
            ``num_features`` with ``affine`` (a warning without), or a single spatial element in
            training.
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.InstanceNorm1d(2, affine=True)
        >>> m, list(m(dyngrad.randn(3, 2, 5)).shape)
        (InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=False), [3, 2, 5])
    """

    _dims, _no_batch_dim = (2, 3), 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or (C, H, W) (unbatched): each channel of each sample
    normalised over its spatial dims (Ulyanov et al. 2016); batch statistics in training or without
    running stats, the running stats in eval. PyTorch's defaults: ``affine=False``,
    ``track_running_stats=False``. See :func:`dyngrad.nn.functional.instance_norm`.

    Derivative: the layer-norm derivative per sample and channel (``grad_input = (w / sigma) * (g -
    mean(g) - x_hat * mean(g * x_hat))``, the means over the spatial dims; PyTorch computes it as a
    batch norm of the reshaped input).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        momentum (float or None): the running stats' update factor. Default: ``0.1``.
        affine (bool): learn per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``False``.
        track_running_stats (bool): keep running mean and variance for eval mode. Default:
            ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
        bias (bool): learn the bias (with ``affine``); keyword-only. Default: ``True``.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, a channel count other than
            ``num_features`` with ``affine`` (a warning without), or a single spatial element in
            training.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> y = nn.InstanceNorm2d(1)(dyngrad.tensor([[[[1.0, 3.0]]]]))
        >>> [round(v, 4) for v in y.flatten().tolist()]
        [-1.0, 1.0]
    """

    _dims, _no_batch_dim = (3, 4), 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation over (N, C, D, H, W) or (C, D, H, W) (unbatched): each channel of each
    sample normalised over its spatial dims (Ulyanov et al. 2016); batch statistics in training or
    without running stats, the running stats in eval. PyTorch's defaults: ``affine=False``,
    ``track_running_stats=False``. See :func:`dyngrad.nn.functional.instance_norm`.

    Derivative: the layer-norm derivative per sample and channel (``grad_input = (w / sigma) * (g -
    mean(g) - x_hat * mean(g * x_hat))``, the means over the spatial dims; PyTorch computes it as a
    batch norm of the reshaped input).

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: ``1e-5``.
        momentum (float or None): the running stats' update factor. Default: ``0.1``.
        affine (bool): learn per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``False``.
        track_running_stats (bool): keep running mean and variance for eval mode. Default:
            ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
        bias (bool): learn the bias (with ``affine``); keyword-only. Default: ``True``.
    Raises:
        ValueError: (at call time) for an input of the wrong rank, a channel count other than
            ``num_features`` with ``affine`` (a warning without), or a single spatial element in
            training.
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.InstanceNorm3d(2)(dyngrad.randn(2, 2, 2, 3)).shape     # unbatched (C, D, H, W)
        dyngrad.Size([2, 2, 2, 3])
    """

    _dims, _no_batch_dim = (4, 5), 4


class RMSNorm(Module):
    """Root-mean-square normalisation over the last dims ``normalized_shape``: ``y = x /
    sqrt(mean(x**2) + eps) * weight`` (Zhang & Sennrich 2019); ``weight`` ones when
    ``elementwise_affine``. See :func:`dyngrad.nn.functional.rms_norm`.

    Derivative: ``grad_input = (w * g - x_hat * mean(w * g * x_hat)) / rms`` with ``x_hat = x /
    rms`` and the mean over the normalised dims (composed of ``pow``, ``mean``, ``rsqrt`` and
    ``mul``, as PyTorch's ``rms_norm``).

    Args:
        normalized_shape (int or tuple of int): the trailing shape to normalise over.
        eps (float, optional): added to the mean square; ``None`` means ``finfo(input.dtype).eps``
            at call time. Default: ``None``.
        elementwise_affine (bool): learn ``weight`` of ``normalized_shape``. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the weight's dtype. Default: the default float dtype.
    Raises:
        RuntimeError: (at call time) when the input's trailing shape is not ``normalized_shape``.
    Shape:
        - Input: ``(*, *normalized_shape)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.RMSNorm([2, 3])
        RMSNorm((2, 3), eps=None, elementwise_affine=True)
        >>> nn.RMSNorm(3)(dyngrad.tensor([[1.0, 2.0, 2.0]]))
        tensor([[0.5774, 1.1547, 1.1547]], grad_fn=<MulBackward0>)
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
    """Local response normalisation across channels: ``b_c = a_c / (k + alpha / size * sum_{c'}
    a_{c'}**2) ** beta``, the sum over the ``size`` neighbouring channels (zero-padded; Krizhevsky
    et al. 2012). See :func:`dyngrad.nn.functional.local_response_norm`. No parameters.

    Derivative: through the ops it is built from (``pow``, an average pooling over channels,
    ``div``), as PyTorch's ``local_response_norm``.

    Args:
        size (int): the number of neighbouring channels summed, ``>= 1``.
        alpha (float): the scale. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive constant. Default: ``1.0``.
    Raises:
        ValueError: (at call time) for an input with fewer than 3 dims.
        RuntimeError: (at call time) for ``size < 1``.
    Shape:
        - Input: ``(N, C, *)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LocalResponseNorm(3)
        LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)
        >>> nn.LocalResponseNorm(2)(dyngrad.arange(4.0).reshape(1, 4, 1)).flatten()
        tensor([0.0000, 1.0000, 1.9996, 2.9985])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
