"""``grid_sample`` and ``affine_grid`` of :mod:`dyngrad.nn.functional` (re-exported there):
spatial transformers. The sampling kernel is :mod:`dyngrad.ops.grid_sample`; ``affine_grid``
is a matmul of a constant base grid with ``theta`` (so it differentiates to any order)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import _backend as B
from ..ops.grid_sample import grid_sample_raw
from ..tensor import Tensor

__all__ = ["grid_sample", "affine_grid"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` at the normalised positions of ``grid`` (PyTorch's spatial
    transformer sampling).

    Args:
        input (Tensor): ``(N, C, H_in, W_in)`` or ``(N, C, D_in, H_in, W_in)``.
        grid (Tensor): ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``, values in
            ``[-1, 1]`` for the input's extent; ``grid[..., 0]`` is x (the W dim), then y, z.
        mode (str): 'bilinear' (trilinear for 5-d), 'nearest' or 'bicubic' (4-d only).
        padding_mode (str): 'zeros', 'border' or 'reflection' for points outside the input.
        align_corners (bool): True: -1 and 1 are the centres of the corner pixels; False
            (the default, with PyTorch's warning when not given): their outer edges.

    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``; differentiable
        w.r.t. ``input`` and ``grid`` (twice, as PyTorch).

    Raises:
        ValueError: an unknown mode or padding_mode.
        RuntimeError: ranks, batch sizes or the grid's last dim that do not match, bicubic on
            5-d input, dtypes that differ.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> x = dyngrad.arange(4.0).reshape(1, 1, 2, 2)
        >>> F.grid_sample(x, dyngrad.zeros(1, 1, 1, 2), align_corners=False).item()
        1.5
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if input.ndim != grid.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected {input.ndim}D input and grid with same number of dimensions, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with "
            f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    nd = input.ndim - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have the same dtype, but input has {input.dtype.name} and "
            f"grid has {grid.dtype.name}"
        )
    if not input.is_floating_point():
        raise RuntimeError(f"grid_sampler(): expected a floating point input, got {input.dtype.name}")
    if min(input.shape[2:]) < 1:
        raise RuntimeError(
            f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
            f"{list(input.shape)}"
        )
    return grid_sample_raw(input, grid, mode, padding_mode, bool(align_corners))


def _linspace(n: int, align: bool, dtype: Any) -> np.ndarray:
    """PyTorch's base-grid coordinates along one dim: ``n`` points in [-1, 1] (pixel centres
    when not aligned: scaled by ``(n - 1) / n``)."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype)
    v = np.linspace(-1.0, 1.0, n, dtype=np.float64)
    if not align:
        v = v * (n - 1) / n
    return v.astype(dtype)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps, for :func:`grid_sample`.

    Args:
        theta (Tensor): ``(N, 2, 3)`` (2-d) or ``(N, 3, 4)`` (3-d) affine matrices.
        size: the target output size ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners (bool): as :func:`grid_sample` (False by default, with PyTorch's
            warning when not given).

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``: ``grid[n, ..] = theta[n] @ (x, y[, z],
        1)`` over the base grid (differentiable in ``theta`` to any order).

    Raises:
        ValueError: a non-floating theta, or one whose shape does not match ``size``.
        NotImplementedError: a size that is not 4-d or 5-d.
        RuntimeError: a batch size that differs from theta's.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> theta = dyngrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 0].tolist()
        [[-1.0, -1.0], [1.0, -1.0]]
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
    else:
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size "
            f"{size}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {theta.shape[-1]}] but "
            f"got: [{theta.shape[0]}, {theta.shape[-1]}]."
        )
    spatial = size[2:]
    nd = len(spatial)
    dt = B.np_dtype_of(theta._data)
    axes = [_linspace(n, bool(align_corners), dt) for n in spatial]  # D, H, W order
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([m for m in reversed(mesh)] + [np.ones(spatial, dt)], axis=-1)  # (*S, nd + 1): x, y[, z], 1
    base_t = Tensor._make(B.like(np.ascontiguousarray(base.reshape(-1, nd + 1)), theta._data))  # (a host constant)
    grid = base_t @ theta.transpose(1, 2)  # (N, prod(S), nd)
    return grid.reshape((size[0],) + spatial + (nd,))
