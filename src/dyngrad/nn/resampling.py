"""Resampling layers: ``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d``,
``PixelShuffle``, ``PixelUnshuffle`` (PyTorch's), over ``nn/_functional_resample.py``."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]


class Upsample(Module):
    """Upsample 1-D, 2-D or 3-D data to ``size`` or by ``scale_factor``:
    :func:`dyngrad.nn.functional.interpolate` as a layer (same arguments).

    Derivative: interpolation is linear in the input, so ``grad_input`` is the transposed
    interpolation of ``grad_output`` (each output's gradient added back to the inputs it was
    computed from, with the same weights; PyTorch's ``upsample_*_backward``).

    Args:
        size (int or tuple, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or tuple, optional): the multiplier for the spatial size. Default:
            ``None``.
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'``, ``'bilinear'``, ``'bicubic'``,
            ``'trilinear'`` or ``'area'``. Default: ``'nearest'``.
        align_corners (bool, optional): for the interpolating modes, align the corner pixels'
            centres (``True``) or their edges (``False``). Default: ``None`` (False).
        recompute_scale_factor (bool, optional): compute the interpolation from the output size
            rather than the given scale. Default: ``None``.
    Raises:
        ValueError: (at call time) when neither or both of ``size`` and ``scale_factor`` are given,
            or ``align_corners`` is set for a non-interpolating mode.
        NotImplementedError: (at call time) for an unknown mode or an input rank the mode does not
            take (``'linear'`` 3-d, ``'bilinear'``/``'bicubic'`` 4-d, ``'trilinear'`` 5-d).
    Shape:
        - Input: ``(N, C, W_in)``, ``(N, C, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        - Output: ``(N, C, W_out)``, ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``,
          with ``X_out = size`` or ``floor(X_in * scale_factor)``.

    Example:
        >>> import dyngrad
        >>> up = dyngrad.nn.Upsample(scale_factor=2, mode="nearest")
        >>> up(dyngrad.tensor([[[1., 2.]]]))
        tensor([[[1., 1., 2., 2.]]])
        >>> dyngrad.nn.Upsample(scale_factor=2, mode="linear", align_corners=True)(dyngrad.tensor([[[1., 2.]]]))
        tensor([[[1.0000, 1.3333, 1.6667, 2.0000]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """2-D nearest-neighbour upsampling: ``Upsample(size, scale_factor, mode='nearest')``.

    Derivative: each output's gradient is added back to the input pixel it copies.

    Args:
        size (int or tuple, optional): the output's ``(H_out, W_out)``. Default: ``None``.
        scale_factor (float or tuple, optional): the multiplier for ``H`` and ``W``. Default:
            ``None``.
    Raises:
        ValueError: (at call time) when neither or both of ``size`` and ``scale_factor`` are given.
    Shape:
        - Input: ``(N, C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)``, ``H_out = size[0]`` or ``floor(H_in * scale_factor)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.UpsamplingNearest2d(scale_factor=2)(dyngrad.tensor([[[[1., 2.]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling with aligned corners: ``Upsample(size, scale_factor, mode='bilinear',
    align_corners=True)``.

    Derivative: the transposed bilinear interpolation of ``grad_output`` (PyTorch's
    ``upsample_bilinear2d_backward``).

    Args:
        size (int or tuple, optional): the output's ``(H_out, W_out)``. Default: ``None``.
        scale_factor (float or tuple, optional): the multiplier for ``H`` and ``W``. Default:
            ``None``.
    Raises:
        ValueError: (at call time) when neither or both of ``size`` and ``scale_factor`` are given.
        NotImplementedError: (at call time) for an input that is not 4-d.
    Shape:
        - Input: ``(N, C, H_in, W_in)``.
        - Output: ``(N, C, H_out, W_out)``, ``H_out = size[0]`` or ``floor(H_in * scale_factor)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.UpsamplingBilinear2d(scale_factor=2)(dyngrad.tensor([[[[1., 2.]]]]))
        tensor([[[[1.0000, 1.3333, 1.6667, 2.0000],
                  [1.0000, 1.3333, 1.6667, 2.0000]]]])
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """Rearrange channels into space: ``(*, C * r**2, H, W) -> (*, C, H * r, W * r)`` with ``r =
    upscale_factor`` (sub-pixel convolution, Shi et al. 2016). See
    :func:`dyngrad.nn.functional.pixel_shuffle`.

    Derivative: a permutation (reshape and permute), so ``grad_input = pixel_unshuffle(grad_output,
    r)``.

    Args:
        upscale_factor (int): ``r``.
    Raises:
        RuntimeError: (at call time) for an input with fewer than 3 dims or channels not divisible
            by ``r**2``.
    Shape:
        - Input: ``(*, C_in, H_in, W_in)``, ``C_in = C_out * r**2``.
        - Output: ``(*, C_out, H_in * r, W_in * r)``.

    Example:
        >>> import dyngrad
        >>> list(dyngrad.nn.PixelShuffle(2)(dyngrad.zeros(1, 8, 2, 3)).shape)
        [1, 2, 4, 6]
        >>> dyngrad.nn.PixelShuffle(2)(dyngrad.arange(4.0).reshape(1, 4, 1, 1))
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange space into channels, the inverse of :class:`PixelShuffle`: ``(*, C, H * r, W * r) ->
    (*, C * r**2, H, W)`` with ``r = downscale_factor``. See
    :func:`dyngrad.nn.functional.pixel_unshuffle`.

    Derivative: a permutation, so ``grad_input = pixel_shuffle(grad_output, r)``.

    Args:
        downscale_factor (int): ``r``.
    Raises:
        RuntimeError: (at call time) for an input with fewer than 3 dims, or a height or width not
            divisible by ``r``.
    Shape:
        - Input: ``(*, C_in, H_in, W_in)``, ``H_in`` and ``W_in`` divisible by ``r``.
        - Output: ``(*, C_in * r**2, H_in / r, W_in / r)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.PixelUnshuffle(2)(dyngrad.arange(4.0).reshape(1, 1, 2, 2)).flatten()
        tensor([0., 1., 2., 3.])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
