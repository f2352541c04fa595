"""Resampling: ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear), ``pixel_shuffle``, ``pixel_unshuffle`` (PyTorch's).

Every interpolation mode is separable: along each spatial dim the output is a fixed linear
map of the input, ``out = x @ A^T`` with ``A`` ``(out, in)`` built in NumPy from PyTorch's
source-coordinate rule, so the gradient is ``grad @ A`` (the matmul's backward) and every
derivative order, vmap and forward mode come from the ops. Nearest modes gather
(``index_select``). Source coordinates (``scale = in / out``, or ``1 / scale_factor`` when
given and ``recompute_scale_factor`` is not True):

* align_corners=True: ``src = dst (in - 1) / (out - 1)``;
* otherwise ``src = (dst + 0.5) scale - 0.5`` (clamped at 0 for the linear modes);
* nearest: ``floor(dst scale)``; nearest-exact: ``floor((dst + 0.5) scale)``;
* bicubic: Keys' cubic convolution with ``A = -0.75``, taps clamped to the border.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import ops
from ..tensor import Tensor
from .. import _backend as B

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle"]

_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_A = -0.75


def _scale(n_in: int, n_out: int, sf: float | None, align: bool) -> float:
    if align:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / sf if sf is not None else n_in / n_out


def _linear_matrix(n_in: int, n_out: int, sf: float | None, align: bool, dtype: Any) -> np.ndarray:
    A = np.zeros((n_out, n_in), dtype=np.float64)
    s = _scale(n_in, n_out, sf, align)
    for j in range(n_out):
        src = j * s if align else max((j + 0.5) * s - 0.5, 0.0)
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        lam = src - i0
        A[j, i0] += 1.0 - lam
        A[j, i1] += lam
    return A.astype(dtype)


def _cubic_weights(t: float) -> tuple[float, float, float, float]:
    a = _A
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    u = 1 - t
    w2 = ((a + 2) * u - (a + 3)) * u * u + 1
    w3 = ((a * (u + 1) - 5 * a) * (u + 1) + 8 * a) * (u + 1) - 4 * a
    return w0, w1, w2, w3


def _cubic_matrix(n_in: int, n_out: int, sf: float | None, align: bool, dtype: Any) -> np.ndarray:
    A = np.zeros((n_out, n_in), dtype=np.float64)
    s = _scale(n_in, n_out, sf, align)
    for j in range(n_out):
        src = j * s if align else (j + 0.5) * s - 0.5
        f = int(math.floor(src))
        for k, w in zip(range(f - 1, f + 3), _cubic_weights(src - f)):
            A[j, min(max(k, 0), n_in - 1)] += w
    return A.astype(dtype)


def _nearest_index(n_in: int, n_out: int, sf: float | None, exact: bool) -> np.ndarray:
    s = 1.0 / sf if sf is not None else n_in / n_out
    j = np.arange(n_out, dtype=np.float64)
    # PyTorch computes the source index in float32 (nearest_idx / nearest_neighbor_exact_compute_source_index)
    src = np.floor(((j + 0.5) if exact else j).astype(np.float32) * np.float32(s))
    return np.minimum(src.astype(np.int64), n_in - 1)


def _along(x: Tensor, dim: int, A: np.ndarray) -> Tensor:
    """Apply ``A`` ``(out, in)`` along ``dim`` of ``x``."""
    xt = x.transpose(dim, -1)
    return ops.matmul(xt, Tensor._make(B.like(A.T.copy(), x._data))).transpose(dim, -1)  # (a host constant)


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims of ``input`` ``(N, C, *spatial)`` (1 to 3 spatial dims).

    Args:
        input (Tensor): ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        size (int or tuple, optional): the output spatial size.
        scale_factor (float or tuple, optional): the multiplier of each spatial size (the
            output size is ``floor(in * scale_factor)``).
        mode (str): 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear'/'bicubic' (4-D),
            'trilinear' (5-D), 'area' (adaptive average pooling).
        align_corners (bool, optional): linear modes: map the corner pixels' centres onto
            each other (default False).
        recompute_scale_factor (bool, optional): compute the scale from the output size
            instead of using ``scale_factor``.
        antialias (bool): not supported (raises NotImplementedError when True).

    Returns:
        Tensor: ``(N, C, *size)``.

    Raises:
        ValueError: both or neither of size/scale_factor, align_corners with a nearest mode,
            lengths that do not match the spatial dims.
        NotImplementedError: a mode for another input rank, an unknown mode, antialias.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.interpolate(dyngrad.tensor([[[1., 2.]]]), scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    nd = input.dim() - 2
    if nd < 1 or nd > 3:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})"
        )
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif mode in _DIMS:
        if _DIMS[mode] != nd:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_DIMS[mode] + 2}D input")
        align_corners = bool(align_corners)
    else:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported in dyngrad")
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "only one of size or scale_factor should be defined" if size is not None
            else "either size or scale_factor should be defined"
        )
    spatial = tuple(input.shape[2:])
    if size is not None:
        out = tuple(int(v) for v in size) if isinstance(size, (tuple, list)) else (int(size),) * nd
        if len(out) != nd:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(spatial)} and output size of {list(out)}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        sfs: tuple = (None,) * nd
    else:
        sfs = tuple(float(v) for v in scale_factor) if isinstance(scale_factor, (tuple, list)) else (float(scale_factor),) * nd
        if len(sfs) != nd:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(spatial)} and scale_factor of shape {list(sfs)}. Please provide "
                "input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
            )
        out = tuple(int(math.floor(n * f)) for n, f in zip(spatial, sfs))
        if recompute_scale_factor:
            sfs = (None,) * nd
    if min(out) <= 0 or min(spatial) <= 0:
        names = ("D", "H", "W")[3 - nd:]
        fmt = lambda v: ", ".join(f"{n}: {x}" for n, x in zip(names, v))  # noqa: E731
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({fmt(spatial)}) output ({fmt(out)})"
        )
    if mode == "area":
        from ._functional_pool import adaptive_avg_pool2d

        if nd != 2:
            raise NotImplementedError("interpolate: mode='area' is supported for 4-D input only in dyngrad")
        return adaptive_avg_pool2d(input, out)
    x = input
    dt = B.np_dtype_of(x._data) if B.kind(x._data) == "f" else np.float64
    for k in range(nd):
        dim = 2 + k
        n_in, n_out, sf = spatial[k], out[k], sfs[k]
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_index(n_in, n_out, sf, mode == "nearest-exact")
            x = ops.index_select(x, dim, Tensor._make(B.like(idx, x._data)))  # (a host index map)
        elif mode == "bicubic":
            x = _along(x, dim, _cubic_matrix(n_in, n_out, sf, bool(align_corners), dt))
        else:
            x = _along(x, dim, _linear_matrix(n_in, n_out, sf, bool(align_corners), dt))
    return x


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated alias of :func:`interpolate` (as PyTorch's ``F.upsample``): resize to ``size`` or by
    ``scale_factor`` with ``mode``.

    Derivative: the transposed interpolation of ``grad_output`` (interpolation is linear in the
    input).

    Args:
        input (Tensor): ``(N, C, W)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        size (int or tuple, optional): the output's spatial size. Default: ``None``.
        scale_factor (float or tuple, optional): the multiplier of the spatial size. Default:
            ``None``.
        mode (str): as :func:`interpolate`. Default: ``'nearest'``.
        align_corners (bool, optional): for the interpolating modes. Default: ``None``.
    Returns:
        Tensor: ``(N, C, *out)`` with the new spatial sizes.
    Raises:
        ValueError: neither or both of ``size`` and ``scale_factor``, or ``align_corners`` with a
            non-interpolating mode.
        NotImplementedError: a mode / rank combination that does not exist.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.upsample(dyngrad.tensor([[[1.0, 2.0]]]), size=3, mode='linear', align_corners=True)
        tensor([[[1.0000, 1.5000, 2.0000]]])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange channels into space: ``(*, C r^2, H, W) -> (*, C, H r, W r)`` (sub-pixel convolution's
    rearrangement, Shi et al. 2016).

    Derivative: a permutation, so ``grad_input = pixel_unshuffle(grad_output, r)``.

    Args:
        input (Tensor): ``(*, C * r**2, H, W)``, at least 3 dims.
        upscale_factor (int): ``r``.
    Returns:
        Tensor: ``(*, C, H * r, W * r)``.
    Raises:
        RuntimeError: fewer than 3 dims, channels not divisible by ``r^2``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> list(F.pixel_shuffle(dyngrad.zeros(1, 8, 2, 3), 2).shape)
        [1, 2, 4, 6]
        >>> F.pixel_shuffle(dyngrad.arange(4.0).reshape(1, 4, 1, 1), 2)
        tensor([[[[0., 1.],
                  [2., 3.]]]])
    """
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0 or c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearrange space into channels, the inverse of :func:`pixel_shuffle`: ``(*, C, H r, W r) -> (*, C
    r^2, H, W)``.

    Derivative: a permutation, so ``grad_input = pixel_shuffle(grad_output, r)``.

    Args:
        input (Tensor): ``(*, C, H * r, W * r)``, at least 3 dims.
        downscale_factor (int): ``r``.
    Returns:
        Tensor: ``(*, C * r**2, H, W)``.
    Raises:
        RuntimeError: fewer than 3 dims, spatial sizes not divisible by ``r``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.pixel_unshuffle(dyngrad.arange(16.0).reshape(1, 1, 4, 4), 2).shape
        dyngrad.Size([1, 4, 2, 2])
    """
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)")
    *lead, c, h, w = input.shape
    if r <= 0 or h % r or w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but input.size(-2)={h} "
            f"and input.size(-1)={w} are not divisible by {r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)
